/* llm-infer: weights split by tensor parallelism and the KV cache as vLLM holds it (max(1, KV heads
 * / tp) per GPU), the largest batch and longest context that fit, then cores, memory, storage. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sizing/demand.h"
#include "sizing/plan_internal.h"
#include "sizing/throughput.h"
#include "util/units.h"

/* plan.throughput: the node's output tokens/s, an estimate (sizing/throughput.h) that plan --offers
 * prices per million output tokens. The node's GPUs may serve as several replicas of a smaller
 * tensor-parallel size (8 GPUs as 8 x tp 1 for a model one GPU holds): the split with the most
 * tokens/s, each replica at the largest batch of --context requests its memory holds (at least
 * --batch). */
/* What vLLM gives the weights and the KV cache on each GPU at tensor parallelism tp: the share of
 * the GPU's memory it plans with, less its profiling run's peak and the non-torch memory. */
static double infer_profile_peak(const struct plan *p, int tp)
{
    long seqs, tokens;
    vllm_batch_defaults(p->gpu, &seqs, &tokens);
    return infer_profile_peak_bytes(&p->model, tp, seqs, tokens);
}

static double infer_usable(const struct plan *p, int tp)
{
    return gpu_bytes(p) * p->opt.gpu_memory_utilization - infer_profile_peak(p, tp) - infer_non_torch_bytes(tp);
}

/* The weights in GPU memory, all GPUs of tensor parallelism tp together: as the checkpoint ships
 * them (gpt-oss's MXFP4 experts, DeepSeek-V3's FP8) and as vLLM lays them out (MXFP4 padding,
 * demand.h) unless --weights was given; else the linear layers at --weights and the rest in 16 bits. */
static double infer_weights_at(const struct plan *p, int tp)
{
    if (!p->opt.weights_given && p->model.checkpoint[0])
        return infer_loaded_weight_bytes(&p->model, llm_checkpoint_bytes(&p->model), true, tp);
    return infer_weight_bytes(&p->model, p->opt.weight_bytes);
}

/* At the asked tensor parallelism (all the node's GPUs). */
static double infer_weights(const struct plan *p) { return infer_weights_at(p, p->gpus_per_node); }

static void infer_throughput(struct plan *p, bool fits)
{
    const struct llm_shape *m = &p->model;
    const struct thresholds *t = thresholds_for(WL_LLM_INFER);
    int n = p->gpus_per_node;
    bool prompt_given = p->opt.prompt > 0;
    int prompt = prompt_given ? p->opt.prompt : p->opt.context / 2;
    double weights = infer_weights(p);
    /* A checkpoint with FP8 linear layers (DeepSeek-V3's, Meta's 405B FP8) runs its matmuls in FP8 though
     * its average is over a byte; the 16-bit attention of Meta's is counted at the FP8 rate too. */
    bool fp8_checkpoint = !p->opt.weights_given && m->checkpoint[0] && m->other_weight_bytes == 1;
    struct infer_rate_input in = {.model = m, .gpu = p->gpu, .weight_bytes = fp8_checkpoint ? 1 : p->opt.weight_bytes,
                                  .weights_total = weights,
                                  .kv_bytes = p->opt.kv_bytes, .context = p->opt.context, .prompt = prompt,
                                  .bandwidth_share = t->infer_decode_bandwidth_share,
                                  .flops_share = t->infer_prefill_flops_share,
                                  .allreduce_latency_s = ALLREDUCE_LATENCY_S};
    vllm_batch_defaults(p->gpu, &in.max_seqs, &in.max_batched_tokens);
    struct infer_rate r = {0}, candidate;
    const char *link = "none", *candidate_link;
    double link_gbs = 0;
    snprintf(r.why_unknown, sizeof r.why_unknown, "%s", _("the asked configuration does not fit"));
    int tp = n;
    long batch = 0;
    if (p->opt.tensor_parallel && n % p->opt.tensor_parallel)
        snprintf(r.why_unknown, sizeof r.why_unknown, _("--tensor-parallel %d does not divide the node's %d GPUs"),
                 p->opt.tensor_parallel, n);
    for (int k = 1; fits && k <= n; k++) {
        char why[256];
        if (n % k || (p->opt.tensor_parallel && k != p->opt.tensor_parallel) || !tensor_parallel_valid(m, k, why, sizeof why))
            continue;
        double room = infer_usable(p, k) - infer_weights_at(p, k) / k;
        long holds =
            room > 0 ? (long)fmin(floor(room / kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, k)), 1e12) : 0;
        if (holds < p->opt.batch)
            continue;
        in.tp = k;
        in.batch = holds;
        in.link_gbs = infer_link_gbs(p->gpu, k, &candidate_link);
        infer_rate_estimate(&in, &candidate);
        if (!r.known && !candidate.known && k == n)
            r = candidate; /* why the asked split has no estimate */
        if (candidate.known && (!r.known || n / k * candidate.output_tokens_s > n / tp * r.output_tokens_s)) {
            r = candidate;
            tp = k;
            batch = holds;
            link = candidate_link;
            link_gbs = in.link_gbs;
        }
    }
    int replicas = n / tp;
    json_t *o = json_object();
    json_object_set_new(o, "estimate", json_true());
    json_object_set_new(o, "known", json_boolean(r.known));
    json_object_set_new(o, "prompt_tokens", json_integer(prompt));
    json_object_set_new(o, "prompt_source", json_string(prompt_given ? "--prompt" : "not given: half the context"));
    json_object_set_new(o, "output_tokens", json_integer(p->opt.context - prompt));
    json_object_set_new(o, "hbm_bandwidth_share", json_real(r.known ? r.bandwidth_share : t->infer_decode_bandwidth_share));
    json_object_set_new(o, "flops_share", json_real(r.known ? r.flops_share : t->infer_prefill_flops_share));
    if (r.known) {
        json_object_set_new(o, "expert_gemm_share", json_real(r.expert_gemm_share));
        json_object_set_new(o, "weight_only_share", json_real(r.weight_only_share));
        json_object_set_new(o, "fp4_share", json_real(r.fp4_share));
        json_object_set_new(o, "attention_tflops_per_gpu", json_real(r.attention_tflops_per_gpu));
        json_object_set_new(o, "attention_precision", json_string(precision_name(r.attention_precision)));
        json_object_set_new(o, "prompt_attention_step_s", json_real(r.prompt_attention_step_s));
    }
    json_object_set_new(o, "engine", json_string("vLLM defaults: chunked prefill, max_num_seqs and max_num_batched_tokens "
                                                 "of EngineArgs.get_batch_defaults"));
    json_object_set_new(o, "max_num_seqs", json_integer(in.max_seqs));
    json_object_set_new(o, "max_num_batched_tokens", json_integer(in.max_batched_tokens));
    json_object_set_new(o, "allreduce_latency_s", json_real(ALLREDUCE_LATENCY_S));
    bool moe = m->experts > 0;
    double band_low = moe ? INFER_BAND_MOE_LOW : INFER_BAND_DENSE_LOW, band_high = moe ? INFER_BAND_MOE_HIGH : INFER_BAND_DENSE_HIGH;
    int band_rows = moe ? INFER_BAND_MOE_ROWS : INFER_BAND_DENSE_ROWS;
    int band_inside = moe ? INFER_BAND_MOE_INSIDE : INFER_BAND_DENSE_INSIDE;
    json_object_set_new(o, "error_band",
                        json_pack("{s:f, s:f, s:s, s:i, s:i, s:s}", "estimate_over_measured_min", 1 + band_low,
                                  "estimate_over_measured_max", 1 + band_high, "models",
                                  moe ? "mixtures of experts" : "dense", "held_out_rows", band_rows,
                                  "held_out_rows_within_30_percent", band_inside, "against", INFER_BAND_REFERENCE));
    json_object_set_new(
        o, "formula",
        json_string("per replica of tp GPUs, running batch = min(what memory holds, max_num_seqs, "
                    "max_num_batched_tokens / (1 + prompt / output)); a step holds batch decode tokens and batch x "
                    "prompt / output prompt tokens (chunked prefill); step = max(weights / tp / (HBM bandwidth x "
                    "share), 2 x active parameters x tokens / tp / (dense TFLOPS x 1e12 x FLOPS share)) + max(batch x "
                    "KV cache per sequence per GPU at prompt + output / 2 tokens / (HBM bandwidth x share), decode "
                    "attention FLOPs / tp / (attention TFLOPS x 1e12)) + prompt attention FLOPs / tp / (attention "
                    "TFLOPS x 1e12) + 2 x layers x (latency + 2 (tp - 1) / tp x "
                    "tokens x hidden x 2 B / the link's bus bandwidth as NCCL's ring reaches it); attention FLOPs = 4 x query width x layers x "
                    "positions per token (prompt + output / 2 decoding, prompt / 2 prefilling); attention TFLOPS = dense "
                    "TFLOPS at the KV cache's precision (FP8 or 16-bit, never FP4) x FlashAttention-3's measured share; "
                    "output tokens/s = "
                    "batch / step; x replicas per node"));
    if (!r.known) {
        if (p->opt.rate > 0)
            json_object_set_new(p->doc, "rate",
                                json_pack("{s:f, s:n, s:n, s:s}", "requests_s", p->opt.rate, "gpus", "nodes",
                                          "why_unknown", r.why_unknown));
        json_object_set_new(o, "why_unknown", json_string(r.why_unknown));
        json_object_set_new(o, "output_tokens_s", json_null());
        json_object_set_new(p->doc, "throughput", o);
        plan_step(p, N_("throughput"), _("output tokens/s unknown: %s"), r.why_unknown);
        return;
    }
    json_object_set_new(o, "tensor_parallel", json_integer(tp));
    json_object_set_new(o, "replicas", json_integer(replicas));
    json_object_set_new(o, "batch_per_replica", json_integer(batch));
    json_object_set_new(o, "running_batch_per_replica", json_real(r.batch));
    json_object_set_new(o, "batch_limited_by", json_string(batch_limit_name(r.batch_limit)));
    json_object_set_new(o, "tokens_per_step", json_real(r.tokens_per_step));
    json_object_set_new(o, "flops_per_step_per_gpu", json_real(r.flops_per_step_per_gpu));
    json_object_set_new(o, "allreduce_link", json_string(link));
    json_object_set_new(o, "allreduce_link_gbs", json_real(link_gbs));
    json_object_set_new(o, "allreduce_bytes", json_real(r.allreduce_bytes));
    json_object_set_new(o, "allreduce_step_s", json_real(r.allreduce_step_s));
    json_object_set_new(o, "step_s", json_real(r.step_s));
    const char *compute = r.fp4_tensor_cores ? "fp4" : precision_name(r.compute_precision);
    json_object_set_new(o, "compute_precision", json_string(compute));
    json_object_set_new(o, "dense_tflops_per_gpu", json_real(r.dense_tflops_per_gpu));
    json_object_set_new(o, "mean_kv_tokens", json_real(r.mean_kv_tokens));
    json_object_set_new(o, "bytes_per_step_per_gpu", json_real(r.bytes_per_step_per_gpu));
    json_object_set_new(o, "memory_step_s", json_real(r.memory_step_s));
    json_object_set_new(o, "compute_step_s", json_real(r.compute_step_s));
    json_object_set_new(o, "bound", json_string(r.compute_bound ? "compute" : "memory bandwidth"));
    json_object_set_new(o, "decode_tokens_s_per_replica", json_real(r.decode_tokens_s));
    json_object_set_new(o, "prefill_tokens_s_per_replica", json_real(r.prefill_tokens_s));
    json_object_set_new(o, "output_tokens_s_per_replica", json_real(r.output_tokens_s));
    json_object_set_new(o, "output_tokens_s", json_real(replicas * r.output_tokens_s));
    json_object_set_new(p->doc, "throughput", o);
    char limit[512], allreduce[512];
    if (r.batch_limit == BATCH_BY_MEMORY)
        snprintf(limit, sizeof limit, "%s", _("all of them"));
    else
        snprintf(limit, sizeof limit,
                 r.batch_limit == BATCH_BY_MAX_SEQS ? _("%.0f: vLLM's max_num_seqs %ld caps them")
                                                    : _("%.0f: vLLM's budget of %ld tokens per step caps them"),
                 r.batch, r.batch_limit == BATCH_BY_MAX_SEQS ? in.max_seqs : in.max_batched_tokens);
    if (tp > 1)
        snprintf(allreduce, sizeof allreduce,
                 _("then all-reduces %.1f ms (2 x %d layers, %.1f MB each over %s at %.0f GB/s bus bandwidth, + %.0f µs each)"),
                 r.allreduce_step_s * 1e3, m->layers, r.allreduce_bytes / 1e6, link, link_gbs,
                 ALLREDUCE_LATENCY_S * 1e6);
    else
        snprintf(allreduce, sizeof allreduce, "%s", _("no all-reduce at tensor parallelism 1"));
    plan_step(p, N_("throughput"),
              /* TRANSLATORS: the %s after "running" says how many of them run (all of them, or a cap); the
               * one after "matmuls are" is "memory-bound" or "compute-bound"; the next the all-reduces'
               * clause; the last is "--prompt" or "--prompt not given: half the context". */
              _("estimate: %d replica(s) of tensor parallelism %d; memory holds %ld requests of %d tokens, "
                "running %s; a step with chunked prefill holds %.0f tokens (decode and prompt chunks), reads "
                "%.1f GB per GPU (weights / %d + the KV cache at %.0f tokens) at %.0f%% of %g GB/s: %.1f ms, and "
                "computes %.1f TFLOP per GPU at %.0f%% of %g dense %s TFLOPS: %.1f ms; the matmuls are %s, each "
                "kernel takes the longer of its reads and its FLOPs, %s: %.1f ms a step, %.0f output tokens/s per "
                "replica, %.0f per node, with %d prompt tokens per %d generated (%s)"),
              replicas, tp, batch, p->opt.context, limit, r.tokens_per_step, gb(r.bytes_per_step_per_gpu), tp,
              r.mean_kv_tokens, r.bandwidth_share * 100, p->gpu->mem_bw_gbs / p->gpu->devices,
              r.memory_step_s * 1e3, r.flops_per_step_per_gpu / 1e12, r.flops_share * 100,
              r.dense_tflops_per_gpu, compute, r.compute_step_s * 1e3,
              r.compute_bound ? _("compute-bound") : _("memory-bound"), allreduce, r.step_s * 1e3, r.output_tokens_s,
              replicas * r.output_tokens_s, prompt, p->opt.context - prompt,
              prompt_given ? "--prompt" : _("--prompt not given: half the context"));
    if (r.bandwidth_share != t->infer_decode_bandwidth_share)
        plan_step(p, N_("efficiency"),
                  _("AMD's ROCm build of vLLM reaches %.2f of the shares fitted on NVIDIA GPUs (fitted on AMD's "
                    "published MI300X vLLM results for Llama-3.1-70B FP8): %.0f%% of HBM bandwidth and %.0f%% of "
                    "dense FLOPS"),
                  r.bandwidth_share / t->infer_decode_bandwidth_share, r.bandwidth_share * 100, r.flops_share * 100);
    if (moe)
        plan_step(p, N_("efficiency"),
                  _("the routed experts run as grouped GEMMs, each expert on the tokens routed to it, at %.2f of the "
                    "dense matmuls' rate (fitted on TensorRT-LLM's published H100 and H200 results for Llama 4 and "
                    "Qwen3 mixtures)"),
                  r.expert_gemm_share);
    if (r.weight_only_share != 1)
        plan_step(p, N_("efficiency"),
                  _("weights below 8 bits that %s's tensor cores do not take are dequantised to 16 bits inside "
                    "each matmul (weight-only kernels): the matmuls reach %.2f of the 16-bit rate (fitted on "
                    "TensorRT-LLM's published gpt-oss results on one H200)"),
                  p->gpu->name, r.weight_only_share);
    if (r.fp4_share != 1)
        plan_step(p, N_("efficiency"),
                  _("the FP4 matmuls reach %.2f of the FP4 rate in %s's datasheet (fitted on TensorRT-LLM's "
                    "published B200 FP4 results for Llama 3.3 70B and Llama 3.1 405B)"),
                  r.fp4_share, p->gpu->name);
    double attention_dense = p->gpu->dense[r.attention_precision] / (p->gpu->devices > 0 ? p->gpu->devices : 1);
    plan_step(p, N_("efficiency"),
              /* TRANSLATORS: %s is the precision (fp8, bf16, fp16). */
              _("attention computes at the KV cache's precision, %s, at %.0f TFLOPS per GPU (%.0f%% of that dense "
                "rate, what FlashAttention-3 measured on H100); the prompt chunks' attention, quadratic in the "
                "prompt, runs after the decode reads: %.1f ms a step"),
              precision_name(r.attention_precision), r.attention_tflops_per_gpu,
              attention_dense > 0 ? r.attention_tflops_per_gpu / attention_dense * 100 : 0,
              r.prompt_attention_step_s * 1e3);
    plan_step(p, N_("accuracy"),
              moe ? _("on %d published measurements of mixtures of experts that its factors were not fitted to "
                      "(TensorRT-LLM's performance overviews), 8 in 10 estimates landed between %+.0f%% and %+.0f%% "
                      "of the measured throughput, %d within 30%%; it models tensor parallelism, not expert "
                      "parallelism")
                  : _("on %d published measurements of dense models that its factors were not fitted to "
                      "(TensorRT-LLM's performance overviews; vLLM results from AMD, Oracle and vLLM's AWQ pull "
                      "request), 8 in 10 estimates landed between %+.0f%% and %+.0f%% of the measured throughput, "
                      "%d within 30%%"),
              band_rows, band_low * 100, band_high * 100, band_inside);
    if ((long)r.batch != p->opt.batch && p->opt.batch_given)
        plan_step(p, N_("batch"),
                  _("the estimate runs each replica at batch %.0f, the most requests of %d tokens that memory and "
                    "vLLM's limits allow, not at the --batch %d asked: a server (vLLM, SGLang) keeps as many requests "
                    "running as it can; fewer requests give fewer tokens/s"),
                  r.batch, p->opt.context, p->opt.batch);
    else if ((long)r.batch != p->opt.batch)
        plan_step(p, N_("batch"),
                  _("the estimate runs each replica at batch %.0f, the most requests of %d tokens that memory and "
                    "vLLM's limits allow (no --batch was given; the memory above is sized for %d): a server (vLLM, "
                    "SGLang) keeps as many requests running as it can; fewer requests give fewer tokens/s"),
                  r.batch, p->opt.context, p->opt.batch);
    if (p->opt.rate > 0) {
        /* --rate R: R requests/s of --context tokens, each generating context - prompt tokens, on
         * replicas of this split, each at its estimated rate. */
        int output = p->opt.context - prompt;
        double needed = p->opt.rate * output;
        long need_replicas = (long)ceil(needed / r.output_tokens_s);
        long gpus = need_replicas * tp, nodes = (gpus + n - 1) / n;
        double headroom = need_replicas * r.output_tokens_s / needed - 1;
        json_object_set_new(
            p->doc, "rate",
            json_pack("{s:b, s:f, s:i, s:f, s:f, s:i, s:I, s:I, s:I, s:f, s:s}", "estimate", 1, "requests_s",
                      p->opt.rate, "output_tokens_per_request", output, "output_tokens_s_needed", needed,
                      "output_tokens_s_per_replica", r.output_tokens_s, "tensor_parallel", tp, "replicas",
                      (json_int_t)need_replicas, "gpus", (json_int_t)gpus, "nodes", (json_int_t)nodes, "headroom",
                      headroom, "basis", "plan.throughput: the roofline estimate, at the batch memory and vLLM's limits allow"));
        plan_step(p, N_("rate"),
                  _("%g requests/s x %d output tokens = %.0f output tokens/s: %ld replica(s) of %d x %s at the "
                    "estimated %.0f tokens/s each = %ld GPUs, %ld node(s) of %d; headroom %.0f%% (an estimate: "
                    "see throughput)"),
                  p->opt.rate, output, needed, need_replicas, tp, p->gpu->id, r.output_tokens_s, gpus, nodes, n,
                  headroom * 100);
    }
}

int plan_infer(struct plan *p)
{
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    plan_step(p, N_("model"), _("%s: %.3g B parameters (%s)"), m->id, m->params / 1e9, m->source);
    char extras[512];
    if (llm_extras_text(m, extras, sizeof extras))
        plan_step(p, N_("checkpoint"), "%s", extras);
    if (!m->has_shape)
        return plan_fail(p, _("llm-infer needs the layers and KV heads for the KV cache: --model or --model-config, "
                              "not --params"));
    if (p->opt.prompt >= p->opt.context)
        return plan_fail(p, _("--prompt %d: the prompt is part of the --context of %d tokens; it must be shorter"),
                         p->opt.prompt, p->opt.context);
    double weights = infer_weights(p);
    int64_t per_token = kv_bytes_per_token(m, p->opt.kv_bytes);
    /* vLLM keeps max(1, KV heads / tp) KV heads on each GPU: replicated when tp exceeds them. */
    char tp_why[256] = "";
    bool tp_ok = tensor_parallel_valid(m, n, tp_why, sizeof tp_why);
    double per_request_gpu = kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, n);
    double per_request = kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, 1);
    double kv_total = per_request * p->opt.batch, kv_per_gpu = per_request_gpu * p->opt.batch;
    int kv_heads_per_gpu = m->kv_heads / n > 1 ? m->kv_heads / n : 1;
    long max_seqs, max_tokens_step;
    vllm_batch_defaults(p->gpu, &max_seqs, &max_tokens_step);
    double usable = infer_usable(p, n), peak = infer_profile_peak(p, n), non_torch = infer_non_torch_bytes(n);
    double peak_forward = infer_profile_forward_bytes(m, n, max_tokens_step);
    double peak_sampler = infer_profile_sampler_bytes(m, max_seqs);
    double per_gpu = weights / n + kv_per_gpu;
    bool fits = tp_ok && per_gpu <= usable;
    p->does_not_fit = !fits;
    double kv_room = usable - weights / n; /* per GPU */
    /* per_request_gpu > 0: every shape has a layer, a KV head and a head dimension (models.c) */
    double max_batch_d = kv_room > 0 ? fmin(floor(kv_room / per_request_gpu), 1e12) : 0;
    long max_batch = (long)max_batch_d;
    /* The longest context at --batch, up to the model's maximum unless --allow-long-context: bisect,
     * since windowed layers make the size piecewise linear. */
    bool capped_by_model = m->max_context > 0 && !p->opt.allow_long_context;
    long lo = 0, hi = capped_by_model ? m->max_context : 100000000;
    while (kv_room > 0 && lo < hi) {
        long mid = lo + (hi - lo + 1) / 2;
        if (kv_bytes_per_sequence(m, p->opt.kv_bytes, (int)mid, n) * p->opt.batch <= kv_room)
            lo = mid;
        else
            hi = mid - 1;
    }
    long max_context = lo;
    double max_tokens = kv_room > 0 ? floor(kv_room / kv_bytes_per_sequence(m, p->opt.kv_bytes, 1, n)) : 0;
    if (m->max_context > 0 && p->opt.context > m->max_context)
        plan_step(p, N_("context"),
                  _("--context %d is beyond the %d tokens %s takes (%s): planned because --allow-long-context was "
                    "given; the model was not trained on these positions and its output may degrade"),
                  p->opt.context, m->max_context, m->id, m->max_context_source);
    json_object_set_new(
        p->doc, "tensor_parallel",
        json_pack("{s:i, s:b, s:i, s:s}", "size", n, "valid", tp_ok, "kv_heads_per_gpu", kv_heads_per_gpu, "why",
                  tp_ok ? (m->kv_heads < n ? _("KV heads replicated: each GPU keeps one") : _("KV heads split evenly"))
                        : tp_why));
    json_object_set_new(p->doc, "kv_cache",
                        json_pack("{s:I, s:f, s:f, s:f, s:i, s:i, s:f, s:f, s:f, s:I, s:I}", "bytes_per_token",
                                  (json_int_t)per_token, "bytes_per_element", p->opt.kv_bytes, "bytes_per_request",
                                  per_request, "bytes_per_request_per_gpu", per_request_gpu, "batch", p->opt.batch,
                                  "context", p->opt.context, "bytes_total", kv_total, "bytes_per_gpu", kv_per_gpu,
                                  "max_tokens", max_tokens, "max_batch_at_context", (json_int_t)max_batch,
                                  "max_context_at_batch", (json_int_t)max_context));
    json_object_set_new(p->doc, "gpu_memory",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:i, s:f, s:f, s:b}", "weights", weights, "kv_cache",
                                  kv_total, "gpu_memory_utilization", p->opt.gpu_memory_utilization,
                                  "profile_peak_per_gpu", peak, "non_torch_per_gpu", non_torch,
                                  "max_num_batched_tokens", (int)max_tokens_step, "total_per_gpu", per_gpu,
                                  "available_per_gpu", usable, "fits", fits));
    json_t *gpu_memory = json_object_get(p->doc, "gpu_memory");
    json_object_set_new(gpu_memory, "max_num_seqs", json_integer(max_seqs));
    json_object_set_new(gpu_memory, "weights_per_gpu", json_real(weights / n));
    json_object_set_new(gpu_memory, "kv_room_per_gpu", json_real(kv_room));
    json_object_set_new(gpu_memory, "profile_forward_per_gpu", json_real(peak_forward));
    json_object_set_new(gpu_memory, "profile_sampler_per_gpu", json_real(peak_sampler));
    json_object_set_new(gpu_memory, "sampler_bytes_per_logit", json_real(VLLM_SAMPLER_BYTES_PER_LOGIT));
    double checkpoint = llm_checkpoint_bytes(m);
    json_object_set_new(gpu_memory, "weights_checkpoint",
                        !p->opt.weights_given && m->checkpoint[0] ? json_real(checkpoint) : json_null());
    if (!p->opt.weights_given && m->checkpoint[0] && weights > checkpoint)
        plan_step(p, N_("weights"),
                  _("%.1f GB as vLLM loads them: the checkpoint ships %.1f GB (%s), and vLLM pads the MXFP4 experts' "
                    "intermediate size per GPU to a multiple of 256 (%d to %d); split over %d GPU(s) by tensor "
                    "parallelism"),
                  gb(weights), gb(checkpoint), m->checkpoint, (m->ffn + n - 1) / n, ((m->ffn + n - 1) / n + 255) / 256 * 256,
                  n);
    else if (!p->opt.weights_given && m->checkpoint[0])
        plan_step(p, N_("weights"),
                  _("%.1f GB as the checkpoint ships (%s: %.3g B/parameter on average; --weights to change it), split "
                    "over %d GPU(s) by tensor parallelism"),
                  gb(weights), m->checkpoint, p->opt.weight_bytes, n);
    else if (p->opt.weight_bytes < 2)
        plan_step(p, N_("weights"),
                  _("%.1f GB: the linear layers at %g B/parameter, embeddings, LM head and norms in 16 bits (as FP8, "
                    "INT8 and INT4 checkpoints keep them), split over %d GPU(s) by tensor parallelism"),
                  gb(weights), p->opt.weight_bytes, n);
    else
        plan_step(p, N_("weights"), _("%.1f GB at %g B/parameter, split over %d GPU(s) by tensor parallelism"),
                  gb(weights), p->opt.weight_bytes, n);
    if (!tp_ok)
        plan_step(p, N_("tensor parallel"), _("%s: use a GPU count that divides %d heads and fits %d KV heads"), tp_why,
                  m->heads, m->kv_heads);
    else if (n > 1 && m->kv_lora_rank > 0)
        plan_step(p, N_("tensor parallel"),
                  _("%d GPUs: multi-head latent attention keeps the whole latent KV cache on every GPU (vLLM, SGLang)"),
                  n);
    else if (n > 1)
        plan_step(p, N_("tensor parallel"), _("%d GPUs: %d of %d KV heads per GPU%s (vLLM: max(1, KV heads / tp))"), n,
                  kv_heads_per_gpu, m->kv_heads, m->kv_heads < n ? _(", replicated") : "");
    int window_cap = m->sliding_window && m->sliding_window < p->opt.context;
    const char *capped = !window_cap                      ? ""
                         : m->chunked_attention           ? _(" (the chunked-attention layers keep only their chunk)")
                         : m->sliding_layers == m->layers ? _(" (the sliding window caps it)")
                                                          : _(" (the sliding-window layers keep only their window)");
    if (m->kv_lora_rank > 0)
        plan_step(p, N_("kv cache"),
                  _("multi-head latent attention: %d layers x (%d latent + %d rotary) x %g B = %.1f KiB per token; "
                    "%.2f GB per request of %d tokens; %.1f GB for batch %d, %.1f GB on each GPU"),
                  m->layers, m->kv_lora_rank, m->qk_rope_head_dim, p->opt.kv_bytes, per_token / KIB, gb(per_request),
                  p->opt.context, gb(kv_total), p->opt.batch, gb(kv_per_gpu));
    else
        plan_step(p, N_("kv cache"),
                  _("2 x %d layers x %d KV heads x %d head dim x %g B = %.0f KiB per token; %.2f GB per request of %d "
                    "tokens%s; %.1f GB for batch %d, %.1f GB on each GPU"),
                  m->layers, m->kv_heads, m->head_dim, p->opt.kv_bytes, per_token / KIB, gb(per_request),
                  p->opt.context, capped, gb(kv_total), p->opt.batch, gb(kv_per_gpu));
    plan_step(p, N_("gpu memory"),
              /* TRANSLATORS: the profiling run's peak is the larger of the forward pass of max_num_batched_tokens
               * tokens and the sampler over max_num_seqs requests; the last %s says whether the model's maximum
               * context caps the longest context. */
              _("%.*f GB per GPU of %.*f GB usable (%.0f%% of %.1f GB, as vLLM plans, less its profiling run's peak, "
                "%.1f GB: the larger of a %ld-token forward pass, %.1f GB, and sampling %ld requests over %d logits "
                "each, %.1f GB; and %.2f GB non-torch memory): %s; the largest batch at %d tokens is %ld, the "
                "longest context at batch %d is %ld tokens%s"),
              decimals_apart(gb(per_gpu), gb(usable)), gb(per_gpu), decimals_apart(gb(per_gpu), gb(usable)),
              gb(usable), p->opt.gpu_memory_utilization * 100, gb(gpu_bytes(p)), gb(peak), max_tokens_step,
              gb(peak_forward), max_seqs, m->vocab, gb(peak_sampler), gb(non_torch),
              fits    ? _("fits")
              : tp_ok ? _("does NOT fit")
                      : _("not runnable (tensor parallelism)"),
              p->opt.context, max_batch, p->opt.batch, max_context,
              capped_by_model && max_context == m->max_context ? _(" (the model's maximum)") : "");
    infer_throughput(p, fits);
    int min_n = 0;
    for (int k = 1; k <= 64 && !min_n; k *= 2)
        if (tensor_parallel_valid(m, k, tp_why, sizeof tp_why) &&
            infer_weights_at(p, k) / k + kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, k) * p->opt.batch <= infer_usable(p, k))
            min_n = k;
    if (min_n)
        plan_require(p, N_("gpus_per_node"), json_integer(n),
                     _("%d x %s as asked; the weights and this KV cache need %d (powers of two, for tensor "
                       "parallelism)"),
                     n, p->gpu->id, min_n);
    else
        plan_require(p, N_("gpus_per_node"), json_integer(n),
                     _("%d x %s as asked; the weights and this KV cache need more than %d (powers of two, for "
                       "tensor parallelism)"),
                     n, p->gpu->id, 64);
    plan_require(p, N_("gpu_memory_bytes_per_gpu"), json_real(per_gpu), _("weights and KV cache per GPU"));
    int infer_cores = cores_per_gpu(WL_LLM_INFER, CORES_PER_TRAINING_PROCESS, 0);
    plan_require(
        p, N_("cpu_cores_per_node"), json_integer(n * infer_cores + CORES_FOR_OS),
        _("%d per GPU (its process and the tokenizer/batching thread; the audit's CPU_CORES_PER_GPU) + %d for the "
        "server and OS; judge latency by measured jitter, not clock speed"),
        infer_cores, CORES_FOR_OS);
    plan_require(p, N_("host_ram_bytes_per_node"), json_real(weights + n * (double)TRAINING_PROCESS_HOST_BYTES),
                 _("the weights pass through host memory (page cache) when loading, + %d x 2 GB per GPU process"), n);
    /* The files hold what the plan does not load too (MTP module, vision encoder). */
    double files = weights + llm_disk_bytes(m) - llm_checkpoint_bytes(m);
    plan_require(p, N_("storage_bytes_per_node"), json_real(files),
                 files > weights ? _("the model files, with the parts this plan does not load (above)")
                                 : _("the model files"));
    plan_network(p, false);
    double rule_of_thumb = 128.0 * KIB;
    char kv_figure[16], rule_figure[16];
    snprintf(kv_figure, sizeof kv_figure, "%.2f", gb(kv_total));
    snprintf(rule_figure, sizeof rule_figure, "%.2f", gb(rule_of_thumb * p->opt.batch * p->opt.context));
    /* The same figure both sides (a model of 32 layers x 8 KV heads in 16 bits): the rule holds. */
    if (!strcmp(kv_figure, rule_figure))
        plan_correction(p,
                        _("A common rule of thumb sizes the KV cache as batch x seq x 128 KB: it holds for %s (%.0f KiB "
                          "per token): %.2f GB for this batch."),
                        m->id, per_token / KIB, gb(kv_total));
    else
        plan_correction(
        p,
        _("A common rule of thumb sizes the KV cache as batch x seq x 128 KB: true only for 32 layers x 8 KV heads in "
        "16 bits; %s needs %.0f KiB per token (%.2fx), %.2f GB for this batch instead of %.2f GB."),
        m->id, per_token / KIB, per_token / rule_of_thumb, gb(kv_total),
        gb(rule_of_thumb * p->opt.batch * p->opt.context));
    plan_correction(p,
                    _("A common rule of thumb asks for a single-core turbo >= 4.5 GHz: no datacenter CPU has it; measure "
                    "scheduling jitter instead (gpuvet bench jitter)."));
    return 0;
}
