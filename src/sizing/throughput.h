/* llm-infer: output tokens per second of one replica (the GPUs of one tensor-parallel group), an
 * estimate from the roofline of decoding and prefill. Decode is bound by memory bandwidth: each step
 * streams the weights and the KV cache in use to produce one token per sequence of the batch (Pope
 * et al. 2022, "Efficiently Scaling Transformer Inference", §2; Databricks 2023, "LLM Inference
 * Performance Engineering: Best Practices", model bandwidth utilisation). Prefill is bound by
 * compute: 2 x active parameters FLOPs per prompt token, plus attention's 4 x layers x query width
 * x the positions attended. The shares of peak bandwidth and FLOPS are the thresholds table's
 * (rules/workload.c, llm-infer).
 *
 * What the engines add (each from the engine's own source):
 * - Tensor parallelism: two all-reduces per layer and step (attention's output projection and the
 *   MLP's down projection: Shoeybi et al. 2019, Megatron-LM, §3) of tokens x hidden x 2 bytes, each
 *   a ring all-reduce: 2 (tp - 1) / tp x bytes at the bus bandwidth NCCL reaches on the GPU's
 *   scale-up link (NVLink, NVSwitch, Infinity Fabric; PCIe where there is none, or past a bridge's
 *   GPUs: sizing/interconnect.h, the figure plan --offers and cost use) + a fixed latency per call,
 *   added to the step (the engines wait for it).
 * - Batch caps: the running sequences are the fewest of what memory holds, the engine's maximum
 *   (vLLM's max_num_seqs) and what its token budget per step allows.
 * - Chunked prefill (vLLM V1 and TensorRT-LLM's in-flight batching): prompt tokens ride in the same
 *   step as the decode tokens, up to max_num_batched_tokens, not prefill and decode one after the
 *   other. A step's matmuls cost the larger of reading the weights and computing all its tokens, its
 *   decode attention the larger of reading the KV cache and its FLOPs, and the prompt chunks'
 *   attention its FLOPs (quadratic in the prompt) at FlashAttention's measured rate: each kernel on
 *   its own roofline, one after the other. */
#ifndef GPUVET_SIZING_THROUGHPUT_H
#define GPUVET_SIZING_THROUGHPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sizing/models.h"
#include "util/gputable.h"

/* vLLM's batch defaults (vllm-project/vllm, vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults,
 * `vllm serve`): on a GPU of 70 GiB or more that is not an A100, max_num_seqs 1024 and
 * max_num_batched_tokens 8192 (VLLM_MAX_NUM_BATCHED_TOKENS, sizing/demand.h); otherwise 256 and
 * 2048. Chunked prefill is on by default in V1. */
#define VLLM_MAX_NUM_SEQS_LARGE_GPU 1024
#define VLLM_MAX_NUM_SEQS 256
#define VLLM_MAX_NUM_BATCHED_TOKENS_SMALL_GPU 2048
/* The fixed cost of one all-reduce call: about 25 µs (NCCL's own tuner estimates 26 µs for a 4-8 KB
 * all-reduce on H100, in the NCCL INFO lines of NVIDIA/nccl issue #1453). Measured small messages on
 * 8 H100s are faster (vLLM's custom all-reduce 9.3 µs at 4 KB: sgl-project/sglang pull request #2904),
 * so this is the top of the published range; at a serving batch the messages are megabytes and the
 * ring's bandwidth term dominates (docs/plan-references.md, the 405B TP8 check). */
#define ALLREDUCE_LATENCY_S 25e-6

/* How far the estimate falls from measurements it was not fitted to, what plan's "accuracy" step
 * tells the user: the check part of tests/references/plan-references.tsv (docs/plan-references.md;
 * TensorRT-LLM's performance overviews v0.17, v1.0 and newer, AMD's and Oracle's vLLM on MI300X, vLLM's
 * INT4 AWQ run on an A100 in its pull request #2566), dense models and mixtures of experts apart. LOW
 * and HIGH: the 10th and 90th percentiles of estimate / measured - 1 over the check rows with an
 * estimate (8 in 10 land between them); ROWS: the check rows; INSIDE: those within ±30 %. tests/cli/test_plan_throughput.c computes them from the table and fails
 * when these differ, so what plan states is what the held-out part measures. */
#define INFER_BAND_DENSE_LOW (-0.14)
#define INFER_BAND_DENSE_HIGH 0.29
#define INFER_BAND_DENSE_ROWS 243
#define INFER_BAND_DENSE_INSIDE 203
#define INFER_BAND_MOE_LOW (-0.45)
#define INFER_BAND_MOE_HIGH 0.26
#define INFER_BAND_MOE_ROWS 244
#define INFER_BAND_MOE_INSIDE 166
#define INFER_BAND_REFERENCE                                                                                     \
    "the check part of gpuvet's reference table: TensorRT-LLM performance overviews (v0.17, v1.0, newer), AMD's " \
    "and Oracle's vLLM on MI300X, vLLM's INT4 AWQ run on an A100 (vLLM pull request #2566); 10th to 90th "    \
    "percentile"

/* What the kernels reach depends on what runs (fitted on the "fit" part of
 * tests/references/plan-references.tsv, checked on its "check" part; docs/plan-references.md):
 * - INFER_EXPERT_GEMM_SHARE: a mixture's routed experts run as grouped GEMMs (vLLM's fused_moe,
 *   TensorRT-LLM's CUTLASS MoE kernels), each expert on the tokens routed to it; they reach this
 *   share of the dense matmuls' bandwidth and FLOPS. Fitted on TensorRT-LLM v1.0's H100/H200 FP8 rows
 *   of Llama 4 Scout, Llama 4 Maverick and Qwen3-235B-A22B.
 * - INFER_ROCM_VLLM_SHARE: AMD's ROCm build of vLLM on Instinct GPUs reaches this share of what the
 *   NVIDIA-fitted shares give on the same sheet figures. Fitted on AMD's published MI300X results for
 *   Llama-3.1-70B FP8 at TP8 (amd.com ROCm performance results, rocm/vllm 0.10.2 container). */
#define INFER_EXPERT_GEMM_SHARE 0.5
#define INFER_ROCM_VLLM_SHARE 0.32
/* - INFER_WEIGHT_ONLY_SHARE: weights below 8 bits that the GPU's tensor cores do not take (MXFP4 or
 *   NVFP4 before Blackwell, INT4 AWQ/GPTQ anywhere) are dequantised to 16 bits inside the matmul
 *   (weight-only kernels: Triton's MXFP4 MoE on Hopper, Marlin and Machete for INT4); the matmuls reach
 *   this share of the 16-bit matmuls' rate (reads and FLOPs), on top of the expert share. Fitted on the
 *   10 rows of TensorRT-LLM's newer performance overview (docs/source/developer-guide/perf-overview.md,
 *   commit 03e27c7) for gpt-oss-120b and gpt-oss-20b on one H200 (MXFP4 experts, Triton MoE backend);
 *   checked on the same overview's H100 rows.
 * - INFER_FP4_SHARE: on Blackwell, NVFP4 matmuls reach this share of the FP4 rate that the datasheet
 *   gives (twice FP8): the block scales and the FP8 or BF16 parts of the step keep them well below it.
 *   Fitted on TensorRT-LLM v1.0's B200 FP4 rows of the dense Llama 3.3 70B (TP1) and Llama 3.1 405B
 *   (TP4); checked on the newer overview's B200 FP4 rows. */
#define INFER_WEIGHT_ONLY_SHARE 0.7
#define INFER_FP4_SHARE 0.4
/* Attention's own kernels (FlashAttention and its kind: TensorRT-LLM's FMHA, vLLM's FlashAttention and
 * FlashInfer backends) reach a share of the dense tensor rate at the precision they compute in, the KV
 * cache's: FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608, abstract and §4.1) measures "up to 740
 * TFLOPs/s (75% utilization)" in FP16 and "close to 1.2 PFLOPs/s" in FP8 on an H100 SXM5 (989 and 1,979
 * dense TFLOPS: 0.75 and 0.61); FlashAttention-2 (Dao 2023, arXiv:2307.08691) reaches 50-73 % of the
 * A100's peak in its forward pass. Those are the kernels' best shapes (head dimension 256, 16k tokens),
 * so the long-prompt estimate stays on the fast side. Taken from the papers, not fitted: on the fit
 * part's long-prompt rows (prompts of 8k-32k tokens) any share from 0.4 to 1.0 scores the same. */
#define INFER_ATTENTION_SHARE_16BIT 0.75
#define INFER_ATTENTION_SHARE_FP8 0.61
/* TFLOPS attention reaches with a KV cache of kv_bytes per element: FP8 where the cache is FP8 and the
 * GPU has FP8 tensor cores, else 16-bit, never FP4, times INFER_ATTENTION_SHARE_*; the precision in
 * *precision when not NULL. */
double infer_attention_tflops(const struct gpu_spec *g, double kv_bytes, enum precision *precision);
struct infer_efficiency {
    double expert_gemm; /* the routed experts' grouped GEMMs against the dense matmuls (1: dense model) */
    double vendor;      /* the vendor's inference software against the NVIDIA-fitted shares (1: NVIDIA) */
    double weight_only; /* low-bit weights dequantised in the matmul against 16-bit weights (1: none) */
    double fp4;         /* FP4 matmuls against the datasheet's FP4 rate (1: not FP4) */
};
/* weight_bytes: per parameter, averaged over the model (gpt-oss's checkpoint: about 0.52). */
void infer_efficiency_for(const struct gpu_spec *g, const struct llm_shape *m, double weight_bytes,
                          struct infer_efficiency *e);
/* Weights of weight_bytes per parameter on this GPU: below 8 bits on average and not FP4 on FP4 tensor
 * cores, so the matmuls dequantise them (weight-only quantisation, W4A16). */
bool infer_weight_only(const struct gpu_spec *g, double weight_bytes);
/* NVFP4 weights (4.5 bits) on a GPU with FP4 tensor cores: the matmuls run FP4. */
bool infer_fp4_matmuls(const struct gpu_spec *g, double weight_bytes);
/* Dense FP4 TFLOPS of the GPU's tensor cores, 0 where it has none (before Blackwell). */
double infer_fp4_dense_tflops(const struct gpu_spec *g);

/* vLLM's max_num_seqs and max_num_batched_tokens on this GPU (the defaults above). */
void vllm_batch_defaults(const struct gpu_spec *g, long *max_num_seqs, long *max_num_batched_tokens);

/* The bus bandwidth (GB/s) NCCL's ring all-reduce reaches among tp GPUs of this kind, and the
 * link's name in *link: interconnect_in_node's figure (the scale-up link where every GPU of the
 * group has it, else PCIe; measured shares, sizing/interconnect.h). 0 when tp <= 1 or the table
 * gives neither link. */
double infer_link_gbs(const struct gpu_spec *g, int tp, const char **link);

struct infer_rate_input {
    const struct llm_shape *model;
    const struct gpu_spec *gpu;
    int tp;                        /* GPUs of one replica */
    double weight_bytes, kv_bytes; /* per element */
    double weights_total;          /* bytes of all weights (demand.h infer_weight_bytes); 0: params x weight_bytes */
    int context, prompt;           /* tokens per request, of which prompt (output = context - prompt) */
    long batch;                    /* sequences memory holds at context */
    double bandwidth_share;        /* of peak HBM bandwidth that decode reaches */
    double flops_share;            /* of dense tensor FLOPS that prefill and decode's matmuls reach */
    long max_seqs;                 /* the engine's cap on running sequences; 0: none */
    /* Tokens one step schedules, decode and prompt chunks together (chunked prefill); 0: prefill runs
     * apart from decoding, one after the other. */
    long max_batched_tokens;
    double link_gbs;               /* bus bandwidth of the link the all-reduces cross; 0: infer_link_gbs's */
    double allreduce_latency_s;    /* per all-reduce call; 0: ALLREDUCE_LATENCY_S */
};

enum batch_limit { BATCH_BY_MEMORY, BATCH_BY_MAX_SEQS, BATCH_BY_TOKEN_BUDGET };
const char *batch_limit_name(enum batch_limit b);

struct infer_rate {
    bool known;
    char why_unknown[256];
    enum precision compute_precision; /* FP8 with fp8 weights where the GPU has it, else BF16 (FP16) */
    bool fp4_tensor_cores;            /* fp4 weights on a GPU with FP4 tensor cores: the matmuls run FP4 */
    double bandwidth_share, flops_share; /* the input's shares x the vendor's software (infer_efficiency) */
    double expert_gemm_share;         /* the routed experts' grouped GEMMs against the dense matmuls */
    double weight_only_share;         /* dequantising low-bit weights in the matmul (1: none) */
    double fp4_share;                 /* of the FP4 rate the FP4 matmuls reach (1: not FP4) */
    double dense_tflops_per_gpu;
    double attention_tflops_per_gpu;  /* what attention's kernels reach: infer_attention_tflops x the vendor's share */
    enum precision attention_precision; /* the KV cache's: FP8 or 16-bit (infer_attention_tflops) */
    double prompt_attention_step_s;   /* the prompt chunks' attention FLOPs in a step, at attention_tflops_per_gpu */
    double batch;                     /* sequences decoding together, after the caps (a mean: may be fractional) */
    enum batch_limit batch_limit;     /* what set it */
    bool chunked_prefill;
    double mean_kv_tokens;            /* prompt + output / 2: a sequence's mean length while it decodes */
    double tokens_per_step;           /* batch decode tokens + (chunked) batch x prompt / output prompt tokens */
    double bytes_per_step_per_gpu;    /* weights / tp + batch x KV cache at the mean length, per GPU */
    double flops_per_step_per_gpu;    /* linear layers' and attention's, of the step's tokens */
    double memory_step_s, compute_step_s;
    double allreduce_bytes;           /* one all-reduce call: tokens per step x hidden x 2 */
    double allreduce_step_s;          /* 2 x layers calls per step; 0 at tp 1 */
    bool compute_bound;               /* the matmuls are limited by FLOPS, not by reading the weights */
    /* the matmuls' max(weights read, their FLOPs) + decode attention's max(KV cache read, its FLOPs) +
     * the prompt chunks' attention FLOPs (each kernel on its own roofline, one after the other) +
     * allreduce_step_s */
    double step_s;
    double decode_tokens_s;           /* batch / step_s */
    double prefill_tokens_s;          /* tp x dense x 1e12 x flops_share / FLOPs per prompt token: prefill alone */
    /* chunked: decode_tokens_s (prefill is inside each step); else 1 / (1/decode + prompt/output/prefill) */
    double output_tokens_s;
};

/* Fills out from in; out->known is false (with why_unknown) when the GPU lacks a bandwidth or dense
 * figure, the batch is 0 (nothing fits), the request has no output tokens, or tp > 1 has no link
 * (neither given nor in the table). */
void infer_rate_estimate(const struct infer_rate_input *in, struct infer_rate *out);

#endif
