/* Host<->GPU PCIe bandwidth per NVIDIA GPU, through the CUDA driver API (dlopen libcuda.so.1). */
#ifndef GPUVET_BENCH_PCIE_H
#define GPUVET_BENCH_PCIE_H

#include <jansson.h>
#include <stdbool.h>

#include "model/machine.h"

/* The `benchmarks.pcie` value of `gpuvet bench`: an array with one object per GPU
 *   {bus_id, h2d_pinned_bytes_s, d2h_pinned_bytes_s, h2d_pageable_bytes_s, d2h_pageable_bytes_s,
 *    near_node, far_node, far_h2d_pinned_bytes_s, link_theoretical_bytes_s, fraction}
 * (an unmeasured value is null; a GPU that failed has {bus_id, error} instead: one whose driver
 * stopped answering within its deadline names the call, and the GPUs after it are not tried), or
 * {"skipped": "reason"} when there is no NVIDIA GPU or no usable driver. Copies are 256 MiB,
 * repeated (3 times with quick, 10 without); the pinned buffer is bound to the GPU's NUMA node,
 * then to the farthest node with CPUs. m must describe the live machine (probe_machine). ctx
 * (NULL: none) has the progress reported to it: each GPU's share in steps of its measurement
 * (warm-up, pinned and pageable copies each way), from the GPU's worker thread while the caller
 * waits for it, never after. */
struct bench_ctx;
json_t *bench_pcie_run(const struct machine *m, bool quick, const struct bench_ctx *ctx);

/* What bench pcie and bench gpu share. */
/* The GPUs NVML described, and NVIDIA display/3D devices sysfs shows that NVML missed (at most max). */
int bench_nvidia_targets(const struct machine *m, const char *targets[], int max);
/* Why bench pcie and bench gpu skip this machine (N_() text), or NULL when it has an NVIDIA GPU. */
const char *bench_no_nvidia_gpu(const struct machine *m);
/* That reason, for a caller that already counted the targets. */
extern const char bench_no_nvidia_gpu_text[];
/* The CUDA driver, loaded and cuInit'ed in a worker under DEADLINE_CUDA_S (a driver that does not
 * answer even that is a skipped bench, not a hang); NULL with *skipped the benchmark's
 * {"skipped": why} (no driver, a stub, no answer). */
struct bench_cuda;
struct cuda;
const struct cuda *bench_cuda_open(struct bench_cuda **handle, json_t **skipped);
/* Unloads it, unless a worker was abandoned inside it (answering false): it stays until exit. */
void bench_cuda_close(struct bench_cuda *handle, bool answering);

#endif
