/* Simplified Chinese for watch, bench, gpus and explain (gpuvet --lang zh): the text people read
 * is Chinese, without the English sentences it replaces, and the JSON of the same run stays
 * English and identical to the English run's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/width.h"

#define SLOW_PRODUCER GPUVET_TEST_SOURCE "/fixtures/watch/h200-slow-producer.watch.json"
#define DMON_1080TI GPUVET_TEST_SOURCE "/fixtures/watch/dmon-pucvmet-1080ti.log"

static char *temp_path(const char *name)
{
    char *path;
    cr_assert(asprintf(&path, "/tmp/gpuvet-i18n-wb-%d-%s", (int)getpid(), name) > 0);
    return path;
}

/* The file's text, removed afterwards. */
static char *take_file(const char *path)
{
    size_t len;
    char *text = file_contents(path, &len);
    cr_assert_not_null(text, "%s", path);
    unlink(path);
    return text;
}

Test(i18n_watch_bench, watch_diagnosis_in_chinese_and_its_json_identical_to_english)
{
    char *en_path = temp_path("en.json"), *zh_path = temp_path("zh.json");
    struct run_result en =
        run_gpuvet("--lang", "en", "watch", "--replay", SLOW_PRODUCER, "--json", "--output", en_path, NULL);
    struct run_result zh_json =
        run_gpuvet("--lang", "zh", "watch", "--replay", SLOW_PRODUCER, "--json", "--output", zh_path, NULL);
    cr_expect_eq(zh_json.status, 0, "%s", zh_json.err);
    run_result_free(&zh_json);
    struct run_result zh = run_gpuvet("--lang", "zh", "watch", "--replay", SLOW_PRODUCER, NULL);
    cr_expect_eq(zh.status, 0, "%s", zh.err);
    cr_expect(strstr(zh.out, "诊断"), "%s", zh.out);
    cr_expect(strstr(zh.out, "  警告  LAUNCH_BOUND — 瓶颈在训练进程的主线程；可解释 86% 的 GPU 时间"), "%s", zh.out);
    cr_expect(strstr(zh.out, "pid 690 的主线程平均需要 1.00 个核心，发生在 GPU 等待期间（SM 低于 80%）"), "%s",
              zh.out);
    cr_expect(strstr(zh.out, "修复：更大的批次"), "%s", zh.out);
    cr_expect(strstr(zh.out, "前 7 个采样间隔在 GPU 出现任何活动之前"), "%s", zh.out);
    static const char *const english[] = {"Diagnosis", "fix: ", "the main thread of pid", "explains ",
                                          "start-up and not judged", "gpuvet explain ID says"};
    for (size_t i = 0; i < sizeof english / sizeof english[0]; i++)
        cr_expect_null(strstr(zh.out, english[i]), "'%s' left in English:\n%s", english[i], zh.out);
    /* The English run is the JSON's: the same bytes whatever the language. */
    char *a = take_file(en_path), *b = take_file(zh_path);
    cr_expect_str_eq(a, b);
    cr_expect(strstr(b, "the main thread of pid 690 wanted 1.00 of a core on average"), "%s", b);
    free(a);
    free(b);
    free(en_path);
    free(zh_path);
    run_result_free(&en);
    run_result_free(&zh);
}

Test(i18n_watch_bench, watch_unknowns_and_lines_fit_100_columns)
{
    struct run_result r = run_gpuvet("--lang", "zh", "watch", "--replay", DMON_1080TI, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "  未知 INPUT_CPU_BOUND：未观测到主机侧："), "%s", r.out);
    cr_expect(strstr(r.out, "在可观测的范围内没有发现瓶颈"), "%s", r.out);
    /* Long lines wrap at 100 display columns, as the audit's text does. */
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"))
        cr_expect_leq(display_width(line), 100, "%zu columns: %s", display_width(line), line);
    run_result_free(&r);
}

/* A live watch of a short command: the end, the target and why the GPUs were not seen come in
 * Chinese on the terminal and in English in the JSON. */
Test(i18n_watch_bench, live_watch_says_how_the_job_ended_in_chinese)
{
    unsetenv("GPUVET_NVML_LIBRARY");
    char *json = temp_path("live.json");
    struct run_result saved = run_gpuvet("--lang", "zh", "watch", "--interval", "0.3", "--json", "--output", json, "--",
                                         "sh", "-c", "sleep 1", NULL);
    cr_expect_eq(saved.status, 0, "%s", saved.err);
    run_result_free(&saved);
    struct run_result r = run_gpuvet("--lang", "zh", "watch", "--interval", "0.3", "--", "sh", "-c", "sleep 1", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "命令：sh -c sleep 1"), "%s", r.err);
    cr_expect(strstr(r.err, "s 后结束：退出码 0"), "%s", r.err);
    cr_expect_null(strstr(r.err, "the job ended"), "%s", r.err);
    char *text = take_file(json);
    json_error_t error;
    json_t *doc = json_loads(text, 0, &error);
    cr_assert_not_null(doc, "%s", error.text);
    cr_expect(!strncmp(json_string_value(json_object_get(doc, "end")), "the job ended after ", 20), "%s", text);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "target")), "command: sh -c sleep 1");
    const char *unseen = json_string_value(json_object_get(doc, "gpu_unseen"));
    if (unseen && !strncmp(unseen, "no NVIDIA GPU on the PCI bus", 28))
        cr_expect(strstr(r.err, "PCI 总线上没有 NVIDIA GPU"), "%s", r.err);
    for (const char *p = text; *p; p++)
        cr_expect((unsigned char)*p < 0x80, "the JSON holds non-ASCII text: %s", text);
    json_decref(doc);
    free(text);
    free(json);
    run_result_free(&r);
}

Test(i18n_watch_bench, watch_errors_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "watch", "--pid", "2147483646", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet watch: 没有进程 2147483646（/proc/2147483646/stat："), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "watch", "--", "/nonexistent/trainer", NULL);
    cr_expect_eq(r.status, 127);
    cr_expect(strstr(r.err, "无法运行“/nonexistent/trainer”"), "%s", r.err);
    run_result_free(&r);
    /* Option values and a misspelt option: the shared checks speak Chinese too. */
    r = run_gpuvet("--lang", "zh", "watch", "--interval", "x", "--", "true", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet watch: --interval x：应为 (0, 10000000] 范围内的秒数"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "watch", "--intervl", "2", "--", "true", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "你是不是想用 --interval？"), "%s", r.err);
    cr_expect_null(strstr(r.err, "用法："), "a misspelt option names the closest one, not the usage: %s", r.err);
    run_result_free(&r);
}

/* A benchmark that cannot run says why in Chinese; its JSON says it in English, as the English run. */
Test(i18n_watch_bench, bench_skip_reason_in_chinese_and_json_identical_to_english)
{
    struct run_result zh = run_gpuvet("--lang", "zh", "bench", "storage", "--file", "/nonexistent/shard", NULL);
    cr_expect_eq(zh.status, 2);
    cr_expect(strstr(zh.out, "storage\n  已跳过：/nonexistent/shard："), "%s", zh.out);
    cr_expect_null(strstr(zh.out, "skipped"), "%s", zh.out);
    cr_expect_null(strstr(zh.out, "No such file"), "strerror in Chinese too: %s", zh.out);
    run_result_free(&zh);
    struct run_result en = run_gpuvet("--lang", "en", "bench", "storage", "--file", "/nonexistent/shard", "--json", NULL);
    zh = run_gpuvet("--lang", "zh", "bench", "storage", "--file", "/nonexistent/shard", "--json", NULL);
    json_t *a = run_json(&en), *b = run_json(&zh);
    json_object_del(a, "started");
    json_object_del(b, "started");
    char *ta = json_dumps(a, JSON_SORT_KEYS), *tb = json_dumps(b, JSON_SORT_KEYS);
    cr_expect_str_eq(ta, tb);
    cr_expect(strstr(tb, "\"skipped\": \"/nonexistent/shard: No such file or directory\""), "%s", tb);
    free(ta);
    free(tb);
    json_decref(a);
    json_decref(b);
    run_result_free(&en);
    run_result_free(&zh);
}

Test(i18n_watch_bench, bench_results_usage_and_errors_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "bench", "jitter", "--seconds", "0.3", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "次唤醒：p50 ") && strstr(r.out, "被抢占"), "%s", r.out);
    cr_expect_null(strstr(r.out, "wake-ups"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "bench", "--help", NULL);
    cr_expect(strstr(r.out, "用法：gpuvet bench") && strstr(r.out, "退出码：0 已测量"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "bench", "nosuch", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet bench: 没有名为“nosuch”的测试"), "%s", r.err);
    run_result_free(&r);
}

/* The column of the n-th cell (cells are separated by runs of spaces) of line, in display columns. */
static size_t cell_column(const char *line, int n)
{
    const char *p = line;
    for (int i = 0; i < n; i++) {
        p += strcspn(p, " ");
        p += strspn(p, " ");
    }
    return display_width_n(line, (size_t)(p - line));
}

Test(i18n_watch_bench, gpus_headers_in_chinese_line_up_with_the_rows)
{
    struct run_result en = run_gpuvet("--lang", "en", "gpus", NULL);
    struct run_result zh = run_gpuvet("--lang", "zh", "gpus", NULL);
    cr_expect_eq(zh.status, 0);
    char *zh_header = strtok(zh.out, "\n");
    cr_assert_not_null(zh_header);
    cr_expect(strstr(zh_header, "显存") && strstr(zh_header, "带宽") && strstr(zh_header, "卡间互联"), "%s", zh_header);
    char *en_header = strtok(en.out, "\n");
    cr_assert_not_null(en_header);
    /* Every header cell ends (right-aligned) or starts (left-aligned) where the English one does. */
    cr_expect_eq(display_width(zh_header), display_width(en_header), "%s\n%s", zh_header, en_header);
    for (int cell = 3; cell < 9; cell++)
        cr_expect_eq(cell_column(zh_header, cell), cell_column(en_header, cell), "cell %d:\n%s\n%s", cell, zh_header,
                     en_header);
    run_result_free(&en);
    run_result_free(&zh);
    en = run_gpuvet("--lang", "en", "gpus", "h100", "--json", NULL);
    zh = run_gpuvet("--lang", "zh", "gpus", "h100", "--json", NULL);
    cr_expect_str_eq(en.out, zh.out);
    run_result_free(&en);
    run_result_free(&zh);
}

Test(i18n_watch_bench, explain_names_the_severities_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "explain", "GPU_BOUND", NULL);
    cr_expect(strstr(r.out, "general=提示") && strstr(r.out, "hpc=提示"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "explain", "INPUT_IO_BOUND", NULL);
    cr_expect(strstr(r.out, "cv-train=警告"), "%s", r.out);
    run_result_free(&r);
}
