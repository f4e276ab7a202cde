/* The PTX of `bench gpu`'s kernels (bench/gpu_kernels.c says what each does). */
#ifndef GPUVET_BENCH_GPU_KERNELS_H
#define GPUVET_BENCH_GPU_KERNELS_H

extern const char gpu_kernels_ptx[];

/* FLOPs per thread per iteration of gpuvet_fma: 32 FMAs of 2 flops. */
#define GPU_FMA_FLOPS_PER_ITERATION 64.0

#endif
