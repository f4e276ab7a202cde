/* gpuvet plan: the options, then a call into the sizing module (sizing/plan.h) and a report
 * (report/plan_report.h). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "pipeline/audit.h"
#include "probe/audit_json.h"
#include "report/plan_balance.h"
#include "report/plan_report.h"
#include "report/report.h"
#include "sizing/balance.h"
#include "sizing/models.h"
#include "sizing/plan.h"
#include "sizing/plan_offers.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/parse.h"

static const struct opt_command plan_command_help = {
    .name = "plan",
    .usage = N_("usage: gpuvet plan --workload llm-train|llm-infer|cv-train [options]\n"
                "\n"
                "Sizes one node (of --nodes) for a workload, and says why at each step: GPUs by memory need, "
                "CPU cores by GPUs, host memory by task, storage and network.\n"
                "\n"),
    .footer = N_("exit status: 0 planned (and --check found nothing short), 1 the asked configuration does not fit "
                 "(or --check found a shortfall), 2 could not plan (bad option, unknown GPU or model, malformed file)\n"),
};

/* What the command does besides planning: the machine --check judges, and the output format. */
struct plan_command {
    struct plan_options plan;
    bool check, json;
    const char *check_file, *sysroot;
    const char *bench[BALANCE_MAX_BENCH]; /* --bench files, for the balance of the pipeline's stages */
    int nbench;
    struct balance_measured measured;
    struct plan_offers_request offers; /* --offers FILE: rank its offers instead of the table's GPUs */
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    char message[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    print_error("plan", "%s", message);
    return EXIT_CANNOT_RUN;
}

/* The element types --weights and --kv take, bytes per element. */
static const struct {
    const char *name;
    double bytes;
} element_types[] = {{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5},
                     /* NVFP4: 4-bit values and one FP8 scale per 16 (NVIDIA TensorRT Model Optimizer) */
                     {"fp4", 0.5625}};

static bool parse_element_bytes(const char *s, bool allow_int4, double *out)
{
    for (size_t i = 0; i < sizeof element_types / sizeof element_types[0]; i++)
        if (!strcasecmp(s, element_types[i].name) && (allow_int4 || element_types[i].bytes >= 1)) {
            *out = element_types[i].bytes;
            return true;
        }
    return false;
}

/* The first element type of that size (2: bf16), for the defaults --help names. */
static const char *element_type_name(double bytes)
{
    for (size_t i = 0; i < sizeof element_types / sizeof element_types[0]; i++)
        if (element_types[i].bytes == bytes)
            return element_types[i].name;
    return "?";
}

/* An option the workload does not use is an error, not silently ignored. */
static int check_options_apply(const struct plan_options *o, const struct opt *table)
{
#define LLM (1u << WL_LLM_TRAIN | 1u << WL_LLM_INFER)
#define TRAIN (1u << WL_LLM_TRAIN)
#define INFER (1u << WL_LLM_INFER)
#define CV (1u << WL_CV_TRAIN)
    static const struct {
        const char *option;
        unsigned workloads; /* bit per enum workload */
        int finetune;       /* 1: only with --finetune, -1: not with --finetune, 0: either */
    } scope[] = {
        {"model", LLM, 0},          {"model-config", LLM, 0},        {"params", LLM, 0},
        {"zero", TRAIN, -1},        {"offload", TRAIN, -1},          {"no-zero-init", TRAIN, -1},
        {"seq", TRAIN, 0},          {"micro-batch", TRAIN, 0},       {"recompute", TRAIN, 0},
        {"attention", TRAIN, 0},    {"finetune", TRAIN, 0},          {"rank", TRAIN, 1},
        {"lora-targets", TRAIN, 1}, {"lora-dropout", TRAIN, 1},      {"batch", INFER, 0},
        {"context", INFER, 0},      {"weights", INFER, 0},           {"kv", INFER, 0},
        {"img-rate", CV, 0},        {"decode-rate", CV, 0},          {"decode-from", CV, 0},
        {"image-bytes", CV, 0},     {"dataset-bytes", CV, 0},        {"bench", CV | TRAIN, 0},
        {"prompt", INFER, 0},       {"gpu-memory-utilization", INFER, 0}, {"rate", INFER, 0},
        {"tensor-parallel", INFER, 0}, {"allow-long-context", INFER, 0}, {"tokens", LLM, 0},
        {"util", TRAIN, 0},         {"images", CV, 0},
    };
#undef LLM
#undef TRAIN
#undef INFER
#undef CV
    for (size_t i = 0; i < sizeof scope / sizeof scope[0]; i++) {
        const struct opt *row = opt_find(table, scope[i].option);
        if (!row || !row->seen)
            continue;
        const char *name = row->name;
        if (!(scope[i].workloads & (1u << o->workload)))
            return fail(_("--%s does not apply to --workload %s"), name, workload_name(o->workload));
        if (scope[i].finetune > 0 && o->finetune == FINETUNE_NONE)
            return fail(_("--%s goes with --finetune lora|qlora"), name);
        if (scope[i].finetune < 0 && o->finetune != FINETUNE_NONE)
            return fail(_("--%s does not apply to --finetune (LoRA trains data-parallel with the model whole on "
                          "each GPU)"),
                        name);
    }
    return 0;
}

static enum opt_result take_params(const char *cmd, const struct opt *row, const char *value)
{
    double *params = row->value;
    if (!option_positive(cmd, row->name, value, params))
        return OPT_BAD;
    if (!(*params >= 1e6 && *params < LLM_MAX_PARAMS) &&
        !option_invalid(cmd, row->name, value, N_("a parameter count from 1M to 100T (7B, 70e9)")))
        return OPT_BAD;
    return OPT_TAKEN;
}

static enum opt_result take_weights(const char *cmd, const struct opt *row, const char *value)
{
    return parse_element_bytes(value, true, row->value) ||
                   option_invalid(cmd, row->name, value, N_("bf16, fp16, fp8, int8, int4 or fp4"))
               ? OPT_TAKEN
               : OPT_BAD;
}

static enum opt_result take_kv(const char *cmd, const struct opt *row, const char *value)
{
    return parse_element_bytes(value, false, row->value) || option_invalid(cmd, row->name, value, N_("bf16, fp16 or fp8"))
               ? OPT_TAKEN
               : OPT_BAD;
}

static enum opt_result take_bench(const char *cmd, const struct opt *row, const char *value)
{
    (void)cmd;
    struct plan_command *c = row->value;
    if (c->nbench == BALANCE_MAX_BENCH) {
        fail(_("--bench %s: at most %d bench files"), value, BALANCE_MAX_BENCH);
        return OPT_BAD;
    }
    c->bench[c->nbench++] = value;
    return OPT_TAKEN;
}

/* The built-in models and the Hugging Face repository each comes from (shell completion reads the
 * first column). */
static enum opt_result list_models(const char *cmd, const struct opt *row, const char *value)
{
    (void)cmd, (void)row, (void)value;
    for (int i = 0; llm_builtin_ids[i]; i++) {
        struct llm_shape m;
        char repo[256];
        if (llm_builtin(llm_builtin_ids[i], &m) && llm_builtin_repo(&m, repo, sizeof repo))
            printf("%s\t%s\n", llm_builtin_ids[i], repo);
    }
    return OPT_STOP;
}

static const struct opt_choice plan_workloads[] = {
    {"llm-train", WL_LLM_TRAIN}, {"llm-infer", WL_LLM_INFER}, {"cv-train", WL_CV_TRAIN}, {NULL, 0}};
static const struct opt_choice offloads[] = {
    {"none", OFFLOAD_NONE}, {"optimizer", OFFLOAD_OPTIMIZER}, {"cpu", OFFLOAD_CPU}, {"nvme", OFFLOAD_NVME}, {NULL, 0}};
static const struct opt_choice recomputes[] = {
    {"none", RECOMPUTE_NONE}, {"selective", RECOMPUTE_SELECTIVE}, {"full", RECOMPUTE_FULL}, {NULL, 0}};
static const struct opt_choice attentions[] = {{"flash", 1}, {"eager", 0}, {NULL, 0}};
static const struct opt_choice finetunes[] = {{"lora", FINETUNE_LORA}, {"qlora", FINETUNE_QLORA}, {NULL, 0}};
static const struct opt_choice lora_targets[] = {{"all", 0}, {"qv", 1}, {NULL, 0}};

static int parse_plan_options(int argc, char **argv, struct plan_command *cmd)
{
    struct plan_options *o = &cmd->plan;
    plan_options_default(o);
    /* bool options with named values: enum rows store an int */
    int flash = o->flash, qv_only = o->lora_qv_only;
    struct opt table[] = {
        OPT_ENUM("workload", 'w', &o->workload, plan_workloads, N_("what the node is for (required)")),
        OPT_STRING("gpus", 'g', &o->gpus, "[Nx]GPU",
                   N_("GPUs per node, e.g. 8xA100-80GB, \"8 x H100\" (`gpuvet gpus` lists them); without it (llm-*): "
                      "the GPUs of the table that fit, fewest per node first")),
        OPT_INT("nodes", 0, &o->nodes, 1, 100000, "N", N_("nodes (default %s)")),
        OPT_STRING("model", 0, &o->model, "ID",
                   N_("llm-*: the model, built in (llama-2/3/3.x/4, qwen2/2.5/3, mistral, mixtral, gemma-2, "
                      "deepseek-v3/r1, gpt-oss) or its Hugging Face name")),
        OPT_FILE("model-config", 0, &o->model_config, "config.json",
                 N_("llm-*: the model from its Hugging Face config.json (MoE too)")),
        OPT_CALLBACK("params", 0, &o->params, take_params, 0, "N", N_("llm-*: a model of N parameters (7B)")),
        OPT_CALLBACK("list-models", 0, NULL, list_models, OPT_NO_VALUE, NULL,
                     N_("list the built-in models and the Hugging Face repository of each")),
        OPT_GROUP(N_("llm-train:")),
        OPT_INT("zero", 0, &o->zero.stage, 0, 3, "0|1|2|3", N_("DeepSpeed ZeRO stage (default %s)")),
        OPT_ENUM("offload", 0, &o->zero.offload, offloads,
                 N_("optimizer = the optimizer states to CPU; cpu = optimizer and (ZeRO-3) parameters to CPU; nvme = "
                    "ZeRO-Infinity (default %s)")),
        OPT_CLEAR("no-zero-init", &o->zero.zero_init, N_("the model is built whole on every rank (no deepspeed.zero.Init)")),
        OPT_TOKENS("seq", &o->seq, 10000000, "N", N_("sequence length (default %s)")),
        OPT_INT("micro-batch", 0, &o->micro_batch, 1, 100000, "N", N_("micro-batch per GPU (default %s)")),
        OPT_ENUM("recompute", 0, &o->recompute, recomputes,
                 N_("activation checkpointing (default %s; full with --finetune, as PEFT, Unsloth, LLaMA-Factory and "
                    "QLoRA run it)")),
        OPT_ENUM("attention", 0, &flash, attentions, N_("FlashAttention/SDPA keeps no s x s scores (default %s)")),
        OPT_ENUM("finetune", 0, &o->finetune, finetunes,
                 N_("train low-rank adapters beside frozen bf16 (lora) or 4-bit (qlora) weights")),
        OPT_INT("rank", 0, &o->lora_rank, 1, 65536, "R", N_("adapter rank (default %s)")),
        OPT_ENUM("lora-targets", 0, &qv_only, lora_targets,
                 N_("the matrices adapted: all linear layers, or q and v only (default %s)")),
        OPT_FRACTION("lora-dropout", 0, &o->lora_dropout, "P",
                     N_("dropout on the adapters' input (default %s, PEFT's; LitGPT 0.05): it keeps a copy of each "
                        "adapted matrix's input and its mask")),
        OPT_GROUP(N_("llm-infer:")),
        OPT_INT("batch", 0, &o->batch, 1, 1000000, "N", N_("concurrent sequences (default %s)")),
        OPT_TOKENS("context", &o->context, 100000000, "N", N_("tokens of each sequence (default %s; 8k = 8192)")),
        OPT_FLAG("allow-long-context", 0, &o->allow_long_context,
                 N_("plan a --context beyond the model's maximum (max_position_embeddings and its rope_scaling), as "
                    "vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does")),
        {.kind = OPT_KIND_CALLBACK, .name = "weights", .value = &o->weight_bytes, .callback = take_weights,
         .metavar = "bf16|fp16|fp8|int8|int4|fp4", .default_name = element_type_name(o->weight_bytes),
         .help = N_("weight precision (default: as the checkpoint ships, else %s; fp4 = NVFP4, on FP4 tensor cores "
                    "where the GPU has them)")},
        {.kind = OPT_KIND_CALLBACK, .name = "kv", .value = &o->kv_bytes, .callback = take_kv, .metavar = "bf16|fp16|fp8",
         .default_name = element_type_name(o->kv_bytes), .help = N_("KV cache precision (default %s)")},
        OPT_FRACTION("gpu-memory-utilization", 0, &o->gpu_memory_utilization, "F",
                     N_("the share of each GPU's memory the engine plans with (vLLM's option; default %s)")),
        OPT_TOKENS("prompt", &o->prompt, 100000000, "N",
                   N_("prompt tokens of each request's context, for the tokens/s estimate (default half the context)")),
        OPT_REAL("rate", 0, &o->rate, "R",
                 N_("requests per second to serve: the GPUs and nodes they need, and the headroom")),
        OPT_INT("tensor-parallel", 0, &o->tensor_parallel, 1, 1024, "N",
                N_("estimate tokens/s for replicas of N GPUs only (default: the split of the node with the most "
                   "tokens/s)")),
        OPT_GROUP(N_("cv-train:")),
        OPT_REAL("img-rate", 0, &o->img_rate, "N", N_("images/s one GPU consumes (default: the table's ResNet-50 figure)")),
        {.kind = OPT_KIND_REAL, .name = "decode-rate", .value = &o->decode_rate, .metavar = "N",
         .flags = OPT_SHOWN_DEFAULT, .shown_default = thresholds_for(WL_CV_TRAIN)->cv_decode_images_s_per_core,
         .help = N_("images/s one core decodes and augments (default %s)")},
        OPT_FILE("decode-from", 0, &o->decode_from, "BENCH.json",
                 N_("the decode rate of a `gpuvet bench decode --json` file instead")),
        OPT_SIZE("image-bytes", &o->image_bytes, "SIZE", N_("average image file size (default ImageNet's %s)")),
        OPT_SIZE("dataset-bytes", &o->dataset_bytes, "SIZE", N_("dataset size, to cache it in host memory (1.2TB, 150GB)")),
        OPT_GROUP(""),
        OPT_FILE("offers", 0, &cmd->offers.file, "FILE",
                 N_("without --gpus: rank the offers of FILE (the format of `gpuvet cost`) by the job's cost, and say "
                    "which do not fit and why")),
        OPT_REAL("tokens", 0, &cmd->offers.tokens, "T",
                 N_("llm-train with --offers: tokens trained on (2T); cost = price x hours of 6 x active parameters "
                    "x T FLOPs (4 x with --finetune) at dense BF16 x --util; llm-infer with --offers: output tokens to "
                    "generate; offers are ranked by the estimated cost per million output tokens (plan.throughput), "
                    "with or without it")),
        OPT_REAL("images", 0, &cmd->offers.images, "N",
                 N_("cv-train with --offers: images to process (epochs x dataset, 115M)")),
        OPT_FRACTION("util", 0, &cmd->offers.util, "U",
                     N_("llm-train with --offers: GPU utilisation for offers without a util field (0.4 or 40%; "
                        "default 1 = peak)")),
        OPT_CALLBACK("fx", 0, &cmd->offers.fx, fx_row, 0, "CUR=RATE",
                     N_("with --offers: converts a currency (repeatable)")),
        {.kind = OPT_KIND_STRING, .name = "check", .value = &cmd->check_file, .metavar = "AUDIT.json",
         .flags = OPT_OPTIONAL_VALUE,
         .help =
             N_("compare with a saved `gpuvet audit --json` (or this machine, or --sysroot)")},
        OPT_DIR("sysroot", 0, &cmd->sysroot, "DIR", N_("with --check and no file: a recorded machine tree")),
        OPT_CALLBACK("bench", 0, cmd, take_bench, 0, "FILE",
                     N_("with --check (cv-train, llm-train): a `gpuvet bench --json` file for the balance of the "
                        "pipeline's stages (repeatable: memory, storage, decode, pcie)")),
        OPT_FLAG("json", 'j', &cmd->json, N_("write the gpuvet.plan/1 JSON document")),
        OPT_END(),
    };
    int rc = opt_parse(&plan_command_help, table, argc, argv);
    if (rc)
        return rc;
    o->flash = flash;
    o->lora_qv_only = qv_only;
    o->workload_set = opt_find(table, "workload")->seen;
    o->recompute_given = opt_find(table, "recompute")->seen;
    o->batch_given = opt_find(table, "batch")->seen;
    o->weights_given = opt_find(table, "weights")->seen;
    cmd->check = opt_find(table, "check")->seen;
    /* `--check FILE` (with a space) leaves FILE as the one operand. */
    if (cmd->check && !cmd->check_file && optind + 1 == argc)
        cmd->check_file = argv[optind++];
    if (optind < argc)
        return fail(_("unexpected argument '%s'"), argv[optind]);
    if (!o->workload_set)
        return fail("%s", _("--workload llm-train, llm-infer or cv-train is required"));
    if (cmd->offers.file && (o->gpus || cmd->check))
        return fail("%s", _("--offers ranks the GPUs of its offers: leave out --gpus and --check"));
    static const char *const with_offers[] = {"tokens", "images", "util", "fx"};
    for (size_t k = 0; k < sizeof with_offers / sizeof with_offers[0]; k++)
        if (opt_find(table, with_offers[k])->seen && !cmd->offers.file)
            return fail(_("--%s goes with --offers FILE"), with_offers[k]);
    if (!o->gpus && !cmd->offers.file && (cmd->check || o->workload == WL_CV_TRAIN))
        return fail("%s", cmd->check ? _("--gpus [Nx]GPU is required with --check (gpuvet gpus lists the names)")
                                     : _("--gpus [Nx]GPU is required for cv-train, which every GPU runs: the question "
                                         "is how fast (gpuvet gpus lists the names)"));
    if (cmd->sysroot && (!cmd->check || cmd->check_file))
        return fail("%s", _("--sysroot goes with --check and no audit file"));
    if (o->decode_from && o->decode_rate > 0)
        return fail("%s", _("give --decode-rate or --decode-from, not both"));
    if (cmd->nbench && !cmd->check)
        return fail("%s", _("--bench goes with --check: the balance weighs the measurements against a machine"));
    rc = check_options_apply(o, table);
    char err[1024];
    if (rc == 0 && balance_measured_load(&cmd->measured, cmd->bench, cmd->nbench, err, sizeof err) != 0)
        return fail("%s", err);
    return rc;
}

/* The machine --check judges: a saved audit, or the audit's probe (pipeline/audit.h) of this machine
 * or of --sysroot's tree (its problems printed as warnings, or as the error when the probe failed). */
static int load_machine(const struct plan_command *cmd, struct audit_result *a)
{
    if (cmd->check_file) {
        *a = (struct audit_result){0};
        machine_init(&a->machine);
        char err[1024];
        if (audit_json_load(cmd->check_file, AUDIT_SCHEMA, &a->machine, err, sizeof err) != 0)
            return fail("%s", err);
        return 0;
    }
    struct audit_request req = {.sysroot = cmd->sysroot, .depth = AUDIT_MACHINE};
    enum audit_status rc = audit_run(&req, a);
    plan_report_machine_problems(stderr, &a->machine, rc != AUDIT_DONE);
    return rc == AUDIT_DONE ? 0 : EXIT_CANNOT_RUN;
}

/* The plan (or the offers' ranking), its balance and its --check against m. */
static int plan_compute(struct plan *p, const struct plan_command *cmd, const struct machine *m,
                        struct plan_offers_ranking *ranking)
{
    int rc = cmd->offers.file ? plan_rank_offers(p, &cmd->offers, ranking) : plan_make(p);
    if (rc == 0 && cmd->check) {
        /* plan.balance, the job's rate per pipeline stage. A saved audit does not carry what the
         * stages need (memory, bench): only --bench counts. */
        struct balance b;
        if (plan_balance(p, cmd->check_file ? NULL : m,
                         cmd->check_file ? _("an audit file: the balance reads the machine itself (--check alone, or "
                                             "--sysroot)")
                                         : NULL,
                         &b) == 0)
            plan_balance_attach(p->doc, &b);
        plan_check_machine(p, m, cmd->check_file ? cmd->check_file : m->source);
        rc = p->shortfalls ? EXIT_VERDICT_FAIL : 0;
    }
    return rc;
}

/* The plan's sentences are written in the language of the output: English for --json (like every
 * machine writer), the user's for the text. A plan that fails in English is made again in the
 * user's language, for the error a person reads. */
static int plan_in_output_language(struct plan *p, const struct plan_command *cmd, const struct machine *m,
                                   struct plan_offers_ranking *ranking)
{
    if (!cmd->json)
        return plan_compute(p, cmd, m, ranking);
    i18n_english_begin();
    int rc = plan_compute(p, cmd, m, ranking);
    i18n_english_end();
    if (p->error && i18n_translating()) {
        json_decref(p->doc);
        p->doc = NULL;
        free(p->error);
        p->error = NULL;
        p->does_not_fit = false;
        p->shortfalls = 0;
        plan_offers_ranking_free(ranking);
        *ranking = (struct plan_offers_ranking){0};
        rc = plan_compute(p, cmd, m, ranking);
    }
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    struct plan_command cmd = {0};
    int rc = parse_plan_options(argc, argv, &cmd);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct plan p = {.opt = cmd.plan, .measured = &cmd.measured};
    struct audit_result audit;
    bool have_machine = false;
    struct plan_offers_ranking ranking = {0};
    rc = plan_prepare(&p);
    if (rc == 0 && cmd.check) {
        rc = load_machine(&cmd, &audit);
        have_machine = true;
        p.machine = rc == 0 ? &audit.machine : NULL;
    }
    if (rc == 0)
        rc = plan_in_output_language(&p, &cmd, have_machine ? &audit.machine : NULL, &ranking);
    if (p.error)
        rc = fail("%s", p.error);
    else if (rc == 0 && p.does_not_fit)
        rc = EXIT_VERDICT_FAIL;
    if (rc == 0 || rc == EXIT_VERDICT_FAIL) {
        if (cmd.json)
            plan_report_json(stdout, p.doc, cmd.offers.file ? &ranking : NULL);
        else
            plan_report_text(stdout, p.doc, cmd.offers.file ? &ranking : NULL);
    }
    if (have_machine)
        audit_result_free(&audit);
    plan_offers_ranking_free(&ranking);
    plan_free(&p);
    return rc;
}
