#include "rules/workload.h"

#include <string.h>

static const char *const names[WORKLOAD_COUNT] = {
    [WL_GENERAL] = "general", [WL_CV_TRAIN] = "cv-train", [WL_LLM_TRAIN] = "llm-train",
    [WL_LLM_INFER] = "llm-infer", [WL_RENDER] = "render", [WL_HPC] = "hpc",
};

#define COMMON_THRESHOLDS                                                                          \
    .numa_imbalance_ratio = 0.25, .numa_min_memory_share = 0.10,                                   \
    .numa_min_memory_floor_bytes = 1024.0 * 1024 * 1024, .swappiness_max = 10,                     \
    .uplink_oversubscription = 1.0, .mem_bandwidth_min_fraction = 0.60,                           \
    .pcie_min_fraction_of_achievable = 0.80, .pcie_sibling_max_shortfall = 0.10

static const struct thresholds table[WORKLOAD_COUNT] = {
    [WL_GENERAL] = {COMMON_THRESHOLDS},
    [WL_CV_TRAIN] = {COMMON_THRESHOLDS},
    [WL_LLM_TRAIN] = {COMMON_THRESHOLDS},
    [WL_LLM_INFER] = {COMMON_THRESHOLDS, .latency_sensitive = true},
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
