/* POWER_SUPPLY: redundancy, state and headroom of the power supplies (SMBIOS type 39). */
#include <stdio.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

/* Sum of the GPUs' power limits; 0 when any accelerator's limit is unknown (a GPU without NVIDIA
 * facts, or no NVIDIA source at all): a partial sum would pass a box that has no headroom. */
static double gpu_power_limits(const struct machine *m)
{
    if (m->gpus.count == 0 || m->gpus.count < machine_accelerator_count(m))
        return 0;
    double sum = 0;
    for (int i = 0; i < m->gpus.count; i++) {
        if (m->gpus.items[i].power_limit_w <= 0)
            return 0;
        sum += m->gpus.items[i].power_limit_w;
    }
    return sum;
}

void check_power_supply(struct audit_ctx *ctx)
{
    const struct power_info *p = &ctx->machine->power;
    if (!p->known || p->nsupplies == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("power supplies unknown: %s"),
                    !p->known ? (p->unknown_reason ? _(p->unknown_reason) : _("no SMBIOS table"))
                              : _("the SMBIOS table lists no power supply (many boards leave type 39 out)"));
        return;
    }
    json_t *supplies = json_array();
    int present = 0, capacity = 0, largest = 0;
    bool watts_known = true;
    for (int i = 0; i < p->nsupplies; i++) {
        const struct power_supply *s = &p->supplies[i];
        json_array_append_new(supplies, json_pack("{s:s?, s:i, s:b, s:s?}", "name", s->name, "max_watts", s->max_watts,
                                                  "present", s->present, "status", s->status));
        if (!s->present)
            continue;
        present++;
        watts_known = watts_known && s->max_watts > 0;
        capacity += s->max_watts > 0 ? s->max_watts : 0;
        largest = s->max_watts > largest ? s->max_watts : largest;
        if (s->status && strcmp(s->status, "OK")) {
            char subject[96];
            snprintf(subject, sizeof subject, "power supply %s", s->name ? s->name : "?");
            finding_add(ctx, SEV_WARN, subject, json_pack("{s:s, s:i}", "status", s->status, "max_watts", s->max_watts),
                        _("check the supply's cable and the BMC's event log; replace it"),
                        _("%s reports status %s"), s->name ? s->name : _("a power supply"), s->status);
        }
    }
    if (present <= 1)
        finding_add(ctx, SEV_INFO, "machine", json_pack("{s:i, s:O}", "present", present, "supplies", supplies), NULL,
                    _("%d power supply present: no redundancy, its failure stops the machine"), present);
    /* With several supplies the load must fit with one of them lost (N+1). */
    int usable = present > 1 ? capacity - largest : capacity;
    double gpu_watts = gpu_power_limits(ctx->machine);
    json_t *ev = json_pack("{s:o, s:i, s:i, s:o, s:s?, s:o}", "supplies", supplies, "capacity_watts", capacity,
                           "capacity_one_lost_watts", usable, "cpu_tdp_watts",
                           p->cpu_tdp_watts > 0 ? json_real(p->cpu_tdp_watts) : json_null(), "cpu_tdp_source",
                           p->cpu_tdp_source, "gpu_power_watts",
                           gpu_watts > 0 ? json_real(gpu_watts) : json_null());
    if (!watts_known || usable <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL, _("power headroom unknown: a supply does not give its capacity"));
    } else if (gpu_watts <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, _("run on the machine with the NVIDIA driver loaded"),
                    _("power headroom unknown: the GPUs' power limits are not known (%d W of supplies%s)"), capacity,
                    present > 1 ? _(", redundant") : "");
    } else {
        double demand = gpu_watts + (p->cpu_tdp_watts > 0 ? p->cpu_tdp_watts : 0);
        double limit = usable * ctx->thresholds->power_headroom_ratio;
        if (demand > limit)
            finding_add(ctx, ctx_severity(ctx), "machine", ev,
                        _("ask for larger or more supplies, or cap GPU power (nvidia-smi -pl WATTS)"),
                        _("GPU power limits%s (%.0f W) exceed %.0f%% of the %d W the supplies give%s: under load the "
                        "machine throttles or trips"),
                        p->cpu_tdp_watts > 0 ? _(" plus CPU TDP") : "", demand,
                        ctx->thresholds->power_headroom_ratio * 100, usable, present > 1 ? _(" with one lost") : "");
        else
            finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%.0f W of GPU%s power fits the %d W of supplies"), demand,
                        p->cpu_tdp_watts > 0 ? _(" and CPU") : "", usable);
    }
}
