/* NVIDIA GPU rules, from NVML or nvidia-smi evidence (model/gpu.h). PCIE_LINK_DEGRADED for GPUs
 * with NVML/XML link facts is judged here, called from rules/pcie.c, so each GPU is judged once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "rules/hints.h"
#include "util/i18n.h"
#include "util/sanitize.h"

static json_t *tristate_json(int v) { return v == GPU_UNKNOWN ? json_null() : json_boolean(v == GPU_ON); }
static json_t *count_json(long long v) { return v >= 0 ? json_integer(v) : json_null(); }

/* "P8", or "P?" when unknown. */
static const char *pstate_text(int pstate, char buf[8])
{
    if (pstate < 0)
        snprintf(buf, 8, "P?");
    else
        snprintf(buf, 8, "P%d", pstate);
    return buf;
}

static json_t *link_evidence(const struct gpu *g)
{
    char p[8];
    json_t *e = json_pack("{s:o, s:o, s:o, s:o, s:o, s:s}", "current_gen", count_json(g->pcie_gen_current), "max_gen",
                          count_json(g->pcie_gen_max), "current_width", count_json(g->pcie_width_current), "max_width",
                          count_json(g->pcie_width_max), "gpu_max_gen", count_json(g->pcie_gen_gpu_max), "pstate",
                          pstate_text(g->pstate, p));
    json_object_set_new(e, "gpu_idle", g->clock_events_known ? json_boolean(g->clock_events & GPU_EVENT_GPU_IDLE)
                                                             : json_null());
    if (g->load.done)
        json_object_set_new(e, "under_load", json_pack("{s:i, s:i, s:s, s:f}", "gen", g->load.gen, "width",
                                                       g->load.width, "pstate", pstate_text(g->load.pstate, p),
                                                       "h2d_bytes_s", g->load.h2d_bytes_s));
    else if (g->load.error)
        json_object_set_new(e, "load_check_error", json_text(g->load.error));
    return e;
}

static void judge_link_speed(struct audit_ctx *ctx, const struct gpu *g)
{
    char fix[256], p[8];
    if (g->load.done) {
        if (g->load.gen >= g->pcie_gen_max)
            finding_add(ctx, SEV_PASS, g->bus_id, link_evidence(g), NULL,
                        _("Gen%d at idle was power saving: the link reached Gen%d x%d under load (%s)"),
                        g->pcie_gen_current, g->load.gen, g->load.width, pstate_text(g->load.pstate, p));
        else {
            snprintf(fix, sizeof fix,
                     _("reseat the card or riser and check the slot's link-speed setting in the BIOS; confirm with "
                     "`nvidia-smi -i %s -q -d PCIE` while a job runs"), g->bus_id);
            finding_add(ctx, ctx_severity(ctx), g->bus_id, link_evidence(g), fix,
                        _("really degraded: the link stayed at Gen%d of Gen%d under load (%s)"), g->load.gen,
                        g->pcie_gen_max, pstate_text(g->load.pstate, p));
        }
        return;
    }
    bool busy = g->pstate == 0 && g->clock_events_known && !(g->clock_events & GPU_EVENT_GPU_IDLE);
    if (busy) {
        snprintf(fix, sizeof fix, _("reseat the card or riser and check the slot's link-speed setting in the BIOS; then %s"),
                 hint_load_check_fix(ctx->machine));
        finding_add(ctx, ctx_severity(ctx), g->bus_id, link_evidence(g), fix,
                    _("link at Gen%d of Gen%d while the GPU is busy (P0, not idle): not power saving"), g->pcie_gen_current,
                    g->pcie_gen_max);
        return;
    }
    finding_add(ctx, SEV_INFO, g->bus_id, link_evidence(g), hint_load_check_fix(ctx->machine),
                _("link at Gen%d of Gen%d in %s: GPUs drop the link to save power when idle; not yet confirmed under load"),
                g->pcie_gen_current, g->pcie_gen_max, pstate_text(g->pstate, p));
    if (g->load.error)
        finding_add(ctx, SEV_UNKNOWN, g->bus_id, link_evidence(g), NULL, _("the load check could not run: %s"),
                    _(g->load.error));
}

void check_gpu_link_degraded(struct audit_ctx *ctx)
{
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        if (!gpu_link_known(g)) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, NULL, NULL, _("the GPU's link generation and width were not reported"));
            continue;
        }
        if (g->pcie_width_current > 0 && g->pcie_width_max > 0 && g->pcie_width_current < g->pcie_width_max) {
            char fix[256];
            snprintf(fix, sizeof fix,
                     _("reseat the card or its riser (x1 risers are mining hardware), check the slot's bifurcation "
                     "setting in the BIOS; confirm with `nvidia-smi -i %s -q -d PCIE`"), g->bus_id);
            finding_add(ctx, ctx_severity(ctx), g->bus_id, link_evidence(g), fix,
                        _("GPU link runs at x%d of x%d: %.0f%% of its bandwidth (a narrow link is a fault at any time)"),
                        g->pcie_width_current, g->pcie_width_max, 100.0 * g->pcie_width_current / g->pcie_width_max);
        } else if (g->pcie_gen_current > 0 && g->pcie_gen_max > 0 && g->pcie_gen_current < g->pcie_gen_max) {
            judge_link_speed(ctx, g);
        } else {
            finding_add(ctx, SEV_PASS, g->bus_id, link_evidence(g), NULL, _("GPU link at Gen%d x%d, its max"),
                        g->pcie_gen_current, g->pcie_width_current);
        }
    }
}

/* Every GPU rule first: no GPU facts, but an NVIDIA device the driver should describe. */
static bool gpu_facts_missing(struct audit_ctx *ctx)
{
    const struct gpu_set *s = &ctx->machine->gpus;
    if (s->count > 0)
        return false;
    if (s->unknown_reason)
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "reason", s->unknown_reason),
                    _("install the NVIDIA driver (and load it: `nvidia-smi` must list the GPUs), or give "
                    "`--nvidia-smi FILE` with `nvidia-smi -q -x` output"),
                    _("GPU facts unknown: %s"), _(s->unknown_reason));
    return true;
}

void check_gpu_ecc_off(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        bool datacenter = gpu_is_datacenter(g);
        json_t *ev = json_pack("{s:o, s:o, s:b, s:s?}", "current", tristate_json(g->ecc_current), "pending",
                               tristate_json(g->ecc_pending), "datacenter", datacenter, "name", g->name);
        char fix[160];
        snprintf(fix, sizeof fix, _("`sudo nvidia-smi -i %s -e 1`, then reset the GPU or reboot"), g->bus_id);
        if (g->ecc_current == GPU_ON)
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("ECC on"));
        else if (g->ecc_current == GPU_OFF && g->ecc_pending == GPU_ON)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, _("reset the GPU or reboot to apply it"),
                        _("ECC off now, on after the next GPU reset"));
        else if (g->ecc_current == GPU_OFF)
            finding_add(ctx, datacenter ? ctx_severity(ctx) : SEV_INFO, g->bus_id, ev, fix,
                        datacenter ? _("ECC off on a datacenter GPU: memory bit flips go undetected")
                                   : _("ECC off (a workstation card's default; turn it on for long training runs)"));
        else if (datacenter)
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, ev, NULL, _("ECC mode not reported"));
        else
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL, _("no ECC reported (N/A): consumer GPUs have no ECC memory"));
    }
}

void check_gpu_retired_pages(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    const struct thresholds *t = ctx->thresholds;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        json_t *ev = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "ecc_uncorrected_volatile",
                               count_json(g->ecc_uncorrected_volatile), "ecc_uncorrected_aggregate",
                               count_json(g->ecc_uncorrected_aggregate), "ecc_corrected_volatile",
                               count_json(g->ecc_corrected_volatile), "ecc_corrected_aggregate",
                               count_json(g->ecc_corrected_aggregate), "retired_sbe", count_json(g->retired_sbe),
                               "retired_dbe", count_json(g->retired_dbe), "retirement_pending",
                               tristate_json(g->retired_pending), "remapped_correctable",
                               count_json(g->remapped_correctable), "remapped_uncorrectable",
                               count_json(g->remapped_uncorrectable), "remap_pending", tristate_json(g->remap_pending),
                               "remap_failure", tristate_json(g->remap_failure));
        int retired = (g->retired_sbe > 0 ? g->retired_sbe : 0) + (g->retired_dbe > 0 ? g->retired_dbe : 0);
        char why[256] = "";
        if (g->retired_pending == GPU_ON)
            snprintf(why, sizeof why, _("a page retirement is pending (applies at the next GPU reset)"));
        else if (retired >= t->gpu_retired_pages_max)
            snprintf(why, sizeof why, _("%d retired pages (DCGM fails at %d)"), retired, t->gpu_retired_pages_max);
        else if (g->remap_failure == GPU_ON)
            snprintf(why, sizeof why, _("a row-remap failure: the memory has no spare rows left"));
        else if (g->remap_pending == GPU_ON)
            snprintf(why, sizeof why, _("a row remap is pending (applies at the next GPU reset)"));
        else if (g->remapped_uncorrectable >= t->gpu_remapped_uncorrectable_max)
            snprintf(why, sizeof why, _("%d rows remapped for uncorrectable errors (DCGM fails at %d)"),
                     g->remapped_uncorrectable, t->gpu_remapped_uncorrectable_max);
        /* SRAM and DRAM alike (read_ecc sums them): an uncorrected error is data the GPU lost. */
        else if (g->ecc_uncorrected_volatile > 0)
            snprintf(why, sizeof why,
                     _("%lld uncorrected ECC errors since the driver loaded: data in GPU memory was lost (DCGM's "
                       "memory health watch fails on any)"),
                     (long long)g->ecc_uncorrected_volatile);
        else if (g->ecc_uncorrected_aggregate > 0)
            snprintf(why, sizeof why,
                     _("%lld uncorrected ECC errors in the GPU's lifetime (aggregate count): its memory has lost "
                       "data before"),
                     (long long)g->ecc_uncorrected_aggregate);
        bool ecc_on = g->ecc_current == GPU_ON;
        bool counters_known = g->ecc_uncorrected_volatile >= 0 || g->ecc_uncorrected_aggregate >= 0;
        bool known = g->retired_sbe >= 0 || g->retired_dbe >= 0 || g->retired_pending != GPU_UNKNOWN ||
                     g->remap_failure != GPU_UNKNOWN || g->remap_pending != GPU_UNKNOWN || counters_known;
        char fix[256];
        snprintf(fix, sizeof fix,
                 _("drain the GPU's jobs and reset it (`sudo nvidia-smi -i %s -r`); if it comes back, ask the "
                 "provider to replace the GPU"), g->bus_id);
        if (*why)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix, "%s", why);
        else if (g->ecc_corrected_volatile >= t->gpu_ecc_corrected_volatile_max)
            finding_add(ctx, SEV_WARN, g->bus_id, ev, fix,
                        _("%lld corrected ECC errors since the driver loaded: the memory is degrading (Meta GCM's "
                          "health check warns past %.0f)"),
                        (long long)g->ecc_corrected_volatile, t->gpu_ecc_corrected_volatile_max);
        else if (ecc_on && !counters_known)
            /* ECC on but its counters "N/A" or "[Unknown Error]": not read is not clean. */
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, ev, NULL,
                        _("ECC is on but its error counters were not reported (N/A or unreadable): uncorrected "
                          "errors unknown"));
        else if (known)
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("%d retired pages, no retirement or row remap pending"),
                        retired);
        else
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, ev, NULL,
                        _("retired pages and remapped rows not reported (N/A: GPUs without ECC memory, and GPUs in "
                        "MIG mode, do not report them)"));
    }
}

void check_gpu_throttle(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        if (!g->clock_events_known) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, NULL, NULL, _("clock-event (throttle) reasons not reported"));
            continue;
        }
        json_t *active = json_array();
        char names[256];
        gpu_event_list(g->clock_events, GPU_EVENT_SLOWDOWNS, names, sizeof names);
        for (int k = 0; k < gpu_event_names_count; k++)
            if (g->clock_events & GPU_EVENT_SLOWDOWNS & gpu_event_names[k].bit)
                json_array_append_new(active, json_string(gpu_event_names[k].name));
        json_t *ev = json_pack("{s:o, s:o, s:o, s:o, s:b}", "active", active, "temperature_c",
                               count_json(g->temperature_c), "slowdown_temperature_c",
                               count_json(g->slowdown_temperature_c), "power_draw_w",
                               g->power_draw_w >= 0 ? json_real(g->power_draw_w) : json_null(), "sw_power_cap",
                               (g->clock_events & GPU_EVENT_SW_POWER_CAP) != 0);
        if (*names)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev,
                        _("check the server's cooling and power supply (fans, airflow, PSU cables); "
                        "`nvidia-smi -q -d PERFORMANCE` shows the reasons live"),
                        _("clocks slowed by %s"), names);
        else if (g->clock_events & GPU_EVENT_SW_POWER_CAP)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL,
                        _("clocks held at the software power cap (normal under full load; not a fault)"));
        else
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("no hardware, thermal or power-brake slowdown"));
    }
}

void check_gpu_driver_cuda(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    if (s->cuda_major < 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("the CUDA version the driver supports was not reported"));
        return;
    }
    if (!s->runtimes_searched) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:i, s:i}", "driver_cuda_major", s->cuda_major,
                                                           "driver_cuda_minor", s->cuda_minor),
                    NULL, _("driver supports CUDA %d.%d; the CUDA runtimes installed were not looked for (evidence only)"),
                    s->cuda_major, s->cuda_minor);
        return;
    }
    if (s->nruntimes == 0) {
        finding_add(ctx, SEV_INFO, "machine", NULL, NULL,
                    _("driver supports CUDA %d.%d; no libcudart or PyTorch build found in the usual places"),
                    s->cuda_major, s->cuda_minor);
        return;
    }
    for (int i = 0; i < s->nruntimes; i++) {
        const struct cuda_runtime *r = &s->runtimes[i];
        char need[16];
        if (r->minor >= 0)
            snprintf(need, sizeof need, "%d.%d", r->major, r->minor);
        else
            snprintf(need, sizeof need, "%d.x", r->major);
        json_t *ev = json_pack("{s:s?, s:s?, s:s, s:i, s:i}", "path", r->path, "kind", r->kind, "needs", need,
                               "driver_cuda_major", s->cuda_major, "driver_cuda_minor", s->cuda_minor);
        if (r->major > s->cuda_major)
            finding_add(ctx, ctx_severity(ctx), r->path, ev,
                        _("install a driver that supports this CUDA version (or a build of the framework for the "
                        "driver's CUDA)"),
                        _("%s needs CUDA %s but the driver supports only %d.%d: it will fail to initialise"), r->kind,
                        need, s->cuda_major, s->cuda_minor);
        else if (r->major == s->cuda_major && r->minor > s->cuda_minor)
            finding_add(ctx, SEV_INFO, r->path, ev, _("update the driver to avoid surprises"),
                        _("%s is CUDA %s, the driver %d.%d: it runs through minor-version compatibility, but PTX "
                        "compiled for %s cannot be loaded"), r->kind, need, s->cuda_major, s->cuda_minor, need);
        else
            finding_add(ctx, SEV_PASS, r->path, ev, NULL, _("%s CUDA %s runs on the driver's CUDA %d.%d"), r->kind, need,
                        s->cuda_major, s->cuda_minor);
    }
}

void check_gpu_persistence_off(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        if (g->persistence == GPU_ON)
            finding_add(ctx, SEV_PASS, g->bus_id, NULL, NULL, _("persistence mode on"));
        else if (g->persistence == GPU_OFF)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, NULL,
                        _("`sudo systemctl enable --now nvidia-persistenced` (or `sudo nvidia-smi -pm 1`)"),
                        _("persistence mode off: the driver tears the GPU down between jobs, so each job start "
                        "waits for re-initialisation"));
        else
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, NULL, NULL, _("persistence mode not reported"));
    }
}

void check_gpu_mig_on(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        json_t *ev = json_pack("{s:o, s:o}", "current", tristate_json(g->mig_current), "pending",
                               tristate_json(g->mig_pending));
        char fix[128];
        snprintf(fix, sizeof fix, _("`sudo nvidia-smi -i %s -mig 0`, then reset the GPU (if the whole GPU is wanted)"),
                 g->bus_id);
        if (g->mig_current == GPU_ON)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix,
                        _("MIG on: the GPU is split into instances and a job sees only its slice of memory and SMs"));
        else if (g->mig_current == GPU_UNKNOWN && !g->name)
            /* A part of `nvidia-smi -q` (-d ECC) names neither the product nor MIG: not a verdict. */
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, ev, NULL, _("MIG mode not in this source"));
        else
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL,
                        g->mig_current == GPU_OFF ? _("MIG off") : _("MIG not enabled (not reported: not a MIG-capable GPU)"));
    }
}

void check_gpu_nvlink_down(struct audit_ctx *ctx)
{
    if (gpu_facts_missing(ctx))
        return;
    const struct gpu_set *s = &ctx->machine->gpus;
    for (int i = 0; i < s->count; i++) {
        const struct gpu *g = &s->items[i];
        if (!g->nvlink_known) {
            if (gpu_is_datacenter(g) && g->nvlinks_expected != 0)
                finding_add(ctx, SEV_UNKNOWN, g->bus_id, json_pack("{s:o}", "expected", count_json(g->nvlinks_expected)),
                            _("save `nvidia-smi nvlink -s` of the same machine and give it as another --nvidia-smi"),
                            _("NVLink state not in this source (`nvidia-smi -q -x` and `-q` do not report it)"));
            continue;
        }
        int active = 0, down = 0;
        json_t *links = json_array();
        for (int k = 0; k < g->nnvlinks; k++) {
            const struct gpu_nvlink *l = &g->nvlinks[k];
            active += l->active == GPU_ON;
            down += l->active == GPU_OFF;
            json_array_append_new(links, json_pack("{s:i, s:o, s:s, s:o}", "link", l->link, "active",
                                                   tristate_json(l->active), "remote_bus_id", l->remote_bus_id,
                                                   "version", count_json(l->version)));
        }
        json_t *ev = json_pack("{s:o, s:o, s:i, s:o}", "links", links, "expected", count_json(g->nvlinks_expected),
                               "active", active, "speed_mbps", count_json(g->nvlink_speed_mbps));
        bool sxm = g->name && strstr(g->name, "SXM");
        /* The part's own count (data/gpus.csv): links it has by design that are not up are down, not
         * fine; links past it that nvidia-smi lists inactive (an H100 NVL lists 18 and has 12, Azure
         * azurehpc-health-checks issue #162) are not the part's. */
        int expected = g->nvlinks_expected > 0 ? g->nvlinks_expected : 0;
        int short_of = expected > active ? expected - active : 0;
        json_object_set_new(ev, "bridged", json_boolean(g->nvlink_bridged));
        const char *fix = _("check `nvidia-smi nvlink -s` and `-e` (errors); on NVSwitch systems, that "
                            "nvidia-fabricmanager runs; then ask the provider to reseat or replace the board");
        /* Alone only when nothing says there are more (a paste naming "GPU 2" proves three). */
        bool alone = s->count == 1 && s->attached_gpus <= 1;
        if (expected > 0 && active == 0 && g->nvlink_bridged)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL,
                        _("no NVLink bridge fitted: none of the %d links the card has with its bridges is up"),
                        expected);
        else if (expected > 0 && active == 0 && alone)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL,
                        _("none of its %d NVLinks is up, and this machine sees only this GPU: nothing to talk to "
                        "over NVLink (a slice of a larger board)"), expected);
        else if (expected > 0 && short_of > 0)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix,
                        _("%d of its %d NVLinks down: GPU-to-GPU traffic falls back to slower links"),
                        short_of, expected);
        else if (expected > 0)
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("all %d NVLinks active (the part has %d)"), active,
                        expected);
        else if (g->nnvlinks == 0)
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("no NVLink on this GPU"));
        else if (down == 0)
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("all %d NVLinks active"), active);
        else if (active > 0 || sxm)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix,
                        _("%d of %d NVLinks down: GPU-to-GPU traffic falls back to slower links"), down, active + down);
        else
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL, _("NVLink-capable but no link is up (no bridge fitted)"));
    }
}

void check_gpu_p2p_cross_socket(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct gpu_set *s = &m->gpus;
    if (s->count < 2)
        return;
    json_t *pairs = json_array();
    int unknown = 0;
    for (int i = 0; i < s->count; i++)
        for (int j = i + 1; j < s->count; j++) {
            char level[8];
            gpu_link_level(m, &s->items[i], &s->items[j], level);
            if (!strcmp(level, "?"))
                unknown++;
            else if (!strcmp(level, "SYS"))
                json_array_append_new(pairs, json_pack("[s, s]", s->items[i].bus_id, s->items[j].bus_id));
        }
    size_t cross = json_array_size(pairs);
    json_t *ev = json_pack("{s:o}", "cross_socket_pairs", pairs);
    if (cross > 0)
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("keep a multi-GPU job on the GPUs of one socket (CUDA_VISIBLE_DEVICES), or rent a box with "
                    "NVLink between the GPUs"),
                    _("%zu GPU pair%s talk across the CPU interconnect without NVLink (SYS in `nvidia-smi topo -m`): "
                    "all-reduce between them is limited by the socket link"), cross, cross == 1 ? "" : "s");
    else if (unknown > 0)
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                    _("how the GPUs reach each other is unknown for %d pair%s: no PCI paths or NUMA nodes (evidence "
                    "without a recorded tree, or a VM)"), unknown, unknown == 1 ? "" : "s");
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("every GPU pair is within one socket or on NVLink"));
}
