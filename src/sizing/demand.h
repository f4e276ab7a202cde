/* What a workload demands of a server, beyond model states (zero.h): activations, KV cache, the
 * CV data pipeline, and the per-node numbers the plan judges by. Sources in research/sizing.md. */
#ifndef GPUVET_SIZING_DEMAND_H
#define GPUVET_SIZING_DEMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "sizing/models.h"
#include "util/units.h"

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
/* vLLM's default gpu_memory_utilization: the share of GPU memory the server plans with
 * (--gpu-memory-utilization overrides it). Of that share vLLM gives the KV cache what is left after
 * the weights, the peak of its profiling run and the non-torch memory (vLLM's worker,
 * determine_available_memory). */
#define INFER_GPU_MEMORY_SHARE 0.9
/* The profiling run's step: max_num_batched_tokens, 8192 as `vllm serve` sets it on large GPUs. */
#define VLLM_MAX_NUM_BATCHED_TOKENS 8192
/* Non-torch memory vLLM measured after profiling on an H100 (llm-d/llm-d-benchmark,
 * config_explorer/empirical-vllm-memory-results.md): 0.13 GiB at tensor parallelism 1, 0.55 GiB at
 * 2 (NCCL's buffers and communicators); larger sizes are planned with the tp 2 figure. */
#define VLLM_NON_TORCH_BYTES (0.13 * GIB)
#define VLLM_NON_TORCH_TP_BYTES (0.55 * GIB)
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
/* What full recompute still holds while the backward pass runs (0 for other modes): one layer
 * re-materialised whole (its activations as without recompute, Korthikanti et al.'s per-layer
 * count) and the gradient of the fp32 logits beside the logits (b·s·V·4 more). Checkpointing
 * frees the layers, not the working set of the one being recomputed. */
double recompute_working_bytes(const struct llm_shape *m, int seq, int micro_batch, enum recompute r, bool flash);
/* The peak of vLLM's profiling run per GPU: one step of VLLM_MAX_NUM_BATCHED_TOKENS tokens holds the
 * fp32 logits of every token, gathered whole on each GPU (tokens x V x 4), and the MLP's transient
 * (gate and up outputs, the activation: 3 x FFN / tp) with the hidden states (4 x h), 16-bit. Against
 * llm-d's H100 logs: Llama-3.1-8B 4.82 GiB estimated, 4.76 measured; Llama-3.3-70B TP 2 5.07 / 4.84. */
double infer_profile_peak_bytes(const struct llm_shape *m, int tp);
/* Non-torch memory per GPU at tensor parallelism tp (VLLM_NON_TORCH_*). */
double infer_non_torch_bytes(int tp);
/* The weights at bytes_per_weight: 16-bit and wider, all parameters; narrower (FP8, INT8, INT4), the
 * linear layers only, embeddings, LM head and norms staying 16-bit. */
double infer_weight_bytes(const struct llm_shape *m, double bytes_per_weight);
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
