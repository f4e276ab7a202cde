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

/* A printf format: the defaults it names come from the thresholds table (print_usage). */
static const char usage[] =
    /* xgettext:c-format */
    N_("usage: gpuvet plan --workload llm-train|llm-infer|cv-train [--gpus [Nx]GPU] [options]\n"
    "\n"
    "Sizes one node (of --nodes) for a workload, and says why at each step: GPUs by memory need,\n"
    "CPU cores by GPUs, host memory by task, storage and network.\n"
    "\n"
    "  --gpus [Nx]GPU       GPUs per node, e.g. 8xA100-80GB, \"8 x H100\" (`gpuvet gpus` lists them);\n"
    "                       without it (llm-*): the GPUs of the table that fit, fewest per node first\n"
    "  --nodes N            nodes (default 1)\n"
    "  model (llm-*):       --model ID (llama-2/3/3.x/4, qwen2/2.5/3, mistral, mixtral, gemma-2,\n"
    "                       deepseek-v3/r1, gpt-oss; or its Hugging Face name; --list-models lists\n"
    "                       them) | --model-config config.json (MoE too) | --params N (7B)\n"
    "llm-train:\n"
    "  --zero 0|1|2|3       DeepSpeed ZeRO stage (default 2)\n"
    "  --offload none|optimizer|cpu|nvme   optimizer states to CPU; cpu = optimizer and (ZeRO-3)\n"
    "                       parameters to CPU; nvme = ZeRO-Infinity (default none)\n"
    "  --no-zero-init       the model is built whole on every rank (no deepspeed.zero.Init)\n"
    "  --seq N --micro-batch N   sequence length (default 4096) and micro-batch per GPU (default 1)\n"
    "  --recompute none|selective|full  activation checkpointing (default none; full with --finetune,\n"
    "                       as PEFT, Unsloth, LLaMA-Factory and QLoRA run it)\n"
    "  --attention flash|eager           FlashAttention/SDPA keeps no s x s scores (default flash)\n"
    "  --finetune lora|qlora   train low-rank adapters beside frozen bf16 (lora) or 4-bit (qlora) weights\n"
    "  --rank R --lora-targets all|qv    adapter rank (default 16) and matrices (default all linear layers)\n"
    "  --lora-dropout P     dropout on the adapters' input (default 0, PEFT's; LitGPT 0.05): it\n"
    "                       keeps a copy of each adapted matrix's input and its mask\n"
    "llm-infer:\n"
    "  --batch N --context N     concurrent sequences and tokens each (defaults 1, 4096; 8k = 8192)\n"
    "  --allow-long-context   plan a --context beyond the model's maximum (max_position_embeddings\n"
    "                       and its rope_scaling), as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does\n"
    "  --weights bf16|fp16|fp8|int8|int4|fp4   weight precision (default: as the checkpoint ships, else\n"
    "                       bf16; fp4 = NVFP4, on FP4 tensor cores where the GPU has them)\n"
    "  --kv bf16|fp16|fp8   KV cache precision (default bf16)\n"
    "  --gpu-memory-utilization F   the share of each GPU's memory the engine plans with (vLLM's\n"
    "                       option; default %g)\n"
    "  --prompt N           prompt tokens of each request's context, for the tokens/s estimate\n"
    "                       (default half the context)\n"
    "  --rate R             requests per second to serve: the GPUs and nodes they need, and the headroom\n"
    "  --tensor-parallel N  estimate tokens/s for replicas of N GPUs only (default: the split of the\n"
    "                       node with the most tokens/s)\n"
    "cv-train:\n"
    "  --img-rate N         images/s one GPU consumes (default: the table's ResNet-50 figure)\n"
    "  --decode-rate N | --decode-from BENCH.json   images/s one core decodes and augments\n"
    "                       (default %g; BENCH.json: `gpuvet bench decode --json`)\n"
    "  --image-bytes SIZE   average image file size (default ImageNet's %.0f KB)\n"
    "  --dataset-bytes SIZE dataset size, to cache it in host memory (1.2TB, 150GB)\n"
    "\n"
    "  --offers FILE        without --gpus: rank the offers of FILE (the format of `gpuvet cost`) by the\n"
    "                       job's cost, and say which do not fit and why; --fx CUR=RATE converts currencies\n"
    "  --tokens T           llm-train with --offers: tokens trained on (2T); cost = price x hours of\n"
    "                       6 x active parameters x T FLOPs (4 x with --finetune) at dense BF16 x --util\n"
    "                       llm-infer with --offers: output tokens to generate; offers are ranked by the\n"
    "                       estimated cost per million output tokens (plan.throughput), with or without it\n"
    "  --images N           cv-train with --offers: images to process (epochs x dataset, 115M)\n"
    "  --util U             llm-train with --offers: GPU utilisation for offers without a util field\n"
    "                       (0.4 or 40%%; default 1 = peak)\n"
    "  --check [AUDIT.json] compare with a saved `gpuvet audit --json` (or this machine, or --sysroot)\n"
    "  --sysroot DIR        with --check and no file: a recorded machine tree\n"
    "  --bench FILE         with --check (cv-train, llm-train): a `gpuvet bench --json` file for the\n"
    "                       balance of the pipeline's stages (repeatable: memory, storage, decode, pcie)\n"
    "  --json               write the gpuvet.plan/1 JSON document\n"
    "\n"
    "exit status: 0 planned (and --check found nothing short), 1 the asked configuration does not fit\n"
    "(or --check found a shortfall),\n"
    "2 could not plan (bad option, unknown GPU or model, malformed file)\n");

static void print_usage(FILE *out)
{
    const struct thresholds *cv = thresholds_for(WL_CV_TRAIN);
    char *text = NULL;
    if (asprintf(&text, _(usage), INFER_GPU_MEMORY_SHARE, cv->cv_decode_images_s_per_core, cv->cv_image_bytes / 1e3) < 0)
        return;
    print_help(out, text);
    free(text);
}

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

static bool parse_element_bytes(const char *s, bool allow_int4, double *out)
{
    static const struct {
        const char *name;
        double bytes;
    } types[] = {{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5},
                 /* NVFP4: 4-bit values and one FP8 scale per 16 (NVIDIA TensorRT Model Optimizer) */
                 {"fp4", 0.5625}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcasecmp(s, types[i].name) && (allow_int4 || types[i].bytes >= 1)) {
            *out = types[i].bytes;
            return true;
        }
    return false;
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
    O_BENCH,
    O_OFFERS,
    O_TOKENS,
    O_IMAGES,
    O_UTIL,
    O_FX,
    O_PROMPT,
    O_GMU,
    O_RATE,
    O_TP,
    O_LONG_CONTEXT,
    O_LORA_DROPOUT,
    O_LIST_MODELS,
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
        {O_LORA_DROPOUT, 1u << WL_LLM_TRAIN, 1},
        {O_BATCH, 1u << WL_LLM_INFER, 0},
        {O_CONTEXT, 1u << WL_LLM_INFER, 0},
        {O_WEIGHTS, 1u << WL_LLM_INFER, 0},
        {O_KV, 1u << WL_LLM_INFER, 0},
        {O_IMG, 1u << WL_CV_TRAIN, 0},
        {O_DEC, 1u << WL_CV_TRAIN, 0},
        {O_DECFROM, 1u << WL_CV_TRAIN, 0},
        {O_IMGB, 1u << WL_CV_TRAIN, 0},
        {O_DATA, 1u << WL_CV_TRAIN, 0},
        {O_BENCH, 1u << WL_CV_TRAIN | 1u << WL_LLM_TRAIN, 0},
        {O_PROMPT, 1u << WL_LLM_INFER, 0},
        {O_GMU, 1u << WL_LLM_INFER, 0},
        {O_RATE, 1u << WL_LLM_INFER, 0},
        {O_TP, 1u << WL_LLM_INFER, 0},
        {O_LONG_CONTEXT, 1u << WL_LLM_INFER, 0},
        {O_TOKENS, 1u << WL_LLM_TRAIN | 1u << WL_LLM_INFER, 0},
        {O_UTIL, 1u << WL_LLM_TRAIN, 0},
        {O_IMAGES, 1u << WL_CV_TRAIN, 0},
    };
    for (size_t i = 0; i < sizeof scope / sizeof scope[0]; i++) {
        if (!given[scope[i].option])
            continue;
        const char *name = option_name(options, scope[i].option);
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

static int parse_options(int argc, char **argv, struct plan_command *cmd)
{
    struct plan_options *o = &cmd->plan;

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
        {"lora-dropout", required_argument, NULL, O_LORA_DROPOUT},
        {"bench", required_argument, NULL, O_BENCH},
        {"offers", required_argument, NULL, O_OFFERS},
        {"tokens", required_argument, NULL, O_TOKENS},
        {"images", required_argument, NULL, O_IMAGES},
        {"util", required_argument, NULL, O_UTIL},
        {"fx", required_argument, NULL, O_FX},
        {"prompt", required_argument, NULL, O_PROMPT},
        {"gpu-memory-utilization", required_argument, NULL, O_GMU},
        {"allow-long-context", no_argument, NULL, O_LONG_CONTEXT},
        {"rate", required_argument, NULL, O_RATE},
        {"tensor-parallel", required_argument, NULL, O_TP},
        {"json", no_argument, NULL, 'j'},
        {"list-models", no_argument, NULL, O_LIST_MODELS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    plan_options_default(o);
    bool given[O_COUNT] = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "w:g:jh", options, NULL)) != -1) {
        if (c >= O_MODEL && c < O_COUNT)
            given[c] = true;
        switch (c) {
        case O_FINETUNE:
            if (!(finetune_parse(optarg, &o->finetune) || option_invalid("plan", "finetune", optarg, N_("lora or qlora"))))
                return EXIT_CANNOT_RUN;
            break;
        case O_RANK:
            if (!option_int("plan", "rank", optarg, 1, 65536, &o->lora_rank))
                return EXIT_CANNOT_RUN;
            break;
        case O_TARGETS:
            if (strcmp(optarg, "all") && strcmp(optarg, "qv") && !option_invalid("plan", "lora-targets", optarg, N_("all or qv")))
                return EXIT_CANNOT_RUN;
            o->lora_qv_only = !strcmp(optarg, "qv");
            break;
        case 'w':
            if (!(o->workload_set = workload_parse(optarg, &o->workload)) &&
                !option_invalid("plan", "workload", optarg, N_("llm-train, llm-infer or cv-train")))
                return EXIT_CANNOT_RUN;
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
            if (!option_positive("plan", "params", optarg, &o->params))
                return EXIT_CANNOT_RUN;
            if (!(o->params >= 1e6 && o->params < LLM_MAX_PARAMS) &&
                !option_invalid("plan", "params", optarg, N_("a parameter count from 1M to 100T (7B, 70e9)")))
                return EXIT_CANNOT_RUN;
            break;
        case O_NODES:
            if (!option_int("plan", "nodes", optarg, 1, 100000, &o->nodes))
                return EXIT_CANNOT_RUN;
            break;
        case O_ZERO:
            if (!option_int("plan", "zero", optarg, 0, 3, &o->zero.stage))
                return EXIT_CANNOT_RUN;
            break;
        case O_OFFLOAD:
            if (!(offload_parse(optarg, &o->zero.offload) || option_invalid("plan", "offload", optarg, N_("none, optimizer, cpu or nvme"))))
                return EXIT_CANNOT_RUN;
            break;
        case O_NO_INIT:
            o->zero.zero_init = false;
            break;
        case O_SEQ:
            if (!option_tokens("plan", "seq", optarg, 10000000, &o->seq))
                return EXIT_CANNOT_RUN;
            break;
        case O_MB:
            if (!option_int("plan", "micro-batch", optarg, 1, 100000, &o->micro_batch))
                return EXIT_CANNOT_RUN;
            break;
        case O_RECOMPUTE:
            if (!(recompute_parse(optarg, &o->recompute) || option_invalid("plan", "recompute", optarg, N_("none, selective or full"))))
                return EXIT_CANNOT_RUN;
            o->recompute_given = true;
            break;
        case O_ATTN:
            if (strcmp(optarg, "flash") && strcmp(optarg, "eager") && !option_invalid("plan", "attention", optarg, N_("flash or eager")))
                return EXIT_CANNOT_RUN;
            o->flash = !strcmp(optarg, "flash");
            break;
        case O_BATCH:
            o->batch_given = true;
            if (!option_int("plan", "batch", optarg, 1, 1000000, &o->batch))
                return EXIT_CANNOT_RUN;
            break;
        case O_CONTEXT:
            if (!option_tokens("plan", "context", optarg, 100000000, &o->context))
                return EXIT_CANNOT_RUN;
            break;
        case O_WEIGHTS:
            if (!(parse_element_bytes(optarg, true, &o->weight_bytes) ||
                  option_invalid("plan", "weights", optarg, N_("bf16, fp16, fp8, int8, int4 or fp4"))))
                return EXIT_CANNOT_RUN;
            o->weights_given = true;
            break;
        case O_KV:
            if (!(parse_element_bytes(optarg, false, &o->kv_bytes) || option_invalid("plan", "kv", optarg, N_("bf16, fp16 or fp8"))))
                return EXIT_CANNOT_RUN;
            break;
        case O_IMG:
            if (!option_positive("plan", "img-rate", optarg, &o->img_rate))
                return EXIT_CANNOT_RUN;
            break;
        case O_DEC:
            if (!option_positive("plan", "decode-rate", optarg, &o->decode_rate))
                return EXIT_CANNOT_RUN;
            break;
        case O_DECFROM:
            o->decode_from = optarg;
            break;
        case O_IMGB:
            if (!option_bytes("plan", "image-bytes", optarg, &o->image_bytes))
                return EXIT_CANNOT_RUN;
            break;
        case O_DATA:
            if (!option_bytes("plan", "dataset-bytes", optarg, &o->dataset_bytes))
                return EXIT_CANNOT_RUN;
            break;
        case O_CHECK:
            cmd->check = true;
            cmd->check_file = optarg;
            break;
        case O_SYSROOT:
            cmd->sysroot = optarg;
            break;
        case O_OFFERS:
            cmd->offers.file = optarg;
            break;
        case O_TOKENS:
            if (!option_positive("plan", "tokens", optarg, &cmd->offers.tokens))
                return EXIT_CANNOT_RUN;
            break;
        case O_PROMPT:
            if (!option_tokens("plan", "prompt", optarg, 100000000, &o->prompt))
                return EXIT_CANNOT_RUN;
            break;
        case O_LORA_DROPOUT:
            if (!option_fraction("plan", "lora-dropout", optarg, &o->lora_dropout))
                return EXIT_CANNOT_RUN;
            break;
        case O_LONG_CONTEXT:
            o->allow_long_context = true;
            break;
        case O_GMU:
            if (!option_fraction("plan", "gpu-memory-utilization", optarg, &o->gpu_memory_utilization))
                return EXIT_CANNOT_RUN;
            break;
        case O_RATE:
            if (!option_positive("plan", "rate", optarg, &o->rate))
                return EXIT_CANNOT_RUN;
            break;
        case O_TP:
            if (!option_int("plan", "tensor-parallel", optarg, 1, 1024, &o->tensor_parallel))
                return EXIT_CANNOT_RUN;
            break;
        case O_IMAGES:
            if (!option_positive("plan", "images", optarg, &cmd->offers.images))
                return EXIT_CANNOT_RUN;
            break;
        case O_UTIL:
            if (!option_fraction("plan", "util", optarg, &cmd->offers.util))
                return EXIT_CANNOT_RUN;
            break;
        case O_FX:
            if (!fx_add(&cmd->offers.fx, optarg)) {
                option_invalid("plan", "fx", optarg, fx_hint);
                return EXIT_CANNOT_RUN;
            }
            break;
        case O_BENCH:
            if (cmd->nbench == BALANCE_MAX_BENCH)
                return fail(_("--bench %s: at most %d bench files"), optarg, BALANCE_MAX_BENCH);
            cmd->bench[cmd->nbench++] = optarg;
            break;
        case 'j':
            cmd->json = true;
            break;
        case 'h':
            print_usage(stdout);
            return -1;
        case O_LIST_MODELS:
            /* the built-in models and the Hugging Face repository each comes from (shell completion
             * reads the first column) */
            for (int i = 0; llm_builtin_ids[i]; i++) {
                struct llm_shape m;
                char repo[256];
                if (llm_builtin(llm_builtin_ids[i], &m) && llm_builtin_repo(&m, repo, sizeof repo))
                    printf("%s\t%s\n", llm_builtin_ids[i], repo);
            }
            return -1;
        default:
            return option_error(options, argv);
        }
    }
    /* `--check FILE` (with a space) leaves FILE as the one operand. */
    if (cmd->check && !cmd->check_file && optind + 1 == argc)
        cmd->check_file = argv[optind++];
    if (optind < argc)
        return fail(_("unexpected argument '%s'"), argv[optind]);
    if (!o->workload_set || !(o->workload == WL_LLM_TRAIN || o->workload == WL_LLM_INFER || o->workload == WL_CV_TRAIN))
        return fail("%s", _("--workload llm-train, llm-infer or cv-train is required"));
    if (cmd->offers.file && (o->gpus || cmd->check))
        return fail("%s", _("--offers ranks the GPUs of its offers: leave out --gpus and --check"));
    for (int k = O_TOKENS; k <= O_FX; k++)
        if (given[k] && !cmd->offers.file)
            return fail(_("--%s goes with --offers FILE"), option_name(options, k));
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
    int rc = check_options_apply(o, given, options);
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
    int rc = parse_options(argc, argv, &cmd);
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
