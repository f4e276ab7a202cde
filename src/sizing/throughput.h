/* llm-infer: output tokens per second of one replica (the GPUs of one tensor-parallel group), an
 * estimate from the roofline of decoding and prefill. Decode is bound by memory bandwidth: each step
 * streams the weights and the KV cache in use to produce one token per sequence of the batch (Pope
 * et al. 2022, "Efficiently Scaling Transformer Inference", §2; Databricks 2023, "LLM Inference
 * Performance Engineering: Best Practices", model bandwidth utilisation). Prefill is bound by
 * compute: 2 x active parameters FLOPs per prompt token. The shares of peak bandwidth and FLOPS
 * are the thresholds table's (rules/workload.c, llm-infer). */
#ifndef GPUVET_SIZING_THROUGHPUT_H
#define GPUVET_SIZING_THROUGHPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sizing/models.h"
#include "util/gputable.h"

struct infer_rate_input {
    const struct llm_shape *model;
    const struct gpu_spec *gpu;
    int tp;                        /* GPUs of one replica */
    double weight_bytes, kv_bytes; /* per element */
    double weights_total;          /* bytes of all weights (demand.h infer_weight_bytes); 0: params x weight_bytes */
    int context, prompt;           /* tokens per request, of which prompt (output = context - prompt) */
    long batch;                    /* sequences decoded together (the most that fit at context) */
    double bandwidth_share;        /* of peak HBM bandwidth that decode reaches */
    double flops_share;            /* of dense tensor FLOPS that prefill and decode's matmuls reach */
};

struct infer_rate {
    bool known;
    char why_unknown[256];
    enum precision compute_precision; /* FP8 with fp8 weights where the GPU has it, else BF16 (FP16) */
    double dense_tflops_per_gpu;
    double mean_kv_tokens;            /* prompt + output / 2: a sequence's mean length while it decodes */
    double bytes_per_step_per_gpu;    /* weights / tp + batch x KV cache at the mean length, per GPU */
    double memory_step_s, compute_step_s;
    bool compute_bound;               /* the decode step is limited by FLOPS, not bandwidth */
    double decode_tokens_s;           /* batch / max(memory_step_s, compute_step_s) */
    double prefill_tokens_s;          /* tp x dense x 1e12 x flops_share / (2 x active parameters) */
    double output_tokens_s;           /* with each request's prefill: 1 / (1/decode + prompt/output/prefill) */
};

/* Fills out from in; out->known is false (with why_unknown) when the GPU lacks a bandwidth or dense
 * figure, the batch is 0 (nothing fits) or the request has no output tokens. */
void infer_rate_estimate(const struct infer_rate_input *in, struct infer_rate *out);

#endif
