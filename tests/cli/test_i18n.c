/* Simplified Chinese (gpuvet --lang zh, or LANG=zh_CN.UTF-8): findings, fixes, rationale, help and
 * the text report are Chinese, through the catalogue built from po/zh_CN.po; the JSON of the same
 * run stays English and identical to the English run; a bad --lang is an error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"

Test(i18n, lang_zh_prints_findings_fixes_and_headings_in_chinese)
{
    struct run_result r =
        run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--sample", "0", "--workload", "cv-train", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    /* Headings, a rule's finding with its numbers, its fix, and a severity label. */
    cr_expect(strstr(r.out, "各工作负载的结论"), "%s", r.out);
    cr_expect(strstr(r.out, "4 张加速卡（共 5 条链路）位于 PCIe 交换芯片 0000:18:00.0"), "%s", r.out);
    cr_expect(strstr(r.out, "修复：把数据密集的作业分散到不同的交换芯片下"), "%s", r.out);
    cr_expect(strstr(r.out, "  警告 PCIE_UPLINK_SHARED"), "%s", r.out);
    /* Rule IDs, workloads and units stay as they are. */
    cr_expect(strstr(r.out, "CPU_CORES_PER_GPU") && strstr(r.out, "cv-train") && strstr(r.out, "GB/s"), "%s", r.out);
    cr_expect_null(strstr(r.out, "Worst problems"), "%s", r.out);
    cr_expect_null(strstr(r.out, "fix: "), "%s", r.out);
    run_result_free(&r);
}

Test(i18n, json_stays_english_and_identical_to_the_english_run)
{
    struct run_result en = run_gpuvet("--lang", "en", "audit", "--sysroot", fixture(TREE), "--sample", "0", "--json", NULL);
    struct run_result zh = run_gpuvet("audit", "--sysroot", fixture(TREE), "--sample", "0", "--json", "--lang", "zh", NULL);
    cr_expect_eq(en.status, zh.status);
    char *a = run_json_without_timing(&en), *b = run_json_without_timing(&zh);
    cr_expect_str_eq(a, b);
    cr_expect(strstr(b, "behind switch 0000:18:00.0 share one Gen3 x16 uplink"), "%s", b);
    free(a);
    free(b);
    run_result_free(&en);
    run_result_free(&zh);
}

Test(i18n, lang_from_the_environment_without_a_generated_locale)
{
    /* zh_CN.UTF-8 need not exist on the machine: gpuvet reads the name, not the locale. */
    int status;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 '%s' explain PCIE_LINK_DEGRADED", GPUVET_BIN);
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect(strstr(out, "适用时的严重程度"), "%s", out);
    cr_expect(strstr(out, "链路宽度在链路训练时就已"), "%s", out);
    free(out);
    /* LC_ALL wins over LANG, as in every program. */
    snprintf(cmd, sizeof cmd, "env LC_ALL=C LANG=zh_CN.UTF-8 '%s' explain PCIE_LINK_DEGRADED", GPUVET_BIN);
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "severity when it applies"), "%s", out);
    free(out);
}

Test(i18n, explain_fills_the_thresholds_into_the_chinese_rationale)
{
    struct run_result r = run_gpuvet("--lang", "zh", "explain", "CPU_STEAL", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "CPU_STEAL — 虚拟化层占用 CPU 时间"), "%s", r.out);
    cr_expect_null(strstr(r.out, "{general."), "%s", r.out);
    run_result_free(&r);
}

Test(i18n, help_and_errors_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "--help", NULL);
    cr_expect(strstr(r.out, "用法：gpuvet") && strstr(r.out, "找出这台服务器"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang=zh", "audit", "--help", NULL);
    cr_expect(strstr(r.out, "--sysroot DIR") && strstr(r.out, "一台录制的机器（DIR/sys"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "audi", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "未知命令“audi”；你是不是想用 audit？"), "%s", r.err);
    run_result_free(&r);
}

Test(i18n, unknown_language_is_an_error)
{
    struct run_result r = run_gpuvet("--lang", "fr", "gpus", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--lang wants zh or en, not 'fr'"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("gpus", "--lang", NULL);
    cr_expect_eq(r.status, 2);
    run_result_free(&r);
}

Test(i18n, html_and_markdown_pages_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--sample", "0", "--html", "-",
                                     NULL);
    cr_expect(strstr(r.out, "<html lang=\"zh-CN\">") && strstr(r.out, "<h2>需要修复的问题</h2>"), "%s", r.out);
    cr_expect(strstr(r.out, "共用一条 Gen3 x16 上行链路"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(TREE), "--sample", "0", "--markdown", "-", NULL);
    cr_expect(strstr(r.out, "## 需要修复的问题") && strstr(r.out, "| 严重程度 | 规则 |"), "%s", r.out);
    run_result_free(&r);
}

Test(i18n, installed_binary_finds_its_catalogue_under_share_locale)
{
    char prefix[] = "/tmp/gpuvet-i18n-XXXXXX";
    cr_assert(mkdtemp(prefix));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cmake --install '%s' --prefix '%s' >/dev/null && test -f '%s/share/locale/zh_CN/LC_MESSAGES/gpuvet.mo' && "
             "env -u GPUVET_LOCALE_DIR '%s/bin/gpuvet' --lang zh gpus --help",
             GPUVET_BUILD_DIR, prefix, prefix, prefix);
    int status;
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect(strstr(out, "用法：gpuvet gpus"), "%s", out);
    free(out);
    tree_remove(prefix);
}
