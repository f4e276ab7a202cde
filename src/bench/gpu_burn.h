/* `bench gpu --burn`: a BF16 tensor-core GEMM (cuBLAS), and an FP8 one (cuBLASLt) where the GPU has
 * FP8 tensor cores, on every GPU at once for a while, results checked, NVML read every second. Shared with the CUDA stand-in (tests/mock), which
 * computes the checked entries of the product the same way. */
#ifndef GPUVET_BENCH_GPU_BURN_H
#define GPUVET_BENCH_GPU_BURN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu/cuda.h"

#define GPU_BURN_DEFAULT_SECONDS 60.0
#define GPU_BURN_MAX_N 8192
#define GPU_BURN_SAMPLES 64

/* Entry s of the product checked on the CPU (column-major, n x n). */
static inline void gpu_burn_sample(unsigned s, int n, int *row, int *col)
{
    *row = (int)((s * 2654435761u + 12345u) % (unsigned)n);
    *col = (int)((s * 40503u + 777u) % (unsigned)n);
}

/* A bfloat16 holding the input value v (an exact k/16, so its top 16 float bits are all of it). */
static inline float gpu_burn_bf16_value(uint16_t bits)
{
    union {
        uint32_t u;
        float f;
    } x = {(uint32_t)bits << 16};
    return x.f;
}

/* An FP8 E4M3 value (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; 0x7f and 0xff are NaN). */
static inline float gpu_burn_fp8_value(uint8_t bits)
{
    int exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
    float magnitude = exponent ? (float)(8 + mantissa) / 8.0f : (float)mantissa / 8.0f;
    for (int e = exponent ? exponent : 1; e < 7; e++)
        magnitude /= 2;
    for (int e = 7; e < exponent; e++)
        magnitude *= 2;
    if ((bits & 0x7f) == 0x7f)
        magnitude = __builtin_nanf("");
    return bits & 0x80 ? -magnitude : magnitude;
}

struct bench_nvml;
struct gpu_table;
struct kernel_log_info;
struct machine;

/* The burn on the GPUs at targets[0..n), seconds long: benchmarks.gpu of the document. The kernel
 * log is read with read_kernel_log (NULL: not watched) before and after, for the Xids the burn
 * brought. *hung: a GPU did not finish in time (its thread stays inside the driver, which must
 * stay loaded). */
json_t *gpu_burn_run(const struct machine *m, const struct cuda *api, struct bench_nvml *nvml, const char *nvml_why,
                     const char *const *targets, int n, double seconds, const struct gpu_table *table,
                     void (*read_kernel_log)(struct kernel_log_info *k), bool *hung);

#endif
