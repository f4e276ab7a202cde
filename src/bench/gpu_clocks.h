/* What NVML says of a GPU while `bench gpu` loads it: its SM clock, the clock-event (throttle)
 * reasons it gives, its temperature and power, read while the FMA loop runs. A low figure beside
 * a hardware or thermal slowdown is the server's cooling or power, not the GPU's silicon. */
#ifndef GPUVET_BENCH_GPU_CLOCKS_H
#define GPUVET_BENCH_GPU_CLOCKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/nvml.h"

/* NVML for the whole bench, opened in a worker within DEADLINE_NVML_S. */
struct bench_nvml;
/* NULL with the reason in why (no NVML, or no answer in time). */
struct bench_nvml *bench_nvml_open(char *why, size_t n);
/* answering: false when a worker may still be inside NVML (it stays loaded then). */
void bench_nvml_close(struct bench_nvml *b, bool answering);

#define GPU_CLOCK_SAMPLES_MAX 256

/* One GPU's readings while it is loaded. */
struct gpu_clocks {
    const struct nvml *nvml;  /* NULL: not watched, `why` says why */
    nvml_device dev;
    int samples;
    unsigned sm_mhz[GPU_CLOCK_SAMPLES_MAX];
    int nsm_mhz;
    uint64_t events;          /* GPU_EVENT_* bits seen in any sample */
    bool events_known;
    int temperature_max_c;    /* -1 unknown */
    double power_max_w;       /* -1 unknown */
    char why[160];
};

/* Finds the GPU at bus_id in NVML's list (b may be NULL: then why says NVML's reason). */
void gpu_clocks_begin(struct gpu_clocks *c, struct bench_nvml *b, const char *nvml_why, const char *bus_id);
void gpu_clocks_sample(struct gpu_clocks *c);
/* The readings as bench-json.md's gpus[].while_running. */
json_t *gpu_clocks_json(const struct gpu_clocks *c);

#endif
