/* Fix hints that depend on where the audit looks from (live, recorded tree, evidence files) and on
 * the platform, so no finding tells a provider's file to run `sudo gpuvet audit`, or an AMD box to
 * load an Intel driver. */
#ifndef GPUVET_RULES_HINTS_H
#define GPUVET_RULES_HINTS_H

#include "model/machine.h"

/* The kernel's EDAC driver for this CPU (drivers/edac in the kernel source: amd64_edac,
 * sb_edac, skx_edac, i10nm_edac, pnd2_edac); NULL where none is known (ARM, POWER: memory errors
 * reach Linux through firmware, APEI/GHES, not a module to load). */
const char *hint_edac_module(const struct cpu_info *cpu);

/* How to get the SMBIOS table (DIMMs, ECC, power supplies) into this audit. */
const char *hint_smbios_fix(const struct machine *m);

/* How to get a measurement (`gpuvet bench`) into this audit. */
const char *hint_measure_fix(const struct machine *m);
/* The same for what `gpuvet bench gpu` measures. */
const char *hint_measure_gpu_fix(const struct machine *m);

/* How to re-read an idle GPU's link under load, from where this audit looks. */
const char *hint_load_check_fix(const struct machine *m);

#endif
