/* Faults counted around the GPUs: NVLink error counters, the NVSwitch fabric, PCIe AER counters,
 * InfiniBand/RoCE port errors and GPUDirect RDMA readiness (model/faults.h, model/gpu.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

static json_t *count_json(long long v) { return v >= 0 ? json_integer(v) : json_null(); }

/* --- GPU_NVLINK_ERRORS ------------------------------------------------------------------------- */

void check_gpu_nvlink_errors(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct thresholds *t = ctx->thresholds;
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        int64_t sum[GPU_NVLINK_COUNTERS] = {0};
        bool known = false;
        json_t *links = json_array();
        for (int k = 0; k < g->nnvlinks; k++) {
            const struct gpu_nvlink *l = &g->nvlinks[k];
            bool nonzero = false;
            for (int c = 0; c < GPU_NVLINK_COUNTERS; c++)
                if (l->errors[c] >= 0) {
                    known = true;
                    sum[c] = sum[c] > INT64_MAX / 4 - l->errors[c] ? INT64_MAX / 4 : sum[c] + l->errors[c];
                    nonzero |= l->errors[c] > 0;
                }
            if (nonzero)
                json_array_append_new(links, json_pack("{s:i, s:o, s:o, s:o, s:o}", "link", l->link, "replay",
                                                       count_json(l->errors[GPU_NVLINK_REPLAY]), "recovery",
                                                       count_json(l->errors[GPU_NVLINK_RECOVERY]), "crc_flit",
                                                       count_json(l->errors[GPU_NVLINK_CRC_FLIT]), "crc_data",
                                                       count_json(l->errors[GPU_NVLINK_CRC_DATA])));
        }
        if (!known) {
            json_decref(links);
            if (gpu_is_datacenter(g) && g->nvlinks_expected != 0 && (!g->nvlink_known || g->nnvlinks > 0))
                finding_add(ctx, SEV_UNKNOWN, g->bus_id, NULL, _("save `nvidia-smi nvlink -e` of the same machine and give it as another --nvidia-smi"),
                            _("NVLink error counters not in this source"));
            continue;
        }
        int64_t crc = sum[GPU_NVLINK_CRC_FLIT] + sum[GPU_NVLINK_CRC_DATA];
        double uptime = m->faults.uptime_s;
        /* Counted since the driver loaded, which is after boot: the mean since boot is a lower bound
         * of the rate while they were counted. */
        double crc_per_s = uptime > 0 ? (double)crc / uptime : -1;
        json_t *ev = json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "replay", (json_int_t)sum[GPU_NVLINK_REPLAY], "recovery",
                               (json_int_t)sum[GPU_NVLINK_RECOVERY], "crc_flit", (json_int_t)sum[GPU_NVLINK_CRC_FLIT],
                               "crc_data", (json_int_t)sum[GPU_NVLINK_CRC_DATA], "crc_per_s_since_boot",
                               crc_per_s >= 0 ? json_real(crc_per_s) : json_null(), "links", links);
        const char *fix = _("watch whether they grow (`nvidia-smi nvlink -e -i N` twice, a minute apart, or "
                            "`dcgmi health`); growing counters mean a bad link: ask the provider to reseat or "
                            "replace the board");
        int64_t link_errors = sum[GPU_NVLINK_REPLAY] + sum[GPU_NVLINK_RECOVERY];
        if (link_errors >= t->nvlink_error_max)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix,
                        _("%lld replay and %lld recovery errors on its NVLinks since the driver loaded (DCGM "
                        "warns at %d)"), (long long)sum[GPU_NVLINK_REPLAY], (long long)sum[GPU_NVLINK_RECOVERY],
                        t->nvlink_error_max);
        else if (crc_per_s >= t->nvlink_crc_per_s_max)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, fix,
                        _("%lld NVLink CRC errors, %.0f per second on average since boot (DCGM's limit: %.0f/s)"),
                        (long long)crc, crc_per_s, t->nvlink_crc_per_s_max);
        else if (crc > 0)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, fix,
                        _("%lld NVLink CRC errors since the driver loaded, below DCGM's %.0f per second"),
                        (long long)crc, t->nvlink_crc_per_s_max);
        else
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("no NVLink errors counted"));
    }
}

/* --- GPU_FABRIC_NOT_READY ---------------------------------------------------------------------- */

static const char FABRIC_FIX[] =
    N_("start NVIDIA's fabric manager (`sudo systemctl enable --now nvidia-fabricmanager`, of the driver's exact "
       "version), then check `nvidia-smi -q -d FABRIC`: State Completed, Status Success");

void check_gpu_fabric_not_ready(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct fault_info *f = &m->faults;
    int joined = 0, in_fabric = 0;
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        if (g->fabric_state == GPU_FABRIC_UNKNOWN || g->fabric_state == GPU_FABRIC_NOT_SUPPORTED)
            continue;
        in_fabric++;
        json_t *ev = json_pack("{s:s, s:s?}", "state", gpu_fabric_state_name(g->fabric_state), "status",
                               g->fabric_status);
        if (g->fabric_state == GPU_FABRIC_COMPLETED && g->fabric_status_ok == GPU_ON) {
            joined++;
            finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("joined the NVSwitch fabric (Completed, Success)"));
        } else if (g->fabric_state == GPU_FABRIC_COMPLETED)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, _(FABRIC_FIX),
                        _("the GPU's fabric registration completed with an error (%s): CUDA cannot use it"),
                        g->fabric_status ? g->fabric_status : _("status not reported"));
        else
            finding_add(ctx, ctx_severity(ctx), g->bus_id, ev, _(FABRIC_FIX),
                        _("the GPU has not joined the NVSwitch fabric (%s): every CUDA job fails with error 802, "
                        "\"system not yet initialized\""), gpu_fabric_state_name(g->fabric_state));
    }
    json_t *ev = json_pack("{s:o, s:o, s:b}", "nvswitches", count_json(f->nvswitches), "fabric_manager_running",
                           f->fabric_manager < 0 ? json_null() : json_boolean(f->fabric_manager),
                           "judged_by_process_name", f->fabric_manager_by_name);
    if (f->fabric_manager_not_real[0])
        json_object_set_new(ev, "not_the_real_fabric_manager", json_string(f->fabric_manager_not_real));
    if (f->nvswitches > 0) {
        if (f->fabric_manager == 1 && f->fabric_manager_by_name)
            finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                        _("%d NVSwitches on the PCI bus, a process named nv-fabricmanager running (judged by its "
                          "name: its executable, /proc/PID/exe, could not be read)"),
                        f->nvswitches);
        else if (f->fabric_manager == 1)
            finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                        _("%d NVSwitches on the PCI bus, fabric manager running (nv-fabricmanager, as root)"),
                        f->nvswitches);
        else if (f->fabric_manager == 0 && joined > 0 && joined == in_fabric)
            finding_add(ctx, SEV_INFO, "machine", ev, NULL,
                        _("%d NVSwitches on the PCI bus and no fabric manager process, but every GPU reports the "
                        "fabric up"), f->nvswitches);
        else if (f->fabric_manager == 0 && f->fabric_manager_not_real[0])
            finding_add(ctx, ctx_severity(ctx), "machine", ev, _(FABRIC_FIX),
                        _("%d NVSwitches on the PCI bus and no real nv-fabricmanager: the process by that name is "
                          "not NVIDIA's daemon run by root (%s)"),
                        f->nvswitches, f->fabric_manager_not_real);
        else if (f->fabric_manager == 0)
            finding_add(ctx, ctx_severity(ctx), "machine", ev, _(FABRIC_FIX),
                        _("%d NVSwitches on the PCI bus but no nv-fabricmanager process: the GPUs cannot use "
                        "NVLink and CUDA jobs fail with error 802"), f->nvswitches);
        else if (joined == 0 || joined < in_fabric)
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                        _("%d NVSwitches on the PCI bus; whether the fabric manager runs is unknown: %s"),
                        f->nvswitches, _(f->fabric_manager_unknown ? f->fabric_manager_unknown : "not read"));
    } else if (f->nvswitches == 0 && in_fabric == 0 && m->gpus.count > 0) {
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no NVSwitch on the PCI bus: no fabric to wait for"));
    } else if (f->nvswitches < 0 && in_fabric == 0 && m->gpus.count > 1 && m->gpus.items[0].nvlinks_expected > 0) {
        /* SXM GPUs described by a file alone: an A100 board reports no fabric state, and the bus is not read. */
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                    _("whether these SXM GPUs sit on an NVSwitch fabric that is up is not in this source (no "
                    "fabric state; the PCI bus and the fabric manager's process were not read)"));
    } else {
        json_decref(ev);
    }
}

/* --- PCIE_AER_ERRORS --------------------------------------------------------------------------- */

static json_t *aer_evidence(const struct aer_counts *c)
{
    return json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:s?, s:s?, s:s?}", "bus_id", c->bus_id, "gpu", c->of_gpu, "is_gpu",
                     c->is_gpu, "correctable", count_json(c->total[AER_CORRECTABLE]), "nonfatal",
                     count_json(c->total[AER_NONFATAL]), "fatal", count_json(c->total[AER_FATAL]),
                     "correctable_named", c->nonzero[AER_CORRECTABLE], "nonfatal_named", c->nonzero[AER_NONFATAL],
                     "fatal_named", c->nonzero[AER_FATAL]);
}

static void sysfs_aer_errors(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct fault_info *f = &m->faults;
    if (!f->aer_read)
        return;
    if (f->naer == 0) {
        if (machine_accelerator_count(m) > 0)
            finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                        _("no AER counters in sysfs for the accelerators or their ports (a kernel without "
                        "CONFIG_PCIEAER, AER handled by the firmware, or %s)"), _(m->missing_reason));
        return;
    }
    double minutes = f->uptime_s > 0 ? f->uptime_s / 60 : -1;
    const struct thresholds *t = ctx->thresholds;
    for (int i = 0; i < f->naer; i++) {
        const struct aer_counts *c = &f->aer[i];
        char where[96];
        if (c->is_gpu)
            snprintf(where, sizeof where, "%s", _("the GPU"));
        else
            snprintf(where, sizeof where, _("port %s above it"), c->bus_id);
        int64_t uncorrectable = (c->total[AER_FATAL] > 0 ? c->total[AER_FATAL] : 0) +
                                (c->total[AER_NONFATAL] > 0 ? c->total[AER_NONFATAL] : 0);
        int64_t correctable = c->total[AER_CORRECTABLE];
        double per_min = minutes > 0 && correctable >= 0 ? (double)correctable / minutes : -1;
        if (uncorrectable > 0)
            finding_add(ctx, SEV_FAIL, c->of_gpu, aer_evidence(c),
                        _("see `dmesg | grep -i aer` for when; reseat the card or riser, and ask the provider to "
                        "replace the part if it recurs"),
                        _("%lld uncorrectable PCIe errors (%lld fatal, %lld non-fatal) on %s since boot"),
                        (long long)uncorrectable, (long long)(c->total[AER_FATAL] > 0 ? c->total[AER_FATAL] : 0),
                        (long long)(c->total[AER_NONFATAL] > 0 ? c->total[AER_NONFATAL] : 0), where);
        else if (per_min >= t->aer_correctable_per_min_max)
            finding_add(ctx, SEV_WARN, c->of_gpu, aer_evidence(c),
                        _("a link that keeps correcting errors has a bad contact, riser or cable: reseat, and "
                        "watch whether the count grows"),
                        _("%lld correctable PCIe errors on %s, %.1f per minute on average since boot (DCGM's "
                        "PCIe replay limit: %.0f)"), (long long)correctable, where, per_min,
                        t->aer_correctable_per_min_max);
        else if (correctable > 0)
            finding_add(ctx, SEV_INFO, c->of_gpu, aer_evidence(c), NULL,
                        _("%lld correctable PCIe errors on %s since boot (the link recovered each one)"),
                        (long long)correctable, where);
    }
    /* One pass per accelerator whose functions all counted nothing. */
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        int read = 0, unread = 0;
        bool dirty = false;
        for (int k = 0; k < f->naer; k++)
            if (!strcmp(f->aer[k].of_gpu, d->bus_id)) {
                read++;
                for (int kind = 0; kind < AER_KINDS; kind++) {
                    dirty |= f->aer[k].total[kind] > 0;
                    unread += f->aer[k].total[kind] < 0;
                }
            }
        /* A counter file that could not be read (or parsed) is unknown, never clean. */
        if (read > 0 && !dirty && unread > 0)
            finding_add(ctx, SEV_UNKNOWN, d->bus_id, json_pack("{s:i, s:i}", "functions_read", read, "counters_unread", unread),
                        NULL, _("no PCIe errors in the AER counters read, but %d counter file(s) of the device or the "
                                "ports above it could not be read: unknown"),
                        unread);
        else if (read > 0 && !dirty)
            finding_add(ctx, SEV_PASS, d->bus_id, json_pack("{s:i}", "functions_read", read), NULL,
                        _("no PCIe errors counted on the device or the %d port(s) read above it"), read - 1);
    }
}

/* Two functions of one PCI device: "0000:63:00.0" and "0000:63:00.1" (sysfs forms). */
static bool same_device(const char *a, const char *b)
{
    const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
    return da && db && da - a == db - b && !strncmp(a, b, (size_t)(da - a)) && strcmp(a, b);
}

/* The GPU a function of a kernel AER line is, or sits above: the PCI paths read, the GPUs described,
 * the driver the line names, or the GPU the kernel's recovery of the error named next. NULL when
 * none is known; *is_gpu and *how say which. */
static const char *aer_line_gpu(const struct machine *m, const struct klog_aer *a, bool *is_gpu, const char **how)
{
    *is_gpu = false;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        if (!strcmp(d->bus_id, a->bus_id)) {
            *is_gpu = true;
            *how = "PCI bus";
            return d->bus_id;
        }
        for (int h = 0; h < d->npath; h++)
            if (!strcmp(d->path[h].bus_id, a->bus_id)) {
                *how = "PCI bus";
                return d->bus_id;
            }
    }
    const struct gpu *g = gpu_set_find(&m->gpus, a->bus_id);
    if (g || !strcmp(a->driver, "nvidia")) {
        *is_gpu = true;
        *how = g ? "GPU list" : "driver name";
        return a->bus_id;
    }
    /* Another function of a GPU's device (its audio function, 0000:63:00.1 beside 0000:63:00.0)
     * shares the GPU's link. */
    for (int i = 0; i < m->gpus.count; i++)
        if (same_device(m->gpus.items[i].bus_id, a->bus_id)) {
            *how = "same device";
            return m->gpus.items[i].bus_id;
        }
    for (int i = 0; i < m->npci; i++)
        if (m->pci[i].role == PCI_ROLE_ACCELERATOR && same_device(m->pci[i].bus_id, a->bus_id)) {
            *how = "same device";
            return m->pci[i].bus_id;
        }
    /* The kernel recovers the devices below the port that reported: for any of its records. */
    const struct kernel_log_info *k = &m->kernel_log;
    for (int i = 0; i < k->naer; i++)
        if (k->aer[i].gpu_below[0] && !strcmp(k->aer[i].bus_id, a->bus_id)) {
            *how = "kernel's recovery lines";
            return k->aer[i].gpu_below;
        }
    return NULL;
}

/* The function's sysfs counter of that severity was read: it counts the same errors since boot. */
static bool sysfs_counted(const struct fault_info *f, const char *bus_id, int severity)
{
    for (int i = 0; i < f->naer; i++)
        if (!strcmp(f->aer[i].bus_id, bus_id) && f->aer[i].total[severity] >= 0)
            return true;
    return false;
}

static const char *aer_severity_words(int severity)
{
    switch (severity) {
    case AER_FATAL: return N_("fatal");
    case AER_NONFATAL: return N_("non-fatal");
    }
    return N_("correctable");
}

/* The kernel log's "PCIe Bus Error: severity=..." lines of the current boot (model/kernel_log.h). */
static void log_aer_errors(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct kernel_log_info *k = &m->kernel_log;
    if (!k->read)
        return;
    const struct thresholds *t = ctx->thresholds;
    for (int i = 0; i < k->naer; i++) {
        const struct klog_aer *a = &k->aer[i];
        if (sysfs_counted(&m->faults, a->bus_id, a->severity))
            continue;
        bool is_gpu;
        const char *how = NULL;
        const char *gpu = aer_line_gpu(m, a, &is_gpu, &how);
        json_t *ev = json_pack("{s:s, s:s?, s:s, s:s, s:s, s:i, s:s, s:s, s:s?, s:s?, s:s?, s:b, s:s?}", "source",
                               "kernel log", "log", k->source, "bus_id", a->bus_id, "driver", a->driver, "severity",
                               klog_aer_severity_name(a->severity), "count", (int)a->count, "first", a->first_time,
                               "last", a->last_time, "errors", a->errors[0] ? a->errors : NULL, "text", a->text, "gpu",
                               gpu, "is_gpu", is_gpu, "gpu_from", how);
        const char *kind = _(aer_severity_words(a->severity));
        char where[96];
        if (is_gpu)
            snprintf(where, sizeof where, "%s", _("the GPU"));
        else if (how && !strcmp(how, "same device"))
            snprintf(where, sizeof where, _("function %s of the GPU"), a->bus_id);
        else
            snprintf(where, sizeof where, _("port %s above it"), a->bus_id);
        const char *names = a->errors[0] ? a->errors : _("the error bits are not in the log");
        if (!gpu) {
            /* Not known to be on a GPU's path: judged only where the bus was not read to say so. */
            if (a->severity != AER_CORRECTABLE && !m->pci_scanned)
                finding_add(ctx, SEV_UNKNOWN, a->bus_id, ev, _("give the machine's recorded tree (--sysroot) or run "
                                                                "gpuvet on it, so that the PCI paths say which GPU is below"),
                            _("%ld %s PCIe error(s) of %s in the kernel log since boot (%s); whether a GPU sits below it "
                              "is unknown: the PCI bus was not read"),
                            a->count, kind, a->bus_id, names);
            else
                json_decref(ev);
            continue;
        }
        if (a->severity != AER_CORRECTABLE) {
            finding_add(ctx, SEV_FAIL, gpu, ev,
                        _("reseat the card or riser, and ask the provider to replace the part if it recurs"),
                        _("%ld %s PCIe error(s) on %s in the kernel log since boot, first at %s, last at %s (%s)"),
                        a->count, kind, where, a->first_time, a->last_time, names);
            continue;
        }
        /* Lines the kernel printed: at least this many errors, over the boot's last timestamp. */
        double per_min = k->last_seconds > 0 ? (double)a->count / (k->last_seconds / 60) : -1;
        if (per_min >= t->aer_correctable_per_min_max)
            finding_add(ctx, SEV_WARN, gpu, ev,
                        _("a link that keeps correcting errors has a bad contact, riser or cable: reseat, and "
                          "watch whether the count grows"),
                        _("at least %ld correctable PCIe errors on %s in the kernel log, %.1f per minute since boot "
                          "(DCGM's PCIe replay limit: %.0f)"),
                        a->count, where, per_min, t->aer_correctable_per_min_max);
        else
            finding_add(ctx, SEV_INFO, gpu, ev, NULL,
                        _("%ld correctable PCIe error(s) on %s in the kernel log since boot, last at %s (the link "
                          "recovered each one)"),
                        a->count, where, a->last_time);
    }
}

/* The GPU's own count of PCIe replays (NVML's nvmlDeviceGetPcieReplayCounter, nvidia-smi's "Replays
 * Since Reset"): the link layer resending what arrived corrupted. In a passthrough VM it is the
 * tenant's only PCIe error signal (the AER counters are the host's). Judged as DCGM's PCIe health
 * watch judges it (dcgm_gpu_hardware_limits.h: DCGM_LIMIT_MAX_PCIREPLAY_RATE, 8 per minute, warn),
 * as a mean since boot: a lower bound of the rate while they were counted. */
static void gpu_replays(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct thresholds *t = ctx->thresholds;
    double minutes = m->faults.uptime_s > 0 ? m->faults.uptime_s / 60 : -1;
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        if (g->pcie_replays < 0)
            continue; /* not reported: no finding, so never clean */
        double per_min = minutes > 0 ? (double)g->pcie_replays / minutes : -1;
        json_t *ev = json_pack("{s:I, s:o, s:f}", "gpu_pcie_replays", (json_int_t)g->pcie_replays,
                               "replays_per_min_since_boot", per_min >= 0 ? json_real(per_min) : json_null(),
                               "limit_per_min", t->aer_correctable_per_min_max);
        const char *fix = _("a link that keeps replaying has a bad contact, riser or cable: reseat, and watch whether "
                            "the count grows (`nvidia-smi -q -d PCIE` twice, a minute apart)");
        if (g->pcie_replays == 0) {
            if (!m->faults.aer_read)
                finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("no PCIe replays counted by the GPU"));
            else
                json_decref(ev);
        } else if (per_min >= t->aer_correctable_per_min_max)
            finding_add(ctx, SEV_WARN, g->bus_id, ev, fix,
                        _("%lld PCIe replays counted by the GPU, %.1f per minute on average since boot (DCGM's PCIe "
                          "replay limit: %.0f)"),
                        (long long)g->pcie_replays, per_min, t->aer_correctable_per_min_max);
        else if (per_min >= 0)
            finding_add(ctx, SEV_INFO, g->bus_id, ev, NULL,
                        _("%lld PCIe replays counted by the GPU since it was reset, below DCGM's %.0f per minute"),
                        (long long)g->pcie_replays, t->aer_correctable_per_min_max);
        else
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, ev, fix,
                        _("%lld PCIe replays counted by the GPU, over a time this source does not give: whether they "
                          "pass DCGM's %.0f per minute is unknown"),
                        (long long)g->pcie_replays, t->aer_correctable_per_min_max);
    }
}

void check_pcie_aer_errors(struct audit_ctx *ctx)
{
    gpu_replays(ctx);
    sysfs_aer_errors(ctx);
    log_aer_errors(ctx);
}

/* --- NET_IB_ERRORS ----------------------------------------------------------------------------- */

void check_net_ib_errors(struct audit_ctx *ctx)
{
    const struct fault_info *f = &ctx->machine->faults;
    for (int i = 0; i < f->nib; i++) {
        const struct ib_port_errors *p = &f->ib[i];
        char subject[96], named[512] = "";
        size_t used = 0;
        snprintf(subject, sizeof subject, "%s/%d", p->device, p->port);
        json_t *ev = json_object();
        for (int c = 0; c < IB_COUNTERS; c++) {
            json_object_set_new(ev, ib_counter_name(c), count_json(p->counters[c]));
            if (p->counters[c] > 0 && used < sizeof named - 1)
                used += (size_t)snprintf(named + used, sizeof named - used, "%s%s %lld", used ? ", " : "",
                                         ib_counter_name(c), (long long)p->counters[c]);
        }
        if (used)
            finding_add(ctx, ctx_severity(ctx), subject, ev,
                        _("check the cable and the switch port (`perfquery -x`, `ibdiagnet`); clear the counters "
                        "with `perfquery -R` and see whether they grow under load"),
                        _("port error counters above zero (ibqueryerrors' default threshold): %s"), named);
        else
            finding_add(ctx, SEV_PASS, subject, ev, NULL, _("no port errors counted"));
    }
}

/* --- NET_GPUDIRECT ----------------------------------------------------------------------------- */

void check_net_gpudirect(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct fault_info *f = &m->faults;
    /* Looked at only where NVIDIA GPUs and RDMA NICs both exist; a single-node job does not use it. */
    if (ctx->inputs->nodes <= 1 || !f->gpudirect_probed)
        return;
    if (f->peermem < 0 && f->peermem_failure)
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    _("whether NVIDIA's peer-memory module is loaded is unknown: %s"), _(f->peermem_failure));
    else if (f->peermem < 0)
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    _("whether NVIDIA's peer-memory module is loaded is unknown: /proc/modules %s"),
                    _(f->peermem_missing ? f->peermem_missing : m->missing_reason));
    /* DMA-BUF, the other way NICs reach GPU memory (NCCL's NCCL_DMABUF_ENABLE), needs the open GPU
     * kernel modules and Linux 5.12 or later: 1 both, 0 either is missing, -1 not known. */
    int major = 0, minor = 0;
    bool release = m->kernel.release && sscanf(m->kernel.release, "%d.%d", &major, &minor) == 2;
    bool new_kernel = release && (major > 5 || (major == 5 && minor >= 12));
    int dmabuf = f->nvidia_open == 0 || (release && !new_kernel) ? 0 : f->nvidia_open == 1 && release ? 1 : -1;
    json_t *ev = json_pack("{s:o, s:s?, s:o, s:o}", "peermem_loaded",
                           f->peermem < 0 ? json_null() : json_boolean(f->peermem), "module", f->peermem_module,
                           "open_kernel_module", f->nvidia_open < 0 ? json_null() : json_boolean(f->nvidia_open),
                           "dma_buf", dmabuf < 0 ? json_null() : json_boolean(dmabuf));
    if (f->peermem == 1)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%s loaded: NICs can read and write GPU memory directly"),
                    f->peermem_module);
    else if (f->peermem == 0 && dmabuf == 1)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                    _("nvidia_peermem is not loaded, but NICs can reach GPU memory through DMA-BUF: NVIDIA's open GPU "
                    "kernel module on Linux %s (NCCL uses DMA-BUF where it is there)"), m->kernel.release);
    else if (f->peermem == 0 && f->nvidia_open == 0)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("`sudo modprobe nvidia_peermem` (it ships with the driver)"),
                    _("nvidia_peermem is not loaded and the proprietary NVIDIA kernel module has no DMA-BUF (that "
                    "needs the open GPU kernel modules): GPU data crosses host memory on its way to the network"));
    else if (f->peermem == 0 && dmabuf == 0)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("`sudo modprobe nvidia_peermem` (it ships with the driver)"),
                    _("nvidia_peermem is not loaded and Linux %s is older than 5.12, which DMA-BUF needs: GPU data "
                    "crosses host memory on its way to the network"), m->kernel.release);
    else if (f->peermem == 0)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("`sudo modprobe nvidia_peermem` (it ships with the driver)"),
                    _("nvidia_peermem is not loaded: unless NCCL uses DMA-BUF (open GPU kernel modules, Linux 5.12+), "
                    "GPU data crosses host memory on its way to the network"));
    else
        json_decref(ev);
    for (int i = 0; i < f->nacs; i++) {
        const struct acs_port *a = &f->acs[i];
        json_t *pe = json_pack("{s:s, s:s, s:s}", "port", a->bus_id, "gpu", a->gpu, "nic", a->nic);
        if (a->redirect == 1)
            finding_add(ctx, ctx_severity(ctx), a->bus_id, pe,
                        _("disable ACS redirect on the switch ports in the BIOS, or have the provider do so (NCCL's "
                        "troubleshooting guide; `setpci` resets at reboot)"),
                        _("ACS redirects peer traffic at switch port %s between GPU %s and NIC %s: GPUDirect RDMA "
                        "goes up to the root complex"), a->bus_id, a->gpu, a->nic);
        else if (a->redirect == 0)
            finding_add(ctx, SEV_PASS, a->bus_id, pe, NULL, _("no ACS redirect between GPU %s and NIC %s"), a->gpu,
                        a->nic);
        else
            finding_add(ctx, SEV_UNKNOWN, a->bus_id, pe, _("run gpuvet as root to read it"),
                        _("ACS state of the switch port between GPU %s and NIC %s unknown: %s"), a->gpu, a->nic,
                        _(a->unknown_reason));
    }
}
