/* llm-infer: weights split by tensor parallelism and the KV cache as vLLM holds it (max(1, KV heads
 * / tp) per GPU), the largest batch and longest context that fit, then cores, memory, storage. */
#include <math.h>
#include <stdio.h>

#include "sizing/demand.h"
#include "sizing/plan_internal.h"

int plan_infer(struct plan *p)
{
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    plan_step(p, N_("model"), _("%s: %.3g B parameters (%s)"), m->id, m->params / 1e9, m->source);
    if (!m->has_shape)
        return plan_fail(p, _("llm-infer needs the layers and KV heads for the KV cache: --model or --model-config, not "
                            "--params"));
    double weights = (double)m->params * p->opt.weight_bytes;
    int64_t per_token = kv_bytes_per_token(m, p->opt.kv_bytes);
    /* vLLM keeps max(1, KV heads / tp) KV heads on each GPU: replicated when tp exceeds them. */
    char tp_why[256] = "";
    bool tp_ok = tensor_parallel_valid(m, n, tp_why, sizeof tp_why);
    double per_request_gpu = kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, n);
    double per_request = kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, 1);
    double kv_total = per_request * p->opt.batch, kv_per_gpu = per_request_gpu * p->opt.batch;
    int kv_heads_per_gpu = m->kv_heads / n > 1 ? m->kv_heads / n : 1;
    double usable = gpu_bytes(p) * INFER_GPU_MEMORY_SHARE - CUDA_CONTEXT_BYTES;
    double per_gpu = weights / n + kv_per_gpu;
    bool fits = tp_ok && per_gpu <= usable;
    p->does_not_fit = !fits;
    double kv_room = usable - weights / n; /* per GPU */
    double max_batch_d = kv_room > 0 ? floor(kv_room / per_request_gpu) : 0;
    long max_batch = (long)max_batch_d;
    /* The longest context at --batch: bisect, since windowed layers make the size piecewise linear. */
    long lo = 0, hi = 100000000;
    while (kv_room > 0 && lo < hi) {
        long mid = lo + (hi - lo + 1) / 2;
        if (kv_bytes_per_sequence(m, p->opt.kv_bytes, (int)mid, n) * p->opt.batch <= kv_room)
            lo = mid;
        else
            hi = mid - 1;
    }
    long max_context = lo;
    double max_tokens = kv_room > 0 ? floor(kv_room / kv_bytes_per_sequence(m, p->opt.kv_bytes, 1, n)) : 0;
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
                        json_pack("{s:f, s:f, s:I, s:f, s:f, s:b}", "weights", weights, "kv_cache", kv_total,
                                  "cuda_context", (json_int_t)CUDA_CONTEXT_BYTES, "total_per_gpu", per_gpu,
                                  "available_per_gpu", usable, "fits", fits));
    plan_step(p, N_("weights"), _("%.1f GB at %g B/parameter, split over %d GPU(s) by tensor parallelism"), gb(weights),
              p->opt.weight_bytes, n);
    if (!tp_ok)
        plan_step(p, N_("tensor parallel"), _("%s: use a GPU count that divides %d heads and fits %d KV heads"), tp_why,
                  m->heads, m->kv_heads);
    else if (n > 1)
        plan_step(p, N_("tensor parallel"), _("%d GPUs: %d of %d KV heads per GPU%s (vLLM: max(1, KV heads / tp))"), n,
                  kv_heads_per_gpu, m->kv_heads, m->kv_heads < n ? _(", replicated") : "");
    int window_cap = m->sliding_window && m->sliding_window < p->opt.context;
    plan_step(
        p, N_("kv cache"),
        _("2 x %d layers x %d KV heads x %d head dim x %g B = %.0f KiB per token; %.2f GB per request of %d tokens%s; "
        "%.1f GB for batch %d, %.1f GB on each GPU"),
        m->layers, m->kv_heads, m->head_dim, p->opt.kv_bytes, per_token / 1024.0, gb(per_request), p->opt.context,
        !window_cap                      ? ""
        : m->sliding_layers == m->layers ? _(" (the sliding window caps it)")
                                         : _(" (the sliding-window layers keep only their window)"),
        gb(kv_total), p->opt.batch, gb(kv_per_gpu));
    plan_step(p, N_("gpu memory"),
              _("%.1f GB per GPU of %.1f GB usable (%.0f%% of %g GB, as vLLM plans, less 1 GB CUDA context): %s; the "
              "largest batch at %d tokens is %ld, the longest context at batch %d is %ld tokens"),
              gb(per_gpu), gb(usable), INFER_GPU_MEMORY_SHARE * 100, p->gpu->memory_gb,
              fits    ? _("fits")
              : tp_ok ? _("does NOT fit")
                      : _("not runnable (tensor parallelism)"),
              p->opt.context, max_batch, p->opt.batch, max_context);
    int min_n = 0;
    for (int k = 1; k <= 64 && !min_n; k *= 2)
        if (tensor_parallel_valid(m, k, tp_why, sizeof tp_why) &&
            weights / k + kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, k) * p->opt.batch <= usable)
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
    plan_require(p, N_("storage_bytes_per_node"), json_real(weights), _("the model files"));
    plan_network(p, false);
    double rule_of_thumb = 128.0 * 1024;
    plan_correction(
        p,
        _("A common rule of thumb sizes the KV cache as batch x seq x 128 KB: true only for 32 layers x 8 KV heads in "
        "16 bits; %s needs %.0f KiB per token (%.2fx), %.2f GB for this batch instead of %.2f GB."),
        m->id, per_token / 1024.0, per_token / rule_of_thumb, gb(kv_total),
        gb(rule_of_thumb * p->opt.batch * p->opt.context));
    plan_correction(p,
                    _("A common rule of thumb asks for a single-core turbo >= 4.5 GHz: no datacenter CPU has it; measure "
                    "scheduling jitter instead (gpuvet bench jitter)."));
    return 0;
}
