/* The rest of gpuvet's English in Chinese output: option errors (ours, not getopt's), every
 * command's "gpuvet CMD：" prefix, the model-config and input-file errors, the GPU table's lookup
 * note, plan --check's balance formulas and a replayed watch timeline's saved sentences. Each is
 * Chinese with --lang zh, its English sentence gone, and the JSON of the same run stays the English
 * run's bytes. Messages from glibc's own catalogue (strerror) are not checked: whether they are
 * Chinese depends on the machine's locales. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"
#define DECODE_BENCH GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-decode.json"
#define SLOW_PRODUCER GPUVET_TEST_SOURCE "/fixtures/watch/h200-slow-producer.watch.json"
#define DMON_H200 GPUVET_TEST_SOURCE "/fixtures/watch/h200-dmon-pucvmet.log"

static void expect_err(const struct run_result *r, const char *chinese, const char *english_gone)
{
    cr_expect_eq(r->status, 2, "%s", r->err);
    cr_expect(strstr(r->err, chinese), "want '%s' in:\n%s", chinese, r->err);
    cr_expect_null(strstr(r->err, english_gone), "'%s' left in English:\n%s", english_gone, r->err);
}

Test(i18n_errors, option_errors_are_ours_in_both_languages)
{
    struct run_result r = run_gpuvet("--lang", "zh", "plan", "--modle", "x", NULL);
    expect_err(&r, "gpuvet plan: 未知选项 --modle；你是不是想用 --model？", "unrecognized");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "plan", "--model", NULL);
    expect_err(&r, "gpuvet plan: --model 需要一个值", "requires an argument");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "plan", "-w", NULL);
    expect_err(&r, "gpuvet plan: -w（--workload）需要一个值", "requires an argument");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "gpus", "--json=yes", NULL);
    expect_err(&r, "gpuvet gpus: --json 不接受值", "doesn't allow");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "audit", "--s", "/", NULL);
    expect_err(&r, "gpuvet audit: --s 有歧义：--sysroot, --sample", "ambiguous");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "fleet", "-q", NULL);
    expect_err(&r, "gpuvet fleet: 未知选项 -q（gpuvet fleet --help 会列出所有选项）", "invalid option");
    cr_expect_null(strstr(r.err, "用法"), "one line, not the usage: %s", r.err);
    run_result_free(&r);
    /* The values an option takes are translated too; the names in them stay. */
    r = run_gpuvet("--lang", "zh", "plan", "--recompute", "some", NULL);
    expect_err(&r, "gpuvet plan: --recompute some：应为 none、selective 或 full", " or full");
    run_result_free(&r);

    r = run_gpuvet("plan", "--model", NULL);
    expect_err(&r, "gpuvet plan: --model needs a value  (gpuvet plan --help lists the options)", "requires");
    run_result_free(&r);
    r = run_gpuvet("compare", "--jsno", NULL);
    expect_err(&r, "gpuvet compare: unknown option --jsno; did you mean --json?", "unrecognized");
    run_result_free(&r);
    r = run_gpuvet("health", "--fail-on-warn=1", NULL);
    expect_err(&r, "gpuvet health: --fail-on-warn takes no value", "doesn't allow");
    run_result_free(&r);
}

static char *temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gpuvet-i18n-errors-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

Test(i18n_errors, model_config_and_input_files_name_the_file_in_chinese)
{
    const char *plan[] = {"--lang", "zh", "plan", "--workload", "llm-train", "--gpus", "8xh100-sxm5-80gb",
                          "--model-config"};
    char *config = temp_file("{\"hidden_size\": 4096}");
    struct run_result r = run_gpuvet(plan[0], plan[1], plan[2], plan[3], plan[4], plan[5], plan[6], plan[7], config,
                                     NULL);
    char want[256];
    snprintf(want, sizeof want, "gpuvet plan: %s：配置中没有 \"num_hidden_layers\"", config);
    expect_err(&r, want, "in the config");
    run_result_free(&r);
    temp_file("{\"num_hidden_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32, "
              "\"intermediate_size\": 11008, \"vocab_size\": 32000, \"num_key_value_heads\": 5}");
    r = run_gpuvet(plan[0], plan[1], plan[2], plan[3], plan[4], plan[5], plan[6], plan[7], config, NULL);
    expect_err(&r, "num_attention_heads（32）不是 num_key_value_heads（5）的整数倍", "is not a multiple");
    run_result_free(&r);
    temp_file("not json");
    r = run_gpuvet(plan[0], plan[1], plan[2], plan[3], plan[4], plan[5], plan[6], plan[7], config, NULL);
    /* jansson's English text is not shown: gpuvet's own sentence, with jansson's token kept. */
    expect_err(&r, "不是有效的 JSON：第 1 行第 3 列：此处应为 '{' 或 '['（“not”附近）", "expected");
    run_result_free(&r);
    unlink(config);

    r = run_gpuvet(plan[0], plan[1], plan[2], plan[3], plan[4], plan[5], plan[6], plan[7], "/dev/null", NULL);
    expect_err(&r, "gpuvet plan: /dev/null：不是普通文件（而是 FIFO、设备或套接字）", "not a regular file");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "cost", "/dev/null", NULL);
    expect_err(&r, "gpuvet cost: /dev/null：不是普通文件", "not a regular file");
    run_result_free(&r);
    /* A folder where a file is expected: the message names it (strerror's words are libc's). */
    r = run_gpuvet("--lang", "zh", "cost", "/tmp", NULL);
    expect_err(&r, "gpuvet cost: /tmp：", "gpuvet cost：");
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "--data", "/tmp", "gpus", NULL);
    expect_err(&r, "（--data 文件夹必须包含所有数据表；去掉 --data 即使用内置的数据表）", "must hold every table");
    cr_expect(strstr(r.err, "gpuvet: /tmp/"), "%s", r.err);
    run_result_free(&r);
}

/* The same command (args, NULL-terminated, at most 12) with --json, in English and in Chinese: the
 * same bytes. */
static void expect_same_json(const char *const *args)
{
    const char *en[16] = {0}, *zh[16] = {"--lang", "zh"};
    size_t n = 0;
    for (; args[n] && n < 12; n++)
        en[n] = zh[n + 2] = args[n];
    en[n] = zh[n + 2] = "--json";
    struct run_result a = run_gpuvet(en[0], en[1], en[2], en[3], en[4], en[5], en[6], en[7], en[8], en[9], en[10],
                                     en[11], en[12], en[13], NULL);
    struct run_result b = run_gpuvet(zh[0], zh[1], zh[2], zh[3], zh[4], zh[5], zh[6], zh[7], zh[8], zh[9], zh[10],
                                     zh[11], zh[12], zh[13], zh[14], zh[15], NULL);
    cr_expect_eq(a.status, b.status, "%s %s", args[0], args[1]);
    cr_expect(*a.out == '{' || *a.out == '[', "%s %s: %s%s", args[0], args[1], a.out, a.err);
    cr_expect_str_eq(a.out, b.out, "%s %s", args[0], args[1]);
    run_result_free(&a);
    run_result_free(&b);
}

Test(i18n_errors, gpu_note_and_balance_formulas_are_chinese_and_the_json_is_english)
{
    struct run_result r = run_gpuvet("--lang", "zh", "gpus", "h100", NULL);
    cr_expect(strstr(r.out, "“h100”对应 3 个型号（h100-sxm5-80gb, h100-pcie-80gb, h100-nvl-94gb）；已选 h100-sxm5-80gb"),
              "%s", r.out);
    cr_expect_null(strstr(r.out, "names 3 parts"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "gpus", "h10", NULL);
    expect_err(&r, "gpuvet gpus: 未知 GPU“h10”；最接近的：", "closest:");
    run_result_free(&r);
    expect_same_json((const char *const[]){"gpus", "h100", "a100", NULL});
    expect_same_json((const char *const[]){"plan", "--workload", "llm-train", "--model", "llama-3-8b", "--gpus",
                                           "8xH100", NULL});

    r = run_gpuvet("--lang", "zh", "plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check",
                   "--sysroot", fixture(TREE), "--bench", DECODE_BENCH, NULL);
    cr_expect(strstr(r.out, "      = (16 个核心 - 4 个训练进程 - 4 个留给操作系统) x 每核心 146.2 images/s\n"), "%s",
              r.out);
    cr_expect(strstr(r.out, "      = 4 个 GPU x 2470 images/s\n"), "%s", r.out);
    cr_expect(strstr(r.out, "个 GPU x 12.45 GB/s / 每个样本 602112 B"), "%s", r.out);
    for (const char *const *e = (const char *const[]){"GPU(s)", "per core", "per sample", "for the OS", NULL}; *e; e++)
        cr_expect_null(strstr(r.out, *e), "'%s' left in English:\n%s", *e, r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-train", "--model", "llama-3-8b", "--gpus",
                   "4xa100-sxm4-80gb", "--check", "--sysroot", fixture(TREE), NULL);
    cr_expect(strstr(r.out, "每个 token 的 FLOPs") && strstr(r.out, "x 32 层 x 4096 序列长度"), "%s", r.out);
    for (const char *const *e = (const char *const[]){"tokens per step", "FLOPs per token", "layers x", NULL}; *e; e++)
        cr_expect_null(strstr(r.out, *e), "'%s' left in English:\n%s", *e, r.out);
    run_result_free(&r);
    expect_same_json((const char *const[]){"plan", "--workload", "llm-train", "--model", "llama-3-8b", "--gpus",
                                           "4xa100-sxm4-80gb", "--check", "--sysroot", fixture(TREE), NULL});
}

Test(i18n_errors, a_replayed_timeline_shows_its_saved_sentences_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "watch", "--replay", SLOW_PRODUCER, NULL);
    cr_expect(strstr(r.out, "  作业在 26.1 s 后结束：退出码 0\n"), "%s", r.out);
    cr_expect(strstr(r.out, "诊断  命令：python3 "), "%s", r.out);
    cr_expect_null(strstr(r.out, "the job ended"), "%s", r.out);
    cr_expect_null(strstr(r.out, "command: "), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "watch", "--replay", DMON_H200, NULL);
    cr_expect(strstr(r.out, "未观测到主机侧：nvidia-smi dmon 日志只记录 GPU"), "%s", r.out);
    cr_expect_null(strstr(r.out, "records only the GPUs"), "%s", r.out);
    run_result_free(&r);
    /* English stays as saved. */
    r = run_gpuvet("watch", "--replay", SLOW_PRODUCER, NULL);
    cr_expect(strstr(r.out, "  the job ended after 26.1 s: exit status 0\n"), "%s", r.out);
    run_result_free(&r);
}

/* The GPU table's notes and confidence words are data, put in the catalogue by update-po.sh. */
Test(i18n_errors, gpu_table_notes_are_chinese_and_the_json_keeps_the_table_text)
{
    struct run_result zh = run_gpuvet("--lang", "zh", "gpus", "v100-sxm2-32gb", NULL);
    cr_expect_eq(zh.status, 0, "%s", zh.err);
    cr_expect(strstr(zh.out, "高；Tensor = FP16 乘 / FP32 累加；Volta 不支持 TF32/BF16/FP8/稀疏"), "%s", zh.out);
    cr_expect_null(strstr(zh.out, "Volta has no"), "%s", zh.out);
    run_result_free(&zh);
    struct run_result zh_json = run_gpuvet("--lang", "zh", "gpus", "--json", "v100-sxm2-32gb", NULL);
    struct run_result en_json = run_gpuvet("gpus", "--json", "v100-sxm2-32gb", NULL);
    cr_expect_str_eq(zh_json.out, en_json.out);
    cr_expect(strstr(en_json.out, "Volta has no TF32/BF16/FP8/sparsity"), "%s", en_json.out);
    run_result_free(&zh_json);
    run_result_free(&en_json);
}
