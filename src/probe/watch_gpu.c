/* The GPU side of `gpuvet watch`: NVML's utilisation, memory, PCIe throughput, clocks,
 * clock-event reasons and power of every GPU, once per interval. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvml.h"
#include "model/gpu.h"
#include "probe/watch.h"
#include "util/parse.h"
#include "util/units.h"

struct watch_gpus {
    struct nvml nvml;
    nvml_device devices[WATCH_MAX_GPUS];
    int count;
};

/* GT/s per lane of PCIe generations 1..6. */
static double generation_gt_s(unsigned gen)
{
    static const double rate[] = {2.5, 5, 8, 16, 32, 64};
    return gen >= 1 && gen <= 6 ? rate[gen - 1] : 0;
}

struct watch_gpus *watch_gpus_open(struct watch_timeline *w)
{
    struct watch_gpus *g = calloc(1, sizeof *g);
    char err[512];
    if (!g)
        return NULL;
    if (nvml_open(&g->nvml, err, sizeof err) != 0) {
        watch_set(&w->gpu_unseen, "NVML could not be used (%s): GPU utilisation, PCIe traffic, clocks and power "
                                  "were not seen", err);
        free(g);
        return NULL;
    }
    unsigned count = 0;
    nvml_return rc = g->nvml.device_count(&count);
    if (rc != NVML_SUCCESS || count == 0) {
        watch_set(&w->gpu_unseen, "NVML lists no GPU (%s)", rc == NVML_SUCCESS ? "count 0" : nvml_error(&g->nvml, rc));
        nvml_close(&g->nvml);
        free(g);
        return NULL;
    }
    if (count > WATCH_MAX_GPUS)
        watch_set(&w->gpu_unseen, "only the first %d of %u GPUs are watched", WATCH_MAX_GPUS, count);
    for (unsigned i = 0; i < count && g->count < WATCH_MAX_GPUS; i++) {
        nvml_device dev;
        if (g->nvml.device_by_index(i, &dev) != NVML_SUCCESS)
            continue;
        struct watch_gpu_info *info = &w->gpu_info[g->count];
        memset(info, 0, sizeof *info);
        info->numa_node = -1;
        struct nvml_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (g->nvml.pci_info && g->nvml.pci_info(dev, &pci) == NVML_SUCCESS)
            nvml_pci_bus_id(&pci, info->bus_id);
        if (!g->nvml.name || g->nvml.name(dev, info->name, sizeof info->name) != NVML_SUCCESS)
            snprintf(info->name, sizeof info->name, "GPU %u", i);
        g->devices[g->count++] = dev;
    }
    w->ngpus = g->count;
    return g;
}

void watch_gpus_sample(struct watch_gpus *g, const struct watch_timeline *w, struct watch_sample *s)
{
    const struct nvml *n = &g->nvml;
    for (int i = 0; i < g->count && i < w->ngpus; i++) {
        nvml_device dev = g->devices[i];
        struct watch_gpu *x = &s->gpus[i];
        struct nvml_utilization u;
        if (n->utilization && n->utilization(dev, &u) == NVML_SUCCESS) {
            x->sm = u.gpu;
            x->mem = u.memory;
        }
        struct nvml_memory_v2 m2 = {.version = NVML_STRUCT_VERSION(struct nvml_memory_v2, 2)};
        struct nvml_memory_v1 m1;
        if (n->memory_v2 && n->memory_v2(dev, &m2) == NVML_SUCCESS)
            x->mem_used_mib = (double)m2.used / MIB;
        else if (n->memory_v1 && n->memory_v1(dev, &m1) == NVML_SUCCESS)
            x->mem_used_mib = (double)m1.used / MIB;
        unsigned kb_s, gen, width, mhz, mw;
        if (n->pcie_throughput && n->pcie_throughput(dev, NVML_PCIE_UTIL_RX_BYTES, &kb_s) == NVML_SUCCESS)
            x->pcie_rx_mbs = kb_s / 1e3;
        if (n->pcie_throughput && n->pcie_throughput(dev, NVML_PCIE_UTIL_TX_BYTES, &kb_s) == NVML_SUCCESS)
            x->pcie_tx_mbs = kb_s / 1e3;
        if (n->link_gen && n->link_width && n->link_gen(dev, &gen) == NVML_SUCCESS &&
            n->link_width(dev, &width) == NVML_SUCCESS && generation_gt_s(gen) > 0)
            x->link_mbs = pci_link_gb_s(generation_gt_s(gen), (int)width) * 1e3;
        if (n->clock && n->clock(dev, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS)
            x->sm_clock_mhz = mhz;
        if (n->clock && n->clock(dev, NVML_CLOCK_MEM, &mhz) == NVML_SUCCESS)
            x->mem_clock_mhz = mhz;
        if (n->clock_events && n->clock_events(dev, &x->clock_events) == NVML_SUCCESS)
            x->clock_events_known = true;
        if (n->power_usage && n->power_usage(dev, &mw) == NVML_SUCCESS && !nvml_power_w(mw, &x->power_w))
            x->power_w = -1; /* NVML's 0xffffffff "not available", never 4.29 MW */
    }
}

void watch_gpus_close(struct watch_gpus *g)
{
    if (!g)
        return;
    nvml_close(&g->nvml);
    free(g);
}
