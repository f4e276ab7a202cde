#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "probe/probe.h"
#include "report/cost_report.h"
#include "report/report.h"
#include "rules/workload.h"
#include "sizing/check.h"
#include "sizing/demand.h"
#include "sizing/finetune.h"
#include "util/gputable.h"
#include "sizing/jsonfile.h"
#include "sizing/models.h"
#include "sizing/offers.h"
#include "util/parse.h"
#include "sizing/zero.h"
#include "util/fsroot.h"

static const char usage[] =
    "usage: gpuvet plan --workload llm-train|llm-infer|cv-train [--gpus [Nx]GPU] [options]\n"
    "\n"
    "Sizes one node (of --nodes) for a workload, and says why at each step: GPUs by memory need,\n"
    "CPU cores by GPUs, host memory by task, storage and network.\n"
    "\n"
    "  --gpus [Nx]GPU       GPUs per node, e.g. 8xA100-80GB, \"8 x H100\" (`gpuvet gpus` lists them);\n"
    "                       without it (llm-*): the GPUs of the table that fit, fewest per node first\n"
    "  --nodes N            nodes (default 1)\n"
    "  model (llm-*):       --model ID (llama-2/3/3.1/3.2, qwen2/2.5, mistral, gemma-2: an unknown id\n"
    "                       lists them) | --model-config config.json (MoE too) | --params N (7B)\n"
    "llm-train:\n"
    "  --zero 0|1|2|3       DeepSpeed ZeRO stage (default 2)\n"
    "  --offload none|optimizer|cpu|nvme   optimizer states to CPU; cpu = optimizer and (ZeRO-3)\n"
    "                       parameters to CPU; nvme = ZeRO-Infinity (default none)\n"
    "  --no-zero-init       the model is built whole on every rank (no deepspeed.zero.Init)\n"
    "  --seq N --micro-batch N   sequence length (default 4096) and micro-batch per GPU (default 1)\n"
    "  --recompute none|selective|full  activation checkpointing (default none)\n"
    "  --attention flash|eager           FlashAttention/SDPA keeps no s x s scores (default flash)\n"
    "  --finetune lora|qlora   train low-rank adapters beside frozen bf16 (lora) or 4-bit (qlora) weights\n"
    "  --rank R --lora-targets all|qv    adapter rank (default 16) and matrices (default all linear layers)\n"
    "llm-infer:\n"
    "  --batch N --context N     concurrent sequences and tokens each (defaults 1, 4096; 8k = 8192)\n"
    "  --weights bf16|fp16|fp8|int8|int4   weight precision (default bf16)\n"
    "  --kv bf16|fp16|fp8   KV cache precision (default bf16)\n"
    "cv-train:\n"
    "  --img-rate N         images/s one GPU consumes (default: the table's ResNet-50 figure)\n"
    "  --decode-rate N | --decode-from BENCH.json   images/s one core decodes and augments\n"
    "                       (default 460; BENCH.json: `gpuvet bench decode --json`)\n"
    "  --image-bytes SIZE   average image file size (default ImageNet's 115 KB)\n"
    "  --dataset-bytes SIZE dataset size, to cache it in host memory (1.2TB, 150GB)\n"
    "\n"
    "  --offers FILE        without --gpus: rank the offers of FILE (the format of `gpuvet cost`) by the\n"
    "                       job's cost, and say which do not fit and why; --fx CUR=RATE converts currencies\n"
    "  --tokens T           llm-train with --offers: tokens trained on (2T); cost = price x hours of\n"
    "                       6 x active parameters x T FLOPs (4 x with --finetune) at dense BF16 x --util\n"
    "  --images N           cv-train with --offers: images to process (epochs x dataset, 115M)\n"
    "  --util U             llm-train with --offers: GPU utilisation for offers without a util field\n"
    "                       (0.4 or 40%; default 1 = peak)\n"
    "  --check [AUDIT.json] compare with a saved `gpuvet audit --json` (or this machine, or --sysroot)\n"
    "  --sysroot DIR        with --check and no file: a recorded machine tree\n"
    "  --json               write the gpuvet.plan/1 JSON document\n"
    "\n"
    "exit status: 0 planned (and --check found nothing short), 1 the asked configuration does not fit\n"
    "(or --check found a shortfall),\n"
    "2 could not plan (bad option, unknown GPU or model, malformed file)\n";

struct plan_options {
    enum workload workload;
    bool workload_set;
    const char *gpus, *model, *model_config, *decode_from, *check_file, *sysroot;
    double params;
    int nodes, seq, micro_batch, batch, context;
    struct zero_config zero;
    enum recompute recompute;
    bool flash, check, json;
    enum finetune finetune;
    int lora_rank;
    bool lora_qv_only;
    double weight_bytes, kv_bytes; /* per element */
    double img_rate, decode_rate, image_bytes, dataset_bytes;
    const char *offers_file; /* --offers: rank these offers instead of the table's GPUs */
    double tokens, images, util;
    struct fx_rates fx;
};

struct plan {
    struct plan_options opt;
    struct gpu_table table;
    const struct gpu_spec *gpu;
    char gpu_note[512];
    int gpus_per_node;
    struct llm_shape model;
    bool does_not_fit; /* the asked configuration does not fit: exit status 1 */
    json_t *doc, *steps, *requirements, *corrections;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuvet plan: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_CANNOT_RUN;
}

static double gb(double bytes) { return bytes / 1e9; }

/* A step of the reasoning, in the order a person would take it. */
static void step(struct plan *p, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void step(struct plan *p, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    json_array_append_new(p->steps, json_pack("{s:s, s:s}", "step", name, "text", text ? text : ""));
    free(text);
}

static void correction(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void correction(struct plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    json_array_append_new(p->corrections, json_string(text ? text : ""));
    free(text);
}

static void require(struct plan *p, const char *key, json_t *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void require(struct plan *p, const char *key, json_t *value, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = NULL;
    if (vasprintf(&why, fmt, ap) < 0)
        why = NULL;
    va_end(ap);
    json_object_set_new(p->requirements, key, json_pack("{s:o, s:s}", "value", value, "why", why ? why : ""));
    free(why);
}

static bool parse_int_option(const char *s, int min, int max, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < min || v > max)
        return false;
    *out = (int)v;
    return true;
}

static bool parse_element_bytes(const char *s, bool allow_int4, double *out)
{
    static const struct {
        const char *name;
        double bytes;
    } types[] = {{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcasecmp(s, types[i].name) && (allow_int4 || types[i].bytes >= 1)) {
            *out = types[i].bytes;
            return true;
        }
    return false;
}

/* "8xA100-80GB", "8 x H100", "H100*8" -> a count and a GPU; a bare name is one GPU. */
static int resolve_gpus(struct plan *p)
{
    char err[1024];
    p->gpu = gpu_lookup_counted(&p->table, p->opt.gpus, &p->gpus_per_node, p->gpu_note, sizeof p->gpu_note, err,
                                sizeof err);
    if (!p->gpu)
        return fail("--gpus %s", err);
    return 0;
}

static int resolve_model(struct plan *p)
{
    int given = (p->opt.model != NULL) + (p->opt.model_config != NULL) + (p->opt.params > 0);
    if (given != 1)
        return fail("name the model once: --model ID, --model-config FILE or --params N");
    if (p->opt.model && !llm_builtin(p->opt.model, &p->model)) {
        char list[1024] = "";
        for (int i = 0; llm_builtin_ids[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", llm_builtin_ids[i]);
        return fail("unknown model '%s' (built in: %s; or --model-config FILE)", p->opt.model, list);
    }
    char err[1024];
    if (p->opt.model_config && llm_from_hf_config(p->opt.model_config, &p->model, err, sizeof err) != 0)
        return fail("%s", err);
    if (p->opt.params > 0)
        llm_from_params((int64_t)p->opt.params, &p->model);
    return 0;
}

static json_t *model_json(const struct llm_shape *m)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "id", m->id, "source", m->source, "params", (json_int_t)m->params,
                          "active_params", (json_int_t)m->active_params);
    if (m->has_shape) {
        json_object_set_new(o, "tied_embeddings", json_boolean(m->tied_embeddings));
        json_object_set_new(o, "experts", m->experts ? json_integer(m->experts) : json_null());
        json_object_set_new(o, "experts_per_token", m->experts ? json_integer(m->experts_per_token) : json_null());
        json_object_set_new(o, "sliding_window_layers", json_integer(m->sliding_layers));
        json_object_set_new(o, "layers", json_integer(m->layers));
        json_object_set_new(o, "hidden", json_integer(m->hidden));
        json_object_set_new(o, "heads", json_integer(m->heads));
        json_object_set_new(o, "kv_heads", json_integer(m->kv_heads));
        json_object_set_new(o, "head_dim", json_integer(m->head_dim));
        json_object_set_new(o, "ffn", json_integer(m->ffn));
        json_object_set_new(o, "vocab", json_integer(m->vocab));
        json_object_set_new(o, "largest_layer_params", json_integer(m->largest_layer_params));
        json_object_set_new(o, "sliding_window", m->sliding_window ? json_integer(m->sliding_window) : json_null());
    }
    return o;
}

static double gpu_bytes(const struct plan *p) { return p->gpu->memory_gb * 1e9; }

/* Cores per GPU: what the job's own processes take, raised to what the audit's CPU_CORES_PER_GPU
 * asks of the workload (the same thresholds table), so a server sized here passes the audit. */
static int cores_per_gpu(enum workload w, int own, double images_s)
{
    const struct thresholds *t = thresholds_for(w);
    int need = t->cores_per_accelerator_min;
    if (w == WL_CV_TRAIN && images_s > 0 && t->cv_reference_img_s > 0)
        need = (int)ceil(need * images_s / t->cv_reference_img_s);
    return own > need ? own : need;
}

/* ---- llm-train ---------------------------------------------------------------------------- */

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
           logits_bytes(&p->model, p->opt.seq, p->opt.micro_batch);
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

/* The same numbers the audit's NET_MULTINODE rule judges by (rules/workload.c). */
static void plan_network(struct plan *p, bool llm_train)
{
    double min_gbit = thresholds_for(WL_GENERAL)->net_multinode_fail_gbps;
    double llm_gbit = thresholds_for(WL_LLM_TRAIN)->net_multinode_warn_gbps;
    if (p->opt.nodes <= 1) {
        require(p, "network_gbit_s", json_null(), "one node: no inter-node traffic for the job");
        return;
    }
    if (llm_train) {
        require(p, "network_gbit_s", json_real(llm_gbit),
                "multi-node data-parallel LLM training moves ~2x the gradients every step: RDMA (InfiniBand or "
                "RoCE) at >= %.0f Gb/s per node; below %.0f Gb/s it stalls (NET_MULTINODE)",
                llm_gbit, min_gbit);
        json_object_set_new(p->requirements, "rdma",
                            json_pack("{s:b, s:s}", "value", 1, "why",
                                      "GPUDirect RDMA: the NIC reads and writes GPU memory without a copy through host "
                                      "memory"));
    } else {
        require(p, "network_gbit_s", json_real(min_gbit),
                "multi-node job: at least %.0f Gb/s between nodes (NET_MULTINODE)", min_gbit);
    }
}

static int plan_train(struct plan *p)
{
    struct zero_config *cfg = &p->opt.zero;
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    char label[64], label2[64];
    struct train_fit f = train_fit(p, cfg, p->opt.recompute);
    step(p, "model", "%s: %.3g B parameters (%s)", m->id, m->params / 1e9, m->source);
    if (!f.valid)
        return fail("%s: %s", zero_label(cfg, label, sizeof label), f.why_invalid);
    json_object_set_new(p->doc, "zero", zero_json(cfg, &f));
    step(p, "model states", "%s on %d GPU(s) x %d node(s): %.1f GB per GPU (%s)", zero_label(cfg, label, sizeof label),
         n, p->opt.nodes, gb(f.states.gpu_bytes_per_gpu), f.states.method);
    if (m->has_shape) {
        double layer = activation_bytes_per_layer(m, p->opt.seq, p->opt.micro_batch, p->opt.recompute, p->opt.flash);
        double logits = logits_bytes(m, p->opt.seq, p->opt.micro_batch);
        double per_token = activation_bytes_per_token_layer(m);
        json_object_set_new(p->doc, "activations",
                            json_pack("{s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:i, s:i}", "bytes_per_gpu", f.activations,
                                      "per_layer_bytes", layer, "bytes_per_token_layer", per_token, "per_token_layer_h",
                                      per_token / m->hidden, "logits_bytes", logits, "recompute",
                                      recompute_name(p->opt.recompute), "attention", p->opt.flash ? "flash" : "eager",
                                      "seq", p->opt.seq, "micro_batch", p->opt.micro_batch));
        char what[160];
        if (p->opt.recompute == RECOMPUTE_FULL)
            snprintf(what, sizeof what, "full recompute keeps the layer input, 2sbh");
        else
            snprintf(what, sizeof what, "%.1f*s*b*h from this architecture's %d norms, attention (%d/%d heads) and %s "
                                        "MLP%s",
                     per_token / m->hidden, m->norms_per_layer, m->heads, m->kv_heads,
                     m->experts ? "gated expert" : "gated",
                     p->opt.recompute == RECOMPUTE_SELECTIVE || p->opt.flash ? ", no s x s scores"
                                                                              : " + 5as^2b eager attention scores");
        step(p, "activations",
             "%.1f GB per GPU: %d layers x %.2f GB (%s; counted as Korthikanti et al. count GPT's 34sbh) + %.2f GB "
             "fp32 logits (b*s*V*4); seq %d, micro-batch %d",
             gb(f.activations), m->layers, gb(layer), what, gb(logits), p->opt.seq, p->opt.micro_batch);
    } else {
        json_object_set_new(p->doc, "activations", json_null());
        step(p, "activations", "unknown: --params gives no layer shape; use --model or --model-config");
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
    step(p, "gpu memory",
         "%.1f GB per GPU (states + activations + 1 GB CUDA context, which is GPU memory) of %g GB on "
         "%s: %s",
         gb(f.per_gpu), p->gpu->memory_gb, p->gpu->id,
         !f.fits       ? "does NOT fit"
         : f.complete ? "fits"
                      : "the model states fit, but the activations are unknown with --params, so whether the job "
                        "fits is unknown (--model or --model-config counts them)");
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
        step(p, "advice", "%s fits: %.1f GB per GPU, %.0f GB host memory per node (DeepSpeed, with its 1.5 buffer)%s%s",
             zero_label(&advice, label2, sizeof label2), gb(af.per_gpu), gb(af.states.cpu_bytes_per_node),
             advice.offload == OFFLOAD_NVME ? "; states on NVMe" : "",
             m->has_shape ? "" : "; model states only, the activations come on top");
    } else if (m->has_shape && p->opt.recompute != RECOMPUTE_FULL && train_advice(p, RECOMPUTE_FULL, &advice, &af)) {
        json_object_set_new(p->doc, "advice",
                            json_pack("{s:i, s:s, s:s, s:f, s:I}", "stage", advice.stage, "offload",
                                      offload_name(advice.offload), "recompute", "full", "gpu_bytes_per_gpu",
                                      af.per_gpu, "cpu_bytes_per_node", (json_int_t)af.states.cpu_bytes_per_node));
        step(p, "advice", "activations dominate: with --recompute full, %s fits (%.1f GB per GPU)",
             zero_label(&advice, label2, sizeof label2), gb(af.per_gpu));
    } else if (m->has_shape) {
        json_object_set_new(p->doc, "advice", json_null());
        step(p, "advice",
             "no ZeRO stage or offload fits %s with this sequence and micro-batch: shorten --seq, "
             "lower --micro-batch, add tensor parallelism or use LoRA",
             p->gpu->id);
    } else {
        json_object_set_new(p->doc, "advice", json_null());
        step(p, "advice",
             "no ZeRO stage or offload fits the model states alone on %s: add GPUs or nodes, tensor parallelism, "
             "or fine-tune with LoRA/QLoRA",
             p->gpu->id);
    }
    int min_n = min_gpus_per_node(p, cfg);
    if (min_n)
        require(p, "gpus_per_node", json_integer(n), "%d x %s per node as asked; %s fits from %d per node", n,
                p->gpu->id, zero_label(cfg, label, sizeof label), min_n);
    else
        require(p, "gpus_per_node", json_integer(n), "%d x %s per node as asked; %s fits at no count up to 64 per node",
                n, p->gpu->id, zero_label(cfg, label, sizeof label));
    require(p, "gpu_memory_bytes_per_gpu", json_real(f.per_gpu), "model states + activations + CUDA context per GPU");
    int own = CORES_PER_TRAINING_PROCESS + LLM_LOADER_WORKERS_PER_GPU;
    int per_gpu_cores = cores_per_gpu(WL_LLM_TRAIN, own, 0);
    int cores = n * per_gpu_cores + CORES_FOR_OS;
    require(p, "cpu_cores_per_node", json_integer(cores),
            "%d GPUs x %d cores (1 training process + %d data-loader workers, stas00/ml-engineering; at least the %d "
            "per GPU the audit's CPU_CORES_PER_GPU asks) + %d for the OS%s",
            n, per_gpu_cores, LLM_LOADER_WORKERS_PER_GPU, thresholds_for(WL_LLM_TRAIN)->cores_per_accelerator_min,
            CORES_FOR_OS,
            cfg->offload != OFFLOAD_NONE ? "; with offload DeepSpeedCPUAdam runs the optimizer step on these cores, "
                                           "more cores shorten it"
                                         : "");
    double host = (double)f.states.cpu_bytes_per_node + (double)n * TRAINING_PROCESS_HOST_BYTES;
    if (cfg->offload == OFFLOAD_NVME) {
        host = (double)n * (1e9 + TRAINING_PROCESS_HOST_BYTES);
        require(p, "host_ram_bytes_per_node", json_real(host),
                "DeepSpeed has no host estimator for NVMe offload: its default pinned buffers (offload_param 5 x 1e8 "
                "fp16 elements = 1 GB per GPU) + %d x 2 GB training processes",
                n);
    } else {
        require(p, "host_ram_bytes_per_node", json_real(host),
                "DeepSpeed's estimate %.0f GB (%.0f GB + its 1.5 buffer) + %d x 2 GB training processes (PyTorch+CUDA "
                "RSS); stas00 also advises at least the node's GPU memory, %.0f GB, for loading checkpoints",
                gb(f.states.cpu_bytes_per_node), gb(f.states.cpu_bytes_unbuffered), n, n * p->gpu->memory_gb);
    }
    if (f.states.nvme_bytes_per_node > 0)
        require(p, "nvme_bytes_per_node", json_integer(f.states.nvme_bytes_per_node),
                "ZeRO-Infinity keeps 18 B/parameter of states on NVMe, split across nodes; NVMe bandwidth sets the "
                "step time");
    double checkpoint = (double)m->params * CHECKPOINT_BYTES_PER_PARAM;
    require(p, "storage_bytes_per_node", json_real(checkpoint / p->opt.nodes),
            "one checkpoint: %d B/parameter (bf16 weights + fp32 master, momentum, variance) = %.0f GB, split "
            "across nodes; keep room for several",
            CHECKPOINT_BYTES_PER_PARAM, gb(checkpoint));
    plan_network(p, true);
    step(p, "cpu", "%d cores per node: %d per GPU (one process plus %d loader workers, at least the audit's %d) + %d; "
         "NCCL reduces on the GPU",
         cores, per_gpu_cores, LLM_LOADER_WORKERS_PER_GPU, thresholds_for(WL_LLM_TRAIN)->cores_per_accelerator_min,
         CORES_FOR_OS);
    step(p, "host memory", "%.0f GB per node (%s)", gb(host),
         cfg->offload == OFFLOAD_NVME ? "pinned buffers only; states on NVMe" : "DeepSpeed's estimator");
    correction(p, "A common rule of thumb reserves 2 CPU cores per GPU for NCCL all-reduce: NCCL runs its kernels on the GPU; "
                  "cores go to the training process and data-loader workers.");
    if (cfg->offload != OFFLOAD_NONE)
        correction(p, "A common rule of thumb says PyTorch loses 20%% without AVX-512: GPU training does not depend on it; "
                      "only DeepSpeedCPUAdam (offload) uses AVX-512 when present.");
    if (cfg->stage == 2 && cfg->offload != OFFLOAD_NONE)
        correction(p,
                   "A common rule of thumb gives ZeRO-2 offload 8 B of RAM per parameter (56 GB for 7B, 512 GB for 70B); "
                   "DeepSpeed's estimator says %.0f GB per node here (168/312/1680 GB for 7/13/70B on one GPU).",
                   gb(f.states.cpu_bytes_per_node));
    if (cfg->stage == 2 && !f.fits && (double)f.states.gpu_bytes_per_gpu >= gpu_bytes(p))
        correction(p,
                   "ZeRO-2 keeps every fp16 parameter on every GPU (%.0f GB here): a 70B model on ZeRO-2 "
                   "cannot fit; ZeRO-3 partitions them (Rajbhandari et al., ZeRO, 2020).",
                   gb(2.0 * m->params));
    return 0;
}

/* ---- llm-train --finetune lora|qlora ------------------------------------------------------ */

static int plan_finetune(struct plan *p)
{
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    step(p, "model", "%s: %.3g B parameters (%s)", m->id, m->params / 1e9, m->source);
    if (!m->has_shape)
        return fail("--finetune needs the layer shapes to count the adapters: --model or --model-config, not --params");
    struct finetune_estimate e;
    finetune_estimate(m, p->opt.finetune, p->opt.lora_rank, p->opt.lora_qv_only, &e);
    bool qlora = p->opt.finetune == FINETUNE_QLORA;
    double activations = train_activations(p, p->opt.recompute);
    double total = e.frozen_bytes + e.adapter_bytes + activations + CUDA_CONTEXT_BYTES;
    bool fits = total <= gpu_bytes(p);
    p->does_not_fit = !fits;
    json_object_set_new(p->doc, "finetune",
                        json_pack("{s:s, s:i, s:s, s:I, s:f, s:I, s:f, s:f, s:f}", "method",
                                  finetune_name(p->opt.finetune), "rank", p->opt.lora_rank, "targets",
                                  p->opt.lora_qv_only ? "q_proj, v_proj" : "every linear layer",
                                  "adapter_params", (json_int_t)e.adapter_params, "trainable_share",
                                  (double)e.adapter_params / m->params, "quantized_params",
                                  (json_int_t)e.quantized_params, "bits_per_quantized_param",
                                  qlora ? QLORA_BITS_PER_PARAM : 16.0, "frozen_bytes", e.frozen_bytes,
                                  "adapter_bytes", e.adapter_bytes));
    json_object_set_new(p->doc, "activations",
                        json_pack("{s:f, s:s, s:s, s:i, s:i}", "bytes_per_gpu", activations, "recompute",
                                  recompute_name(p->opt.recompute), "attention", p->opt.flash ? "flash" : "eager",
                                  "seq", p->opt.seq, "micro_batch", p->opt.micro_batch));
    json_object_set_new(p->doc, "gpu_memory",
                        json_pack("{s:f, s:f, s:f, s:I, s:f, s:f, s:b}", "frozen_weights", e.frozen_bytes, "adapters",
                                  e.adapter_bytes, "activations", activations, "cuda_context",
                                  (json_int_t)CUDA_CONTEXT_BYTES, "total", total, "available", gpu_bytes(p), "fits",
                                  fits));
    if (qlora)
        step(p, "frozen weights",
             "%.1f GB: %.3g B linear-layer weights in 4-bit NF4 with double quantization (%.3f bits each, "
             "Dettmers et al., QLoRA); embeddings, norms%s in bf16",
             gb(e.frozen_bytes), e.quantized_params / 1e9, QLORA_BITS_PER_PARAM,
             m->tied_embeddings ? "" : " and LM head");
    else
        step(p, "frozen weights", "%.1f GB: all %.3g B parameters in bf16 (2 B each), frozen", gb(e.frozen_bytes),
             m->params / 1e9);
    step(p, "adapters",
         "rank %d on %s: %.1f M trainable parameters (%.2f%%; r x (d_in + d_out) per matrix, Hu et al., LoRA) x %d B "
         "(fp32 weight, gradient, Adam momentum and variance) = %.2f GB",
         p->opt.lora_rank, p->opt.lora_qv_only ? "q_proj and v_proj" : "every linear layer", e.adapter_params / 1e6,
         100.0 * e.adapter_params / m->params, ADAPTER_BYTES_PER_PARAM, gb(e.adapter_bytes));
    step(p, "activations", "%.1f GB per GPU: the backward pass still runs through the frozen layers (%s, seq %d, "
                           "micro-batch %d)",
         gb(activations), recompute_name(p->opt.recompute), p->opt.seq, p->opt.micro_batch);
    step(p, "gpu memory", "%.1f GB per GPU of %g GB on %s: %s; each GPU holds a whole copy (data parallel)", gb(total),
         p->gpu->memory_gb, p->gpu->id, fits ? "fits" : "does NOT fit");
    if (!fits) {
        struct finetune_estimate q;
        finetune_estimate(m, FINETUNE_QLORA, p->opt.lora_rank, p->opt.lora_qv_only, &q);
        double full = p->opt.recompute == RECOMPUTE_FULL ? activations : train_activations(p, RECOMPUTE_FULL);
        if (p->opt.recompute != RECOMPUTE_FULL && e.frozen_bytes + e.adapter_bytes + full + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            step(p, "advice", "with --recompute full it fits: %.1f GB per GPU",
                 gb(e.frozen_bytes + e.adapter_bytes + full + CUDA_CONTEXT_BYTES));
        else if (!qlora && q.frozen_bytes + q.adapter_bytes + full + CUDA_CONTEXT_BYTES <= gpu_bytes(p))
            step(p, "advice", "--finetune qlora (with --recompute full) fits: %.1f GB per GPU",
                 gb(q.frozen_bytes + q.adapter_bytes + full + CUDA_CONTEXT_BYTES));
        else if (e.frozen_bytes + CUDA_CONTEXT_BYTES + full <= gpu_bytes(p))
            step(p, "advice", "the adapters' states (%.1f GB) are what does not fit: lower --rank, or --lora-targets qv",
                 gb(e.adapter_bytes));
        else
            step(p, "advice", "the frozen model alone does not fit one %s: shard it (FSDP or ZeRO-3 with LoRA) over "
                              "the GPUs, or rent larger GPUs",
                 p->gpu->id);
    }
    require(p, "gpus_per_node", json_integer(n), "%d x %s as asked; each holds the frozen model", n, p->gpu->id);
    require(p, "gpu_memory_bytes_per_gpu", json_real(total), "frozen weights + adapter states + activations + CUDA context");
    int per_gpu_cores = cores_per_gpu(WL_LLM_TRAIN, CORES_PER_TRAINING_PROCESS + LLM_LOADER_WORKERS_PER_GPU, 0);
    require(p, "cpu_cores_per_node", json_integer(n * per_gpu_cores + CORES_FOR_OS),
            "%d per GPU (training process and data-loader workers; at least the audit's CPU_CORES_PER_GPU) + %d for "
            "the OS",
            per_gpu_cores, CORES_FOR_OS);
    double bf16_files = 2.0 * m->params;
    require(p, "host_ram_bytes_per_node", json_real(bf16_files + n * (double)TRAINING_PROCESS_HOST_BYTES),
            "the bf16 model files pass through host memory (page cache) when loading%s, + %d x 2 GB training processes",
            qlora ? " and are quantized on the GPU" : "", n);
    require(p, "storage_bytes_per_node", json_real(bf16_files + e.adapter_bytes),
            "the bf16 model files (%.0f GB) + one adapter checkpoint with its optimizer states (%.2f GB)",
            gb(bf16_files), gb(e.adapter_bytes));
    plan_network(p, true);
    correction(p,
               "A common rule of thumb sizes fine-tuning like full training, 16 B per parameter (%.0f GB here): %s "
               "holds the frozen weights at %.2f B per parameter and 16 B only for the %.1f M adapter parameters.",
               gb(16.0 * m->params), qlora ? "QLoRA" : "LoRA", e.frozen_bytes / m->params, e.adapter_params / 1e6);
    return 0;
}

/* ---- llm-infer ---------------------------------------------------------------------------- */

static int plan_infer(struct plan *p)
{
    const struct llm_shape *m = &p->model;
    int n = p->gpus_per_node;
    step(p, "model", "%s: %.3g B parameters (%s)", m->id, m->params / 1e9, m->source);
    if (!m->has_shape)
        return fail("llm-infer needs the layers and KV heads for the KV cache: --model or --model-config, not "
                    "--params");
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
    json_object_set_new(p->doc, "tensor_parallel",
                        json_pack("{s:i, s:b, s:i, s:s}", "size", n, "valid", tp_ok, "kv_heads_per_gpu",
                                  kv_heads_per_gpu, "why",
                                  tp_ok ? (m->kv_heads < n ? "KV heads replicated: each GPU keeps one"
                                                           : "KV heads split evenly")
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
    step(p, "weights", "%.1f GB at %g B/parameter, split over %d GPU(s) by tensor parallelism", gb(weights),
         p->opt.weight_bytes, n);
    if (!tp_ok)
        step(p, "tensor parallel", "%s: use a GPU count that divides %d heads and fits %d KV heads", tp_why, m->heads,
             m->kv_heads);
    else if (n > 1)
        step(p, "tensor parallel", "%d GPUs: %d of %d KV heads per GPU%s (vLLM: max(1, KV heads / tp))", n,
             kv_heads_per_gpu, m->kv_heads, m->kv_heads < n ? ", replicated" : "");
    int window_cap = m->sliding_window && m->sliding_window < p->opt.context;
    step(p, "kv cache",
         "2 x %d layers x %d KV heads x %d head dim x %g B = %.0f KiB per token; %.2f GB per request of %d tokens%s; "
         "%.1f GB for batch %d, %.1f GB on each GPU",
         m->layers, m->kv_heads, m->head_dim, p->opt.kv_bytes, per_token / 1024.0, gb(per_request), p->opt.context,
         !window_cap                            ? ""
         : m->sliding_layers == m->layers ? " (the sliding window caps it)"
                                          : " (the sliding-window layers keep only their window)",
         gb(kv_total), p->opt.batch, gb(kv_per_gpu));
    step(p, "gpu memory",
         "%.1f GB per GPU of %.1f GB usable (%.0f%% of %g GB, as vLLM plans, less 1 GB CUDA context): %s; the "
         "largest batch at %d tokens is %ld, the longest context at batch %d is %ld tokens",
         gb(per_gpu), gb(usable), INFER_GPU_MEMORY_SHARE * 100, p->gpu->memory_gb,
         fits ? "fits" : tp_ok ? "does NOT fit" : "not runnable (tensor parallelism)", p->opt.context, max_batch,
         p->opt.batch, max_context);
    int min_n = 0;
    for (int k = 1; k <= 64 && !min_n; k *= 2)
        if (tensor_parallel_valid(m, k, tp_why, sizeof tp_why) &&
            weights / k + kv_bytes_per_sequence(m, p->opt.kv_bytes, p->opt.context, k) * p->opt.batch <= usable)
            min_n = k;
    require(p, "gpus_per_node", json_integer(n),
            "%d x %s as asked; the weights and this KV cache need %s%d (powers "
            "of two, for tensor parallelism)",
            n, p->gpu->id, min_n ? "" : "more than ", min_n ? min_n : 64);
    require(p, "gpu_memory_bytes_per_gpu", json_real(per_gpu), "weights and KV cache per GPU");
    int infer_cores = cores_per_gpu(WL_LLM_INFER, CORES_PER_TRAINING_PROCESS, 0);
    require(p, "cpu_cores_per_node", json_integer(n * infer_cores + CORES_FOR_OS),
            "%d per GPU (its process and the tokenizer/batching thread; the audit's CPU_CORES_PER_GPU) + %d for the "
            "server and OS; judge latency by measured jitter, not clock speed",
            infer_cores, CORES_FOR_OS);
    require(p, "host_ram_bytes_per_node", json_real(weights + n * (double)TRAINING_PROCESS_HOST_BYTES),
            "the weights pass through host memory (page cache) when loading, + %d x 2 GB per GPU process", n);
    require(p, "storage_bytes_per_node", json_real(weights), "the model files");
    plan_network(p, false);
    double rule_of_thumb = 128.0 * 1024;
    correction(p,
               "A common rule of thumb sizes the KV cache as batch x seq x 128 KB: true only for 32 layers x 8 KV heads in "
               "16 bits; %s needs %.0f KiB per token (%.2fx), %.2f GB for this batch instead of %.2f GB.",
               m->id, per_token / 1024.0, per_token / rule_of_thumb, gb(kv_total),
               gb(rule_of_thumb * p->opt.batch * p->opt.context));
    correction(p, "A common rule of thumb asks for a single-core turbo >= 4.5 GHz: no datacenter CPU has it; measure "
                  "scheduling jitter instead (gpuvet bench jitter).");
    return 0;
}

/* ---- cv-train ----------------------------------------------------------------------------- */

static int decode_rate_from_bench(const char *path, double *out)
{
    char err[1024];
    json_t *doc = json_load_named(path, err, sizeof err);
    if (!doc)
        return fail("%s", err);
    json_t *v = json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "decode"), "images_s_per_core");
    int rc = 0;
    if (!json_is_number(v) || json_number_value(v) <= 0)
        rc = fail("%s: no positive benchmarks.decode.images_s_per_core (a `gpuvet bench decode --json` file)", path);
    else
        *out = json_number_value(v);
    json_decref(doc);
    return rc;
}

static int plan_cv(struct plan *p)
{
    int n = p->gpus_per_node;
    const char *rate_source = "--img-rate";
    double rate = p->opt.img_rate > 0 ? p->opt.img_rate : gpu_resnet50_rate(p->gpu, &rate_source);
    if (rate <= 0)
        return fail("the table has no ResNet-50 rate for %s, measured or estimated (no 16-bit tensor figure): pass "
                    "--img-rate N (images/s one GPU consumes)",
                    p->gpu->id);
    const char *decode_source = "one core decodes and augments ~460-500 ImageNet JPEGs/s with Pillow (gpuvet bench decode measures this CPU)";
    double per_core = thresholds_for(WL_CV_TRAIN)->cv_decode_images_s_per_core;
    if (p->opt.decode_from) {
        if (decode_rate_from_bench(p->opt.decode_from, &per_core) != 0)
            return EXIT_CANNOT_RUN;
        decode_source = "measured by gpuvet bench decode";
    } else if (p->opt.decode_rate > 0) {
        per_core = p->opt.decode_rate;
        decode_source = "--decode-rate";
    }
    struct cv_demand d;
    cv_pipeline_demand(rate, per_core, n, p->opt.image_bytes, &d);
    int decode_cores = d.cores_per_gpu - CORES_PER_TRAINING_PROCESS;
    int audit_need = cores_per_gpu(WL_CV_TRAIN, 0, rate);
    if (audit_need > d.cores_per_gpu) {
        d.cores_per_gpu = audit_need;
        d.cores_per_node = n * audit_need + CORES_FOR_OS;
    }
    json_object_set_new(p->doc, "pipeline",
                        json_pack("{s:f, s:s, s:b, s:f, s:s, s:i, s:i, s:f, s:f}", "images_s_per_gpu", rate,
                                  "images_s_source", rate_source, "images_s_estimated",
                                  p->opt.img_rate <= 0 && p->gpu->resnet50_img_s <= 0,
                                  "images_s_per_core", per_core, "images_s_per_core_source", decode_source,
                                  "cores_per_gpu", d.cores_per_gpu, "cores_per_node", d.cores_per_node, "image_bytes",
                                  p->opt.image_bytes, "read_bytes_s_per_node", d.read_bytes_s_per_node));
    step(p, "gpus", "%d x %s consume %.0f images/s each (%s)", n, p->gpu->id, rate, rate_source);
    step(p, "cpu",
         "%.0f / %.0f images/s per core (%s) = %d decode cores + 1 training process per GPU%s; x %d GPUs + %d "
         "for the OS = %d cores",
         rate, per_core, decode_source, decode_cores,
         audit_need == d.cores_per_gpu && audit_need > decode_cores + 1 ? ", raised to the audit's CPU_CORES_PER_GPU need"
                                                                       : "",
         n, CORES_FOR_OS, d.cores_per_node);
    step(p, "storage", "%.0f images/s x %.0f KB = %.2f GB/s read per node, sustained", rate * n,
         p->opt.image_bytes / 1e3, gb(d.read_bytes_s_per_node));
    require(p, "gpus_per_node", json_integer(n), "%d x %s as asked", n, p->gpu->id);
    require(p, "cpu_cores_per_node", json_integer(d.cores_per_node),
            "images/s per GPU / images/s per core + 1 per GPU (at least the audit's CPU_CORES_PER_GPU need), + %d for "
            "the OS",
            CORES_FOR_OS);
    require(p, "storage_read_bytes_s", json_real(d.read_bytes_s_per_node), "images/s x average image size");
    if (p->opt.dataset_bytes > 0) {
        double host = p->opt.dataset_bytes + n * (double)TRAINING_PROCESS_HOST_BYTES;
        require(p, "host_ram_bytes_per_node", json_real(host),
                "the dataset (%.0f GB) cached in the page cache so epochs after the first read no disk, + %d x 2 GB "
                "training processes; data-loader workers' memory comes on top",
                gb(p->opt.dataset_bytes), n);
        require(p, "storage_bytes_per_node", json_real(p->opt.dataset_bytes), "the dataset");
        step(p, "host memory", "%.0f GB: the dataset fits in the page cache", gb(host));
    } else {
        require(p, "host_ram_bytes_per_node", json_null(), "pass --dataset-bytes to size the cache for the dataset");
        step(p, "host memory", "unknown: pass --dataset-bytes to size it");
    }
    plan_network(p, false);
    correction(p,
               "A common rule of thumb says 12-24 cores are enough for CV training: at %.0f images/s per GPU and %.0f "
               "per core this node needs %d.",
               rate, per_core, d.cores_per_node);
    return 0;
}

/* ---- check, output ------------------------------------------------------------------------ */

static json_t *load_machine(const struct plan_options *o)
{
    if (o->check_file) {
        char err[1024];
        json_t *doc = json_load_named(o->check_file, err, sizeof err);
        if (!doc) {
            fail("%s", err);
            return NULL;
        }
        const char *schema = json_string_value(json_object_get(doc, "schema"));
        json_t *machine = json_object_get(doc, "machine");
        if (!schema || strcmp(schema, AUDIT_SCHEMA) || !json_is_object(machine)) {
            fail("%s: not a %s document (from `gpuvet audit --json`)", o->check_file, AUDIT_SCHEMA);
            json_decref(doc);
            return NULL;
        }
        json_incref(machine);
        json_decref(doc);
        return machine;
    }
    fsroot_set(o->sysroot);
    struct machine m;
    machine_init(&m);
    json_t *machine = NULL;
    if (probe_machine(&m, true) == 0)
        machine = machine_to_json(&m);
    for (int i = 0; i < m.nproblems; i++)
        fprintf(stderr, "gpuvet plan: %s: %s: %s\n", machine ? "warning" : "error", m.problems[i].path,
                m.problems[i].message);
    machine_free(&m);
    return machine;
}

static void print_text(json_t *plan)
{
    if (json_object_get(plan, "offers")) {
        plan_offers_text(stdout, plan);
        return;
    }
    json_t *gpu = json_object_get(plan, "gpu");
    json_t *candidates = json_object_get(plan, "candidates");
    if (json_is_array(candidates)) {
        printf("What to rent for %s, %lld node(s): the fewest GPUs of each kind that fit\n\n",
               json_string_value(json_object_get(plan, "workload")),
               json_integer_value(json_object_get(plan, "nodes")));
        printf("  %-4s %-30s %5s %14s %12s\n", "#", "GPU", "N", "NEED/GPU", "BF16 TFLOPS");
        size_t i;
        json_t *c;
        json_array_foreach (candidates, i, c) {
            json_t *tf = json_object_get(c, "dense_bf16_tflops_total");
            char tflops[32] = "-";
            if (json_is_number(tf))
                snprintf(tflops, sizeof tflops, "%.0f", json_number_value(tf));
            printf("  %-4zu %-30s %5lld %11.1f GB %12s\n", i + 1, json_string_value(json_object_get(c, "gpu")),
                   json_integer_value(json_object_get(c, "count_per_node")),
                   json_number_value(json_object_get(c, "gpu_memory_bytes_per_gpu")) / 1e9, tflops);
        }
        json_t *v;
        json_array_foreach (json_object_get(plan, "steps"), i, v)
            printf("\n%s\n", json_string_value(json_object_get(v, "text")));
        return;
    }
    printf("Plan for %s on %lld x %s per node, %lld node(s)\n", json_string_value(json_object_get(plan, "workload")),
           json_integer_value(json_object_get(gpu, "count_per_node")), json_string_value(json_object_get(gpu, "id")),
           json_integer_value(json_object_get(plan, "nodes")));
    const char *note = json_string_value(json_object_get(gpu, "note"));
    if (note)
        printf("note: %s\n", note);
    size_t i;
    json_t *v;
    putchar('\n');
    json_array_foreach (json_object_get(plan, "steps"), i, v)
        printf("  %-15s %s\n", json_string_value(json_object_get(v, "step")),
               json_string_value(json_object_get(v, "text")));
    printf("\nRequirements per node:\n");
    const char *key;
    json_object_foreach (json_object_get(plan, "requirements"), key, v) {
        json_t *value = json_object_get(v, "value");
        char shown[64];
        if (json_is_null(value))
            snprintf(shown, sizeof shown, "-");
        else if (json_is_boolean(value))
            snprintf(shown, sizeof shown, "%s", json_is_true(value) ? "yes" : "no");
        else if (strstr(key, "bytes_s"))
            snprintf(shown, sizeof shown, "%.2f GB/s", json_number_value(value) / 1e9);
        else if (strstr(key, "bytes"))
            snprintf(shown, sizeof shown, "%.1f GB", json_number_value(value) / 1e9);
        else if (strstr(key, "gbit"))
            snprintf(shown, sizeof shown, "%g Gb/s", json_number_value(value));
        else
            snprintf(shown, sizeof shown, "%g", json_number_value(value));
        printf("  %-26s %-12s %s\n", key, shown, json_string_value(json_object_get(v, "why")));
    }
    json_t *corr = json_object_get(plan, "rule_of_thumb_corrections");
    if (json_array_size(corr)) {
        printf("\nWhere common rules of thumb are wrong:\n");
        json_array_foreach (corr, i, v)
            printf("  - %s\n", json_string_value(v));
    }
    json_t *check = json_object_get(plan, "check");
    if (json_is_array(check)) {
        printf("\nCheck against %s:\n", json_string_value(json_object_get(plan, "checked_against")));
        json_array_foreach (check, i, v) {
            char need[64] = "", have[64] = "";
            json_t *nv = json_object_get(v, "need"), *hv = json_object_get(v, "have");
            if (json_is_string(nv))
                snprintf(need, sizeof need, "%s", json_string_value(nv));
            else if (json_is_number(nv))
                snprintf(need, sizeof need, json_number_value(nv) >= 1e8 ? "%.1f GB" : "%.4g",
                         json_number_value(nv) >= 1e8 ? json_number_value(nv) / 1e9 : json_number_value(nv));
            if (json_is_string(hv))
                snprintf(have, sizeof have, "%s", json_string_value(hv));
            else if (json_is_number(hv))
                snprintf(have, sizeof have, json_number_value(hv) >= 1e8 ? "%.1f GB" : "%.4g",
                         json_number_value(hv) >= 1e8 ? json_number_value(hv) / 1e9 : json_number_value(hv));
            printf("  %-7s %-24s need %-14s have %-28s %s\n", json_string_value(json_object_get(v, "status")),
                   json_string_value(json_object_get(v, "what")), *need ? need : "-", *have ? have : "-",
                   json_string_value(json_object_get(v, "why")));
        }
    }
}

/* Option codes past the short options. */
enum {
    O_MODEL = 256,
    O_CONFIG,
    O_PARAMS,
    O_NODES,
    O_ZERO,
    O_OFFLOAD,
    O_NO_INIT,
    O_SEQ,
    O_MB,
    O_RECOMPUTE,
    O_ATTN,
    O_BATCH,
    O_CONTEXT,
    O_WEIGHTS,
    O_KV,
    O_IMG,
    O_DEC,
    O_DECFROM,
    O_IMGB,
    O_DATA,
    O_CHECK,
    O_SYSROOT,
    O_FINETUNE,
    O_RANK,
    O_TARGETS,
    O_OFFERS,
    O_TOKENS,
    O_IMAGES,
    O_UTIL,
    O_FX,
    O_COUNT
};

/* An option the workload does not use is an error, not silently ignored. */
static int check_options_apply(const struct plan_options *o, const bool *given, const struct option *options)
{
    static const struct {
        int option;
        unsigned workloads; /* bit per enum workload */
        int finetune;       /* 1: only with --finetune, -1: not with --finetune, 0: either */
    } scope[] = {
        {O_MODEL, 1u << WL_LLM_TRAIN | 1u << WL_LLM_INFER, 0},
        {O_CONFIG, 1u << WL_LLM_TRAIN | 1u << WL_LLM_INFER, 0},
        {O_PARAMS, 1u << WL_LLM_TRAIN | 1u << WL_LLM_INFER, 0},
        {O_ZERO, 1u << WL_LLM_TRAIN, -1},
        {O_OFFLOAD, 1u << WL_LLM_TRAIN, -1},
        {O_NO_INIT, 1u << WL_LLM_TRAIN, -1},
        {O_SEQ, 1u << WL_LLM_TRAIN, 0},
        {O_MB, 1u << WL_LLM_TRAIN, 0},
        {O_RECOMPUTE, 1u << WL_LLM_TRAIN, 0},
        {O_ATTN, 1u << WL_LLM_TRAIN, 0},
        {O_FINETUNE, 1u << WL_LLM_TRAIN, 0},
        {O_RANK, 1u << WL_LLM_TRAIN, 1},
        {O_TARGETS, 1u << WL_LLM_TRAIN, 1},
        {O_BATCH, 1u << WL_LLM_INFER, 0},
        {O_CONTEXT, 1u << WL_LLM_INFER, 0},
        {O_WEIGHTS, 1u << WL_LLM_INFER, 0},
        {O_KV, 1u << WL_LLM_INFER, 0},
        {O_IMG, 1u << WL_CV_TRAIN, 0},
        {O_DEC, 1u << WL_CV_TRAIN, 0},
        {O_DECFROM, 1u << WL_CV_TRAIN, 0},
        {O_IMGB, 1u << WL_CV_TRAIN, 0},
        {O_DATA, 1u << WL_CV_TRAIN, 0},
        {O_TOKENS, 1u << WL_LLM_TRAIN, 0},
        {O_UTIL, 1u << WL_LLM_TRAIN, 0},
        {O_IMAGES, 1u << WL_CV_TRAIN, 0},
    };
    for (size_t i = 0; i < sizeof scope / sizeof scope[0]; i++) {
        if (!given[scope[i].option])
            continue;
        const char *name = option_name(options, scope[i].option);
        if (!(scope[i].workloads & (1u << o->workload)))
            return fail("--%s does not apply to --workload %s", name, workload_name(o->workload));
        if (scope[i].finetune > 0 && o->finetune == FINETUNE_NONE)
            return fail("--%s goes with --finetune lora|qlora", name);
        if (scope[i].finetune < 0 && o->finetune != FINETUNE_NONE)
            return fail("--%s does not apply to --finetune (LoRA trains data-parallel with the model whole on each "
                        "GPU)",
                        name);
    }
    for (int k = O_TOKENS; k <= O_FX; k++)
        if (given[k] && !o->offers_file)
            return fail("--%s goes with --offers FILE", option_name(options, k));
    return 0;
}

static int parse_options(int argc, char **argv, struct plan_options *o)
{

    static const struct option options[] = {
        {"workload", required_argument, NULL, 'w'},
        {"gpus", required_argument, NULL, 'g'},
        {"model", required_argument, NULL, O_MODEL},
        {"model-config", required_argument, NULL, O_CONFIG},
        {"params", required_argument, NULL, O_PARAMS},
        {"nodes", required_argument, NULL, O_NODES},
        {"zero", required_argument, NULL, O_ZERO},
        {"offload", required_argument, NULL, O_OFFLOAD},
        {"no-zero-init", no_argument, NULL, O_NO_INIT},
        {"seq", required_argument, NULL, O_SEQ},
        {"micro-batch", required_argument, NULL, O_MB},
        {"recompute", required_argument, NULL, O_RECOMPUTE},
        {"attention", required_argument, NULL, O_ATTN},
        {"batch", required_argument, NULL, O_BATCH},
        {"context", required_argument, NULL, O_CONTEXT},
        {"weights", required_argument, NULL, O_WEIGHTS},
        {"kv", required_argument, NULL, O_KV},
        {"img-rate", required_argument, NULL, O_IMG},
        {"decode-rate", required_argument, NULL, O_DEC},
        {"decode-from", required_argument, NULL, O_DECFROM},
        {"image-bytes", required_argument, NULL, O_IMGB},
        {"dataset-bytes", required_argument, NULL, O_DATA},
        {"check", optional_argument, NULL, O_CHECK},
        {"sysroot", required_argument, NULL, O_SYSROOT},
        {"finetune", required_argument, NULL, O_FINETUNE},
        {"rank", required_argument, NULL, O_RANK},
        {"lora-targets", required_argument, NULL, O_TARGETS},
        {"offers", required_argument, NULL, O_OFFERS},
        {"tokens", required_argument, NULL, O_TOKENS},
        {"images", required_argument, NULL, O_IMAGES},
        {"util", required_argument, NULL, O_UTIL},
        {"fx", required_argument, NULL, O_FX},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct plan_options){
        .nodes = 1,
        .seq = 4096,
        .micro_batch = 1,
        .batch = 1,
        .context = 4096,
        .flash = true,
        .zero = {.stage = 2, .offload = OFFLOAD_NONE, .zero_init = true},
        .weight_bytes = 2,
        .kv_bytes = 2,
        .image_bytes = thresholds_for(WL_CV_TRAIN)->cv_image_bytes,
        .lora_rank = 16,
    };
    bool given[O_COUNT] = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "w:g:jh", options, NULL)) != -1) {
        bool ok = true;
        if (c >= O_MODEL && c < O_COUNT)
            given[c] = true;
        switch (c) {
        case O_FINETUNE:
            ok = finetune_parse(optarg, &o->finetune);
            break;
        case O_RANK:
            ok = parse_int_option(optarg, 1, 65536, &o->lora_rank);
            break;
        case O_TARGETS:
            ok = !strcmp(optarg, "all") || !strcmp(optarg, "qv");
            o->lora_qv_only = !strcmp(optarg, "qv");
            break;
        case 'w':
            ok = o->workload_set = workload_parse(optarg, &o->workload);
            break;
        case 'g':
            o->gpus = optarg;
            break;
        case O_MODEL:
            o->model = optarg;
            break;
        case O_CONFIG:
            o->model_config = optarg;
            break;
        case O_PARAMS:
            ok = parse_quantity(optarg, &o->params) && o->params >= 1e6 && o->params < 1e14;
            break;
        case O_NODES:
            ok = parse_int_option(optarg, 1, 100000, &o->nodes);
            break;
        case O_ZERO:
            ok = parse_int_option(optarg, 0, 3, &o->zero.stage);
            break;
        case O_OFFLOAD:
            ok = offload_parse(optarg, &o->zero.offload);
            break;
        case O_NO_INIT:
            o->zero.zero_init = false;
            break;
        case O_SEQ:
            ok = parse_token_count(optarg, 10000000, &o->seq);
            break;
        case O_MB:
            ok = parse_int_option(optarg, 1, 100000, &o->micro_batch);
            break;
        case O_RECOMPUTE:
            ok = recompute_parse(optarg, &o->recompute);
            break;
        case O_ATTN:
            ok = !strcmp(optarg, "flash") || !strcmp(optarg, "eager");
            o->flash = !strcmp(optarg, "flash");
            break;
        case O_BATCH:
            ok = parse_int_option(optarg, 1, 1000000, &o->batch);
            break;
        case O_CONTEXT:
            ok = parse_token_count(optarg, 100000000, &o->context);
            break;
        case O_WEIGHTS:
            ok = parse_element_bytes(optarg, true, &o->weight_bytes);
            break;
        case O_KV:
            ok = parse_element_bytes(optarg, false, &o->kv_bytes);
            break;
        case O_IMG:
            ok = parse_quantity(optarg, &o->img_rate);
            break;
        case O_DEC:
            ok = parse_quantity(optarg, &o->decode_rate);
            break;
        case O_DECFROM:
            o->decode_from = optarg;
            break;
        case O_IMGB:
            ok = parse_bytes(optarg, &o->image_bytes);
            break;
        case O_DATA:
            ok = parse_bytes(optarg, &o->dataset_bytes);
            break;
        case O_OFFERS:
            o->offers_file = optarg;
            break;
        case O_TOKENS:
            if (!option_positive("plan", "tokens", optarg, &o->tokens))
                return EXIT_CANNOT_RUN;
            break;
        case O_IMAGES:
            if (!option_positive("plan", "images", optarg, &o->images))
                return EXIT_CANNOT_RUN;
            break;
        case O_UTIL:
            if (!option_fraction("plan", "util", optarg, &o->util))
                return EXIT_CANNOT_RUN;
            break;
        case O_FX:
            if (!fx_add(&o->fx, optarg)) {
                option_invalid("plan", "fx", optarg, FX_HINT);
                return EXIT_CANNOT_RUN;
            }
            break;
        case O_CHECK:
            o->check = true;
            o->check_file = optarg;
            break;
        case O_SYSROOT:
            o->sysroot = optarg;
            break;
        case 'j':
            o->json = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return -1;
        default:
            return option_error(options, argv);
        }
        if (!ok)
            return fail("bad value '%s' for --%s (%s%sgpuvet plan --help)", optarg, option_name(options, c),
                        c == O_IMGB || c == O_DATA          ? PARSE_BYTES_HINT
                        : c == O_SEQ || c == O_CONTEXT      ? "tokens: 4096, 8k = 8192, 128k"
                        : c == O_PARAMS || c == O_IMG || c == O_DEC ? "counts: 7B, 70e9, 2.5k"
                                                                      : "",
                        c == O_IMGB || c == O_DATA || c == O_SEQ || c == O_CONTEXT || c == O_PARAMS || c == O_IMG ||
                                c == O_DEC
                            ? "; "
                            : "");
    }
    /* `--check FILE` (with a space) leaves FILE as the one operand. */
    if (o->check && !o->check_file && optind + 1 == argc)
        o->check_file = argv[optind++];
    if (optind < argc)
        return fail("unexpected argument '%s'", argv[optind]);
    if (!o->workload_set || !(o->workload == WL_LLM_TRAIN || o->workload == WL_LLM_INFER || o->workload == WL_CV_TRAIN))
        return fail("--workload llm-train, llm-infer or cv-train is required");
    if (o->offers_file && (o->gpus || o->check))
        return fail("--offers ranks the GPUs of its offers: leave out --gpus and --check");
    if (!o->gpus && !o->offers_file && (o->check || o->workload == WL_CV_TRAIN))
        return fail("--gpus [Nx]GPU is required %s (gpuvet gpus lists the names)",
                    o->check ? "with --check" : "for cv-train, which every GPU runs: the question is how fast");
    if (o->sysroot && (!o->check || o->check_file))
        return fail("--sysroot goes with --check and no audit file");
    if (o->decode_from && o->decode_rate > 0)
        return fail("give --decode-rate or --decode-from, not both");
    return check_options_apply(o, given, options);
}

/* A fresh document with the workload and node count, and empty steps, requirements, corrections. */
static void plan_start_doc(struct plan *p)
{
    p->doc = json_object();
    p->steps = json_array();
    p->requirements = json_object();
    p->corrections = json_array();
    json_object_set_new(p->doc, "workload", json_string(workload_name(p->opt.workload)));
    json_object_set_new(p->doc, "nodes", json_integer(p->opt.nodes));
}

/* Plans the workload for p->gpu x p->gpus_per_node into a fresh p->doc. */
static int plan_one(struct plan *p)
{
    p->opt.zero.gpus_per_node = p->gpus_per_node;
    p->opt.zero.nodes = p->opt.nodes;
    plan_start_doc(p);
    json_t *gpu = json_pack("{s:s, s:i, s:f}", "id", p->gpu->id, "count_per_node", p->gpus_per_node, "memory_bytes",
                            gpu_bytes(p));
    if (*p->gpu_note)
        json_object_set_new(gpu, "note", json_string(p->gpu_note));
    json_object_set_new(p->doc, "gpu", gpu);
    if (p->opt.workload != WL_CV_TRAIN)
        json_object_set_new(p->doc, "model", model_json(&p->model));
    int rc;
    if (p->opt.workload == WL_LLM_TRAIN && p->opt.finetune != FINETUNE_NONE)
        rc = plan_finetune(p);
    else if (p->opt.workload == WL_LLM_TRAIN)
        rc = plan_train(p);
    else if (p->opt.workload == WL_LLM_INFER)
        rc = plan_infer(p);
    else
        rc = plan_cv(p);
    json_object_set_new(p->doc, "steps", p->steps);
    json_object_set_new(p->doc, "requirements", p->requirements);
    json_object_set_new(p->doc, "rule_of_thumb_corrections", p->corrections);
    return rc;
}

struct candidate {
    const struct gpu_spec *gpu;
    int count;
    double need_per_gpu, dense_bf16_total;
};

static int by_count_then_speed(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->count != y->count)
        return x->count - y->count;
    return (x->dense_bf16_total < y->dense_bf16_total) - (x->dense_bf16_total > y->dense_bf16_total);
}

/* plan --offers: the job planned on one offer's GPUs (sizing/offers.c asks for each offer). */
static int plan_offer(void *ctx, const struct gpu_spec *gpu, int count, struct offer_plan *out)
{
    const struct plan *p = ctx;
    struct plan q = {.opt = p->opt, .table = p->table, .gpu = gpu, .gpus_per_node = count, .model = p->model};
    int rc = plan_one(&q);
    if (rc == 0)
        offer_plan_from_doc(q.doc, out);
    json_decref(q.doc);
    return rc;
}

/* "What should I rent?" from an offers file: each offer planned, ranked by the job's cost. */
static int plan_rank_offers(struct plan *p)
{
    char err[2048];
    struct offers offers = {0};
    if (offers_load(p->opt.offers_file, &p->table, &offers, err, sizeof err) != 0) {
        offers_free(&offers);
        return fail("%s", err);
    }
    struct offer_job job = {.nodes = p->opt.nodes, .tokens = p->opt.tokens, .images = p->opt.images,
                            .cli_util = p->opt.util};
    if (p->opt.tokens > 0)
        job.flops = offer_training_flops((double)p->model.active_params, p->opt.tokens,
                                         p->opt.finetune != FINETUNE_NONE, &job.flops_method);
    enum offer_basis basis;
    int fitting;
    int rc = offers_rank_for_plan(&offers, &job, &p->opt.fx, plan_offer, p, &basis, &fitting);
    if (rc == 0) {
        plan_start_doc(p);
        json_object_set_new(p->doc, "gpu", json_null());
        if (p->opt.workload != WL_CV_TRAIN)
            json_object_set_new(p->doc, "model", model_json(&p->model));
        json_object_set_new(p->doc, "offers", plan_offers_json(p->opt.offers_file, &job, basis, &offers));
        json_object_set_new(p->doc, "steps", p->steps);
        json_object_set_new(p->doc, "requirements", p->requirements);
        json_object_set_new(p->doc, "rule_of_thumb_corrections", p->corrections);
        p->does_not_fit = fitting == 0;
    }
    offers_free(&offers);
    return rc;
}

/* "What should I rent?": without --gpus, every GPU of the table at 1, 2, 4 and 8 per node; the
 * fewest that fit, ranked by GPU count, then dense BF16 TFLOPS. The table has no prices. */
static int plan_rank(struct plan *p)
{
    if (p->opt.offers_file)
        return plan_rank_offers(p);
    static const int counts[] = {1, 2, 4, 8};
    struct candidate *found = calloc((size_t)p->table.count, sizeof *found);
    int nfound = 0, rc = 0;
    for (int i = 0; i < p->table.count && rc == 0; i++) {
        const struct gpu_spec *g = &p->table.gpus[i];
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            struct plan q = {.opt = p->opt, .table = p->table, .gpu = g, .gpus_per_node = counts[k], .model = p->model};
            rc = plan_one(&q);
            json_t *memory = json_object_get(q.doc, "gpu_memory");
            double need = json_number_value(json_object_get(memory, json_object_get(memory, "total_per_gpu")
                                                                        ? "total_per_gpu"
                                                                        : "total"));
            json_decref(q.doc);
            if (rc != 0)
                break; /* an option combination no GPU can change: the error is printed */
            if (!q.does_not_fit) {
                found[nfound++] = (struct candidate){g, counts[k], need, counts[k] * g->dense[PREC_BF16]};
                break;
            }
        }
    }
    if (rc != 0) {
        free(found);
        return rc;
    }
    qsort(found, (size_t)nfound, sizeof *found, by_count_then_speed);
    plan_start_doc(p);
    json_object_set_new(p->doc, "gpu", json_null());
    json_object_set_new(p->doc, "model", model_json(&p->model));
    json_t *list = json_array();
    for (int i = 0; i < nfound; i++) {
        const struct candidate *c = &found[i];
        json_array_append_new(list, json_pack("{s:i, s:s, s:i, s:f, s:f, s:o, s:s}", "rank", i + 1, "gpu", c->gpu->id,
                                              "count_per_node", c->count, "gpu_memory_bytes_per_gpu", c->need_per_gpu,
                                              "memory_bytes", c->gpu->memory_gb * 1e9, "dense_bf16_tflops_total",
                                              c->dense_bf16_total > 0 ? json_real(c->dense_bf16_total) : json_null(),
                                              "confidence", c->gpu->confidence));
    }
    json_object_set_new(p->doc, "candidates", list);
    step(p, "candidates",
         "%d of %d GPUs fit this job at 1, 2, 4 or 8 per node; ranked by GPU count, then dense BF16 TFLOPS (the table "
         "has no prices: price the offers with gpuvet cost)",
         nfound, p->table.count);
    json_object_set_new(p->doc, "steps", p->steps);
    json_object_set_new(p->doc, "requirements", p->requirements);
    json_object_set_new(p->doc, "rule_of_thumb_corrections", p->corrections);
    p->does_not_fit = nfound == 0;
    free(found);
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    struct plan p = {0};
    int rc = parse_options(argc, argv, &p.opt);
    if (rc)
        return rc < 0 ? 0 : rc;
    char err[1024];
    if (gpu_table_load_default(&p.table, err, sizeof err) != 0) {
        gpu_table_free(&p.table);
        return fail("%s", err);
    }
    rc = p.opt.gpus ? resolve_gpus(&p) : 0;
    if (rc == 0 && p.opt.workload != WL_CV_TRAIN)
        rc = resolve_model(&p);
    if (rc) {
        gpu_table_free(&p.table);
        return rc;
    }
    rc = p.gpu ? plan_one(&p) : plan_rank(&p);
    if (rc == 0 && p.opt.check) {
        json_t *machine = load_machine(&p.opt);
        if (!machine) {
            rc = EXIT_CANNOT_RUN;
        } else {
            int shortfalls;
            json_object_set_new(p.doc, "checked_against",
                                json_string(p.opt.check_file ? p.opt.check_file
                                                             : json_string_value(json_object_get(machine, "source"))));
            json_object_set_new(p.doc, "check", plan_check(machine, p.requirements, p.gpu, &p.table, &shortfalls));
            json_object_set_new(p.doc, "shortfalls", json_integer(shortfalls));
            rc = shortfalls ? EXIT_VERDICT_FAIL : 0;
            json_decref(machine);
        }
    }
    if (rc == 0 && p.does_not_fit)
        rc = EXIT_VERDICT_FAIL;
    if (rc == 0 || rc == EXIT_VERDICT_FAIL) {
        if (p.opt.json) {
            json_t *root = json_pack("{s:s, s:s, s:O}", "schema", "gpuvet.plan/1", "gpuvet_version", GPUVET_VERSION,
                                     "plan", p.doc);
            json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            fputc('\n', stdout);
            json_decref(root);
        } else {
            print_text(p.doc);
        }
    }
    json_decref(p.doc);
    gpu_table_free(&p.table);
    return rc;
}
