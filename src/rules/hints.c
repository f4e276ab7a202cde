#include "rules/hints.h"

#include <string.h>
#include "util/i18n.h"

/* Intel family-6 server models per EDAC driver, from the kernel's drivers/edac/{sb,skx,i10nm,pnd2}
 * *.c CPU tables (arch/x86/include/asm/intel-family.h names). */
static const struct {
    int model;
    const char *module;
} intel_edac[] = {
    {0x2D, "sb_edac"},    {0x3E, "sb_edac"},    {0x3F, "sb_edac"},    {0x4F, "sb_edac"}, /* SNB/IVB/HSW/BDW-X */
    {0x56, "sb_edac"},    {0x57, "sb_edac"},    {0x85, "sb_edac"},                       /* BDW-D, KNL, KNM */
    {0x55, "skx_edac"},                                     /* Skylake, Cascade Lake, Cooper Lake Xeon */
    {0x6A, "i10nm_edac"}, {0x6C, "i10nm_edac"}, {0x86, "i10nm_edac"},  /* Ice Lake SP/D, Snow Ridge */
    {0x8F, "i10nm_edac"}, {0xCF, "i10nm_edac"},             /* Sapphire Rapids, Emerald Rapids */
    {0xAD, "i10nm_edac"}, {0xAE, "i10nm_edac"}, {0xAF, "i10nm_edac"}, /* Granite Rapids, Sierra Forest */
    {0x5F, "pnd2_edac"},                                    /* Denverton */
};

const char *hint_edac_module(const struct cpu_info *cpu)
{
    if (!cpu->vendor)
        return NULL;
    if (!strcmp(cpu->vendor, "AuthenticAMD") || !strcmp(cpu->vendor, "HygonGenuine"))
        return "amd64_edac";
    if (!strcmp(cpu->vendor, "GenuineIntel") && cpu->family == 6)
        for (size_t i = 0; i < sizeof intel_edac / sizeof intel_edac[0]; i++)
            if (intel_edac[i].model == cpu->model_number)
                return intel_edac[i].module;
    return NULL;
}

const char *hint_smbios_fix(const struct machine *m)
{
    if (machine_from_evidence(m))
        return _("ask for `sudo dmidecode > dmi.txt` from the machine and add --dmidecode dmi.txt");
    if (machine_from_sysroot(m))
        return _("record the tree as root (`sudo gpuvet snapshot DIR`), or add --dmidecode dmi.txt from "
               "`sudo dmidecode` on that machine");
    return _("sudo gpuvet audit (SMBIOS is readable by root only), or: sudo dmidecode > dmi.txt; "
           "gpuvet audit --dmidecode dmi.txt");
}

const char *hint_measure_fix(const struct machine *m)
{
    if (machine_is_live(m))
        return _("gpuvet audit --bench-quick (or gpuvet bench --json > bench.json, then gpuvet audit --bench "
               "bench.json)");
    return _("on the machine: gpuvet bench --json > bench.json; then add --bench bench.json to this audit");
}

/* The GPU's own bench: `audit --bench-quick` runs it (quick) where a GPU is there to run on. */
const char *hint_measure_gpu_fix(const struct machine *m)
{
    if (machine_is_live(m))
        return _("gpuvet audit --bench-quick (it runs the quick GPU bench where the NVIDIA driver and CUDA are "
                 "there), or gpuvet bench gpu --json > gpu.json, then gpuvet audit --bench gpu.json");
    return _("on the machine: gpuvet bench gpu --json > gpu.json; then add --bench gpu.json to this audit");
}

const char *hint_load_check_fix(const struct machine *m)
{
    if (machine_from_evidence(m))
        return _("ask for `nvidia-smi -q -x` taken while a job runs (idle GPUs drop their link speed)");
    if (machine_is_live(m))
        return _("re-read under load: `gpuvet audit --load-check` (NVIDIA), or `nvidia-smi -q -d PCIE` while a job runs");
    return _("re-read under load on the machine: `gpuvet audit --load-check` (NVIDIA), or `nvidia-smi -q -d PCIE` "
           "while a job runs");
}
