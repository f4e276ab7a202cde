#include "rules/workload.h"
#include "util/gputable.h"
#include "util/units.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const names[WORKLOAD_COUNT] = {
    [WL_GENERAL] = "general", [WL_CV_TRAIN] = "cv-train", [WL_LLM_TRAIN] = "llm-train",
    [WL_LLM_INFER] = "llm-infer", [WL_RENDER] = "render", [WL_HPC] = "hpc",
};

#define COMMON_THRESHOLDS                                                                          \
    .numa_imbalance_ratio = 0.25, .numa_min_memory_share = 0.10,                                   \
    .numa_min_memory_floor_bytes = GIB, .swappiness_max = 10,                                      \
    .mem_bandwidth_min_fraction = 0.60, .pcie_min_fraction_of_achievable = 0.80,                   \
    .pcie_sibling_max_shortfall = 0.10,                                                            \
    .uplink_oversubscription = 1.0, .net_multinode_fail_gbps = 25.0,                               \
    .claim_memory_page_map_share = 0.016, .claim_memory_fixed_reserve_bytes = 2.0 * GIB,           \
    .claim_storage_size_tolerance = 0.07, .gpu_retired_pages_max = 63, .gpu_remapped_uncorrectable_max = 512, \
    .contention_process_share = 0.05, .steal_warn = 0.02, .steal_fail = 0.10, .power_headroom_ratio = 0.8,    \
    .watch_gpu_busy_pct = 80, .watch_core_saturated = 0.85, .watch_run_delay_share = 0.10,           \
    .watch_iowait_share = 0.20, .watch_disk_busy = 0.80, .watch_pcie_link_share = 0.70,              \
    .watch_swap_mb_s = 1.0, .watch_majflt_per_s = 100, .watch_min_time_share = 0.25,                \
    .nvlink_error_max = 1, .nvlink_crc_per_s_max = 100.0, .aer_correctable_per_min_max = 8.0, \
    .gpu_ecc_corrected_volatile_max = 5e7

/* Not const: cv_reference_img_s is filled once from data/gpus.csv (reference_rate_load). */
static struct thresholds table[WORKLOAD_COUNT] = {
    [WL_GENERAL] = {COMMON_THRESHOLDS},
    /* The reference GPU's ResNet-50 rate lives once, in data/gpus.csv (an A100 trains it on ~2,470
     * img/s: NVIDIA DeepLearningExamples, mixed precision); one core decodes and augments ~460-500
     * ImageNet JPEGs/s (Pillow): 6 decode cores + the training process per A100. */
    [WL_CV_TRAIN] = {COMMON_THRESHOLDS, .cv_decode_images_s_per_core = 460,
                     .cv_image_bytes = 147.9e9 / 1281167, .cpu_boost_min_mhz = 3000, .streams_dataset = true},
    [WL_LLM_TRAIN] = {COMMON_THRESHOLDS, .cores_per_accelerator_min = 4, .cpu_boost_min_mhz = 2600,
                      .net_multinode_warn_gbps = 100.0},
    /* Decode at 60 % of peak HBM bandwidth, prefill at 76 % of dense tensor FLOPS (workload.h). */
    [WL_LLM_INFER] = {COMMON_THRESHOLDS, .latency_sensitive = true, .cores_per_accelerator_min = 2,
                      .infer_decode_bandwidth_share = 0.60, .infer_prefill_flops_share = 0.76},
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

/* The GPU whose measured ResNet-50 rate stands in for a GPU without one (its row in data/gpus.csv). */
#define CV_REFERENCE_GPU "a100-sxm4-80gb"

static pthread_once_t reference_rate_once = PTHREAD_ONCE_INIT;

/* Without the table or its row the rate stays 0: the cores rule then says the need is unknown (the
 * table's own loaders name the file that failed). */
static void reference_rate_load(void)
{
    struct gpu_table gpus;
    char err[512];
    if (gpu_table_load_default(&gpus, err, sizeof err) == 0) {
        const struct gpu_spec *g = gpu_lookup(&gpus, CV_REFERENCE_GPU, NULL, 0, err, sizeof err);
        if (g)
            table[WL_CV_TRAIN].cv_reference_img_s = g->resnet50_img_s;
    }
    gpu_table_free(&gpus);
}

const struct thresholds *thresholds_for(enum workload w)
{
    pthread_once(&reference_rate_once, reference_rate_load);
    return &table[w < WORKLOAD_COUNT ? w : WL_GENERAL];
}

int cv_cores_per_accelerator(const struct thresholds *t, double img_s)
{
    if (t->cv_decode_images_s_per_core <= 0 || !(img_s > 0))
        return 0;
    return (int)ceil(img_s / t->cv_decode_images_s_per_core) + 1;
}

/* The thresholds rationale text may quote, by name. */
static const struct {
    const char *name;
    size_t offset;
    bool is_int;
} quotable[] = {
    {"cv_reference_img_s", offsetof(struct thresholds, cv_reference_img_s), false},
    {"cv_decode_images_s_per_core", offsetof(struct thresholds, cv_decode_images_s_per_core), false},
    {"cv_image_bytes", offsetof(struct thresholds, cv_image_bytes), false},
    {"cores_per_accelerator_min", offsetof(struct thresholds, cores_per_accelerator_min), true},
    {"pcie_min_fraction_of_achievable", offsetof(struct thresholds, pcie_min_fraction_of_achievable), false},
    {"pcie_sibling_max_shortfall", offsetof(struct thresholds, pcie_sibling_max_shortfall), false},
    {"gpu_retired_pages_max", offsetof(struct thresholds, gpu_retired_pages_max), true},
    {"gpu_remapped_uncorrectable_max", offsetof(struct thresholds, gpu_remapped_uncorrectable_max), true},
    {"cpu_boost_min_mhz", offsetof(struct thresholds, cpu_boost_min_mhz), false},
    {"net_multinode_fail_gbps", offsetof(struct thresholds, net_multinode_fail_gbps), false},
    {"net_multinode_warn_gbps", offsetof(struct thresholds, net_multinode_warn_gbps), false},
    {"claim_memory_page_map_share", offsetof(struct thresholds, claim_memory_page_map_share), false},
    {"claim_memory_fixed_reserve_bytes", offsetof(struct thresholds, claim_memory_fixed_reserve_bytes), false},
    {"mem_bandwidth_min_fraction", offsetof(struct thresholds, mem_bandwidth_min_fraction), false},
    {"contention_process_share", offsetof(struct thresholds, contention_process_share), false},
    {"steal_warn", offsetof(struct thresholds, steal_warn), false},
    {"steal_fail", offsetof(struct thresholds, steal_fail), false},
    {"power_headroom_ratio", offsetof(struct thresholds, power_headroom_ratio), false},
    {"swappiness_max", offsetof(struct thresholds, swappiness_max), true},
    {"nvlink_error_max", offsetof(struct thresholds, nvlink_error_max), true},
    {"nvlink_crc_per_s_max", offsetof(struct thresholds, nvlink_crc_per_s_max), false},
    {"aer_correctable_per_min_max", offsetof(struct thresholds, aer_correctable_per_min_max), false},
    {"gpu_ecc_corrected_volatile_max", offsetof(struct thresholds, gpu_ecc_corrected_volatile_max), false},
};

/* A field name may end in a unit the text wants: "%" (a share as a percentage), "GHz" (from
 * MHz), "GiB" (from bytes). */
static const struct {
    const char *suffix, *printed;
    double scale;
} units[] = {{"%", "%", 100.0}, {"GHz", " GHz", 1e-3}, {"GiB", " GiB", 1.0 / GIB}, {"", "", 1.0}};

static bool quote_value(const char *workload, size_t wlen, const char *field, size_t flen, char *buf, size_t buflen)
{
    char name[32];
    if (wlen >= sizeof name)
        return false;
    memcpy(name, workload, wlen);
    name[wlen] = 0;
    enum workload w;
    if (!workload_parse(name, &w))
        return false;
    const struct thresholds *t = thresholds_for(w);
    if (flen == strlen("cores_for_reference") && !strncmp(field, "cores_for_reference", flen)) {
        snprintf(buf, buflen, "%d", cv_cores_per_accelerator(t, t->cv_reference_img_s));
        return true;
    }
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t slen = strlen(units[u].suffix);
        if (flen < slen || strncmp(field + flen - slen, units[u].suffix, slen))
            continue;
        for (size_t i = 0; i < sizeof quotable / sizeof quotable[0]; i++) {
            if (strlen(quotable[i].name) != flen - slen || strncmp(quotable[i].name, field, flen - slen))
                continue;
            const char *at = (const char *)t + quotable[i].offset;
            double v = quotable[i].is_int ? *(const int *)(const void *)at : *(const double *)(const void *)at;
            /* Whole numbers of any size as integers (2470, 115443), others as written (2.6, 1.6). */
            v *= units[u].scale;
            snprintf(buf, buflen, fabs(v) >= 1000 ? "%.0f%s" : "%.4g%s", v, units[u].printed);
            return true;
        }
    }
    return false;
}

void thresholds_expand(const char *text, char *out, size_t outlen)
{
    size_t used = 0;
    if (outlen == 0)
        return;
    while (*text && used + 1 < outlen) {
        const char *close = *text == '{' ? strchr(text, '}') : NULL;
        const char *dot = close ? memchr(text, '.', (size_t)(close - text)) : NULL;
        char value[32];
        if (dot && quote_value(text + 1, (size_t)(dot - text - 1), dot + 1, (size_t)(close - dot - 1), value,
                               sizeof value)) {
            used += (size_t)snprintf(out + used, outlen - used, "%s", value);
            if (used >= outlen)
                used = outlen - 1;
            text = close + 1;
        } else
            out[used++] = *text++;
    }
    out[used] = 0;
}
