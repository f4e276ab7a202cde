/* Parameter-efficient fine-tuning: LoRA (Hu et al. 2021) trains low-rank adapters beside frozen
 * weights; QLoRA (Dettmers et al. 2023) freezes them in 4-bit NF4. Memory per GPU: the frozen
 * weights, the adapters with their gradients and Adam states, then activations as for training. */
#ifndef GPUVET_SIZING_FINETUNE_H
#define GPUVET_SIZING_FINETUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "sizing/models.h"

enum finetune { FINETUNE_NONE, FINETUNE_LORA, FINETUNE_QLORA };
const char *finetune_name(enum finetune f);
bool finetune_parse(const char *name, enum finetune *out);

/* NF4 with double quantization: 4 bits per weight + 0.127 bits of quantization constants
 * (QLoRA §3: 8-bit constants per 64 weights, their fp32 constants per 256 blocks). */
#define QLORA_BITS_PER_PARAM (4.0 + 8.0 / 64 + 32.0 / (64 * 256))
/* Where the plan's default recompute for --finetune comes from (JSON, English). */
#define FINETUNE_RECOMPUTE_SOURCE                                                                            \
    "default for --finetune: gradient checkpointing on, as PEFT (prepare_model_for_kbit_training, "         \
    "use_gradient_checkpointing=True), Unsloth (get_peft_model), LLaMA-Factory "                          \
    "(disable_gradient_checkpointing: false) and the QLoRA paper's qlora.py (gradient_checkpointing=True) run"
/* A trainable adapter parameter in mixed precision: fp32 weight, fp32 gradient, Adam's fp32
 * momentum and variance (4 + 4 + 8). */
#define ADAPTER_BYTES_PER_PARAM 16

struct finetune_estimate {
    int64_t adapter_params;   /* r × (in + out) per adapted matrix, all layers */
    int64_t quantized_params; /* the linear layers' weights (QLoRA quantizes these only) */
    double frozen_bytes;      /* the frozen model on each GPU */
    double adapter_bytes;     /* adapters with gradients and optimizer states */
};

/* The parameters of the linear layers (attention, MLP, experts): what QLoRA, and checkpoints named
 * FP8, INT8 or INT4, quantise; embeddings, LM head, norms, biases and routers stay 16-bit. */
int64_t llm_linear_params(const struct llm_shape *m);

/* attention_only: adapters on q and v only (the LoRA paper's choice); else on every linear layer
 * of attention and MLP (QLoRA's). */
void finetune_estimate(const struct llm_shape *m, enum finetune kind, int rank, bool attention_only,
                       struct finetune_estimate *out);

#endif
