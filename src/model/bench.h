/* Measurements from `gpuvet bench` (a saved gpuvet.bench/1 file or `audit --bench-quick`) that
 * rules judge. Zero-initialised means "no bench given"; a benchmark that was not run or was
 * skipped keeps its value at 0 and says why in its *_unmeasured string. */
#ifndef GPUVET_MODEL_BENCH_H
#define GPUVET_MODEL_BENCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_gpu_copy {
    char bus_id[32];            /* normalised "dddd:bb:dd.f", lowercase */
    double h2d_pinned_bytes_s;  /* host->device, pinned buffer on the near node; 0 unknown */
    double d2h_pinned_bytes_s;
    int near_node, far_node;    /* -1 unknown */
};

/* One GPU of `bench gpu` (docs/bench-json.md). A GPU the bench could not measure has error set
 * (English) and its figures 0. */
struct bench_gpu_device {
    char bus_id[32];
    char spec_id[64];            /* its data/gpus.csv row, "" when the table has none */
    double mem_bytes_s;          /* copy kernel, bytes read + written per second; 0 unknown */
    double mem_peak_bytes_s;     /* the table's memory bandwidth; 0 unknown */
    double fp32_flops, fp32_peak_flops; /* FP32 FMA on CUDA cores, and the table's FP32 figure */
    long long memtest_bytes;     /* bytes written and verified */
    long long memtest_errors;    /* words that did not hold their pattern; -1 not tested */
    bool memtest_uncorrectable;  /* the driver reported an uncorrectable ECC error during the test */
    char *memtest_error;         /* why the memory test gave no count (English), or NULL */
    char *compute_error;         /* why the FMA loop gave no rate (English), or NULL */
    bool clocks_watched;         /* NVML was read while the FMA loop ran (while_running) */
    uint64_t clock_events_seen;  /* GPU_EVENT_* bits it gave then */
    int sm_clock_mhz_median;     /* -1 unknown */
    char *error;
};

/* Copies from one GPU's memory to another's. */
struct bench_gpu_pair {
    char from[32], to[32];
    bool peer_access;            /* cuDeviceCanAccessPeer */
    double bytes_s;              /* 0: the copies failed */
};

/* An Xid the kernel log gained on a GPU during `bench gpu --burn` (gpu.burn.gpus[].xids_new[]). */
struct bench_burn_xid {
    int code;
    long long count;             /* its new lines */
    char klass[16];              /* the catalogue's class, model/kernel_log.h's words ("fault", ...) */
    char *meaning;               /* the catalogue's description; NULL none */
};

/* One GPU of `bench gpu --burn` (docs/bench-json.md, gpu.burn.gpus[]). */
struct bench_gpu_burn {
    char bus_id[32];
    double bf16_flops;           /* BF16 GEMM, 2n^3 per GEMM over the GEMMs' time; 0 unknown */
    double bf16_peak_flops;      /* the table's BF16 dense tensor figure; 0 unknown */
    int entries_checked;         /* entries of the product checked against the CPU's sum */
    int entries_wrong;           /* of them, unlike the CPU's sum; -1 unknown */
    int matches_node;            /* 1 the node's most common result, 0 another, -1 no majority */
    int gpus_compared;           /* GPUs that returned the node's result */
    long long ecc_new;           /* volatile uncorrected ECC errors counted during the burn; -1 unseen */
    uint64_t clock_events_seen;  /* GPU_EVENT_* bits NVML gave during the burn */
    char *error;                 /* why it gave no result (English), or NULL */
    struct bench_burn_xid *xids; /* new Xids (when the document says the log was watched) */
    int nxids;
    /* The FP8 GEMM (cuBLASLt), where the GPU has FP8 tensor cores: the same checks as BF16's. */
    double fp8_flops, fp8_peak_flops; /* 0 unknown */
    int fp8_entries_checked, fp8_entries_wrong; /* wrong: -1 unknown */
    int fp8_matches_node, fp8_gpus_compared;
    char *fp8_unmeasured;        /* why it gave no figure: not run (no cuBLASLt, no FP8 tensor cores) or
                                  * failed (English); NULL when measured */
};

/* benchmarks.gpu.nccl of `bench gpu` (docs/bench-json.md): NCCL's all-reduce over the node's GPUs
 * from one process. */
struct bench_gpu_nccl {
    double busbw_bytes_s;        /* nccl-tests' bus bandwidth at the largest size; 0 not measured */
    long long bytes;             /* that size, per GPU */
    char (*gpus)[32];            /* the communicator's GPUs (normalised bus ids) */
    int ngpus;
    char *unmeasured;            /* why there is no figure (English): skipped, failed, not run */
};

struct bench_results {
    bool loaded;
    char *source;               /* the file, or "bench-quick" */
    double mem_triad_bytes_s;   /* whole machine, 0 not measured */
    char *mem_unmeasured;
    double storage_seq_read_bytes_s, storage_rand_read_iops; /* 0 not measured */
    char *storage_dir;          /* where the test file was written, or */
    char *storage_file;         /* the user's own file it read (--file) */
    char *storage_unmeasured;
    struct bench_gpu_copy *pcie;
    int npcie;
    char *pcie_unmeasured;
    struct bench_gpu_device *gpu;
    int ngpu;
    char *gpu_unmeasured;        /* why benchmarks.gpu holds no GPU */
    struct bench_gpu_pair *gpu_pairs;
    int ngpu_pairs;
    char *gpu_pairs_unmeasured;  /* why it holds no pair (one GPU, a driver that stopped answering) */
    struct bench_gpu_nccl nccl;
    bool burn_run;               /* benchmarks.gpu is a --burn run (burn_unmeasured says if it measured) */
    struct bench_gpu_burn *burn;
    int nburn;
    double burn_seconds, burn_median_flops, burn_median_fp8_flops;
    char *burn_unmeasured;       /* why the burn measured no GPU (no cuBLAS, ...) */
    char *burn_xids_unseen;      /* why the burn's new Xids are not known (English); NULL: watched */
};

struct machine;

/* The populated DIMMs' theoretical bandwidth over all sockets (channels x MT/s x 8 bytes, from
 * the memory model), or 0 with *unknown_reason saying why. */
double machine_memory_theoretical_bytes_s(const struct machine *m, const char **unknown_reason);

/* Fills b from a gpuvet.bench/1 document. Returns 0, or -1 with the reason in err (the caller
 * names the file). */
int bench_results_from_json(struct bench_results *b, json_t *doc, const char *source, char *err, size_t errlen);
void bench_results_free(struct bench_results *b);
/* The audit JSON's "bench" value (docs/audit-json.md). */
json_t *bench_results_json(const struct bench_results *b);

#endif
