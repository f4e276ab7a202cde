/* Model-state memory for data-parallel training with DeepSpeed ZeRO. Stages 2 and 3 reproduce
 * DeepSpeed's own estimators line for line (deepspeed/runtime/zero/stage_1_and_2.py and
 * stage3.py, research/sizing.md §1); stages 0 and 1, for which DeepSpeed has none, use the ZeRO
 * paper's byte counts. */
#ifndef GPUVET_SIZING_ZERO_H
#define GPUVET_SIZING_ZERO_H

#include <stdbool.h>
#include <stdint.h>

/* DeepSpeed's default safety margin on host memory (additional_buffer_factor). */
#define DEEPSPEED_BUFFER_FACTOR 1.5

enum offload { OFFLOAD_NONE, OFFLOAD_OPTIMIZER, OFFLOAD_CPU, OFFLOAD_NVME };

const char *offload_name(enum offload o);
bool offload_parse(const char *name, enum offload *out);

struct zero_config {
    int stage;              /* 0..3 */
    enum offload offload;   /* OPTIMIZER: optimizer states on the CPU; CPU: optimizer and (ZeRO-3)
                               parameters on the CPU; NVME: ZeRO-Infinity, both on NVMe */
    bool zero_init;         /* deepspeed.zero.Init: the model is never materialised whole per rank */
    int gpus_per_node, nodes;
};

struct zero_estimate {
    int64_t gpu_bytes_per_gpu;   /* model states per GPU */
    int64_t cpu_bytes_per_node;  /* host memory per node, DeepSpeed's 1.5 factor included */
    int64_t cpu_bytes_unbuffered;/* the same without the factor */
    int64_t largest_layer_bytes; /* ZeRO-3: fp16 params + grads of the largest module */
    int64_t nvme_bytes_per_node; /* ZeRO-Infinity: model states on NVMe; 0 otherwise */
    const char *method;          /* which estimator or formula produced the numbers */
};

/* DeepSpeed estimate_zero2_model_states_mem_needs, returns (cpu_mem, gpu_mem). */
void deepspeed_zero2_estimate(int64_t total_params, int gpus_per_node, int nodes, bool cpu_offload,
                              double buffer_factor, int64_t *cpu_mem, int64_t *gpu_mem);
/* DeepSpeed estimate_zero3_model_states_mem_needs, returns (cpu_mem, gpu_mem, largest_layer_memory). */
void deepspeed_zero3_estimate(int64_t total_params, int64_t largest_layer_params, int gpus_per_node, int nodes,
                              bool cpu_offload, bool cpu_offload_params, bool zero_init, double buffer_factor,
                              int64_t *cpu_mem, int64_t *gpu_mem, int64_t *largest_layer_memory);

/* Combination not supported (e.g. NVMe offload below stage 3): returns -1 with why. A largest
 * layer of 0 (unknown) leaves ZeRO-3's largest-layer term out, and the method says so. */
int zero_estimate(int64_t params, int64_t largest_layer_params, const struct zero_config *cfg,
                  struct zero_estimate *out, const char **why);

#endif
