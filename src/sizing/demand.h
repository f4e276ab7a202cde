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

/* Activation bytes one token leaves in one layer for the backward pass (16-bit activations, no
 * dropout, as Llama-style blocks train), counted the way Korthikanti et al. 2022 count the GPT
 * block's 34·h: 2 B × (h per RMSNorm input, h for the QKV projection's input, q + k widths for the
 * scores, the v width, the q width for the output projection's input, h for the MLP's input, and
 * 4 × the MLP width for a gated (SwiGLU/GeGLU) MLP: gate and up outputs, the activation, the
 * product; × experts per token for a mixture of experts). Llama-2-7B: 37.5·h. */
double activation_bytes_per_token_layer(const struct llm_shape *m);
/* Activation memory of one layer: none: s·b·(that + 5·a·s) with eager attention (Korthikanti's
 * softmax, mask and dropout scores); FlashAttention (never stores the s×s scores) or selective
 * recompute: s·b·that; full recompute: 2·s·b·h (the layer input only). */
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
