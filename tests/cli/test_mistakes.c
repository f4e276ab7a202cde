/* Helpful mistakes: a misspelt command or option names the closest one; explain takes --help and
 * rule prefixes; a folder given where a file is expected says so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One misspelt option per command `gpuvet --help` lists: a command added without a row here fails. */
Test(mistakes, every_command_names_the_closest_option)
{
    static const char *const cases[][3] = {
        {"audit", "--sysrot", "--sysroot"},       {"bench", "--secnds", "--seconds"},
        {"explain", "--hepl", "--help"},          {"snapshot", "--redcat", "--redact"},
        {"gpus", "--jsno", "--json"},             {"plan", "--nodez", "--nodes"},
        {"health", "--fail-on-wran", "--fail-on-warn"}, {"cost", "--precison", "--precision"},
        {"fleet", "--tolerence", "--tolerance"},  {"compare", "--markdwon", "--markdown"},
        {"watch", "--intervall", "--interval"},
    };
    size_t ncases = sizeof cases / sizeof cases[0];
    struct run_result help = run_gpuvet("--help", NULL);
    int commands = 0;
    for (char *line = strtok(help.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        if (strncmp(line, "  ", 2) || line[2] < 'a' || line[2] > 'z' || sscanf(line, "  %63[a-z] ", name) != 1)
            continue;
        commands++;
        size_t i = 0;
        while (i < ncases && strcmp(cases[i][0], name))
            i++;
        cr_assert_lt(i, ncases, "no misspelt option tried for gpuvet %s", name);
        struct run_result r = run_gpuvet(cases[i][0], cases[i][1], NULL);
        char want[128];
        snprintf(want, sizeof want, "gpuvet %s: unknown option %s; did you mean %s?", cases[i][0], cases[i][1], cases[i][2]);
        cr_expect_eq(r.status, 2, "gpuvet %s %s", cases[i][0], cases[i][1]);
        cr_expect(strstr(r.err, want), "want '%s', got: %s", want, r.err);
        cr_expect_null(strstr(r.err, "usage:"), "gpuvet %s %s printed the usage: %s", cases[i][0], cases[i][1], r.err);
        run_result_free(&r);
    }
    cr_expect_eq(commands, (int)ncases);
    run_result_free(&help);
}

Test(mistakes, misspelt_global_option_names_the_closest)
{
    struct run_result r = run_gpuvet("--verison", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet: unknown option --verison; did you mean --version?"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("--dta", "/tmp", "gpus", NULL);
    cr_expect(strstr(r.err, "did you mean --data?"), "%s", r.err);
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

/* Each option that reads or writes a file, and each file operand, given a folder. */
Test(mistakes, folder_where_a_file_is_expected)
{
#define TREE "TREE" /* replaced by the recorded H200 VM's tree */
#define SRC GPUVET_TEST_SOURCE "/fixtures/"
    const char *const cases[][12] = {
        {"audit", "--claim", "/tmp", NULL},
        {"audit", "--nvidia-smi", "/tmp", NULL},
        {"audit", "--dmidecode", "/tmp", NULL},
        {"audit", "--dmi-table", "/tmp", NULL},
        {"audit", "--sample", "0", "--bench", "/tmp", NULL},
        {"audit", "--sample", "0", "--sysroot", TREE, "--html", "/tmp", NULL},
        {"audit", "--sample", "0", "--sysroot", TREE, "--markdown", "/tmp", NULL},
        {"audit", "--sample", "0", "--sysroot", TREE, "--json", "--output", "/tmp", NULL},
        {"audit", "--sample", "0", "--sysroot", TREE, "--prom", "/tmp", NULL},
        {"health", "--sysroot", TREE, "--prom", "/tmp", NULL},
        {"bench", "jitter", "--seconds", "0.05", "--output", "/tmp", NULL},
        {"snapshot", "--tar", "/tmp", NULL},
        {"cost", "/tmp", NULL},
        {"cost", SRC "plan/offers-seed.csv", "--util-from", "/tmp", NULL},
        {"plan", "--workload", "cv-train", "--gpus", "8xA100-80GB", "--check", "/tmp", NULL},
        {"plan", "--workload", "cv-train", "--gpus", "8xA100-80GB", "--check", "--sysroot", TREE, "--bench", "/tmp", NULL},
        {"plan", "--workload", "llm-train", "--params", "7B", "--offers", "/tmp", NULL},
        {"plan", "--workload", "llm-train", "--model-config", "/tmp", NULL},
        {"fleet", "--html", "/tmp", "AUDIT", NULL},
        {"fleet", "--markdown", "/tmp", "AUDIT", NULL},
        {"compare", "--html", "/tmp", "AUDIT", "AUDIT", NULL},
        {"compare", "--markdown", "/tmp", "AUDIT", "AUDIT", NULL},
        {"watch", "--replay", "/tmp", NULL},
        {"watch", "--json", "--output", "/tmp", "--replay", SRC "watch/dmon-pucvmet-1080ti.log", NULL},
    };
    char tree[4096];
    snprintf(tree, sizeof tree, "%s", fixture("sysroot/h200-firecracker-vm"));
    char *audit = saved_audit("sysroot/h200-firecracker-vm");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[12] = {0};
        for (size_t k = 0; k < 12 && cases[i][k]; k++)
            a[k] = !strcmp(cases[i][k], TREE) ? tree : !strcmp(cases[i][k], "AUDIT") ? audit : cases[i][k];
        struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
        cr_expect_eq(r.status, 2, "%s %s", a[0], a[1]);
        cr_expect(strstr(r.err, "/tmp: ") && strstr(r.err, "Is a directory"), "case %zu, %s %s: %s", i, a[0], a[1], r.err);
        run_result_free(&r);
    }
    unlink(audit);
    free(audit);
#undef TREE
#undef SRC
}

/* A --data folder whose table is empty or only comments (a cut-off copy) is refused by name, not an
 * audit whose CPU "is not in the table". */
Test(mistakes, empty_table_in_data_folder_is_an_error_naming_it)
{
    char dir[] = "/tmp/gpuvet-empty-tables-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s'/data/*.csv '%s' && printf '# header only\\n\\n' > '%s/cpu-platforms.csv'",
             GPUVET_TEST_SOURCE "/..", dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    struct run_result r = run_gpuvet("--data", dir, "audit", "--sample", "0", "--sysroot",
                                     fixture("sysroot/32intel64-2p8co2t+8ve"), NULL);
    char want[512];
    snprintf(want, sizeof want, "gpuvet: %s/cpu-platforms.csv: holds no rows", dir);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, want), "want '%s', got: %s", want, r.err);
    cr_expect_str_empty(r.out, "%s", r.out);
    run_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A misspelt benchmark name gets the closest one, not the whole usage. */
Test(mistakes, bench_names_the_closest_benchmark)
{
    struct run_result r = run_gpuvet("bench", "memroy", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "gpuvet bench: unknown benchmark 'memroy'; did you mean memory?"), "%s", r.err);
    cr_expect_null(strstr(r.err, "usage:"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("bench", "xyzzy", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "usage:"), "nothing close: the usage lists the names: %s", r.err);
    run_result_free(&r);
}
