/* State shared by the stand-in NVML and CUDA libraries when both live in one .so: the copies
 * queued through the CUDA mock keep the GPU "busy" (P0, link at full generation) until then. */
#ifndef GPUVET_TESTS_MOCK_H
#define GPUVET_TESTS_MOCK_H

/* CLOCK_MONOTONIC seconds at which the queued copies end; 0 when idle. */
extern double mock_busy_until;
/* CLOCK_MONOTONIC less mock_host_seconds: the simulated GPU's clock, which stands still while
 * the CUDA stand-in emulates a kernel or a device copy on the host (its time is simulated). */
double mock_now(void);
extern double mock_host_seconds;
/* Keeps the simulated GPU busy for `seconds` more, after the work queued before (cuda_mock.c): the
 * stand-in NCCL's all-reduces (nccl_mock.c) take their time on the same clock as kernels and copies. */
void mock_gpu_busy_for(double seconds);

#endif
