/* NUMA_GPU_NODE_NO_MEMORY, NUMA_GPU_NODE_NO_CPUS, NUMA_AFFINITY_UNKNOWN, NUMA_MEMORY_IMBALANCE,
 * NUMA_BINDING. Only accelerators are judged: they are what the data pipeline feeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "util/parse.h"
#include "util/i18n.h"
#include "util/units.h"


/* The node an accelerator belongs to: its own, or the only CPU node of a single-node host. */
static const struct numa_node *accelerator_node(const struct machine *m, const struct pci_device *d)
{
    if (d->numa_node >= 0)
        return machine_node(m, d->numa_node);
    if (machine_cpu_node_count(m) == 1)
        for (int i = 0; i < m->nnodes; i++)
            if (!hwloc_bitmap_iszero(m->nodes[i].cpus))
                return &m->nodes[i];
    return NULL;
}

static double mean_cpu_node_memory(const struct machine *m)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < m->nnodes; i++)
        if (!hwloc_bitmap_iszero(m->nodes[i].cpus) && m->nodes[i].memory_known) {
            sum += (double)m->nodes[i].memory_bytes;
            n++;
        }
    return n ? sum / n : 0;
}

/* Shared preamble: skips non-accelerators, reports unknown nodes; returns the node or NULL. */
static const struct numa_node *judged_node(struct audit_ctx *ctx, const struct pci_device *d)
{
    if (d->role != PCI_ROLE_ACCELERATOR)
        return NULL;
    const struct machine *m = ctx->machine;
    const struct numa_node *node = accelerator_node(m, d);
    if (!node)
        finding_add(ctx, SEV_UNKNOWN, d->bus_id, json_pack("{s:i}", "numa_node", d->numa_node), NULL,
                    m->nnodes == 0 ? _("NUMA layout unknown (no /sys/devices/system/node)")
                                   : _("the accelerator's NUMA node is unknown (numa_node = %d)"), d->numa_node);
    return node;
}

void check_numa_gpu_node_no_memory(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    double mean = mean_cpu_node_memory(m);
    double floor = ctx->thresholds->numa_min_memory_floor_bytes;
    double share_min = mean * ctx->thresholds->numa_min_memory_share;
    double limit = share_min > floor ? share_min : floor;
    for (int i = 0; i < m->npci; i++) {
        const struct numa_node *node = judged_node(ctx, &m->pci[i]);
        if (!node)
            continue;
        const char *bus = m->pci[i].bus_id;
        if (!node->memory_known) {
            finding_add(ctx, SEV_UNKNOWN, bus, json_pack("{s:i}", "numa_node", node->id), NULL,
                        _("memory of NUMA node %d unknown"), node->id);
            continue;
        }
        json_t *ev = json_pack("{s:i, s:I, s:f}", "numa_node", node->id, "node_memory_bytes",
                               (json_int_t)node->memory_bytes, "mean_cpu_node_memory_bytes", mean);
        if ((double)node->memory_bytes < limit)
            finding_add(ctx, ctx_severity(ctx), bus, ev,
                        _("populate the DIMM slots of this socket (see the memory section), or bind to a node with memory"),
                        _("accelerator on NUMA node %d, which holds %.1f GiB of host memory (other CPU nodes: %.1f GiB on "
                        "average): its copies cross the CPU interconnect"),
                        node->id, node->memory_bytes / GIB, mean / GIB);
        else
            finding_add(ctx, SEV_PASS, bus, ev, NULL, _("NUMA node %d holds %.1f GiB of host memory"), node->id,
                        node->memory_bytes / GIB);
    }
}

static hwloc_bitmap_t usable_set(const struct machine *m)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!m->cpu.usable_cpus || !parse_cpulist(m->cpu.usable_cpus, set))
        hwloc_bitmap_fill(set);
    return set;
}

void check_numa_gpu_node_no_cpus(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    hwloc_bitmap_t usable = usable_set(m);
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        const struct numa_node *node = judged_node(ctx, d);
        if (!node)
            continue;
        hwloc_bitmap_t both = hwloc_bitmap_alloc();
        /* A memory-only node (GPU memory on Grace Hopper) is judged by the device's local CPUs. */
        hwloc_const_bitmap_t local = hwloc_bitmap_iszero(node->cpus) && !hwloc_bitmap_iszero(d->local_cpus)
                                         ? d->local_cpus : node->cpus;
        hwloc_bitmap_and(both, local, usable);
        char *cpus = format_cpulist(local), *use = format_cpulist(both);
        json_t *ev = json_pack("{s:i, s:s, s:s}", "numa_node", node->id, "node_cpus", cpus, "usable_cpus", use);
        if (hwloc_bitmap_iszero(both))
            finding_add(ctx, ctx_severity(ctx), d->bus_id, ev,
                        _("bring the node's CPUs online or widen the cpuset/cgroup of the job"),
                        hwloc_bitmap_iszero(local) ? _("NUMA node %d has no CPUs: the feeding process must run far away")
                                                   : _("none of NUMA node %d's CPUs are usable by this process"),
                        node->id);
        else
            finding_add(ctx, SEV_PASS, d->bus_id, ev, NULL, _("NUMA node %d has %d usable CPUs (%s)"), node->id,
                        hwloc_bitmap_weight(both), use);
        free(cpus);
        free(use);
        hwloc_bitmap_free(both);
    }
    hwloc_bitmap_free(usable);
}

void check_numa_affinity_unknown(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    bool multi = machine_cpu_node_count(m) > 1;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        json_t *ev = json_pack("{s:i, s:b, s:i}", "numa_node", d->numa_node, "derived_from_local_cpus",
                               d->numa_derived, "cpu_nodes", machine_cpu_node_count(m));
        if (d->numa_derived)
            finding_add(ctx, SEV_INFO, d->bus_id, ev, NULL,
                        _("the kernel reports numa_node = -1; its local CPUs place it on node %d"), d->numa_node);
        else if (d->numa_node < 0 && multi)
            finding_add(ctx, ctx_severity(ctx), d->bus_id, ev,
                        _("ask the provider for firmware that reports PCI proximity (ACPI _PXM); meanwhile measure "
                        "with `gpuvet bench pcie` from each node"),
                        _("numa_node = -1 on a host with %d NUMA nodes: nobody can bind this accelerator's job correctly"),
                        machine_cpu_node_count(m));
        else if (d->numa_node >= 0)
            finding_add(ctx, SEV_PASS, d->bus_id, ev, NULL, _("NUMA node %d"), d->numa_node);
        else
            finding_add(ctx, SEV_PASS, d->bus_id, ev, NULL, _("single NUMA node host: no affinity to choose"));
    }
}

void check_numa_memory_imbalance(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    double lo = -1, hi = -1;
    int lo_id = -1, hi_id = -1, n = 0;
    json_t *nodes = json_array();
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *node = &m->nodes[i];
        if (hwloc_bitmap_iszero(node->cpus))
            continue;
        if (!node->memory_known) {
            json_decref(nodes);
            finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("memory of NUMA node %d unknown"), node->id);
            return;
        }
        double mem = (double)node->memory_bytes;
        json_array_append_new(nodes, json_pack("{s:i, s:I}", "id", node->id, "memory_bytes", (json_int_t)node->memory_bytes));
        if (lo < 0 || mem < lo) {
            lo = mem;
            lo_id = node->id;
        }
        if (mem > hi) {
            hi = mem;
            hi_id = node->id;
        }
        n++;
    }
    if (n == 0) {
        json_decref(nodes);
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("no NUMA node with CPUs could be read"));
        return;
    }
    double spread = hi > 0 ? (hi - lo) / hi : 0;
    json_t *ev = json_pack("{s:o, s:f, s:f}", "cpu_nodes", nodes, "spread", spread, "threshold",
                           ctx->thresholds->numa_imbalance_ratio);
    if (n > 1 && spread > ctx->thresholds->numa_imbalance_ratio)
        finding_add(ctx, ctx_severity(ctx), "machine", ev,
                    _("populate the same DIMMs on every socket (see the memory section)"),
                    _("NUMA node %d holds %.1f GiB, node %d only %.1f GiB (%.0f%% less)"), hi_id, hi / GIB, lo_id,
                    lo / GIB, spread * 100);
    else if (n > 1)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL,
                    _("memory is balanced across the %d NUMA nodes with CPUs (spread %.0f%%)"), n, spread * 100);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("one NUMA node with CPUs: nothing to balance"));
}

void check_numa_binding(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        const struct numa_node *node = accelerator_node(m, d);
        hwloc_const_bitmap_t cpus = !hwloc_bitmap_iszero(d->local_cpus) ? d->local_cpus : node ? node->cpus : NULL;
        if (!node || !cpus || hwloc_bitmap_iszero(cpus)) {
            finding_add(ctx, SEV_UNKNOWN, d->bus_id, NULL, NULL, _("no NUMA node or local CPUs known to bind to"));
            continue;
        }
        char *list = format_cpulist(cpus);
        char fix[512];
        bool memory = node->memory_known && node->memory_bytes > 0 && !hwloc_bitmap_iszero(node->cpus);
        if (memory)
            snprintf(fix, sizeof fix, _("numactl --cpunodebind=%d --membind=%d <cmd>   or   taskset -c %s <cmd>"),
                     node->id, node->id, list);
        else
            snprintf(fix, sizeof fix, _("taskset -c %s <cmd>"), list);
        finding_add(ctx, SEV_INFO, d->bus_id,
                    json_pack("{s:i, s:s, s:s}", "numa_node", node->id, "cpus", list, "command", fix), fix,
                    _("bind its feeding process to NUMA node %d (CPUs %s)"), node->id, list);
        free(list);
    }
}
