/* gpuvet plan's memory, context limits and model names as users meet them: the built binary on
 * hostile config.json files, contexts beyond a model's maximum, and the names people type. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
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

/* tests/references/plan-memory-references.tsv: each row's published figure against gpuvet's, memory
 * within +-15 %, a verdict exactly; a row outside is a listed miss (its known_miss column holds
 * gpuvet's figure). The test fails when a row leaves its band unlisted, or a listed miss comes back
 * inside (then the list is out of date). The score of each part goes to the test's output. */
#define REFERENCES GPUVET_TEST_SOURCE "/references/plan-memory-references.tsv"
#define MEMORY_BAND 0.15
#define GIB_BYTES (1024.0 * 1024.0 * 1024.0)

static json_t *json_path(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *key = strtok_r(buf, ".", &save); key && o; key = strtok_r(NULL, ".", &save))
        o = json_object_get(o, key);
    return o;
}

/* Runs `gpuvet plan ARGS --json`; *verdict is "refused" (exit 2), "fits" or "does not fit"; the
 * quantity at path in *value (NAN when absent). */
static void run_reference(const char *args, const char *path, double *value, char *verdict, size_t verdict_len)
{
    char *argv[32] = {"plan"};
    int argc = 1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", args);
    char *save = NULL;
    for (char *a = strtok_r(buf, " ", &save); a && argc < 29; a = strtok_r(NULL, " ", &save))
        argv[argc++] = a;
    argv[argc++] = "--json";
    argv[argc] = NULL;
    char command[2048] = "";
    for (int i = 0; i < argc; i++)
        snprintf(command + strlen(command), sizeof command - strlen(command), "%s ", argv[i]);
    struct run_result r = {0};
    /* run_gpuvet takes a NULL-terminated list: up to 24 arguments here */
    r = run_gpuvet(argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8], argv[9], argv[10],
                   argv[11], argv[12], argv[13], argv[14], argv[15], argv[16], argv[17], argv[18], argv[19], argv[20],
                   argv[21], argv[22], argv[23], NULL);
    *value = NAN;
    if (r.status == 2) {
        snprintf(verdict, verdict_len, "refused");
        run_result_free(&r);
        return;
    }
    cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", command, r.status, r.err);
    json_t *doc = run_json(&r), *plan = plan_of(doc);
    json_t *fits = json_path(plan, "gpu_memory.fits");
    snprintf(verdict, verdict_len, "%s", json_is_true(fits) ? "fits" : "does not fit");
    json_t *v = json_path(plan, path);
    if (json_is_number(v))
        *value = json_number_value(v);
    json_decref(doc);
    run_result_free(&r);
}

Test(plan_memory, published_references_hold_or_are_listed_misses)
{
    FILE *f = fopen(REFERENCES, "r");
    cr_assert_not_null(f, REFERENCES);
    char line[4096];
    int right[2] = {0, 0}, rows[2] = {0, 0}, listed = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strncmp(line, "id\t", 3))
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *col[10] = {0}, *save = NULL, *p = line;
        int n = 0;
        /* strsep keeps empty columns (an empty known_miss) */
        while (n < 10 && (col[n] = strsep(&p, "\t")) != NULL)
            n++;
        (void)save;
        cr_assert_eq(n, 10, "%s: %d columns", col[0], n);
        const char *id = col[0], *part = col[1], *kind = col[2], *args = col[3], *path = col[4], *published = col[5],
                   *unit = col[6], *miss = col[9];
        int k = !strcmp(part, "check");
        cr_assert(k || !strcmp(part, "fit"), "%s: part %s", id, part);
        double value;
        char verdict[32];
        run_reference(args, path, &value, verdict, sizeof verdict);
        bool in_band;
        char figure[64];
        if (!strcmp(kind, "fit")) {
            in_band = !strcmp(verdict, published);
            snprintf(figure, sizeof figure, "%s", verdict);
        } else {
            cr_assert(!strcmp(unit, "GiB") || !strcmp(unit, "GB"), "%s: unit %s", id, unit);
            double scale = !strcmp(unit, "GiB") ? GIB_BYTES : 1e9, want = atof(published);
            cr_assert(!isnan(value), "%s: no %s in the plan (%s)", id, path, verdict);
            double ratio = value / scale / want;
            in_band = fabs(ratio - 1) <= MEMORY_BAND;
            snprintf(figure, sizeof figure, "%.2f %s (%+.0f %%)", value / scale, unit, (ratio - 1) * 100);
        }
        rows[k]++;
        right[k] += in_band;
        listed += miss[0] != '\0';
        cr_log_info("%-40s %-5s published %-12s gpuvet %s%s", id, part, published, figure, in_band ? "" : "  MISS");
        if (in_band)
            cr_expect_eq(miss[0], '\0', "%s: listed as a miss (%s) but gpuvet's %s is inside the band: update the list",
                         id, miss, figure);
        else
            cr_expect_neq(miss[0], '\0', "%s: gpuvet %s against %s %s, outside the band and not listed", id, figure,
                          published, unit);
    }
    fclose(f);
    cr_log_info("plan memory references: fit part %d of %d right, check part %d of %d right, %d listed misses",
                right[0], rows[0], right[1], rows[1], listed);
    cr_assert_gt(rows[0] + rows[1], 0);
}

/* Model names as people type them: Hugging Face repository ids with or without the owner and
 * -Instruct, other spellings of the same name; a typo gets a "did you mean" in one short line (the
 * old error listed every id in 646 characters); an -FP8 repository says how to plan its weights. */
Test(plan_memory, model_names_as_people_type_them)
{
    const struct {
        const char *typed, *id;
    } names[] = {
        {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"},
        {"llama3.1-70b", "llama-3.1-70b"},
        {"llama-3-70b-instruct", "llama-3-70b"},
        {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"},
        {"Llama_3.1_8B", "llama-3.1-8b"},
        {"Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"},
        {"google/gemma-2-9b-it", "gemma-2-9b"},
        {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
        {"meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"},
        {"openai/gpt-oss-120b", "gpt-oss-120b"},
        {"LLAMA-3.1-405B-INSTRUCT-FP8", "llama-3.1-405b-instruct-fp8"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model", names[i].typed, "--gpus",
                                         "8xh200", "--json", NULL);
        cr_expect(r.status == 0 || r.status == 1, "%s: exit %d, %s", names[i].typed, r.status, r.err);
        if (r.status == 0 || r.status == 1) {
            json_t *doc = run_json(&r), *model = json_object_get(plan_of(doc), "model");
            cr_expect_str_eq(json_string_value(json_object_get(model, "id")), names[i].id, "%s", names[i].typed);
            json_decref(doc);
        }
        run_result_free(&r);
    }
    const struct {
        const char *typed, *said;
    } unknown[] = {
        {"lama-3.1-8b", "did you mean llama-3.1-8b?"},
        {"qwen3-8", "did you mean qwen3-8b?"},
        {"Qwen/Qwen3-235B-A22B-FP8", "--model qwen3-235b-a22b --weights fp8"},
        {"falcon-180b", "--model-config"},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        struct run_result r = run_gpuvet("plan", "--workload", "llm-infer", "--model", unknown[i].typed, "--gpus",
                                         "8xh200", NULL);
        cr_expect_eq(r.status, 2, "%s", unknown[i].typed);
        cr_expect(strstr(r.err, unknown[i].said), "%s: %s", unknown[i].typed, r.err);
        cr_expect_lt(strlen(r.err), 260, "one short line: %s", r.err);
        run_result_free(&r);
    }
}
