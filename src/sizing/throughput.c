#include "sizing/throughput.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sizing/demand.h"
#include "sizing/interconnect.h"
#include "util/i18n.h"
#include "util/units.h"

void vllm_batch_defaults(const struct gpu_spec *g, long *max_num_seqs, long *max_num_batched_tokens)
{
    bool large = gpu_memory_bytes(g) >= 70 * GIB && !(g->name && strcasestr(g->name, "A100"));
    *max_num_seqs = large ? VLLM_MAX_NUM_SEQS_LARGE_GPU : VLLM_MAX_NUM_SEQS;
    *max_num_batched_tokens = large ? VLLM_MAX_NUM_BATCHED_TOKENS : VLLM_MAX_NUM_BATCHED_TOKENS_SMALL_GPU;
}

double infer_link_gbs(const struct gpu_spec *g, int tp, const char **link)
{
    *link = "none";
    if (tp <= 1)
        return 0;
    /* The bus bandwidth NCCL's ring reaches on this link, the figure plan --offers and cost use
     * too (sizing/interconnect.h): 2 (tp - 1) / tp x bytes / busbw is nccl-tests' all-reduce time. */
    struct interconnect ic;
    interconnect_in_node(g, tp, &ic);
    if (ic.busbw_bytes_s <= 0)
        return 0;
    *link = ic.kind == IC_PCIE ? "PCIe" : g->scaleup_link;
    return ic.busbw_bytes_s / GB;
}

const char *batch_limit_name(enum batch_limit b)
{
    switch (b) {
    case BATCH_BY_MAX_SEQS:
        return "max_num_seqs";
    case BATCH_BY_TOKEN_BUDGET:
        return "max_num_batched_tokens";
    case BATCH_BY_MEMORY:
    default:
        return "memory";
    }
}

/* Attention's FLOPs for one token that attends to `positions` earlier tokens, all layers: 2 for the
 * scores (query width) and 2 for the weighted values (value width) per position; windowed layers
 * attend at most their window. Multi-head latent attention scores with nope + rope dims. */
static double attention_flops(const struct llm_shape *m, double positions)
{
    double score = m->kv_lora_rank > 0 ? (double)m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim)
                                       : (double)m->heads * m->head_dim;
    double value = m->kv_lora_rank > 0 ? (double)m->heads * m->v_head_dim : (double)m->heads * m->head_dim;
    int windowed = m->sliding_window > 0 ? m->sliding_layers : 0;
    double windowed_positions = windowed && positions > m->sliding_window ? m->sliding_window : positions;
    return 2.0 * (score + value) * ((m->layers - windowed) * positions + windowed * windowed_positions);
}

double infer_fp4_dense_tflops(const struct gpu_spec *g)
{
    /* Blackwell's fifth-generation tensor cores run FP4 (NVFP4) at twice their FP8 rate, Blackwell
     * Ultra's at three times (NVIDIA's B200 and B300 datasheets: HGX B200 72 PF FP8 / 144 PF FP4, HGX
     * B300 72 PF FP8 / 144 PF FP4 sparse and 108 PF FP4 dense). Hopper and earlier have no FP4. */
    if (!g->arch || g->dense[PREC_FP8] <= 0)
        return 0;
    if (!strcasecmp(g->arch, "Blackwell Ultra"))
        return 3 * g->dense[PREC_FP8];
    if (!strncasecmp(g->arch, "Blackwell", 9))
        return 2 * g->dense[PREC_FP8];
    return 0;
}

double infer_attention_tflops(const struct gpu_spec *g, double kv_bytes, enum precision *precision)
{
    bool fp8 = kv_bytes > 0 && kv_bytes < 1.01 && g->dense[PREC_FP8] > 0;
    enum precision wide = g->dense[PREC_BF16] > 0 ? PREC_BF16 : PREC_FP16;
    /* A table row with an FP8 figure and no 16-bit one: attention at the FP8 rate rather than none. */
    if (!fp8 && g->dense[wide] <= 0 && g->dense[PREC_FP8] > 0)
        fp8 = true;
    if (precision)
        *precision = fp8 ? PREC_FP8 : wide;
    return fp8 ? g->dense[PREC_FP8] * INFER_ATTENTION_SHARE_FP8 : g->dense[wide] * INFER_ATTENTION_SHARE_16BIT;
}

bool infer_fp4_matmuls(const struct gpu_spec *g, double weight_bytes)
{
    return weight_bytes > 0.5 && weight_bytes < 0.6 && infer_fp4_dense_tflops(g) > 0;
}

bool infer_weight_only(const struct gpu_spec *g, double weight_bytes)
{
    /* 8-bit weights run FP8 or INT8 matmuls, or a W8A16 kernel this share was not fitted on: only
     * narrower weights count (an FP8 checkpoint's 16-bit embedding lifts its average a little over 1). */
    return weight_bytes > 0 && weight_bytes < 0.9 && !infer_fp4_matmuls(g, weight_bytes);
}

void infer_efficiency_for(const struct gpu_spec *g, const struct llm_shape *m, double weight_bytes,
                          struct infer_efficiency *e)
{
    e->expert_gemm = m->experts > 0 ? INFER_EXPERT_GEMM_SHARE : 1;
    e->vendor = g->vendor && !strcasecmp(g->vendor, "AMD") ? INFER_ROCM_VLLM_SHARE : 1;
    e->weight_only = infer_weight_only(g, weight_bytes) ? INFER_WEIGHT_ONLY_SHARE : 1;
    e->fp4 = infer_fp4_matmuls(g, weight_bytes) ? INFER_FP4_SHARE : 1;
}

void infer_rate_estimate(const struct infer_rate_input *in, struct infer_rate *out)
{
    memset(out, 0, sizeof *out);
    const struct gpu_spec *g = in->gpu;
    const struct llm_shape *m = in->model;
    int output = in->context - in->prompt;
    /* fp8 weights run FP8 matmuls on GPUs that have them (W8A8), fp4 weights (NVFP4) FP4 matmuls on
     * Blackwell (infer_fp4_dense_tflops); other weight formats are dequantised to 16 bits for the
     * matmul (weight-only quantisation, W4A16/W8A16). An FP8 checkpoint that keeps its embedding in
     * BF16 (DeepSeek-V3) averages a little over 1 byte. */
    bool fp8 = in->weight_bytes >= 1 && in->weight_bytes < 1.01;
    bool fp4 = infer_fp4_matmuls(g, in->weight_bytes);
    out->compute_precision = fp8 && g->dense[PREC_FP8] > 0 ? PREC_FP8 : PREC_BF16;
    if (out->compute_precision == PREC_BF16 && g->dense[PREC_BF16] <= 0)
        out->compute_precision = PREC_FP16; /* Volta and Turing: FP16 tensor cores only */
    out->fp4_tensor_cores = fp4;
    /* Per device: a package of two (MI250X) splits its figures between them. */
    double devices = g->devices > 0 ? g->devices : 1, bandwidth = g->mem_bw_gbs / devices;
    out->dense_tflops_per_gpu = (fp4 ? infer_fp4_dense_tflops(g) : g->dense[out->compute_precision]) / devices;
    if (g->mem_bw_gbs <= 0 || out->dense_tflops_per_gpu <= 0) {
        snprintf(out->why_unknown, sizeof out->why_unknown,
                 g->mem_bw_gbs <= 0 ? _("the GPU table has no memory bandwidth for %s")
                                    : _("the GPU table has no dense 16-bit tensor figure for %s"),
                 g->id);
        return;
    }
    if (in->batch < 1 || output < 1 || in->tp < 1 || m->active_params <= 0) {
        snprintf(out->why_unknown, sizeof out->why_unknown, "%s",
                 in->batch < 1 ? _("not one request of this context fits") : _("the request generates no tokens"));
        return;
    }
    const char *link;
    double link_gbs = in->link_gbs > 0 ? in->link_gbs : infer_link_gbs(g, in->tp, &link);
    double latency_s = in->allreduce_latency_s > 0 ? in->allreduce_latency_s : ALLREDUCE_LATENCY_S;
    if (in->tp > 1 && link_gbs <= 0) {
        snprintf(out->why_unknown, sizeof out->why_unknown,
                 _("the GPU table gives %s neither a scale-up link nor a PCIe generation for the all-reduces"), g->id);
        return;
    }
    double tp = in->tp, ratio = (double)in->prompt / output;
    out->chunked_prefill = in->max_batched_tokens > 0;
    out->batch = (double)in->batch;
    out->batch_limit = BATCH_BY_MEMORY;
    if (in->max_seqs > 0 && out->batch > in->max_seqs) {
        out->batch = (double)in->max_seqs;
        out->batch_limit = BATCH_BY_MAX_SEQS;
    }
    /* In the steady state each step finishes batch / output requests and so takes in batch x prompt /
     * output prompt tokens: the budget holds batch x (1 + prompt / output) tokens. */
    if (out->chunked_prefill && out->batch * (1 + ratio) > in->max_batched_tokens) {
        out->batch = in->max_batched_tokens / (1 + ratio);
        out->batch_limit = BATCH_BY_TOKEN_BUDGET;
    }
    double weights_per_gpu = (in->weights_total > 0 ? in->weights_total : (double)m->params * in->weight_bytes) / tp;
    out->mean_kv_tokens = in->prompt + output / 2.0;
    double kv_per_gpu = out->batch * kv_bytes_per_sequence(m, in->kv_bytes, (int)out->mean_kv_tokens, in->tp);
    out->bytes_per_step_per_gpu = weights_per_gpu + kv_per_gpu;
    struct infer_efficiency eff;
    infer_efficiency_for(g, m, in->weight_bytes, &eff);
    out->bandwidth_share = in->bandwidth_share * eff.vendor;
    out->flops_share = in->flops_share * eff.vendor;
    out->expert_gemm_share = eff.expert_gemm;
    out->weight_only_share = eff.weight_only;
    out->fp4_share = eff.fp4;
    double bytes_s = bandwidth * GB * out->bandwidth_share, flops_per_gpu_s = out->dense_tflops_per_gpu * 1e12 * out->flops_share;
    double prompt_tokens = out->chunked_prefill ? out->batch * ratio : 0;
    out->tokens_per_step = out->batch + prompt_tokens;
    double linear_flops = 2.0 * (double)m->active_params * out->tokens_per_step / tp;
    double attention = (out->batch * attention_flops(m, out->mean_kv_tokens) +
                        prompt_tokens * attention_flops(m, in->prompt / 2.0)) / tp; /* causal prompt: half */
    out->flops_per_step_per_gpu = linear_flops + attention;
    out->memory_step_s = out->bytes_per_step_per_gpu / bytes_s;
    out->compute_step_s = out->flops_per_step_per_gpu / flops_per_gpu_s;
    /* The matmuls read the weights and the attention kernels the KV cache: each kernel is bound by its
     * own roofline, one after the other. A mixture's routed experts run as grouped GEMMs, each expert
     * on the few tokens routed to it, at expert_gemm of the dense matmuls' rate (reads and FLOPs). */
    double expert_share = m->experts > 0 && m->params > 0 ? (double)m->expert_params / m->params : 0;
    double expert_active = m->experts > 0 ? (double)m->expert_params * m->experts_per_token / m->experts : 0;
    double expert_flops = 2.0 * expert_active * out->tokens_per_step / tp, dense_flops = linear_flops - expert_flops;
    double expert_weights = weights_per_gpu * expert_share, dense_weights = weights_per_gpu - expert_weights;
    /* The matmuls' FLOPs at the FP4 share where they run FP4; attention's at its own rate, below. */
    double matmul_flops_s = flops_per_gpu_s * eff.fp4;
    double linear_s = fmax(dense_weights / bytes_s, dense_flops / matmul_flops_s);
    if (expert_flops > 0)
        linear_s += fmax(expert_weights / bytes_s, expert_flops / matmul_flops_s) / eff.expert_gemm;
    /* Weight-only kernels dequantise every weight they read before the 16-bit matmul. */
    linear_s /= eff.weight_only;
    /* Attention's matmuls (QK^T, PV) run at the KV cache's precision, never FP4, at what FlashAttention
     * reaches (INFER_ATTENTION_SHARE_*). Decoding's kernels are bound by the larger of reading the KV
     * cache and their FLOPs; the prompt chunks' attention is its own kernel, bound by its FLOPs, after
     * them: a long prompt's quadratic cost is not hidden behind the decode reads. */
    out->attention_tflops_per_gpu = infer_attention_tflops(g, in->kv_bytes, &out->attention_precision) / devices * eff.vendor;
    if (out->attention_tflops_per_gpu <= 0) /* no tensor figure for attention: the matmuls' rate */
        out->attention_tflops_per_gpu = out->dense_tflops_per_gpu * out->flops_share;
    double attention_flops_s = out->attention_tflops_per_gpu * 1e12;
    double decode_attention = out->batch * attention_flops(m, out->mean_kv_tokens) / tp;
    out->prompt_attention_step_s = (attention - decode_attention) / attention_flops_s;
    double attention_s = fmax(kv_per_gpu / bytes_s, decode_attention / attention_flops_s) + out->prompt_attention_step_s;
    out->compute_bound = linear_flops / matmul_flops_s > weights_per_gpu / bytes_s;
    if (in->tp > 1) {
        out->allreduce_bytes = out->tokens_per_step * m->hidden * 2.0;
        double call = latency_s + 2.0 * (tp - 1) / tp * out->allreduce_bytes / (link_gbs * GB);
        out->allreduce_step_s = 2.0 * m->layers * call;
    }
    out->step_s = linear_s + attention_s + out->allreduce_step_s;
    out->decode_tokens_s = out->batch / out->step_s;
    out->prefill_tokens_s = tp / (2.0 * (double)m->active_params / flops_per_gpu_s +
                                  attention_flops(m, in->prompt / 2.0) / attention_flops_s);
    out->output_tokens_s = out->chunked_prefill ? out->decode_tokens_s
                                                : 1.0 / (1.0 / out->decode_tokens_s + ratio / out->prefill_tokens_s);
    out->known = true;
}
