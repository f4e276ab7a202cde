/* The PTX of `bench gpu`'s kernels (bench/gpu_kernels.c says what each does). */
#ifndef GPUVET_BENCH_GPU_KERNELS_H
#define GPUVET_BENCH_GPU_KERNELS_H

extern const char gpu_kernels_ptx[];

/* FLOPs per thread per iteration of gpuvet_fma: 256 FMAs of 2 flops. */
#define GPU_FMA_FLOPS_PER_ITERATION 512.0
/* FMAs per iteration, which scripts/check-ptx.sh finds in the machine code. */
#define GPU_FMA_PER_ITERATION 256

#endif
