/* Workloads and the thresholds that depend on them: one place for every number a rule judges by. */
#ifndef GPUVET_RULES_WORKLOAD_H
#define GPUVET_RULES_WORKLOAD_H

#include <stdbool.h>

enum workload { WL_GENERAL, WL_CV_TRAIN, WL_LLM_TRAIN, WL_LLM_INFER, WL_RENDER, WL_HPC, WORKLOAD_COUNT };

struct thresholds {
    /* NUMA_MEMORY_IMBALANCE: (max - min) / max of memory across nodes holding CPUs. */
    double numa_imbalance_ratio;
    /* NUMA_GPU_NODE_NO_MEMORY: an accelerator's node holds less than this share of the mean
     * memory of the CPU nodes, or less than the floor. */
    double numa_min_memory_share;
    double numa_min_memory_floor_bytes;
    /* KERNEL_SWAP: swappiness above this lets the kernel page out a job's host memory. */
    int swappiness_max;
    /* PCIE_UPLINK_SHARED: demand behind a switch may exceed its uplink by this factor. */
    double uplink_oversubscription;
    /* MEM_BANDWIDTH_LOW: measured STREAM triad below this share of the populated DIMMs' theoretical
     * bandwidth (STREAM reaches ~70-85% on a healthy machine, SPEC). */
    double mem_bandwidth_min_fraction;
    /* PCIE_BANDWIDTH_LOW: pinned copies below this share of what the negotiated link achieves, or
     * this far below the median of the sibling GPUs. */
    double pcie_min_fraction_of_achievable;
    double pcie_sibling_max_shortfall;
    /* latency-sensitive: THP "always" and missing isolated CPUs are worth mentioning. */
    bool latency_sensitive;
};

/* Share of a PCIe link's theoretical per-direction rate that pinned cudaMemcpy reaches on a
 * healthy machine, by generation (SPEC: Gen3 ~79%, Gen4 ~83%, Gen5 ~88%). Gen1/2 use Gen3's
 * figure and Gen6 Gen5's: no published measurement, the nearest known one. */
double pcie_pinned_achievable_fraction(int generation);

const char *workload_name(enum workload w);
bool workload_parse(const char *name, enum workload *out);
const struct thresholds *thresholds_for(enum workload w);

#endif
