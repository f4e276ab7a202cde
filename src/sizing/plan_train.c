/* llm-train: model states from DeepSpeed's estimators (zero.h), activations for the model's own
 * block (demand.h), the ZeRO stage or offload that fits, then cores, host memory, storage and
 * network; and LoRA/QLoRA fine-tuning (finetune.h). */
#include <math.h>
#include <stdio.h>

#include "sizing/demand.h"
#include "sizing/plan_internal.h"

struct train_fit {
    struct zero_estimate states;
    double activations, per_gpu;
    bool valid, fits;
    bool complete; /* activations and every model-state term known: fits is a verdict, not a bound */
    const char *why_invalid;
};

static double train_activations(const struct plan *p, enum recompute r)
{
    if (!p->model.has_shape)
        return 0;
    return p->model.layers * activation_bytes_per_layer(&p->model, p->opt.seq, p->opt.micro_batch, r, p->opt.flash) +
           logits_bytes(&p->model, p->opt.seq, p->opt.micro_batch) +
           recompute_working_bytes(&p->model, p->opt.seq, p->opt.micro_batch, r, p->opt.flash);
}

/* The largest term per GPU at the asked settings (what to change first): the model states, the
 * activations, or the fp32 logits (with, under full recompute, their gradient). */
static const char *largest_term(double states, double activations, double logits, double *bytes)
{
    double layers = activations - logits;
    if (states >= layers && states >= logits) {
        *bytes = states;
        return _("the model states");
    }
    *bytes = logits > layers ? logits : layers;
    return logits > layers ? _("the fp32 logits") : _("the activations");
}

static double logits_held(const struct plan *p, enum recompute r)
{
    double logits = logits_bytes(&p->model, p->opt.seq, p->opt.micro_batch);
    return r == RECOMPUTE_FULL ? 2 * logits : logits;
}

static struct train_fit train_fit(const struct plan *p, const struct zero_config *cfg, enum recompute r)
{
    struct train_fit f = {0};
    f.valid = zero_estimate(p->model.params, p->model.largest_layer_params, cfg, &f.states, &f.why_invalid) == 0;
    if (!f.valid)
        return f;
    f.activations = train_activations(p, r);
    f.per_gpu = (double)f.states.gpu_bytes_per_gpu + f.activations + CUDA_CONTEXT_BYTES;
    f.fits = f.per_gpu <= gpu_bytes(p);
    f.complete = p->model.has_shape;
    return f;
}

/* The first configuration, from least to most host involvement, whose GPU memory fits. */
static bool train_advice(const struct plan *p, enum recompute r, struct zero_config *out, struct train_fit *fit)
{
    static const struct {
        int stage;
        enum offload offload;
    } ladder[] = {{0, OFFLOAD_NONE},      {1, OFFLOAD_NONE},      {2, OFFLOAD_NONE}, {3, OFFLOAD_NONE},
                  {2, OFFLOAD_OPTIMIZER}, {3, OFFLOAD_OPTIMIZER}, {3, OFFLOAD_CPU},  {3, OFFLOAD_NVME}};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        struct zero_config cfg = p->opt.zero;
        cfg.stage = ladder[i].stage;
        cfg.offload = ladder[i].offload;
        *fit = train_fit(p, &cfg, r);
        if (fit->valid && fit->fits) {
            *out = cfg;
            return true;
        }
    }
    return false;
}

static const char *zero_label(const struct zero_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "ZeRO-%d%s%s", c->stage, c->offload == OFFLOAD_NONE ? "" : " + offload ",
             c->offload == OFFLOAD_NONE ? "" : offload_name(c->offload));
    return buf;
}

static json_t *zero_json(const struct zero_config *c, const struct train_fit *f)
{
    return json_pack("{s:i, s:s, s:b, s:s, s:I, s:I, s:I, s:f, s:I, s:I}", "stage", c->stage, "offload",
                     offload_name(c->offload), "zero_init", c->zero_init, "method", f->states.method,
                     "gpu_bytes_per_gpu", (json_int_t)f->states.gpu_bytes_per_gpu, "cpu_bytes_per_node",
                     (json_int_t)f->states.cpu_bytes_per_node, "cpu_bytes_per_node_without_buffer",
                     (json_int_t)f->states.cpu_bytes_unbuffered, "buffer_factor", DEEPSPEED_BUFFER_FACTOR,
                     "largest_layer_bytes", (json_int_t)f->states.largest_layer_bytes, "nvme_bytes_per_node",
                     (json_int_t)f->states.nvme_bytes_per_node);
}

static int min_gpus_per_node(const struct plan *p, const struct zero_config *base)
{
    for (int n = 1; n <= 64; n++) {
        struct zero_config cfg = *base;
        cfg.gpus_per_node = n;
        struct train_fit f = train_fit(p, &cfg, p->opt.recompute);
        if (f.valid && f.fits)
            return n;
    }
    return 0;
}

int plan_train(struct plan *p)
{
    struct zero_config *cfg = &p->opt.zero;
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    char label[64], label2[64];
    struct train_fit f = train_fit(p, cfg, p->opt.recompute);
    plan_step(p, N_("model"), _("%s: %.3g B parameters (%s)"), m->id, m->params / 1e9, m->source);
    if (!f.valid)
        return plan_fail(p, "%s: %s", zero_label(cfg, label, sizeof label), f.why_invalid);
    json_object_set_new(p->doc, "zero", zero_json(cfg, &f));
    plan_step(p, N_("model states"), _("%s on %d GPU(s) x %d node(s): %.1f GB per GPU (%s)"),
              zero_label(cfg, label, sizeof label), n, p->opt.nodes, gb(f.states.gpu_bytes_per_gpu), f.states.method);
    if (m->has_shape) {
        double layer = activation_bytes_per_layer(m, p->opt.seq, p->opt.micro_batch, p->opt.recompute, p->opt.flash);
        double logits = logits_bytes(m, p->opt.seq, p->opt.micro_batch);
        double per_token = activation_bytes_per_token_layer(m);
        double working = recompute_working_bytes(m, p->opt.seq, p->opt.micro_batch, p->opt.recompute, p->opt.flash);
        json_object_set_new(p->doc, "activations",
                            json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:i, s:i}", "bytes_per_gpu", f.activations,
                                      "recompute_working_bytes", working,
                                      "per_layer_bytes", layer, "bytes_per_token_layer", per_token, "per_token_layer_h",
                                      per_token / m->hidden, "logits_bytes", logits, "recompute",
                                      recompute_name(p->opt.recompute), "attention", p->opt.flash ? "flash" : "eager",
                                      "seq", p->opt.seq, "micro_batch", p->opt.micro_batch));
        char what[160];
        if (p->opt.recompute == RECOMPUTE_FULL)
            snprintf(what, sizeof what, "%s", _("full recompute keeps the layer input, 2sbh"));
        else
            snprintf(what, sizeof what,
                     /* TRANSLATORS: the last %s is ", no s x s scores" or " + 5as^2b eager attention scores". */
                     _("%.1f*s*b*h from this architecture's %d norms, attention (%d/%d heads) and %s MLP%s"),
                     per_token / m->hidden, m->norms_per_layer, m->heads, m->kv_heads,
                     m->experts ? _("gated expert") : _("gated"),
                     p->opt.recompute == RECOMPUTE_SELECTIVE || p->opt.flash ? _(", no s x s scores")
                                                                             : _(" + 5as^2b eager attention scores"));
        plan_step(
            p, N_("activations"),
            _("%.1f GB per GPU: %d layers x %.2f GB (%s; counted as Korthikanti et al. count GPT's 34sbh) + %.2f GB "
            "fp32 logits (b*s*V*4); seq %d, micro-batch %d"),
            gb(f.activations), m->layers, gb(layer), what, gb(logits), p->opt.seq, p->opt.micro_batch);
        if (working > 0)
            plan_step(p, N_("recompute"),
                      _("counted in the %.1f GB: full recompute still holds, while the backward pass runs, one layer "
                        "re-materialised whole (%.2f GB, Korthikanti et al.'s per-layer count) and the fp32 logits' "
                        "gradient (%.2f GB)"),
                      gb(f.activations), gb(working - logits), gb(logits));
    } else {
        json_object_set_new(p->doc, "activations", json_null());
        plan_step(p, N_("activations"), _("unknown: --params gives no layer shape; use --model or --model-config"));
    }
    /* With --params the activations (and ZeRO-3's largest layer) are unknown: states that fit are
     * a lower bound, not a verdict. */
    json_t *fits = f.fits && !f.complete ? json_null() : json_boolean(f.fits);
    json_object_set_new(p->doc, "gpu_memory",
                        json_pack("{s:I, s:f, s:I, s:f, s:f, s:o, s:s}", "model_states",
                                  (json_int_t)f.states.gpu_bytes_per_gpu, "activations", f.activations, "cuda_context",
                                  (json_int_t)CUDA_CONTEXT_BYTES, "total", f.per_gpu, "available", gpu_bytes(p), "fits",
                                  fits, "counted",
                                  f.complete ? "model states, activations and CUDA context"
                                             : "model states and CUDA context only: activations unknown (--params)"));
    p->does_not_fit = !f.fits;
    plan_step(p, N_("gpu memory"),
              _("%.*f GB per GPU (states + activations + 1 GB CUDA context, which is GPU memory) of %.1f GB on "
              "%s: %s"),
              gb_decimals(f.per_gpu), gb(f.per_gpu), gb(gpu_bytes(p)), p->gpu->id,
              !f.fits      ? _("does NOT fit")
              : f.complete ? _("fits")
                           : _("the model states fit, but the activations are unknown with --params, so whether the "
                               "job fits is unknown (--model or --model-config counts them)"));
    struct zero_config advice;
    struct train_fit af;
    if (f.fits) {
        json_object_set_new(p->doc, "advice", json_null());
    } else if (train_advice(p, p->opt.recompute, &advice, &af)) {
        json_object_set_new(p->doc, "advice",
                            json_pack("{s:i, s:s, s:s, s:f, s:I}", "stage", advice.stage, "offload",
                                      offload_name(advice.offload), "recompute", recompute_name(p->opt.recompute),
                                      "gpu_bytes_per_gpu", af.per_gpu, "cpu_bytes_per_node",
                                      (json_int_t)af.states.cpu_bytes_per_node));
        plan_step(p, N_("advice"),
                  _("%s fits: %.1f GB per GPU, %.0f GB host memory per node (DeepSpeed, with its 1.5 buffer)%s%s"),
                  zero_label(&advice, label2, sizeof label2), gb(af.per_gpu), gb(af.states.cpu_bytes_per_node),
                  advice.offload == OFFLOAD_NVME ? _("; states on NVMe") : "",
                  m->has_shape ? "" : _("; model states only, the activations come on top"));
    } else if (m->has_shape && p->opt.recompute != RECOMPUTE_FULL && train_advice(p, RECOMPUTE_FULL, &advice, &af)) {
        json_object_set_new(p->doc, "advice",
                            json_pack("{s:i, s:s, s:s, s:f, s:I}", "stage", advice.stage, "offload",
                                      offload_name(advice.offload), "recompute", "full", "gpu_bytes_per_gpu",
                                      af.per_gpu, "cpu_bytes_per_node", (json_int_t)af.states.cpu_bytes_per_node));
        double term;
        const char *what = largest_term((double)f.states.gpu_bytes_per_gpu, f.activations,
                                        logits_held(p, p->opt.recompute), &term);
        plan_step(p, N_("advice"),
                  _("with --recompute full, %s fits (%.1f GB per GPU); at the asked settings the largest term is %s, "
                    "%.*f of %.*f GB per GPU"),
                  zero_label(&advice, label2, sizeof label2), gb(af.per_gpu), what, gb_decimals(f.per_gpu), gb(term),
                  gb_decimals(f.per_gpu), gb(f.per_gpu));
    } else if (m->has_shape) {
        json_object_set_new(p->doc, "advice", json_null());
        plan_step(p, N_("advice"),
                  _("no ZeRO stage or offload fits %s with this sequence and micro-batch: shorten --seq, "
                  "lower --micro-batch, add tensor parallelism or use LoRA"),
                  p->gpu->id);
    } else {
        json_object_set_new(p->doc, "advice", json_null());
        plan_step(p, N_("advice"),
                  _("no ZeRO stage or offload fits the model states alone on %s: add GPUs or nodes, tensor parallelism, "
                  "or fine-tune with LoRA/QLoRA"),
                  p->gpu->id);
    }
    int min_n = min_gpus_per_node(p, cfg);
    if (min_n)
        plan_require(p, N_("gpus_per_node"), json_integer(n), _("%d x %s per node as asked; %s fits from %d per node"), n,
                     p->gpu->id, zero_label(cfg, label, sizeof label), min_n);
    else
        plan_require(p, N_("gpus_per_node"), json_integer(n),
                     _("%d x %s per node as asked; %s fits at no count up to 64 per node"), n, p->gpu->id,
                     zero_label(cfg, label, sizeof label));
    plan_require(p, N_("gpu_memory_bytes_per_gpu"), json_real(f.per_gpu),
                 _("model states + activations + CUDA context per GPU"));
    int own = CORES_PER_TRAINING_PROCESS + LLM_LOADER_WORKERS_PER_GPU;
    int per_gpu_cores = cores_per_gpu(WL_LLM_TRAIN, own, 0);
    int cores = n * per_gpu_cores + CORES_FOR_OS;
    plan_require(
        p, N_("cpu_cores_per_node"), json_integer(cores),
        _("%d GPUs x %d cores (1 training process + %d data-loader workers, stas00/ml-engineering; at least the %d "
        "per GPU the audit's CPU_CORES_PER_GPU asks) + %d for the OS%s"),
        n, per_gpu_cores, LLM_LOADER_WORKERS_PER_GPU, thresholds_for(WL_LLM_TRAIN)->cores_per_accelerator_min,
        CORES_FOR_OS,
        cfg->offload != OFFLOAD_NONE ? _("; with offload DeepSpeedCPUAdam runs the optimizer step on these "
                                         "cores, more cores shorten it")
                                     : "");
    double host = (double)f.states.cpu_bytes_per_node + (double)n * TRAINING_PROCESS_HOST_BYTES;
    if (cfg->offload == OFFLOAD_NVME) {
        host = (double)n * (1e9 + TRAINING_PROCESS_HOST_BYTES);
        plan_require(
            p, N_("host_ram_bytes_per_node"), json_real(host),
            _("DeepSpeed has no host estimator for NVMe offload: its default pinned buffers (offload_param 5 x 1e8 "
            "fp16 elements = 1 GB per GPU) + %d x 2 GB training processes"),
            n);
    } else {
        plan_require(
            p, N_("host_ram_bytes_per_node"), json_real(host),
            _("DeepSpeed's estimate %.0f GB (%.0f GB + its 1.5 buffer) + %d x 2 GB training processes (PyTorch+CUDA "
            "RSS); stas00 also advises at least the node's GPU memory, %.0f GB, for loading checkpoints"),
            gb(f.states.cpu_bytes_per_node), gb(f.states.cpu_bytes_unbuffered), n, n * gb(gpu_bytes(p)));
    }
    if (f.states.nvme_bytes_per_node > 0)
        plan_require(
            p, N_("nvme_bytes_per_node"), json_integer(f.states.nvme_bytes_per_node),
            _("ZeRO-Infinity keeps 18 B/parameter of states on NVMe, split across nodes; NVMe bandwidth sets the "
            "step time"));
    double checkpoint = (double)m->params * CHECKPOINT_BYTES_PER_PARAM;
    plan_require(p, N_("storage_bytes_per_node"), json_real(checkpoint / p->opt.nodes),
                 _("one checkpoint: %d B/parameter (bf16 weights + fp32 master, momentum, variance) = %.*f GB, split "
                 "across nodes; keep room for several"),
                 CHECKPOINT_BYTES_PER_PARAM, gb_decimals(checkpoint), gb(checkpoint));
    plan_network(p, true);
    plan_step(p, N_("cpu"),
              _("%d cores per node: %d per GPU (one process plus %d loader workers, at least the audit's %d) + %d; "
              "NCCL reduces on the GPU"),
              cores, per_gpu_cores, LLM_LOADER_WORKERS_PER_GPU, thresholds_for(WL_LLM_TRAIN)->cores_per_accelerator_min,
              CORES_FOR_OS);
    plan_step(p, N_("host memory"), _("%.*f GB per node (%s)"), gb_decimals(host), gb(host),
              cfg->offload == OFFLOAD_NVME ? _("pinned buffers only; states on NVMe") : _("DeepSpeed's estimator"));
    plan_correction(
        p, _("A common rule of thumb reserves 2 CPU cores per GPU for NCCL all-reduce: NCCL runs its kernels on the GPU; "
           "cores go to the training process and data-loader workers."));
    if (cfg->offload != OFFLOAD_NONE)
        plan_correction(
            p, _("A common rule of thumb says PyTorch loses 20%% without AVX-512: GPU training does not depend on it; "
               "only DeepSpeedCPUAdam (offload) uses AVX-512 when present."));
    if (cfg->stage == 2 && cfg->offload != OFFLOAD_NONE)
        plan_correction(
            p,
            _("A common rule of thumb gives ZeRO-2 offload 8 B of RAM per parameter (56 GB for 7B, 512 GB for 70B); "
            "DeepSpeed's estimator says %.0f GB per node here (168/312/1680 GB for 7/13/70B on one GPU)."),
            gb(f.states.cpu_bytes_per_node));
    if (cfg->stage == 2 && !f.fits && (double)f.states.gpu_bytes_per_gpu >= gpu_bytes(p))
        plan_correction(p,
                        _("ZeRO-2 keeps every fp16 parameter on every GPU (%.0f GB here): a 70B model on ZeRO-2 "
                        "cannot fit; ZeRO-3 partitions them (Rajbhandari et al., ZeRO, 2020)."),
                        gb(2.0 * m->params));
    return 0;
}

/* The input width of the matrices LoRA adapts in one layer, summed: q and v take the hidden states;
 * every linear layer adds k, the output projection (the query width), and gate, up (hidden) and down
 * (the MLP width) for each expert a token passes through. */
static double lora_input_width(const struct llm_shape *m, bool qv_only)
{
    double h = m->hidden, q = (double)m->heads * m->head_dim;
    if (qv_only)
        return 2 * h;
    double experts = m->experts > 0 ? m->experts_per_token : 1;
    return 3 * h + q + experts * (2 * h + m->ffn) + (m->shared_expert_ffn > 0 ? 2 * h + m->shared_expert_ffn : 0);
}

/* Activation memory of a LoRA/QLoRA run at its peak: each layer's stored activations (with
 * --lora-dropout, the dropped-out copy and mask of each adapted matrix's input), the Hugging Face
 * loss's FINETUNE_LOSS_BYTES_PER_LOGIT, and under full recompute the one layer being recomputed whole. */
static double finetune_activations(const struct plan *p, enum recompute r, double *loss_bytes)
{
    const struct llm_shape *m = &p->model;
    double tokens = (double)p->opt.seq * p->opt.micro_batch;
    double dropout = p->opt.lora_dropout > 0
                         ? tokens * LORA_DROPOUT_BYTES_PER_ELEMENT * lora_input_width(m, p->opt.lora_qv_only)
                         : 0;
    double loss = tokens * m->vocab * FINETUNE_LOSS_BYTES_PER_LOGIT;
    if (loss_bytes)
        *loss_bytes = loss;
    double layer = activation_bytes_per_layer(m, p->opt.seq, p->opt.micro_batch, r, p->opt.flash);
    double stored = m->layers * (layer + (r == RECOMPUTE_FULL ? 0 : dropout));
    double recomputed =
        r == RECOMPUTE_FULL
            ? activation_bytes_per_layer(m, p->opt.seq, p->opt.micro_batch, RECOMPUTE_NONE, p->opt.flash) + dropout
            : 0;
    return stored + loss + recomputed;
}

/* llm-train --finetune lora|qlora: frozen weights, trainable adapters with their optimizer states. */
int plan_finetune(struct plan *p)
{
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    plan_step(p, N_("model"), _("%s: %.3g B parameters (%s)"), m->id, m->params / 1e9, m->source);
    if (!m->has_shape)
        return plan_fail(
            p, _("--finetune needs the layer shapes to count the adapters: --model or --model-config, not --params"));
    /* The recipes people run turn gradient checkpointing on for LoRA and QLoRA: the plan does too,
     * unless --recompute says otherwise. */
    bool recompute_default = !p->opt.recompute_given;
    p->opt.recompute = plan_recompute(&p->opt);
    struct finetune_estimate e;
    finetune_estimate(m, p->opt.finetune, p->opt.lora_rank, p->opt.lora_qv_only, &e);
    bool qlora = p->opt.finetune == FINETUNE_QLORA;
    double loss_bytes;
    double activations = finetune_activations(p, p->opt.recompute, &loss_bytes);
    double total = e.frozen_bytes + e.adapter_bytes + activations + CUDA_CONTEXT_BYTES;
    bool fits = total <= gpu_bytes(p);
    p->does_not_fit = !fits;
    json_object_set_new(p->doc, "finetune",
                        json_pack("{s:s, s:i, s:s, s:I, s:f, s:I, s:f, s:f, s:f}", "method",
                                  finetune_name(p->opt.finetune), "rank", p->opt.lora_rank, "targets",
                                  p->opt.lora_qv_only ? "q_proj, v_proj" : "every linear layer", "adapter_params",
                                  (json_int_t)e.adapter_params, "trainable_share", (double)e.adapter_params / m->params,
                                  "quantized_params", (json_int_t)e.quantized_params, "bits_per_quantized_param",
                                  qlora ? QLORA_BITS_PER_PARAM : 16.0, "frozen_bytes", e.frozen_bytes, "adapter_bytes",
                                  e.adapter_bytes));
    json_object_set_new(p->doc, "activations",
                        json_pack("{s:f, s:s, s:s, s:f, s:f, s:s, s:i, s:i}", "bytes_per_gpu", activations, "recompute",
                                  recompute_name(p->opt.recompute), "recompute_source",
                                  recompute_default ? FINETUNE_RECOMPUTE_SOURCE : "--recompute",
                                  "recompute_working_bytes",
                                  recompute_working_bytes(m, p->opt.seq, p->opt.micro_batch, p->opt.recompute,
                                                          p->opt.flash),
                                  "logits_bytes", loss_bytes, "attention",
                                  p->opt.flash ? "flash" : "eager",
                                  "seq", p->opt.seq, "micro_batch", p->opt.micro_batch));
    json_object_set_new(p->doc, "gpu_memory",
                        json_pack("{s:f, s:f, s:f, s:I, s:f, s:f, s:b}", "frozen_weights", e.frozen_bytes, "adapters",
                                  e.adapter_bytes, "activations", activations, "cuda_context",
                                  (json_int_t)CUDA_CONTEXT_BYTES, "total", total, "available", gpu_bytes(p), "fits",
                                  fits));
    json_t *memory = json_object_get(p->doc, "gpu_memory"), *acts = json_object_get(p->doc, "activations");
    /* what torch.cuda.max_memory_allocated counts (LitGPT's "Max GPU RAM"): all but the CUDA context */
    json_object_set_new(memory, "torch_allocated", json_real(total - CUDA_CONTEXT_BYTES));
    json_object_set_new(acts, "loss_bytes_per_logit", json_integer(FINETUNE_LOSS_BYTES_PER_LOGIT));
    json_object_set_new(acts, "lora_dropout", json_real(p->opt.lora_dropout));
    if (qlora)
        plan_step(p, N_("frozen weights"),
                  _("%.1f GB: %.3g B linear-layer weights in 4-bit NF4 with double quantization (%.3f bits each, "
                  "Dettmers et al., QLoRA); embeddings, norms%s in bf16"),
                  gb(e.frozen_bytes), e.quantized_params / 1e9, QLORA_BITS_PER_PARAM,
                  m->tied_embeddings ? "" : _(" and LM head"));
    else
        plan_step(p, N_("frozen weights"), _("%.1f GB: all %.3g B parameters in bf16 (2 B each), frozen"), gb(e.frozen_bytes),
                  m->params / 1e9);
    plan_step(
        p, N_("adapters"),
        _("rank %d on %s: %.1f M trainable parameters (%.2f%%; r x (d_in + d_out) per matrix, Hu et al., LoRA) x %d B "
        "(fp32 weight, gradient, Adam momentum and variance) = %.2f GB"),
        p->opt.lora_rank, p->opt.lora_qv_only ? _("q_proj and v_proj") : _("every linear layer"), e.adapter_params / 1e6,
        100.0 * e.adapter_params / m->params, ADAPTER_BYTES_PER_PARAM, gb(e.adapter_bytes));
    plan_step(p, N_("activations"),
              _("%.1f GB per GPU: the backward pass still runs through the frozen layers (%s, seq %d, "
              "micro-batch %d)"),
              gb(activations), recompute_name(p->opt.recompute), p->opt.seq, p->opt.micro_batch);
    plan_step(p, N_("loss"),
              _("%.1f GB of it is the cross-entropy over %d x %d logits, %d B each at its peak as Hugging Face's "
                "loss holds them (the fp32 logits, the saved log-softmax, its gradient and the gradient it makes)"),
              gb(loss_bytes), p->opt.seq * p->opt.micro_batch, m->vocab, FINETUNE_LOSS_BYTES_PER_LOGIT);
    if (recompute_default)
        plan_step(p, N_("recompute"),
                  _("--recompute not given: full (gradient checkpointing), as fine-tuning recipes run LoRA and QLoRA: "
                    "PEFT's prepare_model_for_kbit_training, Unsloth's get_peft_model, LLaMA-Factory and the QLoRA "
                    "paper's qlora.py turn it on by default; --recompute none plans without it"));
    plan_step(p, N_("gpu memory"), _("%.*f GB per GPU of %.1f GB on %s: %s; each GPU holds a whole copy (data parallel)"),
              gb_decimals(total), gb(total), gb(gpu_bytes(p)), p->gpu->id, fits ? _("fits") : _("does NOT fit"));
    if (!fits) {
        struct finetune_estimate q;
        finetune_estimate(m, FINETUNE_QLORA, p->opt.lora_rank, p->opt.lora_qv_only, &q);
        double full = p->opt.recompute == RECOMPUTE_FULL ? activations : finetune_activations(p, RECOMPUTE_FULL, NULL);
        if (p->opt.recompute != RECOMPUTE_FULL &&
            e.frozen_bytes + e.adapter_bytes + full + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            plan_step(p, N_("advice"), _("with --recompute full it fits: %.1f GB per GPU"),
                      gb(e.frozen_bytes + e.adapter_bytes + full + CUDA_CONTEXT_BYTES));
        else if (!qlora && q.frozen_bytes + q.adapter_bytes + full + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            plan_step(p, N_("advice"), _("--finetune qlora (with --recompute full) fits: %.1f GB per GPU"),
                      gb(q.frozen_bytes + q.adapter_bytes + full + CUDA_CONTEXT_BYTES));
        else if (e.frozen_bytes + CUDA_CONTEXT_BYTES + full <= gpu_bytes(p))
            plan_step(p, N_("advice"),
                      _("the adapters' states (%.1f GB) are what does not fit: lower --rank, or --lora-targets qv"),
                      gb(e.adapter_bytes));
        else if (e.frozen_bytes + e.adapter_bytes + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            plan_step(p, N_("advice"),
                      _("the frozen weights and adapters fit (%.1f GB); the activations do not: %.1f GB even with "
                        "full recompute, of which %.1f GB are the fp32 logits and their gradient: shorten --seq or "
                        "lower --micro-batch"),
                      gb(e.frozen_bytes + e.adapter_bytes + CUDA_CONTEXT_BYTES), gb(full), gb(loss_bytes));
        else if (e.frozen_bytes + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            plan_step(p, N_("advice"),
                      _("the frozen weights fit (%.1f GB); the adapters' states (%.1f GB) and the activations (%.1f "
                        "GB with full recompute) do not: lower --rank, --lora-targets qv, shorten --seq, or shard"),
                      gb(e.frozen_bytes + CUDA_CONTEXT_BYTES), gb(e.adapter_bytes), gb(full));
        else
            plan_step(p, N_("advice"),
                      _("the frozen model alone does not fit one %s: shard it (FSDP or ZeRO-3 with LoRA) over "
                      "the GPUs, or rent larger GPUs"),
                      p->gpu->id);
    }
    plan_require(p, N_("gpus_per_node"), json_integer(n), _("%d x %s as asked; each holds the frozen model"), n, p->gpu->id);
    plan_require(p, N_("gpu_memory_bytes_per_gpu"), json_real(total),
                 _("frozen weights + adapter states + activations + CUDA context"));
    int per_gpu_cores = cores_per_gpu(WL_LLM_TRAIN, CORES_PER_TRAINING_PROCESS + LLM_LOADER_WORKERS_PER_GPU, 0);
    plan_require(
        p, N_("cpu_cores_per_node"), json_integer(n * per_gpu_cores + CORES_FOR_OS),
        _("%d per GPU (training process and data-loader workers; at least the audit's CPU_CORES_PER_GPU) + %d for "
        "the OS"),
        per_gpu_cores, CORES_FOR_OS);
    double bf16_files = 2.0 * m->params;
    plan_require(
        p, N_("host_ram_bytes_per_node"), json_real(bf16_files + n * (double)TRAINING_PROCESS_HOST_BYTES),
        _("the bf16 model files pass through host memory (page cache) when loading%s, + %d x 2 GB training processes"),
        qlora ? _(" and are quantized on the GPU") : "", n);
    plan_require(p, N_("storage_bytes_per_node"), json_real(bf16_files + e.adapter_bytes),
                 _("the bf16 model files (%.0f GB) + one adapter checkpoint with its optimizer states (%.2f GB)"),
                 gb(bf16_files), gb(e.adapter_bytes));
    plan_network(p, true);
    plan_correction(
        p,
        _("A common rule of thumb sizes fine-tuning like full training, 16 B per parameter (%.0f GB here): %s "
        "holds the frozen weights at %.2f B per parameter and 16 B only for the %.1f M adapter parameters."),
        gb(16.0 * m->params), qlora ? "QLoRA" : "LoRA", e.frozen_bytes / m->params, e.adapter_params / 1e6);
    return 0;
}
