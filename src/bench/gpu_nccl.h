/* `bench gpu`'s all-reduce across the node's GPUs through NCCL (benchmarks.gpu.nccl). */
#ifndef GPUVET_BENCH_GPU_NCCL_H
#define GPUVET_BENCH_GPU_NCCL_H

#include <jansson.h>
#include <stdbool.h>

#include "gpu/cuda.h"

/* One process, one communicator over the GPUs at bus_ids[0..n) (ncclCommInitAll), float32 sum
 * all-reduces of a few sizes: benchmarks.gpu.nccl of the document, or {"skipped": why} (one GPU, no
 * libnccl). *hung: NCCL or the driver did not answer within its budget (its thread stays inside
 * them, which must then stay loaded). */
json_t *gpu_nccl_run(const struct cuda *api, const char *const *bus_ids, int n, bool quick, bool *hung);

#endif
