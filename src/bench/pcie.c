/* The copy method of cuda-samples' bandwidthTest and DCGM's pcie plugin: large copies queued on
 * one stream, timed by events on the GPU (pinned) or by the wall clock (pageable, synchronous).
 * The host buffers are bound to a NUMA node with hwloc before they are allocated, so "near" and
 * "far" mean where the memory really is. */
#include "bench/bench.h"
#include "bench/pcie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda.h"
#include "util/pciaddr.h"

#define COPY_BYTES (256u << 20)
#define NVIDIA_VENDOR 0x10de

/* Transfer rate in GT/s of a PCIe generation. */
static double gen_gt_s(int gen)
{
    static const double rates[] = {0, 2.5, 5, 8, 16, 32, 64};
    return gen > 0 && gen <= 6 ? rates[gen] : 0;
}

/* The most the link can carry per direction: the GPU's (system) max generation and width from
 * NVML/nvidia-smi, else the sysfs link's. 0 when unknown. */
static double link_bytes_s(const struct machine *m, const char *bus_id)
{
    const struct gpu *g = gpu_set_find(&m->gpus, bus_id);
    if (g && g->pcie_gen_max > 0 && g->pcie_width_max > 0)
        return pci_link_gb_s(gen_gt_s(g->pcie_gen_max), g->pcie_width_max) * 1e9;
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, bus_id) && m->pci[i].link.known)
            return pci_link_gb_s(m->pci[i].link.max_gt_s, m->pci[i].link.max_width) * 1e9;
    return 0;
}

static int near_node(const struct machine *m, const char *bus_id)
{
    const struct gpu *g = gpu_set_find(&m->gpus, bus_id);
    if (g)
        return gpu_numa_node(m, g);
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, bus_id))
            return m->pci[i].numa_node;
    return -1;
}

/* The node with CPUs farthest from near (by the kernel's distances), or -1 on one-node hosts. */
static int far_node(const struct machine *m, int near)
{
    const struct numa_node *from = machine_node(m, near);
    int best = -1, best_distance = -1;
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        if (n->id == near || hwloc_bitmap_iszero(n->cpus) || (n->memory_known && n->memory_bytes == 0))
            continue;
        int d = from && from->distances ? from->distances[i] : 0;
        if (d > best_distance) {
            best = n->id;
            best_distance = d;
        }
    }
    return best;
}

/* Binds this thread's CPUs and memory to a node; node < 0 undoes it. */
static bool bind_node(const struct machine *m, int node)
{
    hwloc_topology_t t = m->topology;
    if (!t)
        return false;
    if (node < 0) {
        hwloc_set_membind(t, hwloc_topology_get_topology_nodeset(t), HWLOC_MEMBIND_DEFAULT,
                          HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
        hwloc_set_cpubind(t, hwloc_topology_get_allowed_cpuset(t), HWLOC_CPUBIND_THREAD);
        return true;
    }
    hwloc_obj_t obj = hwloc_get_numanode_obj_by_os_index(t, (unsigned)node);
    if (!obj)
        return false;
    if (!hwloc_bitmap_iszero(obj->cpuset))
        hwloc_set_cpubind(t, obj->cpuset, HWLOC_CPUBIND_THREAD);
    return hwloc_set_membind(t, obj->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) == 0;
}

static json_t *rate_json(double bytes_s) { return bytes_s > 0 ? json_real(bytes_s) : json_null(); }

static json_t *measure(const struct machine *m, const struct cuda *c, const char *bus_id, bool quick)
{
    int repeat = quick ? 3 : 10, pageable_repeat = quick ? 2 : 5;
    int near = near_node(m, bus_id), far = near >= 0 ? far_node(m, near) : -1;
    bool bound = near >= 0 && bind_node(m, near);
    char err[512] = "";
    struct cuda_gpu g;
    json_t *out = NULL;
    char *pageable = NULL;
    if (cuda_gpu_open(c, bus_id, COPY_BYTES, &g, err, sizeof err) != 0)
        goto failed;
    /* One copy each way first: the link leaves its idle state and the driver maps the buffers. */
    if (cuda_copy_rate(&g, CUDA_H2D, NULL, 1, err, sizeof err) < 0 || cuda_copy_rate(&g, CUDA_D2H, NULL, 1, err, sizeof err) < 0)
        goto failed;
    double h2d = cuda_copy_rate(&g, CUDA_H2D, NULL, repeat, err, sizeof err);
    double d2h = cuda_copy_rate(&g, CUDA_D2H, NULL, repeat, err, sizeof err);
    if (h2d < 0 || d2h < 0)
        goto failed;
    pageable = malloc(COPY_BYTES);
    if (!pageable) {
        snprintf(err, sizeof err, "no memory for a %u MiB pageable buffer", COPY_BYTES >> 20);
        goto failed;
    }
    memset(pageable, 0x5a, COPY_BYTES);
    double h2d_pageable = cuda_copy_rate(&g, CUDA_H2D, pageable, pageable_repeat, err, sizeof err);
    double d2h_pageable = cuda_copy_rate(&g, CUDA_D2H, pageable, pageable_repeat, err, sizeof err);
    double far_h2d = -1;
    if (far >= 0 && bind_node(m, far) && cuda_gpu_repin(&g, err, sizeof err) == 0) {
        cuda_copy_rate(&g, CUDA_H2D, NULL, 1, err, sizeof err);
        far_h2d = cuda_copy_rate(&g, CUDA_H2D, NULL, repeat, err, sizeof err);
    }
    double link = link_bytes_s(m, bus_id);
    out = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "bus_id", bus_id, "h2d_pinned_bytes_s",
                    rate_json(h2d), "d2h_pinned_bytes_s", rate_json(d2h), "h2d_pageable_bytes_s",
                    rate_json(h2d_pageable), "d2h_pageable_bytes_s", rate_json(d2h_pageable), "near_node",
                    bound ? json_integer(near) : json_null(), "far_node", far_h2d > 0 ? json_integer(far) : json_null(),
                    "far_h2d_pinned_bytes_s", rate_json(far_h2d), "link_theoretical_bytes_s", rate_json(link),
                    "fraction", link > 0 ? json_real(h2d / link) : json_null());
    goto done;
failed:
    out = json_pack("{s:s, s:s}", "bus_id", bus_id, "error", *err ? err : "the copies failed");
done:
    free(pageable);
    cuda_gpu_close(&g);
    if (bound || far >= 0)
        bind_node(m, -1);
    return out;
}

/* The GPUs NVML described, and NVIDIA display/3D devices sysfs shows that NVML missed. */
static int pcie_targets(const struct machine *m, const char *targets[256])
{
    int n = 0;
    for (int i = 0; i < m->gpus.count && n < 256; i++)
        targets[n++] = m->gpus.items[i].bus_id;
    for (int i = 0; i < m->npci && n < 256; i++)
        if (m->pci[i].vendor_id == NVIDIA_VENDOR && m->pci[i].role == PCI_ROLE_ACCELERATOR &&
            !gpu_set_find(&m->gpus, m->pci[i].bus_id))
            targets[n++] = m->pci[i].bus_id;
    return n;
}

static const char *no_nvidia_gpu(const struct machine *m)
{
    const char *targets[256];
    return pcie_targets(m, targets) == 0 ? "no NVIDIA GPU on this machine" : NULL;
}

json_t *bench_pcie_run(const struct machine *m, bool quick)
{
    const char *targets[256];
    int n = pcie_targets(m, targets);
    if (n == 0)
        return json_pack("{s:s}", "skipped", no_nvidia_gpu(m));
    struct cuda c;
    char err[512];
    if (cuda_open(&c, err, sizeof err) != 0) {
        json_t *skipped = json_object();
        char reason[600];
        snprintf(reason, sizeof reason, "CUDA driver not usable: %s", err);
        json_object_set_new(skipped, "skipped", json_string(reason));
        return skipped;
    }
    json_t *results = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(results, measure(m, &c, targets[i], quick));
    cuda_close(&c);
    return results;
}

static json_t *run_pcie(const struct bench_ctx *ctx) { return bench_pcie_run(ctx->machine, ctx->opts->quick); }

const struct bench_info bench_pcie_info = {
    "pcie", run_pcie, "host<->GPU copy bandwidth per NVIDIA GPU (pinned/pageable, near/far NUMA node)",
    no_nvidia_gpu};
