/* gpuvet plan and cost in Simplified Chinese (--lang zh): the text's headings, steps, reasons,
 * tables, help and errors are Chinese, with none of their English sentences left; the JSON of the
 * same run is byte-identical to the English run (its sentences are written in English). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"
#define OFFERS GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.csv"
#define TWO_CURRENCIES GPUVET_TEST_SOURCE "/fixtures/plan/offers-two-currencies.csv"
#define DECODE_BENCH GPUVET_TEST_SOURCE "/fixtures/bench/vm-epyc-2vcpu-decode.json"

/* English sentences of plan and cost's text (marked for translation) that must not survive. */
static const char *const english[] = {
    "Requirements per node", "Where common rules of thumb", "A common rule of thumb", "per node as asked",
    "GB per GPU", "does NOT fit", "Check against", "Balance per node", "Offers of ", "Do not fit",
    "PRICE/HOUR", "NAME ", "no utilisation given", "Dense figures only", "ranked apart", "What to rent",
    "the job runs at its slowest stage", "physical cores", "estimate: ", "Job: ", "-- prices in",
};

static void expect_chinese(const char *what, const struct run_result *r)
{
    cr_expect(r->status == 0 || r->status == 1, "%s: exit %d: %s", what, r->status, r->err);
    cr_expect(strstr(r->out, "每") || strstr(r->out, "的"), "%s: no Chinese: %s", what, r->out);
    for (size_t i = 0; i < sizeof english / sizeof english[0]; i++)
        cr_expect_null(strstr(r->out, english[i]), "%s: '%s' left in English:\n%s", what, english[i], r->out);
}

Test(i18n_plan, plan_text_is_chinese_for_every_workload)
{
    struct run_result r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-train", "--model", "llama-3-8b",
                                     "--gpus", "8xh100-sxm5-80gb", NULL);
    expect_chinese("llm-train", &r);
    cr_expect(strstr(r.out, "每节点需求："), "%s", r.out);
    cr_expect(strstr(r.out, "  显存            每 GPU 59.2 GB"), "%s", r.out);
    cr_expect(strstr(r.out, "  每节点 CPU 核心            36"), "%s", r.out);
    /* Workload names, rule IDs, option names and units stay as they are. */
    cr_expect(strstr(r.out, "llm-train") && strstr(r.out, "CPU_CORES_PER_GPU") && strstr(r.out, "GB"), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-infer", "--model", "llama-3.1-8b", "--gpus",
                   "h100-sxm5-80gb", NULL);
    expect_chinese("llm-infer", &r);
    cr_expect(strstr(r.out, "KV 缓存") && strstr(r.out, "吞吐量"), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-train", "--model", "llama-3-70b", "--gpus",
                   "2xl40s-pcie-48gb", NULL);
    expect_chinese("llm-train that does not fit", &r);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "放不下") && strstr(r.out, "建议"), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-infer", "--model", "llama-3.1-8b", NULL);
    expect_chinese("what to rent", &r);
    cr_expect(strstr(r.out, "该租什么"), "%s", r.out);
    run_result_free(&r);
}

Test(i18n_plan, check_and_balance_are_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "plan", "--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb",
                                     "--check", "--sysroot", fixture(TREE), "--bench", DECODE_BENCH, NULL);
    expect_chinese("cv-train --check", &r);
    cr_expect(strstr(r.out, "  不足    CPU 核心                 需要 76             实有 16"), "%s", r.out);
    cr_expect(strstr(r.out, "瓶颈在解码"), "%s", r.out);
    /* The balance's stage names are the JSON's identifiers. */
    cr_expect(strstr(r.out, "> cpu_decode"), "%s", r.out);
    run_result_free(&r);
}

Test(i18n_plan, offers_and_cost_are_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-train", "--model", "llama-3-8b",
                                     "--offers", OFFERS, "--tokens", "2T", NULL);
    expect_chinese("plan --offers", &r);
    cr_expect(strstr(r.out, "放不下的报价："), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("--lang", "zh", "cost", TWO_CURRENCIES, NULL);
    expect_chinese("cost", &r);
    cr_expect(strstr(r.out, "-- 以 CNY 计价"), "%s", r.out);
    cr_expect(strstr(r.out, "#   名称                     GPU              数量   每小时价格 利用率"), "%s", r.out);
    run_result_free(&r);
}

/* The same run with --json, in English and in Chinese: the documents are the same bytes. */
static void expect_same_json(const char *what, const char *const *args)
{
    const char *en[24] = {0}, *zh[24] = {"--lang", "zh"};
    size_t n = 0;
    for (; args[n]; n++) {
        en[n] = args[n];
        zh[n + 2] = args[n];
    }
    en[n] = zh[n + 2] = "--json";
    struct run_result a = run_gpuvet(en[0], en[1], en[2], en[3], en[4], en[5], en[6], en[7], en[8], en[9], en[10],
                                     en[11], en[12], en[13], NULL);
    struct run_result b = run_gpuvet(zh[0], zh[1], zh[2], zh[3], zh[4], zh[5], zh[6], zh[7], zh[8], zh[9], zh[10],
                                     zh[11], zh[12], zh[13], zh[14], zh[15], NULL);
    cr_expect_eq(a.status, b.status, "%s", what);
    cr_expect(*a.out == '{', "%s: %s%s", what, a.out, a.err);
    cr_expect_str_eq(a.out, b.out, "%s", what);
    cr_expect_null(strstr(b.out, "每"), "%s", what);
    run_result_free(&a);
    run_result_free(&b);
}

Test(i18n_plan, json_stays_english_and_identical)
{
    const char *train[] = {"plan", "--workload", "llm-train", "--model", "llama-3-8b", "--gpus", "2xl40s-pcie-48gb",
                           NULL};
    const char *infer[] = {"plan", "--workload", "llm-infer", "--model", "llama-3.1-8b", "--gpus", "H100", NULL};
    const char *check[] = {"plan",    "--workload", "cv-train",      "--gpus",  "4xa100-sxm4-80gb",
                           "--check", "--sysroot",  fixture(TREE),   "--bench", DECODE_BENCH,
                           NULL};
    const char *offers[] = {"plan", "--workload", "llm-train", "--model", "llama-3-8b", "--offers", OFFERS,
                            "--tokens", "2T", NULL};
    const char *rent[] = {"plan", "--workload", "llm-infer", "--model", "llama-3.1-8b", NULL};
    const char *cost[] = {"cost", OFFERS, "--params", "7B", "--tokens", "2T", NULL};
    expect_same_json("llm-train", train);
    expect_same_json("llm-infer", infer);
    expect_same_json("cv-train --check", check);
    expect_same_json("plan --offers", offers);
    expect_same_json("what to rent", rent);
    expect_same_json("cost", cost);
}

Test(i18n_plan, help_and_errors_are_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "plan", "--help", NULL);
    cr_expect(strstr(r.out, "用法：gpuvet plan") && strstr(r.out, "退出码"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "cost", "--help", NULL);
    cr_expect(strstr(r.out, "用法：gpuvet cost"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "plan", "--workload", "cv-train", "--gpus", "1xl4", "--sysroot", "/", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet plan: --sysroot 要与 --check 一起用"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "cost", OFFERS, "--util", "0.5", "--util-from", OFFERS, NULL);
    cr_expect(strstr(r.err, "gpuvet cost: --util 和 --util-from 只能给一个"), "%s", r.err);
    run_result_free(&r);
    /* An error the plan itself finds: with --json the plan is made in English, and made again for
     * the message, which is the user's. */
    r = run_gpuvet("--lang", "zh", "plan", "--workload", "llm-infer", "--params", "7B", "--gpus", "H100", "--json", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "llm-infer 需要层数和 KV 头数来计算 KV 缓存"), "%s", r.err);
    cr_expect_str_eq(r.out, "");
    run_result_free(&r);
}
