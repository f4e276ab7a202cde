/* Has this GPU already failed? GPU_XID_ERRORS judges the kernel log's GPU lines since boot
 * (model/kernel_log.h: Xid, SXid, fallen off the bus, failed initialisation); GPU_LOST counts the
 * GPUs against what the driver lists and what was expected (--expect-gpus, --claim). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims/claims.h"
#include "rules/checks.h"
#include "util/i18n.h"

static const char LOG_FIX[] = N_("read it as root (`sudo gpuvet ...`), or save it and give it: `journalctl -k -b > "
                                 "kernel.log` (or `dmesg > kernel.log`), then --kernel-log kernel.log");

static json_t *log_evidence(const struct kernel_log_info *k)
{
    json_t *e = json_pack("{s:s?, s:s?, s:I, s:i, s:b}", "log", k->source, "format", k->format, "lines",
                          (json_int_t)k->lines, "boots_seen", k->boots, "truncated", k->truncated);
    if (k->lines_too_long)
        json_object_set_new(e, "lines_too_long", json_integer(k->lines_too_long));
    if (k->events_dropped)
        json_object_set_new(e, "events_not_kept", json_integer(k->events_dropped));
    if (k->fault_events_dropped)
        json_object_set_new(e, "fault_events_not_kept", json_integer(k->fault_events_dropped));
    return e;
}

static json_t *event_evidence(const struct kernel_log_info *k, const struct klog_event *e)
{
    json_t *ev = log_evidence(k);
    json_object_set_new(ev, "kind", json_string(klog_kind_name(e->kind)));
    if (e->code >= 0)
        json_object_set_new(ev, "code", json_integer(e->code));
    json_object_set_new(ev, "class", json_string(klog_class_name(e->klass)));
    json_object_set_new(ev, "class_source", json_string(e->class_source));
    json_object_set_new(ev, "count", json_integer(e->count));
    json_object_set_new(ev, "first", json_string(e->first_time));
    json_object_set_new(ev, "last", json_string(e->last_time));
    if (e->bus_id[0])
        json_object_set_new(ev, "bus_id", json_string(e->bus_id));
    if (e->text)
        json_object_set_new(ev, "text", json_string(e->text));
    if (e->process)
        json_object_set_new(ev, "process", json_string(e->process));
    if (e->meaning)
        json_object_set_new(ev, "meaning", json_string(e->meaning));
    if (e->action)
        json_object_set_new(ev, "action", json_string(e->action));
    return ev;
}

/* "Xid 79 (GPU has fallen off the bus)", "SXid 20034", "fallen off the bus", ... */
static void event_name(const struct klog_event *e, char *out, size_t n)
{
    switch (e->kind) {
    case KLOG_XID:
        if (e->meaning)
            snprintf(out, n, _("Xid %d (%s)"), e->code, _(e->meaning));
        else
            snprintf(out, n, _("Xid %d"), e->code);
        return;
    case KLOG_SXID: snprintf(out, n, _("NVSwitch SXid %d"), e->code); return;
    case KLOG_FALLEN_OFF_BUS: snprintf(out, n, "%s", _("GPU has fallen off the bus")); return;
    case KLOG_INIT_FAILED: snprintf(out, n, "%s", _("the driver could not initialise the GPU")); return;
    case KLOG_PROBE_FAILED: snprintf(out, n, "%s", _("the driver's probe of the GPU failed")); return;
    case KLOG_RESET_REQUIRED: snprintf(out, n, "%s", _("the driver says the GPU needs a reset")); return;
    case KLOG_GSP_ERROR: snprintf(out, n, "%s", _("GSP firmware error")); return;
    case KLOG_UNSUPPORTED:
        snprintf(out, n, "%s", _("the loaded driver does not support this GPU (open kernel module without GSP)"));
        return;
    case KLOG_NVLINK_FAILED: snprintf(out, n, "%s", _("the driver could not bring up the GPU's NVLinks")); return;
    case KLOG_DRIVER_ERROR: snprintf(out, n, "%s", _("a driver error gpuvet does not know")); return;
    }
    snprintf(out, n, "?");
}

static const char *event_fix(const struct klog_event *e)
{
    if (e->action)
        return _(e->action);
    switch (e->kind) {
    case KLOG_SXID:
        return _("reset the NVSwitch fabric (restart nvidia-fabricmanager, or reboot); if it recurs, return the board "
                 "for service");
    case KLOG_FALLEN_OFF_BUS:
        return _("reboot the machine; if it recurs, return the GPU for service (power, cooling, PCIe riser)");
    case KLOG_INIT_FAILED:
    case KLOG_PROBE_FAILED:
        return _("reboot; if the GPU still fails to initialise, return it for service (NVIDIA's driver README: "
                 "`nvidia-bug-report.sh`)");
    case KLOG_RESET_REQUIRED: return _("reset the GPU (`nvidia-smi -r`) or reboot");
    case KLOG_GSP_ERROR: return _("reset the GPU or reboot; if it recurs, update the driver or return the GPU for service");
    case KLOG_UNSUPPORTED:
        return _("install NVIDIA's proprietary kernel module for this GPU (the open module needs a GPU with GSP, "
                 "Turing or later: NVIDIA's driver README, \"Open Linux Kernel Modules\")");
    case KLOG_NVLINK_FAILED: return _("reboot the machine; if the links stay down, return the board for service");
    case KLOG_DRIVER_ERROR:
        return _("read the line in the log; search it in NVIDIA's driver issues (github.com/NVIDIA/open-gpu-kernel-modules)");
    case KLOG_XID: break;
    }
    return _("look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors)");
}

void check_gpu_xid_errors(struct audit_ctx *ctx)
{
    const struct kernel_log_info *k = &ctx->machine->kernel_log;
    if (!k->read) {
        if (k->unknown_reason)
            finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?, s:s}", "log", k->source, "reason", k->unknown_reason),
                        _(LOG_FIX), _("kernel log not read: %s"), _(k->unknown_reason));
        return;
    }
    int judged = 0;
    for (int i = 0; i < k->nevents; i++) {
        const struct klog_event *e = &k->events[i];
        const char *subject = e->bus_id[0] ? e->bus_id : "machine";
        char name[256];
        event_name(e, name, sizeof name);
        json_t *ev = event_evidence(k, e);
        switch (e->klass) {
        case KLOG_CLASS_FAULT:
            finding_add(ctx, ctx_severity(ctx), subject, ev, event_fix(e),
                        _("%s: %ld time(s) since boot, first at %s, last at %s: \"%s\""), name, e->count,
                        e->first_time, e->last_time, e->text ? e->text : "");
            break;
        case KLOG_CLASS_UNLISTED:
            if (e->kind == KLOG_DRIVER_ERROR) {
                finding_add(ctx, SEV_WARN, subject, ev, event_fix(e),
                            _("%s: %ld line(s) since boot, last at %s; the first: \"%s\""), name, e->count,
                            e->last_time, e->text ? e->text : "");
                break;
            }
            finding_add(ctx, SEV_WARN, subject, ev, event_fix(e),
                        _("%s, not in gpuvet's Xid table: %ld time(s) since boot, last at %s: \"%s\""), name, e->count,
                        e->last_time, e->text ? e->text : "");
            break;
        case KLOG_CLASS_WARN:
            finding_add(ctx, SEV_WARN, subject, ev, event_fix(e),
                        _("%s: %ld time(s) since boot, last at %s; a warning, not a drain (%s): \"%s\""), name, e->count,
                        e->last_time, e->class_source, e->text ? e->text : "");
            break;
        case KLOG_CLASS_APP:
            finding_add(ctx, SEV_INFO, subject, ev, NULL,
                        _("%s: %ld time(s) since boot, last at %s: caused by the application (or informational), "
                          "not a fault of the GPU"),
                        name, e->count, e->last_time);
            break;
        case KLOG_CLASS_IGNORED:
            finding_add(ctx, SEV_PASS, subject, ev, NULL, _("%s: %ld time(s) since boot, ignored (--xid-ignore)"), name,
                        e->count);
            break;
        }
        judged++;
    }
    /* What the event table could not keep is said, never silently left out. */
    if (k->fault_events_dropped)
        finding_add(ctx, SEV_WARN, "machine", log_evidence(k), NULL,
                    _("%ld more line(s) of GPU faults than gpuvet keeps (%d distinct events): the faults listed "
                      "are not all of them"),
                    k->fault_events_dropped, KLOG_MAX_EVENTS);
    else if (k->events_dropped)
        finding_add(ctx, SEV_INFO, "machine", log_evidence(k), NULL,
                    _("%ld line(s) of the applications' Xids not kept (gpuvet keeps %d distinct events, faults "
                      "first): every fault is listed"),
                    k->events_dropped, KLOG_MAX_EVENTS);
    if (k->truncated)
        finding_add(ctx, SEV_UNKNOWN, "machine", log_evidence(k), NULL,
                    _("the kernel log was read only in part (%lld lines; stopped at gpuvet's size or time bound): "
                      "the rest is not judged"),
                    k->lines);
    else if (judged == 0)
        finding_add(ctx, SEV_PASS, "machine", log_evidence(k), NULL,
                    _("no GPU error in the kernel log since boot (%lld lines read)"), k->lines);
}

/* --- GPU_LOST ----------------------------------------------------------------------------------- */

/* The count the audit was told to expect: --expect-gpus, else --claim's gpus.count; 0 none. */
static int expected_gpus(const struct audit_ctx *ctx, const char **source)
{
    if (ctx->inputs->expect_gpus > 0) {
        *source = "--expect-gpus";
        return ctx->inputs->expect_gpus;
    }
    const struct claim_set *claims = ctx->inputs->claims;
    for (int i = 0; claims && i < claims->count; i++)
        if (!strcmp(claims->items[i].key, "gpus.count")) {
            *source = claims->listing ? "--expect" : "--claim gpus.count";
            return (int)json_integer_value(claims->items[i].claimed);
        }
    return 0;
}

#define LOST_SUBJECTS_MAX 72
struct lost_subjects {
    const char *items[LOST_SUBJECTS_MAX];
    int count;
};

/* Records subject; false when it was already judged lost (one finding per GPU). */
static bool first_time_lost(struct lost_subjects *s, const char *subject)
{
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->items[i], subject))
            return false;
    if (s->count < LOST_SUBJECTS_MAX)
        s->items[s->count++] = subject;
    return true;
}

static const char LOST_FIX[] = N_("reboot the machine; if the GPU stays missing, it has to be reseated or replaced: "
                                  "return it for service (`nvidia-smi -q` and the kernel log show it)");

static const char VM_MISSING_FIX[] = N_("ask the provider to pass the missing GPUs through to this VM (or to move it "
                                        "to an instance that has them): a VM sees only the GPUs its hypervisor gives "
                                        "it, and nothing inside it can be reseated");

void check_gpu_lost(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct gpu_set *s = &m->gpus;
    struct lost_subjects lost = {0};
    int judged = 0;
    const char *source = NULL;
    int expected = expected_gpus(ctx, &source);
    if (expected > 0) {
        int seen = -1;
        const char *counted = NULL;
        if (m->pci_scanned) {
            seen = machine_accelerator_count(m);
            counted = "PCI bus";
        } else if (s->count > 0 || s->nvml_lost > 0) {
            seen = s->count;
            counted = "NVIDIA driver";
        }
        bool pci = m->pci_scanned;
        json_t *ev = json_pack("{s:i, s:s, s:o, s:s?}", "expected", expected, "expected_from", source, "seen",
                               seen >= 0 ? json_integer(seen) : json_null(), "counted_on", counted);
        if (seen < 0)
            finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL,
                        _("accelerators expected: %d (%s), but neither the PCI bus nor a GPU list was read"), expected,
                        source);
        else if (seen < expected && pci && m->virt.known && m->virt.vm)
            /* A VM's PCI bus is the hypervisor's: a GPU absent from it was not passed through, and
             * whether the host still has it cannot be seen from inside: not a card to reseat. Still a
             * fail: this machine cannot run on the GPUs it should show (health drains it). */
            finding_add(ctx, ctx_severity(ctx), "machine", ev, _(VM_MISSING_FIX),
                        _("%d of the %d accelerators expected (%s) on this VM's PCI bus: %d not passed through "
                          "to it by the provider's hypervisor; not a lost GPU (whether the host has them cannot "
                          "be seen from inside a VM)"),
                        seen, expected, source, expected - seen);
        else if (seen < expected)
            finding_add(ctx, ctx_severity(ctx), "machine", ev, _(LOST_FIX),
                        pci ? _("%d of the %d accelerators expected (%s) seen on the PCI bus: %d missing")
                            : _("%d of the %d GPUs expected (%s) listed by the NVIDIA driver: %d missing"),
                        seen, expected, source, expected - seen);
        else
            finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                        pci ? _("accelerators seen on the PCI bus: %d, expected: %d (%s)")
                            : _("GPUs listed by the NVIDIA driver: %d, expected: %d (%s)"),
                        seen, expected, source);
        judged++;
    }
    /* NVML's own word first: the GPU it calls lost is not reported again as "not listed". */
    for (int i = 0; i < s->nvml_lost; i++) {
        const char *bus = i < 8 && s->nvml_lost_bus_ids[i][0] ? s->nvml_lost_bus_ids[i] : "machine";
        if (strcmp(bus, "machine") && !first_time_lost(&lost, bus))
            continue;
        finding_add(ctx, ctx_severity(ctx), bus, json_pack("{s:s, s:i}", "nvml", "GPU is lost", "lost_gpus", s->nvml_lost),
                    _(LOST_FIX), _("NVML answers \"GPU is lost\" (NVML_ERROR_GPU_IS_LOST) for this GPU"));
        judged++;
    }
    /* nvidia-smi's own words for a GPU it cannot reach (a device-handle error, "GPU is lost"). */
    for (int i = 0; i < s->smi_unreachable && i < GPU_SMI_UNREACHABLE_MAX; i++) {
        const char *bus = s->smi_unreachable_items[i].bus_id[0] ? s->smi_unreachable_items[i].bus_id : "machine";
        if (strcmp(bus, "machine") && !first_time_lost(&lost, bus))
            continue;
        finding_add(ctx, ctx_severity(ctx), bus,
                    json_pack("{s:s, s:i, s:s?}", "nvidia_smi", s->smi_unreachable_items[i].said, "unreachable_gpus",
                              s->smi_unreachable, "gpu_source", s->source),
                    _(LOST_FIX), _("nvidia-smi cannot reach this GPU: \"%s\""), s->smi_unreachable_items[i].said);
        judged++;
    }
    if (s->smi_unreachable > GPU_SMI_UNREACHABLE_MAX)
        finding_add(ctx, ctx_severity(ctx), "machine", json_pack("{s:i}", "unreachable_gpus", s->smi_unreachable),
                    _(LOST_FIX), _("nvidia-smi cannot reach %d GPUs; the first %d are listed"), s->smi_unreachable,
                    GPU_SMI_UNREACHABLE_MAX);
    /* NVIDIA GPUs on the bus that the driver does not list. Only when the driver answered: without
     * it, every GPU rule is unknown already (GPU facts unknown). */
    if (m->pci_scanned && s->probed && !s->unknown_reason) {
        int nvidia = 0, listed = 0;
        for (int i = 0; i < m->npci; i++) {
            const struct pci_device *d = &m->pci[i];
            if (d->role != PCI_ROLE_ACCELERATOR || d->vendor_id != 0x10de || d->class_id >> 16 != 0x03)
                continue;
            nvidia++;
            if (gpu_set_find(s, d->bus_id)) {
                listed++;
                continue;
            }
            json_t *ev = json_pack("{s:s, s:s?, s:s?}", "bus_id", d->bus_id, "driver", d->driver, "gpu_source", s->source);
            if (d->driver && strcmp(d->driver, "nvidia") != 0)
                finding_add(ctx, SEV_INFO, d->bus_id, ev, NULL,
                            _("NVIDIA GPU bound to %s, not to the NVIDIA driver: not usable for CUDA on this machine "
                              "(passed through to a VM, or another driver)"),
                            d->driver);
            else if (first_time_lost(&lost, d->bus_id))
                finding_add(ctx, ctx_severity(ctx), d->bus_id, ev, _(LOST_FIX),
                            _("NVIDIA GPU on the PCI bus that the NVIDIA driver does not list (%s): lost or failed to "
                              "initialise"),
                            gpu_set_from_nvidia_smi(s) ? "nvidia-smi" : "NVML");
            else
                json_decref(ev);
        }
        if (nvidia > 0 && listed == nvidia)
            finding_add(ctx, SEV_PASS, "machine", json_pack("{s:i}", "gpus", nvidia), NULL,
                        _("all %d NVIDIA GPUs on the PCI bus are listed by the driver"), nvidia);
        judged += nvidia > 0;
    }
    const struct kernel_log_info *k = &m->kernel_log;
    for (int i = 0; i < k->nevents; i++) {
        const struct klog_event *e = &k->events[i];
        bool fell = e->kind == KLOG_FALLEN_OFF_BUS || (e->kind == KLOG_XID && e->code == 79);
        if (!fell || e->klass == KLOG_CLASS_IGNORED)
            continue;
        const char *subject = e->bus_id[0] ? e->bus_id : "machine";
        if (e->bus_id[0] && !first_time_lost(&lost, subject))
            continue;
        finding_add(ctx, ctx_severity(ctx), subject,
                    json_pack("{s:s?, s:s, s:I, s:s}", "log", k->source, "last", e->last_time, "count",
                              (json_int_t)e->count, "text", e->text ? e->text : ""),
                    _(LOST_FIX), _("the kernel log says this GPU has fallen off the bus (last at %s)"), e->last_time);
        judged++;
    }
    /* Without an expected count, an empty port beside GPUs is a hint, never a verdict. */
    for (int i = 0; expected == 0 && i < m->empty_ports.count; i++) {
        const char *sw = m->empty_ports.items[i].switch_port;
        finding_add(ctx, SEV_INFO, sw,
                    json_pack("{s:s, s:s, s:i}", "switch", sw, "empty_port", m->empty_ports.items[i].empty_port,
                              "accelerators", m->empty_ports.items[i].accelerators),
                    _("give --expect-gpus N (the GPUs paid for) to judge the count"),
                    _("PCIe switch %s holds %d accelerators and an empty port %s: a GPU may be missing, or the port "
                      "is a spare"),
                    sw, m->empty_ports.items[i].accelerators, m->empty_ports.items[i].empty_port);
        judged++;
    }
    (void)judged;
}
