/* The English words the Chinese reports once kept: a finding's subject ("machine", "socket 0"), where
 * the data tables came from ("built-in"), the parts evidence files lack, the HTML page's footer,
 * topology picture and DIMM grid. The JSON keeps the English subject. */
#include <criterion/criterion.h>
#include <string.h>

#include "testutil.h"

#define MIC_TREE "sysroot/32em64t-2n8c+1mic"

Test(i18n_report_words, subjects_and_data_tables_are_chinese_in_the_text_report)
{
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(MIC_TREE), "--sample", "0", "--verbose", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "MEM_DIMMS_MIXED 整机：8 条相同的内存"), "%s", r.out);
    cr_expect(strstr(r.out, "MEM_CHANNELS_UNDERPOPULATED CPU 插槽 1："), "%s", r.out);
    cr_expect(strstr(r.out, "gpus.csv 内置"), "%s", r.out);
    cr_expect_null(strstr(r.out, " machine："), "%s", r.out);
    cr_expect_null(strstr(r.out, "built-in"), "%s", r.out);
    run_result_free(&r);

    r = run_gpuvet("audit", "--sysroot", fixture(MIC_TREE), "--sample", "0", "--json", "--lang", "zh", NULL);
    cr_expect(strstr(r.out, "\"subject\": \"socket 1\"") && strstr(r.out, "\"subject\": \"machine\""), "%s", r.out);
    run_result_free(&r);
}

Test(i18n_report_words, the_parts_evidence_files_lack_are_named_in_chinese)
{
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--nvidia-smi",
                                     GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/pai-2x-rtx2080ti-ecc-na.xml", "--sample", "0", NULL);
    cr_assert_lt(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.out, "证据文件中没有：CPU、NUMA 节点、存储、网络、内核、虚拟化"), "%s", r.out);
    /* "ECC n/a" (a consumer GPU): the value is Chinese too (the line may wrap inside it). */
    cr_expect(strstr(r.out, "，ECC 不适") && !strstr(r.out, "ECC n/a"), "%s", r.out);
    cr_expect_null(strstr(r.out, "storage, network"), "%s", r.out);
    run_result_free(&r);
}

Test(i18n_report_words, the_html_page_and_the_markdown_ticket_have_no_english_frame)
{
    struct run_result r =
        run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(MIC_TREE), "--sample", "0", "--html", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *english[] = {"Written by gpuvet", "machine topology", "link at its max", "degraded link",
                             ">empty<", "gpuvet audit of", ">Machine", "<code>machine</code>"};
    for (size_t i = 0; i < sizeof english / sizeof *english; i++)
        cr_expect_null(strstr(r.out, english[i]), "'%s' left in the Chinese page", english[i]);
    cr_expect(strstr(r.out, "由 gpuvet 生成") && strstr(r.out, "aria-label=\"整机拓扑\"") &&
                  strstr(r.out, "<code>CPU 插槽 0</code>"),
              "the Chinese page's frame is missing");
    run_result_free(&r);

    r = run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(MIC_TREE), "--sample", "0", "--markdown", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "| MEM_DIMMS_MIXED | 整机 |"), "%s", r.out);
    cr_expect_null(strstr(r.out, "| machine |"), "%s", r.out);
    run_result_free(&r);
}
