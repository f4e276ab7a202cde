/* gpuvet plan's memory, context limits and model names as users meet them: the built binary on
 * hostile config.json files, contexts beyond a model's maximum, and the names people type. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define PLAN_FIXTURE(name) GPUVET_TEST_SOURCE "/fixtures/plan/" name
#define FUZZ_KEPT(name) GPUVET_TEST_SOURCE "/fuzz/regressions/hf_config/" name

static json_t *plan_of(json_t *doc)
{
    json_t *plan = json_object_get(doc, "plan");
    cr_assert(json_is_object(plan));
    return plan;
}

static double number_at(json_t *obj, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(obj, a), b);
    cr_assert(json_is_number(v), "%s.%s is not a number", a, b);
    return json_number_value(v);
}

/* A config with head_dim 0 used to plan "largest batch -9223372036854775808" (a division by zero
 * cast to long); hidden_size below num_attention_heads made the same head_dim of 0. Both are now
 * refused, exit 2, naming the file and the field. */
Test(plan_memory, head_dim_zero_is_refused_naming_file_and_field)
{
    const char *files[] = {FUZZ_KEPT("head-dim-zero.json"), FUZZ_KEPT("hidden-below-heads.json")};
    for (size_t i = 0; i < 2; i++) {
        struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model-config", files[i], "--gpus",
                                         "h100-sxm5-80gb", NULL);
        cr_expect_eq(r.status, 2, "%s: exit %d, %s", files[i], r.status, r.out);
        cr_expect(strstr(r.err, files[i]) && strstr(r.err, "\"head_dim\" must be an integer from 1 to"), "%s", r.err);
        cr_expect(!strstr(r.out, "-9223372036854775808"), "%s", r.out);
        run_result_free(&r);
    }
}

/* Every integer a config gives is bounded; one beyond its range is named with the range. */
Test(plan_memory, each_field_out_of_range_is_named)
{
    const struct {
        const char *json, *named;
    } cases[] = {
        {"\"num_hidden_layers\": 3000", "\"num_hidden_layers\" must be an integer from 1 to 2048"},
        {"\"vocab_size\": 0", "\"vocab_size\" must be an integer from 1 to"},
        {"\"num_key_value_heads\": -1", "\"num_key_value_heads\" must be an integer from 1 to"},
        {"\"max_position_embeddings\": 0", "\"max_position_embeddings\" must be an integer from 1 to"},
        {"\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 1e9}", "rope_scaling \"factor\" must be"},
        {"\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4}", "\"original_max_position_embeddings\""},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[] = "/tmp/gpuvet-plan-memory-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        FILE *f = fdopen(fd, "w");
        fprintf(f,
                "{\"model_type\": \"llama\", \"num_hidden_layers\": 32, \"hidden_size\": 4096, "
                "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, "
                "\"vocab_size\": 128256, \"max_position_embeddings\": 8192, %s}",
                cases[c].json);
        fclose(f);
        struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model-config", path, "--gpus",
                                         "h100-sxm5-80gb", NULL);
        cr_expect_eq(r.status, 2, "%s: exit %d", cases[c].json, r.status);
        cr_expect(strstr(r.err, path) && strstr(r.err, cases[c].named), "%s: %s", cases[c].json, r.err);
        run_result_free(&r);
        unlink(path);
    }
}

/* vLLM refuses a max_model_len beyond the config's (vllm/config.py, _get_and_verify_max_len):
 * Llama-3.1-8B takes 131072 tokens, Gemma-2-9B 8192 (its config.json), gpt-oss 4096 x YaRN 32. */
Test(plan_memory, context_beyond_the_model_is_refused_with_its_maximum)
{
    const struct {
        const char *model_flag, *model, *context, *maximum;
    } cases[] = {
        {"--model", "llama-3.1-8b", "500k", "at most 131072 tokens"},
        {"--model-config", PLAN_FIXTURE("gemma-2-9b.config.json"), "32k", "at most 8192 tokens"},
        {"--model-config", PLAN_FIXTURE("gpt-oss-120b.config.json"), "200k", "at most 131072 tokens"},
        {"--model", "llama-2-7b", "8k", "at most 4096 tokens"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", cases[c].model_flag, cases[c].model,
                                         "--gpus", "8xh100-sxm5-80gb", "--context", cases[c].context, NULL);
        cr_expect_eq(r.status, 2, "%s: exit %d", cases[c].model, r.status);
        cr_expect(strstr(r.err, cases[c].maximum) && strstr(r.err, "--allow-long-context"), "%s: %s", cases[c].model,
                  r.err);
        run_result_free(&r);
    }
    /* Asked explicitly, it is planned, and the plan says it is beyond the model. */
    struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model", "llama-3.1-8b", "--gpus",
                                     "8xh100-sxm5-80gb", "--context", "500k", "--allow-long-context", "--json", NULL);
    cr_expect(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "--allow-long-context was given"), "%s", r.out);
    run_result_free(&r);
}

/* "longest context 1,314,062 tokens" for Llama-3.1-70B: the KV room at batch 1 is bounded by the
 * model's 131072 (max_position_embeddings), unless --allow-long-context. */
Test(plan_memory, longest_context_stops_at_the_model_maximum)
{
    struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model", "llama-3.1-70b", "--gpus",
                                     "8xh200", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r), *plan = plan_of(doc);
    cr_expect_eq(number_at(plan, "kv_cache", "max_context_at_batch"), 131072);
    cr_expect_eq(number_at(plan, "model", "max_context"), 131072);
    json_decref(doc);
    run_result_free(&r);
}
