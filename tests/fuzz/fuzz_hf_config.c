/* libFuzzer target: a Hugging Face config.json as `plan --model-config FILE` reads it, then every
 * plan that reads the shape (llm-infer on one and on eight GPUs, llm-train, LoRA fine-tuning), so
 * that what the parser lets through reaches the arithmetic. Seeds: the .config.json files in
 * tests/fixtures/plan/. */
#include "fuzz_file.h"
#include "sizing/models.h"
#include "sizing/plan.h"

int fuzz_hf_config_one(const uint8_t *data, size_t size);

static void plan_with(const char *path, enum workload w, const char *gpus, enum finetune finetune)
{
    struct plan p = {0};
    plan_options_default(&p.opt);
    p.opt.workload = w;
    p.opt.workload_set = true;
    p.opt.gpus = gpus;
    p.opt.model_config = path;
    p.opt.finetune = finetune;
    p.opt.allow_long_context = true;
    if (plan_prepare(&p) == 0)
        plan_make(&p);
    plan_free(&p);
}

int fuzz_hf_config_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    struct llm_shape shape;
    char err[512];
    if (llm_from_hf_config(path, &shape, err, sizeof err) != 0)
        return 0;
    kv_bytes_per_token(&shape, 2);
    plan_with(path, WL_LLM_INFER, "H100", FINETUNE_NONE);
    plan_with(path, WL_LLM_INFER, "8xH100", FINETUNE_NONE);
    plan_with(path, WL_LLM_TRAIN, "8xH100", FINETUNE_NONE);
    plan_with(path, WL_LLM_TRAIN, "A100-40GB", FINETUNE_QLORA);
    return 0;
}

FUZZ_ENTRY(fuzz_hf_config_one)
