/* A data table with a row its loader cannot use stops every command that loads tables with
 * FILE:LINE and exit 2, wherever the table comes from (--data, GPUVET_DATA_DIR, installed beside
 * the binary); an installed table with no rows is refused by name. Each case edits a copy of the
 * real tables in data/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define DATA GPUVET_TEST_SOURCE "/../data"
#define OFFERS GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.csv"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"

/* A fresh folder holding a copy of every table; `edit` (a shell command run in it) breaks one. */
static void tables_copy(char *dir, const char *edit)
{
    cr_assert_not_null(mkdtemp(dir));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s'/*.csv '%s' && cd '%s' && %s", DATA, dir, dir, edit);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The line number of the first row of table (the first line neither blank nor a comment). */
static int first_row_line(const char *table)
{
    char path[512], line[8192];
    snprintf(path, sizeof path, "%s/%s", DATA, table);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (line[0] != '#' && line[0] != '\n')
            break;
    }
    fclose(f);
    return n;
}

/* Every command that loads a table, run with --data dir: each must stop with `want` on stderr. */
static void every_command_refuses(const char *dir, const char *want)
{
    const char *const commands[][12] = {
        {"audit", "--sample", "0", "--sysroot", NULL},
        {"plan", "--workload", "llm-train", "--params", "7B", "--gpus", "1xA100-80GB", NULL},
        {"cost", OFFERS, NULL},
        {"gpus", "h100", NULL},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const char *a[14] = {"--data", dir};
        int n = 2;
        for (int k = 0; commands[i][k]; k++)
            a[n++] = commands[i][k];
        if (!strcmp(commands[i][0], "audit"))
            a[n++] = fixture(INTEL);
        struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], NULL);
        cr_expect_eq(r.status, 2, "%s: %s", commands[i][0], r.err);
        cr_expect(strstr(r.err, want), "%s: want '%s', got: %s", commands[i][0], want, r.err);
        cr_expect_str_empty(r.out, "%s: no report from broken tables: %s", commands[i][0], r.out);
        run_result_free(&r);
    }
}

/* The first row of cpu-platforms.csv edited by the sed expression `edit` (%d: its line): every
 * command stops with "DIR/cpu-platforms.csv:LINE: problem". */
static void first_platform_row_refused(const char *edit, const char *problem)
{
    char dir[] = "/tmp/gpuvet-tables-XXXXXX", command[512], want[512];
    int line = first_row_line("cpu-platforms.csv");
    snprintf(command, sizeof command, edit, line);
    tables_copy(dir, command);
    snprintf(want, sizeof want, "gpuvet: %s/cpu-platforms.csv:%d: %s", dir, line, problem);
    every_command_refuses(dir, want);
    tree_remove(dir);
}

Test(data_tables, a_broken_platform_row_stops_every_command_naming_file_and_line)
{
    /* The channel count (field 5) of the first row becomes a word. */
    first_platform_row_refused("sed -i '%ds/^\\(\\([^,]*,\\)\\{4\\}\\)[^,]*/\\1four/' cpu-platforms.csv",
                               "no channel count (see the header)");
}

Test(data_tables, a_platform_regex_that_does_not_compile_is_refused)
{
    first_platform_row_refused("sed -i '%ds/^\\([^,]*\\),[^,]*,/\\1,E5-(2603,/' cpu-platforms.csv",
                               "model_regex is not a regular expression (see the header)");
}

Test(data_tables, a_slot_map_row_with_a_field_too_many_is_refused_from_the_environment)
{
    char dir[] = "/tmp/gpuvet-tables-XXXXXX", edit[256], want[512];
    int line = first_row_line("board-slot-maps.csv");
    snprintf(edit, sizeof edit, "sed -i '%ds/$/,extra/' board-slot-maps.csv", line);
    tables_copy(dir, edit);
    setenv("GPUVET_DATA_DIR", dir, 1);
    struct run_result r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture(INTEL), NULL);
    unsetenv("GPUVET_DATA_DIR");
    snprintf(want, sizeof want, "%s/board-slot-maps.csv:%d: 9 fields, expected 8 (see the header; fields hold no commas)",
             dir, line);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, want), "want '%s', got: %s", want, r.err);
    run_result_free(&r);
    tree_remove(dir);
}

/* A row longer than a reader takes is refused by its line, not cut and its tail read as a row. */
Test(data_tables, an_over_long_row_is_refused_by_its_line)
{
    char dir[] = "/tmp/gpuvet-tables-XXXXXX", want[512];
    tables_copy(dir, "python3 -c \"import sys; sys.stdout.write('#' + 'x' * 5000 + '\\n')\" >> board-slot-maps.csv");
    int line = 0;
    char path[512], buf[8192];
    snprintf(path, sizeof path, "%s/board-slot-maps.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    while (fgets(buf, sizeof buf, f))
        line += strchr(buf, '\n') != NULL;
    fclose(f);
    snprintf(want, sizeof want, "%s/board-slot-maps.csv:%d: line longer than 4096 bytes", dir, line);
    every_command_refuses(dir, want);
    tree_remove(dir);
}

/* The tables installed beside a binary (PREFIX/share/gpuvet) are checked like a --data folder's: a
 * copy with no rows and a copy with a broken row are each refused by name. */
Test(data_tables, installed_tables_are_checked_too)
{
    char prefix[] = "/tmp/gpuvet-prefix-XXXXXX";
    cr_assert_not_null(mkdtemp(prefix));
    char cmd[8192], want[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/bin' '%s/share/gpuvet' && cp '%s' '%s/bin/gpuvet' && "
             "printf '# header only\\n\\n' > '%s/share/gpuvet/cpu-platforms.csv'",
             prefix, prefix, GPUVET_BIN, prefix, prefix);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char real[4096];
    cr_assert_not_null(realpath(prefix, real));
    snprintf(cmd, sizeof cmd, "'%s/bin/gpuvet' gpus h100 2>&1", prefix);
    int status;
    char *out = run_shell(cmd, &status);
    snprintf(want, sizeof want, "gpuvet: %s/share/gpuvet/cpu-platforms.csv: holds no rows, only comments or nothing "
             "(an installed table replaces the built-in one", real);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, want), "want '%s', got: %s", want, out);
    free(out);

    snprintf(cmd, sizeof cmd, "cp '%s/gpus.csv' '%s/cpu-platforms.csv' '%s/share/gpuvet/' && "
             "echo 'x,\"broken' >> '%s/share/gpuvet/gpus.csv'", DATA, DATA, prefix, prefix);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "'%s/bin/gpuvet' audit --sample 0 --sysroot '%s' 2>&1", prefix, fixture(INTEL));
    out = run_shell(cmd, &status);
    snprintf(want, sizeof want, "%s/share/gpuvet/gpus.csv:", real);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, want) && strstr(out, "unterminated quoted field"), "want '%s', got: %s", want, out);
    free(out);
    tree_remove(prefix);
}
