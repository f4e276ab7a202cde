#include "rules/workload.h"

#include <string.h>

static const char *const names[WORKLOAD_COUNT] = {
    [WL_GENERAL] = "general", [WL_CV_TRAIN] = "cv-train", [WL_LLM_TRAIN] = "llm-train",
    [WL_LLM_INFER] = "llm-infer", [WL_RENDER] = "render", [WL_HPC] = "hpc",
};

#define COMMON_THRESHOLDS                                                                          \
    .numa_imbalance_ratio = 0.25, .numa_min_memory_share = 0.10,                                   \
    .numa_min_memory_floor_bytes = 1024.0 * 1024 * 1024, .swappiness_max = 10,                     \
    .mem_bandwidth_min_fraction = 0.60, .pcie_min_fraction_of_achievable = 0.80,                   \
    .pcie_sibling_max_shortfall = 0.10,                                                            \
    .uplink_oversubscription = 1.0, .net_multinode_fail_gbps = 25.0,                               \
    .claim_memory_page_map_share = 0.016, .claim_memory_fixed_reserve_bytes = 2.0 * 1024 * 1024 * 1024, \
    .claim_storage_size_tolerance = 0.07, .gpu_retired_pages_max = 63, .gpu_remapped_uncorrectable_max = 512, \
    .contention_process_share = 0.05, .steal_warn = 0.02, .steal_fail = 0.10, .power_headroom_ratio = 0.8,    \
    .watch_gpu_busy_pct = 80, .watch_core_saturated = 0.85, .watch_run_delay_share = 0.10,           \
    .watch_iowait_share = 0.20, .watch_disk_busy = 0.80, .watch_pcie_link_share = 0.70,              \
    .watch_swap_mb_s = 1.0, .watch_majflt_per_s = 100, .watch_min_time_share = 0.25

static const struct thresholds table[WORKLOAD_COUNT] = {
    [WL_GENERAL] = {COMMON_THRESHOLDS},
    /* SPEC: one core decodes ~460-500 ImageNet JPEGs/s and an A100 trains on ~2,470 img/s: ~5-8
     * cores per A100-class GPU (6 until a bench decode rate or a per-GPU rate is given). Boost
     * clocks: seed 000 §3.1/§3.2. */
    [WL_CV_TRAIN] = {COMMON_THRESHOLDS, .cores_per_accelerator_min = 6, .cv_reference_img_s = 2470, .cv_image_bytes = 110e3, .cpu_boost_min_mhz = 3000,
                     .streams_dataset = true},
    [WL_LLM_TRAIN] = {COMMON_THRESHOLDS, .cores_per_accelerator_min = 4, .cpu_boost_min_mhz = 2600,
                      .net_multinode_warn_gbps = 100.0},
    [WL_LLM_INFER] = {COMMON_THRESHOLDS, .latency_sensitive = true, .cores_per_accelerator_min = 2},
    [WL_RENDER] = {COMMON_THRESHOLDS},
    [WL_HPC] = {COMMON_THRESHOLDS, .latency_sensitive = true},
};

double pcie_pinned_achievable_fraction(int generation)
{
    if (generation >= 5)
        return 0.88;
    if (generation == 4)
        return 0.83;
    return 0.79;
}

const char *workload_name(enum workload w) { return w < WORKLOAD_COUNT ? names[w] : "?"; }

bool workload_parse(const char *name, enum workload *out)
{
    for (int i = 0; i < WORKLOAD_COUNT; i++)
        if (!strcmp(name, names[i])) {
            *out = (enum workload)i;
            return true;
        }
    return false;
}

const struct thresholds *thresholds_for(enum workload w) { return &table[w < WORKLOAD_COUNT ? w : WL_GENERAL]; }
