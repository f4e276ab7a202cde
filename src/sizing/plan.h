/* `gpuvet plan`: sizes one node (of --nodes) for a workload, step by step, and judges a machine
 * against it (--check). The plan is its own JSON document (steps, requirements, rule-of-thumb
 * corrections, the workload's own objects; docs/plan-cost.md): report/plan_text.c and
 * report/plan_json.c print it, builtin/plan.c parses the options and calls these. */
#ifndef GPUVET_SIZING_PLAN_H
#define GPUVET_SIZING_PLAN_H

#include <jansson.h>
#include <stdbool.h>

#include "model/machine.h"
#include "rules/workload.h"
#include "sizing/demand.h"
#include "sizing/finetune.h"
#include "sizing/models.h"
#include "sizing/zero.h"
#include "util/gputable.h"

struct balance_measured;

/* What the user asked; plan_options_default() gives the defaults the --help text names. */
struct plan_options {
    enum workload workload;
    bool workload_set;
    const char *gpus, *model, *model_config, *decode_from;
    double params;
    int nodes, seq, micro_batch, batch, context;
    bool batch_given; /* --batch given; else batch is the default (1) */
    int prompt; /* llm-infer: prompt tokens of each request's context; 0 = not given (half the context) */
    struct zero_config zero;
    enum recompute recompute;
    bool recompute_given; /* --recompute given: else --finetune runs with full (the recipes' default) */
    bool flash;
    enum finetune finetune;
    int lora_rank;
    bool lora_qv_only;
    double lora_dropout; /* --lora-dropout: 0 (PEFT's default) keeps no copy of the adapters' input */
    double weight_bytes, kv_bytes; /* per element */
    double gpu_memory_utilization; /* llm-infer: the share of GPU memory the engine plans with (vLLM's) */
    double rate;                   /* llm-infer: requests per second to serve; 0 = not given */
    int tensor_parallel;           /* llm-infer: the only split the tokens/s estimate tries; 0 = every split */
    bool allow_long_context;       /* llm-infer: plan a context beyond the model's maximum */
    bool weights_given; /* --weights given; else a model's checkpoint precision replaces bf16 */
    double img_rate, decode_rate, image_bytes, dataset_bytes;
};

struct plan {
    struct plan_options opt;
    struct gpu_table table;
    const struct gpu_spec *gpu; /* the asked GPU; NULL: rank the table's GPUs (plan_rank) */
    char gpu_note[512];
    int gpus_per_node;
    struct llm_shape model;
    /* The machine --check judges (a saved audit or a probe), loaded before the plan is made so
     * that a workload's sizing can read it too; NULL without --check. Not owned. */
    const struct machine *machine;
    /* Measurements of --bench documents (balance.h), NULL without: cv-train sizes its cores by a
     * measured decode rate when neither --decode-rate nor --decode-from is given. Not owned. */
    const struct balance_measured *measured;
    bool does_not_fit; /* the asked configuration does not fit: exit status 1 */
    int shortfalls;    /* --check: requirements the machine falls short of */
    json_t *doc, *steps, *requirements, *corrections;
    char *error; /* why the plan could not be made (a nonzero return), for "gpuvet plan: ERROR" */
};

void plan_options_default(struct plan_options *o);
/* The activation recompute the plan runs: --recompute where given, else full with --finetune (the
 * recipes' default: PEFT, Unsloth, LLaMA-Factory and QLoRA turn gradient checkpointing on), else
 * none. plan_finetune sizes memory by it and plan --offers counts the job's FLOPs by it. */
enum recompute plan_recompute(const struct plan_options *o);

/* Loads the GPU table and resolves --gpus and the model. 0, or nonzero with p->error set. */
int plan_prepare(struct plan *p);
/* Plans p->gpu x p->gpus_per_node into p->doc, or ranks the table's GPUs when p->gpu is NULL.
 * 0 (p->does_not_fit says whether it fits), or nonzero with p->error set. */
int plan_make(struct plan *p);
/* Adds "checked_against", "check" and "shortfalls" to p->doc: the plan's requirements against m
 * (check.h). against names the machine (the audit file, or the probe's source). */
void plan_check_machine(struct plan *p, const struct machine *m, const char *against);
void plan_free(struct plan *p);

#endif
