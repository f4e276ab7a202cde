/* State shared by the stand-in NVML and CUDA libraries when both live in one .so: the copies
 * queued through the CUDA mock keep the GPU "busy" (P0, link at full generation) until then. */
#ifndef GPUVET_TESTS_MOCK_H
#define GPUVET_TESTS_MOCK_H

/* CLOCK_MONOTONIC seconds at which the queued copies end; 0 when idle. */
extern double mock_busy_until;
double mock_now(void);

#endif
