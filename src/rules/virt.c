/* VIRT_LIMITS: inside a VM or container, list what cannot be verified instead of judging it. */
#include <stdio.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

void check_virt_limits(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct virt_info *v = &m->virt;
    if (!v->known && machine_from_evidence(m)) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("the evidence files do not say whether it is a VM"));
        return;
    }
    if (!v->known) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s?}", "evidence", v->evidence), NULL,
                    _("cannot tell whether this is a VM: %s"), v->evidence ? _(v->evidence) : _("no signals"));
        return;
    }
    json_t *limits = json_array();
    if (v->vm) {
        json_array_append_new(limits, json_string("PCIe ports and slot caps are the hypervisor's"));
        json_array_append_new(limits, json_string("the NUMA layout and GPU locality are what the VM was given"));
        json_array_append_new(limits, json_string("SMBIOS memory and ECC claims are invented by the hypervisor"));
        json_array_append_new(limits, json_string("CPU clocks and governors belong to the host; steal time applies"));
    }
    if (v->container) {
        char line[160];
        snprintf(line, sizeof line, _("kernel settings are the host's; this container may use %d of %d CPUs"),
                 m->cpu.usable_threads, m->cpu.threads);
        json_array_append_new(limits, json_string(line));
    }
    json_t *ev = json_pack("{s:b, s:s?, s:b, s:s?, s:s?, s:o}", "vm", v->vm, "hypervisor", v->hypervisor,
                           "container", v->container, "container_kind", v->container_kind, "evidence",
                           v->evidence, "cannot_verify", limits);
    if (v->vm || v->container) {
        char what[128];
        snprintf(what, sizeof what, "%s%s%s%s%s", v->vm ? _("a VM") : "", v->vm && v->hypervisor ? " (" : "",
                 v->vm && v->hypervisor ? v->hypervisor : "", v->vm && v->hypervisor ? ")" : "",
                 v->container ? (v->vm ? _(" and a container") : _("a container")) : "");
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("run gpuvet on the bare-metal host (or ask the provider for its report) to verify these"),
                    _("running in %s: %zu things cannot be verified from inside"), what, json_array_size(limits));
    } else {
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("bare metal"));
    }
}
