/* CPU rules. */
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

void check_cpu_governor(struct audit_ctx *ctx)
{
    const struct kernel_info *k = &ctx->machine->kernel;
    if (!k->cpufreq_present) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    machine_from_evidence(ctx->machine) ? _("cpufreq governor not in the evidence files")
                    : ctx->machine->virt.vm ? _("no cpufreq in this VM: the hypervisor owns the CPU clocks")
                                          : _("no cpufreq driver: the firmware owns the CPU clocks (check the BIOS "
                                            "power profile)"));
        return;
    }
    json_t *ev = json_pack("{s:s, s:i, s:i}", "governor", k->governor, "cpus", k->governor_cpus, "cpus_other",
                           k->governor_other);
    if (!strcmp(k->governor, "performance") && k->governor_other == 0)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("cpufreq governor is performance"));
    else
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("sudo cpupower frequency-set -g performance"),
                    _("cpufreq governor is %s on %d clock domains%s"), k->governor, k->governor_cpus,
                    k->governor_other ? _(" (others differ)") : "");
}
