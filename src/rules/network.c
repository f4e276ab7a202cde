/* NET_MULTINODE: a job spread over several machines (--nodes N) exchanges gradients or
 * activations over the network every step; the fastest usable NIC, RDMA and where the NIC sits
 * relative to the accelerators decide how much of each step is spent waiting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"
#include "util/sanitize.h"

#define NET_FIX _("rent nodes with RDMA networking (InfiniBand or RoCE) of at least the workload's rate per node")

static const struct pci_device *pci_lookup(const struct machine *m, const char *bus_id)
{
    for (int i = 0; bus_id && i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

static bool rdma_active(const struct nic_port *p)
{
    return p->has_rdma && p->rdma.state && !strcmp(p->rdma.state, "ACTIVE");
}

static json_t *port_json(const struct nic_port *p)
{
    json_t *e = json_pack("{s:s?, s:s, s:o, s:b, s:o, s:i}", "name", p->name, "state", link_state_name(p->state),
                          "speed_mbps", p->speed_mbps > 0 ? json_integer(p->speed_mbps) : json_null(), "rdma",
                          rdma_active(p), "link_layer", p->link_layer ? json_text(p->link_layer) : json_null(),
                          "numa_node", p->numa_node);
    return e;
}

/* The fastest usable port (with an active RDMA port when rdma_only); RDMA breaks ties, as NCCL
 * picks it. */
static const struct nic_port *fastest_usable(const struct network_info *n, bool rdma_only)
{
    const struct nic_port *best = NULL;
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        if (!nic_port_usable(p) || (rdma_only && !rdma_active(p)))
            continue;
        if (!best || p->speed_mbps > best->speed_mbps ||
            (p->speed_mbps == best->speed_mbps && rdma_active(p) && !rdma_active(best)))
            best = p;
    }
    return best;
}

/* Ports whose link could be the fastest but is not known: up without a speed, or state unknown. */
static int unknown_ports(const struct network_info *n, char *names, size_t size)
{
    int count = 0;
    names[0] = '\0';
    for (int i = 0; i < n->nports; i++) {
        const struct nic_port *p = &n->ports[i];
        if (p->state == LINK_DOWN || nic_port_usable(p))
            continue;
        size_t len = strlen(names);
        snprintf(names + len, size - len, "%s%s", count ? ", " : "", p->name);
        count++;
    }
    return count;
}

static bool paths_share_hop(const struct pci_device *a, const struct pci_device *b)
{
    for (int i = 0; i < a->npath; i++)
        for (int k = 0; k < b->npath; k++)
            if (!strcmp(a->path[i].bus_id, b->path[k].bus_id))
                return true;
    return false;
}

/* GPUDirect RDMA moves data between the NIC and GPU memory over PCIe: best through one switch,
 * worse through the CPU's root complex, worst across the socket interconnect. */
static void judge_placement(struct audit_ctx *ctx, const struct nic_port *nic)
{
    const struct machine *m = ctx->machine;
    const struct pci_device *nic_pci = pci_lookup(m, nic->pci_bus_id);
    int accelerators = 0, same_node = 0, same_switch = 0;
    char nodes[128] = "";
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        accelerators++;
        same_node += nic->numa_node >= 0 && d->numa_node == nic->numa_node;
        same_switch += nic_pci && paths_share_hop(nic_pci, d);
        char node[16];
        snprintf(node, sizeof node, " %d ", d->numa_node);
        if (!strstr(nodes, node) && strlen(nodes) + strlen(node) < sizeof nodes)
            strcat(nodes, node);
    }
    if (accelerators == 0)
        return;
    json_t *ev = json_pack("{s:o, s:i, s:i, s:i}", "nic", port_json(nic), "accelerators", accelerators,
                           "accelerators_on_nic_node", same_node, "accelerators_sharing_a_switch", same_switch);
    if (nic->numa_node < 0 || !nic_pci) {
        finding_add(ctx, SEV_UNKNOWN, nic->name, ev, NULL,
                    _("where %s sits relative to the accelerators is unknown (NUMA node or PCI path unknown)"), nic->name);
    } else if (same_node == 0) {
        finding_add(ctx, SEV_INFO, nic->name, ev, _("put the job's NIC and GPUs on the same socket, or ask for a node "
                                                  "with one NIC per GPU socket"),
                    _("%s is on NUMA node %d, the accelerators on node(s)%s: GPUDirect RDMA crosses the CPU "
                    "interconnect"), nic->name, nic->numa_node, nodes);
    } else if (same_switch == 0) {
        finding_add(ctx, SEV_INFO, nic->name, ev, NULL,
                    _("%s shares no PCIe switch with an accelerator: GPUDirect RDMA goes through the CPU's root "
                    "complex (nvidia-smi topo -m: NODE/PHB, not PIX/PXB)"), nic->name);
    } else {
        finding_add(ctx, SEV_PASS, nic->name, ev, NULL, _("%s shares a PCIe switch with %d of %d accelerators"),
                    nic->name, same_switch, accelerators);
    }
}

void check_net_multinode(struct audit_ctx *ctx)
{
    int nodes = ctx->inputs->nodes;
    if (nodes <= 1)
        return;
    const struct network_info *n = &ctx->machine->network;
    const struct thresholds *t = ctx->thresholds;
    char unknown_names[512];
    int unknown = unknown_ports(n, unknown_names, sizeof unknown_names);
    const struct nic_port *best = fastest_usable(n, false), *rdma = fastest_usable(n, true);
    double best_gbps = best ? best->speed_mbps / 1000.0 : 0;
    json_t *ev = json_pack("{s:i, s:o, s:f, s:f, s:i}", "nodes", nodes, "fastest_usable",
                           best ? port_json(best) : json_null(), "fail_below_gbps", t->net_multinode_fail_gbps,
                           "warn_below_gbps", t->net_multinode_warn_gbps, "nics_with_unknown_link", unknown);
    if (!n->listed && n->nports == 0) {
        finding_add(ctx, SEV_UNKNOWN, "network", ev, NULL, _("network interfaces unknown (no /sys/class/net)"));
        return;
    }
    if (best_gbps < t->net_multinode_fail_gbps) {
        char fastest[160];
        snprintf(fastest, sizeof fastest, "%s", _("no NIC has an up link with a known speed"));
        if (best)
            snprintf(fastest, sizeof fastest, _("the fastest usable NIC is %s at %g Gb/s"), best->name, best_gbps);
        if (unknown)
            finding_add(ctx, SEV_UNKNOWN, "network", ev, NULL,
                        _("%s; %d %s no link speed (%s): a %d-node job needs >= %g Gb/s, which only %s could "
                        "give"), fastest, unknown, unknown == 1 ? _("NIC shows") : _("NICs show"), unknown_names, nodes,
                        t->net_multinode_fail_gbps, unknown == 1 ? "it" : "they");
        else
            finding_add(ctx, SEV_FAIL, "network", ev, NET_FIX,
                        _("%s, below %g Gb/s: a %d-node job would spend most of each step exchanging gradients"),
                        fastest, t->net_multinode_fail_gbps, nodes);
        return;
    }
    bool warned = false;
    if (!rdma || rdma->speed_mbps / 1000.0 < t->net_multinode_fail_gbps) {
        finding_add(ctx, SEV_WARN, "network", json_deep_copy(ev), NET_FIX,
                    _("no usable NIC of >= %g Gb/s has an active RDMA port (the fastest, %s, runs %g Gb/s without): "
                    "NCCL falls back to TCP sockets, which cost CPU time and latency on every collective"),
                    t->net_multinode_fail_gbps, best->name, best_gbps);
        warned = true;
    }
    if (best_gbps < t->net_multinode_warn_gbps) {
        finding_add(ctx, SEV_WARN, "network", json_deep_copy(ev), NET_FIX,
                    _("the fastest usable NIC is %s at %g Gb/s; %s across %d nodes wants >= %g Gb/s per node"),
                    best->name, best_gbps, workload_name(ctx->workload), nodes, t->net_multinode_warn_gbps);
        warned = true;
    }
    if (!warned)
        finding_add(ctx, SEV_PASS, "network", json_incref(ev), NULL, _("%s: %g Gb/s with RDMA (%s port %d, %s)"),
                    rdma->name, rdma->speed_mbps / 1000.0, rdma->rdma.device, rdma->rdma.port,
                    rdma->rdma.link_layer ? rdma->rdma.link_layer : _("link layer unknown"));
    json_decref(ev);
    judge_placement(ctx, rdma ? rdma : best);
}
