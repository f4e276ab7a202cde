/* What a workload demands of a server, beyond model states (zero.h): activations, KV cache, the
 * CV data pipeline, and the per-node numbers the plan judges by. Sources in research/sizing.md. */
#ifndef GPUVET_SIZING_DEMAND_H
#define GPUVET_SIZING_DEMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "sizing/models.h"

/* GPU memory of one process's CUDA context: 0.3-0.5 GB with lazy loading, 1 GB to be safe
 * (research §6f; pytorch/pytorch#86509, #109888). */
#define CUDA_CONTEXT_BYTES 1000000000LL
/* Host memory of one PyTorch+CUDA training process (max RSS ~1.9 GB, pytorch/pytorch#12873). */
#define TRAINING_PROCESS_HOST_BYTES 2000000000LL
/* Cores: one per GPU's training process, plus data-loader workers, plus 4 for the OS and daemons:
 * n·(workers + 1) + 4 (stas00/ml-engineering compute/cpu/README.md). */
#define CORES_PER_TRAINING_PROCESS 1
#define CORES_FOR_OS 4
#define LLM_LOADER_WORKERS_PER_GPU 2 /* "2 workers ... plenty for LMs" */
/* The images/s one core decodes and ImageNet's mean image size are the thresholds table's
 * (rules/workload.c): `gpuvet plan` passes them in. */
/* vLLM's default gpu_memory_utilization: the share of GPU memory the server plans with. */
#define INFER_GPU_MEMORY_SHARE 0.9
/* One DeepSpeed checkpoint holds bf16 weights (2) + fp32 master weights, momentum, variance (12). */
#define CHECKPOINT_BYTES_PER_PARAM 14

enum recompute { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL };
const char *recompute_name(enum recompute r);
bool recompute_parse(const char *name, enum recompute *out);

/* Activation memory of one transformer layer (Korthikanti et al. 2022, 16-bit activations):
 * none: s·b·h·(34 + 5·a·s/h); selective recompute, or FlashAttention (never stores the s×s
 * scores): 34·s·b·h; full recompute: 2·s·b·h (the layer input only). */
double activation_bytes_per_layer(const struct llm_shape *m, int seq, int micro_batch, enum recompute r, bool flash);
/* Logits kept in fp32 for the loss: b·s·V·4 bytes. */
double logits_bytes(const struct llm_shape *m, int seq, int micro_batch);

struct cv_demand {
    double images_s_per_gpu;
    double images_s_per_core;
    int cores_per_gpu;        /* decode workers + the training process */
    int cores_per_node;
    double read_bytes_s_per_node;
};
void cv_pipeline_demand(double images_s_per_gpu, double images_s_per_core, int gpus_per_node, double image_bytes,
                        struct cv_demand *out);

#endif
