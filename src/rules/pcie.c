/* PCIE_LINK_DEGRADED, PCIE_SLOT_CAPPED, PCIE_UPLINK_SHARED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "rules/hints.h"
#include "util/parse.h"
#include "util/i18n.h"


/* The most the link can do: the lower of the device's and its upstream port's maximum. */
struct link_cap {
    double gt_s;
    int width;
    bool port_known;
};

static struct link_cap link_cap(const struct pci_device *d)
{
    struct link_cap cap = {d->link.max_gt_s, d->link.max_width, false};
    if (d->npath > 0 && d->path[0].link.known) {
        const struct pci_link *port = &d->path[0].link;
        cap.port_known = true;
        if (port->max_gt_s < cap.gt_s)
            cap.gt_s = port->max_gt_s;
        if (port->max_width < cap.width)
            cap.width = port->max_width;
    }
    return cap;
}

/* The device's role as a message names it: pci_role_name's word in English, translated for people. */
static const char *role_text(enum pci_role role)
{
    switch (role) {
    case PCI_ROLE_ACCELERATOR: return _("accelerator");
    case PCI_ROLE_NIC: return _("nic");
    case PCI_ROLE_NVME: return _("nvme");
    }
    return pci_role_name(role);
}

static char *gen_text(double gt_s, int width)
{
    char *s = NULL;
    int gen = pcie_generation(gt_s);
    int rc = gen ? asprintf(&s, _("Gen%d x%d"), gen, width) : asprintf(&s, "%g GT/s x%d", gt_s, width);
    return rc < 0 ? NULL : s;
}

static json_t *link_json(const struct pci_link *l)
{
    return json_pack("{s:f, s:i, s:f, s:i}", "current_gt_s", l->cur_gt_s, "current_width", l->cur_width,
                     "max_gt_s", l->max_gt_s, "max_width", l->max_width);
}

static json_t *device_evidence(const struct pci_device *d)
{
    json_t *e = json_pack("{s:s, s:o}", "role", pci_role_name(d->role), "link", link_json(&d->link));
    if (d->npath > 0) {
        json_object_set_new(e, "upstream_port", json_string(d->path[0].bus_id));
        if (d->path[0].link.known)
            json_object_set_new(e, "upstream_port_link", link_json(&d->path[0].link));
    }
    return e;
}

static void unknown_link(struct audit_ctx *ctx, const struct pci_device *d)
{
    finding_add(ctx, SEV_UNKNOWN, d->bus_id, json_pack("{s:s}", "role", pci_role_name(d->role)), NULL,
                ctx->machine->virt.vm ? _("link state unknown: the kernel shows no link attributes (virtual machine)")
                                      : _("link state unknown: the kernel exposes no current/max link attributes "
                                        "(kernels before 4.13, or a root-complex integrated device)"));
}

void check_pcie_link_degraded(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    if (!m->pci_scanned) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("PCI devices unknown: /sys/bus/pci/devices %s"),
                    machine_from_evidence(m) ? _("was not read (evidence files only)")
                                                                : _("could not be read"));
        check_gpu_link_degraded(ctx); /* NVML/nvidia-smi still describe the GPUs' links */
        return;
    }
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        const struct gpu *g = gpu_set_find(&m->gpus, d->bus_id);
        if (g && gpu_link_known(g))
            continue; /* judged by check_gpu_link_degraded, with the P-state and the load check */
        if (!d->link.known) {
            unknown_link(ctx, d);
            continue;
        }
        struct link_cap cap = link_cap(d);
        char *cur = gen_text(d->link.cur_gt_s, d->link.cur_width), *max = gen_text(cap.gt_s, cap.width);
        if (d->link.cur_width < cap.width) {
            char fix[256];
            snprintf(fix, sizeof fix,
                     _("reseat the card or its riser, check the slot's bifurcation setting in the BIOS, "
                     "then confirm with `lspci -s %s -vv | grep LnkSta`"), d->bus_id);
            finding_add(ctx, ctx_severity(ctx), d->bus_id, device_evidence(d), fix,
                        _("%s link runs at x%d of x%d: %.0f%% of its bandwidth (%s of %s)"),
                        role_text(d->role), d->link.cur_width, cap.width,
                        100.0 * d->link.cur_width / cap.width, cur, max);
        } else if (d->link.cur_gt_s < cap.gt_s * 0.99) {
            bool accelerator = d->role == PCI_ROLE_ACCELERATOR;
            finding_add(ctx, accelerator ? SEV_INFO : SEV_WARN, d->bus_id, device_evidence(d),
                        accelerator ? hint_load_check_fix(ctx->machine) : _("check the slot and BIOS link-speed setting"),
                        accelerator ? _("link speed %s below its max %s: likely idle power saving, not yet "
                                      "confirmed under load")
                                    : _("link speed %s below its max %s (NICs and NVMe drives do not slow "
                                      "their links at idle)"),
                        cur, max);
        } else {
            finding_add(ctx, SEV_PASS, d->bus_id, device_evidence(d), NULL, _("%s link at %s, its max"),
                        role_text(d->role), cur);
        }
        free(cur);
        free(max);
    }
    check_gpu_link_degraded(ctx);
}

/* NVML and nvidia-smi name both the GPU's own top generation and the one GPU and slot allow
 * together (nvmlDeviceGetGpuMaxPcieLinkGeneration, nvmlDeviceGetMaxPcieLinkGeneration). */
static bool gpu_cap_known(const struct gpu *g) { return g && g->pcie_gen_gpu_max > 0 && g->pcie_gen_max > 0; }

static void judge_gpu_slot(struct audit_ctx *ctx, const struct gpu *g)
{
    const struct machine *m = ctx->machine;
    json_t *ev = json_pack("{s:s?, s:i, s:i, s:i}", "source", m->gpus.source, "gpu_max_gen", g->pcie_gen_gpu_max,
                           "max_gen", g->pcie_gen_max, "max_width", g->pcie_width_max);
    if (g->pcie_gen_max >= g->pcie_gen_gpu_max) {
        finding_add(ctx, SEV_PASS, g->bus_id, ev, NULL, _("the slot allows the GPU's Gen%d"), g->pcie_gen_gpu_max);
        return;
    }
    /* Same width on both sides: the share is the ratio of the generations' lane rates. */
    double share = pcie_lane_gb_s(pcie_generation_gt_s(g->pcie_gen_max)) /
                   pcie_lane_gb_s(pcie_generation_gt_s(g->pcie_gen_gpu_max));
    bool virtual_port = m->virt.vm;
    finding_add(ctx, virtual_port ? SEV_INFO : ctx_severity(ctx), g->bus_id, ev,
                _("use a slot (or riser) that matches the GPU, or accept the platform's limit"),
                _("GPU can do Gen%d but its slot allows Gen%d: capped at %.0f%% of the GPU's bandwidth%s"),
                g->pcie_gen_gpu_max, g->pcie_gen_max, 100.0 * share,
                virtual_port ? _(" (the port is the hypervisor's, not necessarily the physical slot)") : "");
}

void check_pcie_slot_capped(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    for (int i = 0; i < m->gpus.count; i++)
        if (gpu_cap_known(&m->gpus.items[i]))
            judge_gpu_slot(ctx, &m->gpus.items[i]);
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (!d->link.known || d->npath == 0 || gpu_cap_known(gpu_set_find(&m->gpus, d->bus_id)))
            continue; /* no link facts, or judged above from the GPU's own view */
        if (!d->path[0].link.known) {
            finding_add(ctx, SEV_UNKNOWN, d->bus_id, NULL, NULL,
                        _("upstream port %s shows no link attributes: a slot cap cannot be judged"), d->path[0].bus_id);
            continue;
        }
        struct link_cap cap = link_cap(d);
        char *dev = gen_text(d->link.max_gt_s, d->link.max_width), *port = gen_text(cap.gt_s, cap.width);
        if (cap.gt_s < d->link.max_gt_s * 0.99 || cap.width < d->link.max_width) {
            double lost = 1.0 - pci_link_gb_s(cap.gt_s, cap.width) / pci_link_gb_s(d->link.max_gt_s, d->link.max_width);
            bool virtual_port = m->virt.vm;
            finding_add(ctx, virtual_port ? SEV_INFO : ctx_severity(ctx), d->bus_id, device_evidence(d),
                        _("use a slot (or riser) that matches the device, or accept the platform's limit"),
                        _("%s can do %s but its port %s allows %s: capped at %.0f%% of the device's bandwidth%s"),
                        role_text(d->role), dev, d->path[0].bus_id, port, 100.0 * (1.0 - lost),
                        virtual_port ? _(" (the port is the hypervisor's, not necessarily the physical slot)") : "");
        } else {
            finding_add(ctx, SEV_PASS, d->bus_id, device_evidence(d), NULL, _("port %s allows the device's %s"),
                        d->path[0].bus_id, dev);
        }
        free(dev);
        free(port);
    }
}

/* --- PCIE_UPLINK_SHARED ------------------------------------------------------------------------- */

/* "0000:19:08.0" and "0000:19:08.1" are two functions behind one link. */
static bool same_slot(const char *a, const char *b)
{
    const char *dot_a = strrchr(a, '.'), *dot_b = strrchr(b, '.');
    return dot_a && dot_b && dot_a - a == dot_b - b && !strncmp(a, b, (size_t)(dot_a - a));
}

/* The node just below `hop` on device d's path: another hop or the device itself. */
static const char *child_below(const struct pci_device *d, int hop_index)
{
    return hop_index == 0 ? d->bus_id : d->path[hop_index - 1].bus_id;
}

static int hop_index(const struct pci_device *d, const char *bus_id)
{
    for (int k = 0; k < d->npath; k++)
        if (!strcmp(d->path[k].bus_id, bus_id))
            return k;
    return -1;
}

/* Judges one switch upstream port (a hop with two or more links below it). */
static void judge_switch(struct audit_ctx *ctx, const struct pci_device *owner, int index)
{
    const struct machine *m = ctx->machine;
    const struct pci_hop *up = &owner->path[index];
    if (!up->link.known)
        return;
    double uplink_gt = up->link.max_gt_s;
    if (index + 1 < owner->npath && owner->path[index + 1].link.known && owner->path[index + 1].link.max_gt_s < uplink_gt)
        uplink_gt = owner->path[index + 1].link.max_gt_s;
    double uplink = pci_link_gb_s(uplink_gt, up->link.cur_width);

    json_t *devices = json_array();
    double demand = 0;
    int accelerators = 0;
    const char *counted[256];
    int ncounted = 0;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role == PCI_ROLE_NVME || hop_index(d, up->bus_id) < 0 || !d->link.known)
            continue;
        bool seen = false;
        for (int k = 0; k < ncounted; k++)
            seen |= same_slot(counted[k], d->bus_id);
        if (seen || ncounted == 256)
            continue;
        counted[ncounted++] = d->bus_id;
        struct link_cap cap = link_cap(d);
        double need = pci_link_gb_s(cap.gt_s, cap.width);
        demand += need;
        accelerators += d->role == PCI_ROLE_ACCELERATOR;
        json_array_append_new(devices, json_pack("{s:s, s:s, s:f}", "bus_id", d->bus_id, "role",
                                                 pci_role_name(d->role), "gb_s", need));
    }
    if (accelerators < 2) {
        json_decref(devices);
        return;
    }
    char *uplink_text = gen_text(uplink_gt, up->link.cur_width);
    json_t *ev = json_pack("{s:s, s:f, s:f, s:o}", "uplink", uplink_text ? uplink_text : "", "uplink_gb_s", uplink,
                           "devices_gb_s", demand, "devices", devices);
    if (demand > uplink * ctx->thresholds->uplink_oversubscription * 1.001)
        finding_add(ctx, ctx_severity(ctx), up->bus_id, ev,
                    _("spread data-hungry jobs across switches, or choose a platform with one x16 uplink per GPU"),
                    _("%d accelerators (and %zu links in all) behind switch %s share one %s uplink: %.1f GB/s of "
                    "links over %.1f GB/s, %.1fx oversubscribed when all copy at once"),
                    accelerators, json_array_size(devices), up->bus_id, uplink_text ? uplink_text : "?", demand,
                    uplink, demand / uplink);
    else
        finding_add(ctx, SEV_PASS, up->bus_id, ev, NULL,
                    _("%d accelerators behind switch %s: the %s uplink (%.1f GB/s) covers their links (%.1f GB/s)"),
                    accelerators, up->bus_id, uplink_text ? uplink_text : "?", uplink, demand);
    free(uplink_text);
}

void check_pcie_uplink_shared(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const char *judged[256];
    int njudged = 0;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        for (int k = 0; k < d->npath; k++) {
            const char *hop = d->path[k].bus_id;
            bool done = false;
            for (int j = 0; j < njudged; j++)
                done |= !strcmp(judged[j], hop);
            if (done || njudged == 256)
                continue;
            /* A switch: two or more distinct links directly below this hop. */
            const char *first = child_below(d, k);
            bool fans_out = false;
            for (int o = 0; o < m->npci && !fans_out; o++) {
                int idx = hop_index(&m->pci[o], hop);
                fans_out = idx >= 0 && !same_slot(child_below(&m->pci[o], idx), first);
            }
            if (!fans_out)
                continue;
            judged[njudged++] = hop;
            judge_switch(ctx, d, k);
        }
    }
}
