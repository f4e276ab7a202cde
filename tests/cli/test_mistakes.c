/* Helpful mistakes: a misspelt command or option names the closest one; explain takes --help and
 * rule prefixes; a folder given where a file is expected says so. */
#include <criterion/criterion.h>
#include <string.h>

#include "testutil.h"

Test(mistakes, misspelt_command_gets_did_you_mean)
{
    struct run_result r = run_gpuvet("audi", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown command 'audi'; did you mean audit?"), "%s", r.err);
    run_result_free(&r);
}

Test(mistakes, unrelated_command_lists_the_commands)
{
    struct run_result r = run_gpuvet("frobnicate", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown command 'frobnicate'\n") && strstr(r.err, "  snapshot "), "%s", r.err);
    run_result_free(&r);
}

Test(mistakes, misspelt_option_names_the_closest_not_the_usage)
{
    struct run_result r = run_gpuvet("audit", "--sysrot", "/tmp", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet audit: unknown option --sysrot; did you mean --sysroot?"), "%s", r.err);
    cr_expect(strstr(r.err, "did you mean --sysroot?"), "%s", r.err);
    cr_expect_null(strstr(r.err, "usage:"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("plan", "--workload=llm-train", "--nodez", "8", NULL);
    cr_expect(strstr(r.err, "did you mean --nodes?"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("gpus", "--jsno", NULL);
    cr_expect(strstr(r.err, "did you mean --json?"), "%s", r.err);
    run_result_free(&r);
}

Test(mistakes, version_is_in_the_help)
{
    struct run_result r = run_gpuvet("--help", NULL);
    cr_expect(strstr(r.out, "--version"), "%s", r.out);
    run_result_free(&r);
}

Test(mistakes, explain_help_and_prefix)
{
    struct run_result r = run_gpuvet("explain", "--help", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: gpuvet explain") && strstr(r.out, "workloads: general"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("explain", "PCIE", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "PCIE_LINK_DEGRADED ") && strstr(r.out, "PCIE_SLOT_CAPPED "), "%s", r.out);
    cr_expect_null(strstr(r.out, "MEM_"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("explain", "PCIE_LINK_DEGARDED", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "did you mean PCIE_LINK_DEGRADED?"), "%s", r.err);
    run_result_free(&r);
}

/* Each option that reads a file, given a folder. */
Test(mistakes, folder_where_a_file_is_expected)
{
    const char *const cases[][8] = {
        {"audit", "--claim", "/tmp", NULL},
        {"audit", "--nvidia-smi", "/tmp", NULL},
        {"audit", "--dmidecode", "/tmp", NULL},
        {"audit", "--dmi-table", "/tmp", NULL},
        {"audit", "--sample", "0", "--bench", "/tmp", NULL},
        {"cost", "/tmp", NULL},
        {"plan", "--workload", "cv-train", "--gpus", "8xA100-80GB", "--check", "/tmp", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i];
        struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        cr_expect_eq(r.status, 2, "%s %s", a[0], a[1]);
        cr_expect(strstr(r.err, "/tmp: ") && strstr(r.err, "Is a directory"), "%s %s: %s", a[0], a[1], r.err);
        run_result_free(&r);
    }
}
