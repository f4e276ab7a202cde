#include "sizing/plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sizing/check.h"
#include "sizing/plan_internal.h"

enum recompute plan_recompute(const struct plan_options *o)
{
    return !o->recompute_given && o->finetune != FINETUNE_NONE ? RECOMPUTE_FULL : o->recompute;
}

void plan_options_default(struct plan_options *o)
{
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
        .gpu_memory_utilization = INFER_GPU_MEMORY_SHARE,
        .image_bytes = thresholds_for(WL_CV_TRAIN)->cv_image_bytes,
        .lora_rank = 16,
    };
}

static char *vformat(const char *fmt, va_list ap)
{
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    return text;
}

int plan_fail(struct plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(p->error);
    p->error = vformat(fmt, ap);
    va_end(ap);
    return PLAN_CANNOT_RUN;
}

void plan_step(struct plan *p, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    json_array_append_new(p->steps, json_pack("{s:s, s:s}", "step", name, "text", text ? text : ""));
    free(text);
}

void plan_correction(struct plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vformat(fmt, ap);
    va_end(ap);
    json_array_append_new(p->corrections, json_string(text ? text : ""));
    free(text);
}

void plan_require(struct plan *p, const char *key, json_t *value, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = vformat(fmt, ap);
    va_end(ap);
    json_object_set_new(p->requirements, key, json_pack("{s:o, s:s}", "value", value, "why", why ? why : ""));
    free(why);
}

/* "8xA100-80GB", "8 x H100", "H100*8" -> a count and a GPU; a bare name is one GPU. */
static int resolve_gpus(struct plan *p)
{
    char err[1024];
    p->gpu =
        gpu_lookup_counted(&p->table, p->opt.gpus, &p->gpus_per_node, p->gpu_note, sizeof p->gpu_note, err, sizeof err);
    if (!p->gpu)
        return plan_fail(p, "--gpus %s", err);
    return 0;
}

static int resolve_model(struct plan *p)
{
    int given = (p->opt.model != NULL) + (p->opt.model_config != NULL) + (p->opt.params > 0);
    if (given != 1)
        return plan_fail(p, _("name the model once: --model ID, --model-config FILE or --params N"));
    if (p->opt.model && !llm_builtin(p->opt.model, &p->model)) {
        const char *fp8 = llm_builtin_fp8_of(p->opt.model), *near = llm_builtin_suggestion(p->opt.model);
        if (fp8)
            return plan_fail(p, _("unknown model '%.100s': for %s's FP8 checkpoint, plan --model %s --weights fp8"),
                             p->opt.model, fp8, fp8);
        if (near)
            return plan_fail(p, _("unknown model '%.100s': did you mean %s? (or --model-config with its config.json)"),
                             p->opt.model, near);
        return plan_fail(p,
                         _("unknown model '%.100s': `gpuvet plan --list-models` lists the built-in ones; for "
                           "another, --model-config with its config.json"),
                         p->opt.model);
    }
    char err[1024];
    if (p->opt.model_config && llm_from_hf_config(p->opt.model_config, &p->model, err, sizeof err) != 0)
        return plan_fail(p, "%s", err);
    if (p->opt.params > 0)
        llm_from_params((int64_t)p->opt.params, &p->model);
    /* Without --weights, the weights as the checkpoint ships them (gpt-oss's MXFP4 experts,
     * DeepSeek-V3's FP8): bytes per parameter averaged over the model. */
    if (!p->opt.weights_given && p->model.checkpoint[0] && p->model.params > 0)
        p->opt.weight_bytes = llm_checkpoint_bytes(&p->model) / (double)p->model.params;
    return 0;
}

json_t *model_json(const struct llm_shape *m)
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
        json_object_set_new(o, "chunked_attention", json_boolean(m->chunked_attention));
        json_object_set_new(o, "dense_layers", json_integer(m->experts ? m->dense_layers : m->layers));
        json_object_set_new(o, "expert_params", json_integer(m->expert_params));
        json_object_set_new(o, "kv_lora_rank", m->kv_lora_rank ? json_integer(m->kv_lora_rank) : json_null());
        json_object_set_new(o, "qk_rope_head_dim", m->kv_lora_rank ? json_integer(m->qk_rope_head_dim) : json_null());
        json_object_set_new(o, "checkpoint", m->checkpoint[0] ? json_string(m->checkpoint) : json_null());
        json_object_set_new(o, "checkpoint_bytes", json_real(llm_checkpoint_bytes(m)));
        json_object_set_new(o, "mtp_params", json_integer(m->mtp_params));
        json_object_set_new(o, "vision_params", json_integer(m->vision_params));
        json_object_set_new(o, "disk_bytes", json_real(llm_disk_bytes(m)));
        json_object_set_new(o, "max_context", m->max_context ? json_integer(m->max_context) : json_null());
        json_object_set_new(o, "max_context_source",
                            m->max_context ? json_string(m->max_context_source) : json_null());
    }
    return o;
}

/* Cores per GPU: what the job's own processes take, raised to what the audit's CPU_CORES_PER_GPU
 * asks of the workload (the same thresholds table), so a server sized here passes the audit. */
int cores_per_gpu(enum workload w, int own, double images_s)
{
    const struct thresholds *t = thresholds_for(w);
    int need = t->cores_per_accelerator_min;
    if (w == WL_CV_TRAIN && images_s > 0 && t->cv_reference_img_s > 0)
        need = (int)ceil(need * images_s / t->cv_reference_img_s);
    return own > need ? own : need;
}

/* The same numbers the audit's NET_MULTINODE rule judges by (rules/workload.c). */
void plan_network(struct plan *p, bool llm_train)
{
    double min_gbit = thresholds_for(WL_GENERAL)->net_multinode_fail_gbps;
    double llm_gbit = thresholds_for(WL_LLM_TRAIN)->net_multinode_warn_gbps;
    if (p->opt.nodes <= 1) {
        plan_require(p, N_("network_gbit_s"), json_null(), _("one node: no inter-node traffic for the job"));
        return;
    }
    if (llm_train) {
        plan_require(p, N_("network_gbit_s"), json_real(llm_gbit),
                     _("multi-node data-parallel LLM training moves ~2x the gradients every step: RDMA (InfiniBand or "
                     "RoCE) at >= %.0f Gb/s per node; below %.0f Gb/s it stalls (NET_MULTINODE)"),
                     llm_gbit, min_gbit);
        json_object_set_new(p->requirements, N_("rdma"),
                            json_pack("{s:b, s:s}", "value", 1, "why",
                                      _("GPUDirect RDMA: the NIC reads and writes GPU memory without a copy through "
                                        "host memory")));
    } else {
        plan_require(p, N_("network_gbit_s"), json_real(min_gbit),
                     _("multi-node job: at least %.0f Gb/s between nodes (NET_MULTINODE)"), min_gbit);
    }
}

void plan_start_doc(struct plan *p)
{
    p->doc = json_object();
    p->steps = json_array();
    p->requirements = json_object();
    p->corrections = json_array();
    json_object_set_new(p->doc, "workload", json_string(workload_name(p->opt.workload)));
    json_object_set_new(p->doc, "nodes", json_integer(p->opt.nodes));
}

int plan_one(struct plan *p)
{
    /* A package of several devices (an MI250X: two GCDs of 64 GB) is that many GPUs to ROCm, to
     * PyTorch and to every engine: each holds its own share, so the plan counts devices. */
    int packages = p->gpus_per_node;
    p->gpus_per_node *= p->gpu->devices;
    p->opt.zero.gpus_per_node = p->gpus_per_node;
    p->opt.zero.nodes = p->opt.nodes;
    plan_start_doc(p);
    json_t *gpu = json_pack("{s:s, s:i, s:f}", "id", p->gpu->id, "count_per_node", p->gpus_per_node, "memory_bytes",
                            gpu_bytes(p));
    if (*p->gpu_note) {
        /* resolve_gpus ran before the output's language was chosen: the note again, in it */
        int count;
        char err[1024];
        gpu_lookup_counted(&p->table, p->opt.gpus, &count, p->gpu_note, sizeof p->gpu_note, err, sizeof err);
        json_object_set_new(gpu, "note", json_string(p->gpu_note));
    }
    json_object_set_new(gpu, "packages_per_node", json_integer(packages));
    json_object_set_new(gpu, "devices_per_package", json_integer(p->gpu->devices));
    json_object_set_new(gpu, "memory_source", json_string(gpu_memory_source(p->gpu)));
    json_object_set_new(p->doc, "gpu", gpu);
    if (p->gpu->devices > 1)
        plan_step(p, N_("devices"),
                  _("%d x %s = %d devices of %.1f GB each, as the driver shows them: every count and \"per GPU\" "
                    "below is per device"),
                  packages, p->gpu->id, p->gpus_per_node, gb(gpu_bytes(p)));
    if (p->opt.workload != WL_CV_TRAIN)
        json_object_set_new(p->doc, "model", model_json(&p->model));
    if (p->opt.workload != WL_CV_TRAIN && p->opt.model && strcasecmp(p->opt.model, p->model.id)) {
        json_object_set_new(json_object_get(p->doc, "model"), "asked_as", json_string(p->opt.model));
        plan_step(p, N_("model name"),
                  _("'%.100s' read as the built-in %s (an Instruct or chat tuning has its base model's shape)"),
                  p->opt.model, p->model.id);
    }
    int rc;
    if (p->opt.workload == WL_LLM_TRAIN && p->opt.finetune != FINETUNE_NONE)
        rc = plan_finetune(p);
    else if (p->opt.workload == WL_LLM_TRAIN)
        rc = plan_train(p);
    else if (p->opt.workload == WL_LLM_INFER)
        rc = plan_infer(p);
    else
        rc = plan_cv(p);
    plan_finish_doc(p);
    return rc;
}

void plan_finish_doc(struct plan *p)
{
    json_object_set_new(p->doc, "steps", p->steps);
    json_object_set_new(p->doc, "requirements", p->requirements);
    json_object_set_new(p->doc, "rule_of_thumb_corrections", p->corrections);
}

int plan_prepare(struct plan *p)
{
    char err[1024];
    if (gpu_table_load_default(&p->table, err, sizeof err) != 0)
        return plan_fail(p, "%s", err);
    int rc = p->opt.gpus ? resolve_gpus(p) : 0;
    if (rc == 0 && p->opt.workload != WL_CV_TRAIN)
        rc = resolve_model(p);
    /* vLLM refuses a max_model_len beyond what the config allows unless VLLM_ALLOW_LONG_MAX_MODEL_LEN
     * is set (vllm/config.py, _get_and_verify_max_len): the model was not trained on such positions. */
    if (rc == 0 && p->opt.workload == WL_LLM_INFER && p->model.max_context > 0 &&
        p->opt.context > p->model.max_context && !p->opt.allow_long_context)
        rc = plan_fail(p,
                       _("--context %d: %s takes at most %d tokens (%s); vLLM refuses longer. Plan a shorter "
                         "--context, or add --allow-long-context"),
                       p->opt.context, p->model.id, p->model.max_context, p->model.max_context_source);
    return rc;
}

int plan_make(struct plan *p) { return p->gpu ? plan_one(p) : plan_rank(p); }

void plan_check_machine(struct plan *p, const struct machine *m, const char *against)
{
    json_object_set_new(p->doc, "checked_against", against ? json_string(against) : json_null());
    json_object_set_new(p->doc, "check", plan_check(m, p->requirements, p->gpu, &p->table, &p->shortfalls));
    json_object_set_new(p->doc, "shortfalls", json_integer(p->shortfalls));
}

void plan_free(struct plan *p)
{
    json_decref(p->doc);
    p->doc = NULL;
    gpu_table_free(&p->table);
    free(p->error);
    p->error = NULL;
}
