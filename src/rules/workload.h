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
    /* CPU_CONTENTION: a process other than the job using more than this share of the machine. */
    double contention_process_share;
    /* CPU_STEAL: share of CPU time the hypervisor gave to others. */
    double steal_warn, steal_fail;
    /* POWER_SUPPLY: GPU power limits plus CPU TDP above this share of the supplies' capacity
     * (with one supply lost, where there are several) leaves no headroom. */
    double power_headroom_ratio;
    /* latency-sensitive: THP "always" and missing isolated CPUs are worth mentioning. */
    bool latency_sensitive;
};

const char *workload_name(enum workload w);
bool workload_parse(const char *name, enum workload *out);
const struct thresholds *thresholds_for(enum workload w);

#endif
