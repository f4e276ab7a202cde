/* The EDAC driver named for a CPU is its platform's (the kernel's drivers/edac CPU tables), and
 * none is named where Linux has no module to load. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/hints.h"

static const char *module_for(const char *vendor, int family, int model)
{
    struct cpu_info cpu = {.vendor = (char *)vendor, .family = family, .model_number = model};
    return hint_edac_module(&cpu);
}

Test(hints, edac_module_per_platform)
{
    cr_expect_str_eq(module_for("AuthenticAMD", 0x19, 0x11), "amd64_edac");     /* EPYC Genoa */
    cr_expect_str_eq(module_for("HygonGenuine", 0x18, 0x00), "amd64_edac");
    cr_expect_str_eq(module_for("GenuineIntel", 6, 0x55), "skx_edac");          /* Skylake/Cascade Lake SP */
    cr_expect_str_eq(module_for("GenuineIntel", 6, 0x6A), "i10nm_edac");        /* Ice Lake SP */
    cr_expect_str_eq(module_for("GenuineIntel", 6, 0x8F), "i10nm_edac");        /* Sapphire Rapids */
    cr_expect_str_eq(module_for("GenuineIntel", 6, 0xCF), "i10nm_edac");        /* Emerald Rapids */
    cr_expect_str_eq(module_for("GenuineIntel", 6, 0x3F), "sb_edac");           /* Haswell-EP */
    cr_expect_null(module_for("GenuineIntel", 6, 0x9E));                        /* a desktop Coffee Lake */
    cr_expect_null(module_for("ARM", -1, -1));
    cr_expect_null(module_for(NULL, -1, -1));
}

Test(hints, fixes_fit_where_the_audit_looks_from)
{
    struct machine m = {.source = (char *)"evidence"};
    cr_expect_null(strstr(hint_smbios_fix(&m), "gpuvet audit"));
    cr_expect_null(strstr(hint_measure_fix(&m), "--bench-quick"));
    cr_expect_null(strstr(hint_load_check_fix(&m), "--load-check"));
    m.source = (char *)"sysroot:/tmp/box42";
    cr_expect_not_null(strstr(hint_smbios_fix(&m), "gpuvet snapshot"));
    cr_expect_null(strstr(hint_measure_fix(&m), "--bench-quick"));
    m.source = (char *)"live";
    cr_expect_not_null(strstr(hint_smbios_fix(&m), "sudo gpuvet audit"));
    cr_expect_not_null(strstr(hint_measure_fix(&m), "--bench-quick"));
    cr_expect_not_null(strstr(hint_load_check_fix(&m), "--load-check"));
}

/* Rules ask the model where it was read (model/machine.c), never compare its source name. */
Test(hints, the_model_says_where_the_machine_was_read)
{
    struct machine m = {.source = (char *)"live"};
    cr_expect(machine_is_live(&m));
    cr_expect_not(machine_from_sysroot(&m) || machine_from_evidence(&m));
    m.source = (char *)"sysroot:/srv/box42";
    cr_expect(machine_from_sysroot(&m));
    cr_expect_not(machine_is_live(&m) || machine_from_evidence(&m));
    m.source = (char *)"evidence";
    cr_expect(machine_from_evidence(&m));
    cr_expect_not(machine_is_live(&m) || machine_from_sysroot(&m));
    m.source = NULL; /* a saved audit without a source: none of the three */
    cr_expect_not(machine_is_live(&m) || machine_from_sysroot(&m) || machine_from_evidence(&m));
    struct gpu_set gpus = {.source = (char *)"nvidia-smi:/srv/box42/nvidia-smi.xml"};
    cr_expect(gpu_set_from_nvidia_smi(&gpus));
    gpus.source = (char *)"nvml";
    cr_expect_not(gpu_set_from_nvidia_smi(&gpus));
    gpus.source = NULL;
    cr_expect_not(gpu_set_from_nvidia_smi(&gpus));
}
