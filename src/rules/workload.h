/* Workloads and the thresholds that depend on them: one place for every number a rule judges by. */
#ifndef GPUVET_RULES_WORKLOAD_H
#define GPUVET_RULES_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

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
    /* GPU_RETIRED_PAGES: DCGM's limits (common/DcgmGPUHardwareLimits.h). */
    int gpu_retired_pages_max;
    int gpu_remapped_uncorrectable_max;

    /* CPU_CONTENTION: a process other than the job using more than this share of the machine. */
    double contention_process_share;
    /* CPU_STEAL: share of CPU time the hypervisor gave to others (and watch's HOST_CONTENTION). */
    double steal_warn, steal_fail;
    /* gpuvet watch: an interval whose GPUs' mean SM utilisation is below this (%) has them waiting;
     * a thread or worker that wants at least this share of a core (running plus run-queue wait)
     * is saturated; the job waits on the run queue for at least this share of its demand when
     * others take its CPUs; iowait share of all CPU time, io_ticks share of the data disk, host<->GPU
     * traffic as a share of the link's theoretical per-direction rate (pinned copies reach 79-88 %);
     * swapping MB/s and the job's major faults per second that stall it; a diagnosis holds when its
     * condition holds in at least this share of the intervals. */
    double watch_gpu_busy_pct, watch_core_saturated, watch_run_delay_share, watch_iowait_share, watch_disk_busy;
    double watch_pcie_link_share, watch_swap_mb_s, watch_majflt_per_s, watch_min_time_share;
    /* POWER_SUPPLY: GPU power limits plus CPU TDP above this share of the supplies' capacity
     * (with one supply lost, where there are several) leaves no headroom. */
    double power_headroom_ratio;
    /* latency-sensitive: THP "always" and missing isolated CPUs are worth mentioning. */
    bool latency_sensitive;
    /* CPU_CORES_PER_GPU: physical cores each accelerator needs (its process and loader workers);
     * 0 = the workload sets no need. cv-train derives its need from the GPU's image rate instead
     * (cv_cores_per_accelerator). */
    int cores_per_accelerator_min;
    /* cv-train (CPU_CORES_PER_GPU, STORAGE_SLOW_DATA, `gpuvet plan`, `gpuvet bench decode`): an
     * A100's ResNet-50 training rate, used where a GPU's own rate is unknown; */
    double cv_reference_img_s;
    /* ImageNet-size JPEGs one core decodes and augments per second (the low end of ~460-500); */
    double cv_decode_images_s_per_core;
    /* and bytes read per training image (ImageNet-1k train: 147.9e9 bytes / 1,281,167 JPEGs). */
    double cv_image_bytes;
    /* llm-infer, `gpuvet plan`'s tokens/s estimate (sizing/throughput.h): the share of peak HBM
     * bandwidth a decode step reaches (model bandwidth utilisation, as Databricks' "LLM Inference
     * Performance Engineering" defines it; 0.60 is an assumption checked against TensorRT-LLM's
     * published Llama-3.1-8B H100 throughput in tests/unit/test_infer_throughput.c), and the share
     * of dense tensor FLOPS prefill reaches (76 % MFU for large-batch prefill, Pope et al. 2022,
     * "Efficiently Scaling Transformer Inference", abstract). */
    double infer_decode_bandwidth_share;
    double infer_prefill_flops_share;
    /* CPU_FREQ_LOW: the boost clock the workload needs, MHz; 0 = no clock rule. */
    double cpu_boost_min_mhz;
    /* NET_MULTINODE (and `gpuvet plan`): a multi-node job fails below fail_gbps on its fastest
     * usable NIC and warns below warn_gbps (0 = no warning level) or without RDMA. */
    double net_multinode_fail_gbps;
    double net_multinode_warn_gbps;
    /* STORAGE_SLOW_DATA: the workload streams its dataset every epoch, so where it lives is
     * worth asking about (no --data-dir is then an unknown, not silence). */
    bool streams_dataset;
    /* CLAIM_MISMATCH memory.gb: MemTotal falls short of the installed memory by the page map
     * (64-byte struct page per 4 KiB page, 1.6 %) and a fixed amount for firmware reservations
     * (the 32-bit PCI hole), the kernel image and crashkernel. */
    double claim_memory_page_map_share;
    double claim_memory_fixed_reserve_bytes;
    /* CLAIM_MISMATCH storage[].gb: drives are sold in rounded decimal sizes (1.92 TB as "2 TB"). */
    double claim_storage_size_tolerance;
    /* GPU_NVLINK_ERRORS: DCGM's NVLink limits (dcgm_gpu_hardware_limits.h): one replay or recovery
     * error, and CRC errors at 100 per second (its health watch judges both over a minute). */
    int nvlink_error_max;
    double nvlink_crc_per_s_max;
    /* PCIE_AER_ERRORS: correctable errors at DCGM's PCIe replay limit, 8 per minute (the rate NVIDIA's
     * driver team recommends as the most, DCGM_LIMIT_MAX_PCIREPLAY_RATE), as a mean since boot. */
    double aer_correctable_per_min_max;
    /* GPU_RETIRED_PAGES: corrected ECC errors since the driver loaded (volatile) at which memory is
     * degrading: Meta GCM's health check ecc_corrected_volatile_total warns past 50,000,000 (its
     * default threshold); any uncorrected error fails (GCM's ecc_uncorrected_volatile_total: 0). */
    double gpu_ecc_corrected_volatile_max;
};

/* Share of a PCIe link's theoretical per-direction rate that pinned cudaMemcpy reaches on a
 * healthy machine, by generation (SPEC: Gen3 ~79%, Gen4 ~83%, Gen5 ~88%). Gen1/2 use Gen3's
 * figure and Gen6 Gen5's: no published measurement, the nearest known one. */
double pcie_pinned_achievable_fraction(int generation);

/* Physical cores one accelerator consuming img_s images/s needs for cv-train: decode workers at
 * cv_decode_images_s_per_core each, plus one for the training process (the n(workers+1) of
 * stas00/ml-engineering, the formula `gpuvet plan` uses too). */
int cv_cores_per_accelerator(const struct thresholds *t, double img_s);

/* Copies text into out, replacing each {WORKLOAD.FIELD} (e.g. {cv-train.cv_reference_img_s}) by
 * that threshold's value, and {cv-train.cores_for_reference} by cv_cores_per_accelerator at the
 * reference rate: rationale text quotes the table instead of copies of its numbers. An unknown
 * name stays as written, so a test can find it. */
void thresholds_expand(const char *text, char *out, size_t outlen);

const char *workload_name(enum workload w);
bool workload_parse(const char *name, enum workload *out);
const struct thresholds *thresholds_for(enum workload w);

#endif
