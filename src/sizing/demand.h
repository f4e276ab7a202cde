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
/* What vLLM's sampler holds per logit while its profiling run samples one token for each of
 * max_num_seqs dummy requests (vllm/v1/worker/gpu_model_runner.py, profile_run: _dummy_run of
 * max_num_batched_tokens tokens, then _dummy_sampler_run on the last token of each request): the
 * logits gathered whole on every GPU of a tensor-parallel group, their fp32 copy and the sampler's
 * working tensors. Fitted on llm-d's H100 logs (llm-d/llm-d-benchmark,
 * config_explorer/empirical-vllm-memory-results.md, max_num_seqs 1024): Llama-3.1-8B 4.76 GiB and
 * Qwen3-0.6B 5.56 GiB of peak activation over 1024 x their vocabularies (128256, 151936) give 38.9
 * and 38.4 bytes per logit; checked on Qwen3-32B, gpt-oss-20b and Llama-3.3-70B at TP 2
 * (tests/references/plan-memory-references.tsv). */
#define VLLM_SAMPLER_BYTES_PER_LOGIT 38.6
/* The peak of vLLM's profiling run per GPU, the larger of its two steps (the forward pass's
 * transients are freed before the sampler runs): the forward pass of max_num_batched_tokens tokens,
 * the MLP's transient (gate and up outputs, the activation: 3 x FFN / tp) with the hidden states
 * (4 x h), 16-bit; and the sampler over max_num_seqs requests (VLLM_SAMPLER_BYTES_PER_LOGIT x the
 * vocabulary each). max_num_seqs and max_num_batched_tokens are vLLM's defaults on the GPU
 * (vllm_batch_defaults, sizing/throughput.h). */
double infer_profile_peak_bytes(const struct llm_shape *m, int tp, long max_num_seqs, long max_num_batched_tokens);
/* The forward pass's share of it and the sampler's (what the plan shows). */
double infer_profile_forward_bytes(const struct llm_shape *m, int tp, long max_num_batched_tokens);
double infer_profile_sampler_bytes(const struct llm_shape *m, long max_num_seqs);
/* The weights as vLLM holds them on each GPU of tensor parallelism tp: as the checkpoint ships them,
 * except MXFP4 experts (gpt-oss), whose intermediate size per GPU vLLM pads to a multiple of 256
 * (vllm/model_executor/layers/quantization/mxfp4.py, Mxfp4MoEMethod.create_weights: 2880 becomes
 * 3072, 6.7 % more expert bytes; gpt-oss-120b loads 64.38 GiB on an H100, llm-d's log, where its
 * files hold 60.7). checkpoint_bytes is llm_checkpoint_bytes or the --weights figure. */
double infer_loaded_weight_bytes(const struct llm_shape *m, double checkpoint_bytes, bool as_checkpoint, int tp);
/* Non-torch memory per GPU at tensor parallelism tp (VLLM_NON_TORCH_*). */
double infer_non_torch_bytes(int tp);
/* The weights at bytes_per_weight: 16-bit and wider, all parameters; narrower (FP8, INT8, INT4), the
 * linear layers only, embeddings, LM head and norms staying 16-bit. */
double infer_weight_bytes(const struct llm_shape *m, double bytes_per_weight);
/* What the cross-entropy of a Hugging Face causal LM holds per logit at its peak, in its backward
 * pass (transformers' LlamaForCausalLM of the Llama 3.1 era: logits.float(), a shifted copy, then
 * CrossEntropyLoss): the fp32 logits the model returns and the Trainer keeps (4), the log-softmax
 * saved for the backward pass (4), its incoming gradient (4) and the gradient it makes (4). The
 * fine-tuning recipes (PEFT, TRL, LLaMA-Factory) run this loss; checked on Unsloth's Hugging Face +
 * FA2 context lengths (tests/references/plan-memory-references.tsv). */
#define FINETUNE_LOSS_BYTES_PER_LOGIT 16
/* What LoRA's dropout keeps per element of an adapted matrix's input when it is on: the dropped-out
 * copy that lora_A's backward pass needs (2, 16-bit) and the mask (1, bool). */
#define LORA_DROPOUT_BYTES_PER_ELEMENT 3
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
