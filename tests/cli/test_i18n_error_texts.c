/* Error and reason texts that were built in English only, now in the catalogue: a bench document
 * that is not one (audit --bench, plan --bench), a benchmark the document skipped, an offer's util
 * of 0, an --output pattern, a tensor-parallel split vLLM refuses, and the CUDA loader's failure.
 * Each is Chinese with --lang zh, its English gone, the English run says what it said before, and
 * the JSON of the same run is the English run's bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"
#define QUICK_BENCH GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-quick.json"
#define DECODE_BENCH GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-decode.json"

static char *temp_file(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "/tmp/gpuvet-i18n-texts-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* The recorded quick bench document with one change made by a Python expression on `d`. */
static char *changed_bench(const char *name, const char *change)
{
    static char path[128];
    snprintf(path, sizeof path, "/tmp/gpuvet-i18n-texts-%d-%s", (int)getpid(), name);
    char command[1024];
    snprintf(command, sizeof command,
             "python3 -c 'import json; d = json.load(open(\"%s\")); %s; json.dump(d, open(\"%s\", \"w\"))'",
             QUICK_BENCH, change, path);
    int status;
    free(run_shell(command, &status));
    cr_assert_eq(status, 0, "%s", command);
    return path;
}

/* audit --bench FILE fails in both languages with the sentence given. */
static void expect_bench_error(const char *file, const char *chinese, const char *english)
{
    struct run_result zh = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--bench", file, NULL);
    struct run_result en = run_gpuvet("audit", "--sysroot", fixture(TREE), "--bench", file, NULL);
    char want[512];
    snprintf(want, sizeof want, "gpuvet audit: %s：%s", file, chinese);
    cr_expect_eq(zh.status, 2, "%s", zh.err);
    cr_expect(strstr(zh.err, want), "want '%s' in:\n%s", want, zh.err);
    cr_expect_null(strstr(zh.err, english), "'%s' left in English:\n%s", english, zh.err);
    snprintf(want, sizeof want, "gpuvet audit: %s: %s", file, english);
    cr_expect_eq(en.status, 2, "%s", en.err);
    cr_expect(strstr(en.err, want), "want '%s' in:\n%s", want, en.err);
    run_result_free(&zh);
    run_result_free(&en);
    unlink(file);
}

Test(i18n_error_texts, a_bench_document_that_is_not_one_is_named_in_chinese)
{
    expect_bench_error(temp_file("schema.json", "{\"schema\": \"x\"}"),
                       "不是 gpuvet bench 文档（schema 为 \"x\"，应为 gpuvet.bench/1）",
                       "not a gpuvet bench document (schema is \"x\", expected gpuvet.bench/1)");
    expect_bench_error(temp_file("noschema.json", "{}"), "不是 gpuvet bench 文档（缺少 schema，应为 gpuvet.bench/1）",
                       "not a gpuvet bench document (schema is missing, expected gpuvet.bench/1)");
    expect_bench_error(temp_file("nobench.json", "{\"schema\": \"gpuvet.bench/1\"}"),
                       "缺少 \"benchmarks\"，或它不是对象", "\"benchmarks\" is missing or not an object");
    expect_bench_error(changed_bench("triad.json", "d[\"benchmarks\"][\"memory\"][\"triad_bytes_s\"] = -1"),
                       "benchmarks.memory.triad_bytes_s 有误，不是正数",
                       "benchmarks.memory.triad_bytes_s is wrong, not a positive number");
    expect_bench_error(changed_bench("bus.json", "d[\"benchmarks\"][\"pcie\"] = [{\"bus_id\": \"zz\"}]"),
                       "benchmarks.pcie[0].bus_id 缺失或不是 PCI 地址",
                       "benchmarks.pcie[0].bus_id is missing or not a PCI address");
}

Test(i18n_error_texts, what_the_bench_did_not_measure_is_chinese_and_the_json_english)
{
    char *file = changed_bench("skipped.json", "d[\"benchmarks\"][\"memory\"] = {\"skipped\": \"the hwloc topology could "
                                               "not be loaded, so threads cannot be pinned\"}; "
                                               "del d[\"benchmarks\"][\"storage\"]");
    struct run_result zh = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--bench", file, NULL);
    char *text = text_unwrapped(zh.out, "");
    cr_expect(strstr(text, "内存：memory 已跳过：无法加载 hwloc 拓扑，因此无法绑定线程"), "%s", zh.out);
    cr_expect(strstr(text, "MEM_BANDWIDTH_LOW 整机：memory 已跳过："), "%s", zh.out);
    cr_expect(strstr(text, "存储：bench 没有运行 storage"), "%s", zh.out);
    cr_expect_null(strstr(zh.out, "was skipped"), "%s", zh.out);
    cr_expect_null(strstr(zh.out, "did not run"), "%s", zh.out);
    free(text);
    run_result_free(&zh);

    struct run_result en = run_gpuvet("audit", "--sysroot", fixture(TREE), "--bench", file, "--json", NULL);
    zh = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--bench", file, "--json", NULL);
    char *en_json = run_json_without_timing(&en), *zh_json = run_json_without_timing(&zh);
    cr_expect_str_eq(zh_json, en_json);
    cr_expect(strstr(en_json, "\"memory_unmeasured\": \"memory was skipped: the hwloc topology could not be loaded"),
              "%s", en_json);
    cr_expect(strstr(en_json, "\"storage_unmeasured\": \"the bench did not run storage\""), "%s", en_json);
    free(en_json);
    free(zh_json);
    run_result_free(&en);
    run_result_free(&zh);
    unlink(file);
}

Test(i18n_error_texts, plan_and_cost_texts_are_chinese)
{
    char *offers = temp_file("offers.json", "[{\"name\": \"x\", \"gpu\": \"h100\", \"count\": 8, \"price_per_hour\": 10, "
                                            "\"util\": 0}]");
    struct run_result r = run_gpuvet("--lang", "zh", "cost", offers, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "util 必须是 (0, 1] 之间的比例（0 表示 GPU 没有做任何工作"), "%s", r.err);
    cr_expect_null(strstr(r.err, "did no work"), "%s", r.err);
    run_result_free(&r);
    unlink(offers);

    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-infer", "--model", "llama-2-7b", "--gpus",
                   "3xh100-sxm5-80gb", NULL);
    char *text = text_unwrapped(r.out, "");
    cr_expect(strstr(text, "32 个注意力头无法被张量并行度 3 整除（vLLM 会拒绝）"), "%s", r.out);
    cr_expect_null(strstr(r.out, "do not divide"), "%s", r.out);
    free(text);
    run_result_free(&r);
    struct run_result en = run_gpuvet("plan", "--workload", "llm-infer", "--model", "llama-2-7b", "--gpus",
                                      "3xh100-sxm5-80gb", "--json", NULL);
    struct run_result zh = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-infer", "--model", "llama-2-7b",
                                      "--gpus", "3xh100-sxm5-80gb", "--json", NULL);
    cr_expect_str_eq(zh.out, en.out);
    cr_expect(strstr(en.out, "32 attention heads do not divide over tensor parallelism 3 (vLLM refuses it)"), "%s",
              en.out);
    run_result_free(&en);
    run_result_free(&zh);

    char *bench = changed_bench("decode.json", "d[\"benchmarks\"][\"decode\"] = {\"images_s_per_core\": 0}");
    r = run_gpuvet("--lang", "zh", "plan", "--workload", "cv-train", "--gpus", "8xa100-sxm4-80gb", "--check",
                   "--sysroot", fixture(TREE), "--bench", bench, NULL);
    char want[256];
    snprintf(want, sizeof want, "gpuvet plan: --bench %s：benchmarks.decode.images_s_per_core 缺失或不是正数", bench);
    cr_expect(strstr(r.err, want), "want '%s' in:\n%s", want, r.err);
    run_result_free(&r);
    unlink(bench);
}

Test(i18n_error_texts, output_patterns_are_refused_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--output", "x%q", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "gpuvet audit: --output “x%q”：% 后面只能跟 %h（短主机名）或 %%"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--output", "", NULL);
    cr_expect(strstr(r.err, "gpuvet audit: --output 文件名为空"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sysroot", fixture(TREE), "--output", "x%q", NULL);
    cr_expect(strstr(r.err, "gpuvet audit: --output 'x%q': only %h (short host name) and %% may follow a %"), "%s",
              r.err);
    run_result_free(&r);
}

/* bench pcie on this machine with the stand-in NVML (tests/mock) listing two GPUs and a libcuda that
 * cannot be loaded: the skip reason is gpuvet's sentence in Chinese around the loader's own words,
 * and --json keeps the English. */
Test(i18n_error_texts, a_cuda_library_that_cannot_load_is_said_in_chinese)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml", 1);
    setenv("GPUVET_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
    struct run_result zh = run_gpuvet("--lang", "zh", "bench", "pcie", NULL);
    cr_expect(strstr(zh.out, "已跳过：CUDA 驱动不可用：无法加载 /nonexistent/libcuda.so.1："), "%s%s", zh.out, zh.err);
    cr_expect_null(strstr(zh.out, "cannot load"), "%s", zh.out);
    run_result_free(&zh);
    struct run_result en = run_gpuvet("bench", "pcie", "--json", NULL);
    zh = run_gpuvet("--lang", "zh", "bench", "pcie", "--json", NULL);
    cr_expect(strstr(en.out, "\"skipped\": \"CUDA driver not usable: cannot load /nonexistent/libcuda.so.1: "),
              "%s%s", en.out, en.err);
    cr_expect(strstr(zh.out, "\"skipped\": \"CUDA driver not usable: cannot load /nonexistent/libcuda.so.1: "),
              "%s%s", zh.out, zh.err);
    cr_expect_null(strstr(zh.out, "无法"), "%s", zh.out);
    run_result_free(&en);
    run_result_free(&zh);
    unsetenv("GPUVET_CUDA_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    unsetenv("GPUVET_NVML_LIBRARY");
}
