/* `cmake --install` into a temporary prefix installs everything, and the binary copied alone to
 * another folder still works: its data tables and its Chinese catalogue are compiled in, and the
 * audit says which tables it used. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define H200 "sysroot/h200-firecracker-vm"

static char prefix[] = "/tmp/gpuvet-prefix-XXXXXX";

static void install_prefix(void)
{
    cr_assert_not_null(mkdtemp(prefix));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cmake --install '%s' --prefix '%s'", GPUVET_BUILD_DIR, prefix);
    int status;
    char *out = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
}

static void remove_prefix(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", prefix);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(install, .init = install_prefix, .fini = remove_prefix);

static void expect_file(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", prefix, rel);
    struct stat st;
    cr_expect(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0, "%s not installed", path);
}

Test(install, installs_binary_tables_man_pages_and_completion)
{
    expect_file("bin/gpuvet");
    expect_file("share/gpuvet/gpus.csv");
    expect_file("share/gpuvet/cpu-platforms.csv");
    expect_file("share/bash-completion/completions/gpuvet");
    expect_file("share/zsh/vendor-completions/_gpuvet");
    expect_file("share/locale/zh_CN/LC_MESSAGES/gpuvet.mo");
    expect_file("share/man/man1/gpuvet.1.gz");
    /* gpuvet-COMMAND.1.gz for every command `gpuvet --help` lists */
    struct run_result r = run_gpuvet("--help", NULL);
    int pages = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64], rel[128];
        if (!strncmp(line, "  ", 2) && line[2] >= 'a' && line[2] <= 'z' && sscanf(line, "  %63[a-z] ", name) == 1) {
            snprintf(rel, sizeof rel, "share/man/man1/gpuvet-%s.1.gz", name);
            expect_file(rel);
            pages++;
        }
    }
    cr_expect_geq(pages, 11);
    run_result_free(&r);
}

/* The installed binary finds the catalogue installed beside it (PREFIX/share/locale), whatever PREFIX. */
Test(install, installed_binary_speaks_chinese_from_its_prefix)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd / && env -u GPUVET_LOCALE_DIR LC_ALL=C '%s/bin/gpuvet' --lang zh audi", prefix);
    int status;
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, "未知命令"), "%s", out);
    free(out);
}

/* Audits a recorded tree with `binary` (data_option after the command: `audit --data DIR` names the
 * tables, not the abbreviated --data-dir) and returns the JSON document's data_tables entry for
 * cpu-platforms.csv (the audit reads that table for every machine). */
static json_t *platform_table_used(const char *binary, const char *data_option)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd /tmp && '%s' audit %s --sample 0 --json --sysroot '%s' 2>/dev/null", binary,
             data_option, fixture(H200));
    int status;
    char *out = run_shell(cmd, &status);
    cr_assert(status == 0 || status == 1, "exit %d: %s", status, out);
    json_error_t error;
    json_t *doc = json_loads(out, 0, &error);
    cr_assert_not_null(doc, "%s: %s", error.text, out);
    free(out);
    json_t *tables = json_object_get(doc, "data_tables"), *found = NULL;
    cr_assert(json_is_array(tables));
    found = array_entry(tables, "file", "cpu-platforms.csv");
    cr_assert_not_null(found, "no cpu-platforms.csv in data_tables");
    json_incref(found);
    json_decref(doc);
    return found;
}

Test(install, binary_copied_alone_uses_its_built_in_tables)
{
    char alone[] = "/tmp/gpuvet-alone-XXXXXX";
    cr_assert_not_null(mkdtemp(alone));
    char cmd[2048], binary[1024];
    snprintf(binary, sizeof binary, "%s/gpuvet", alone);
    snprintf(cmd, sizeof cmd, "cp '%s/bin/gpuvet' '%s'", prefix, binary);
    cr_assert_eq(system(cmd), 0);

    int status;
    snprintf(cmd, sizeof cmd, "cd '%s' && ./gpuvet gpus h100", alone);
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 0, "%s", out);
    cr_expect(strstr(out, "h100-sxm5-80gb: H100 SXM5 80GB"), "%s", out);
    free(out);

    json_t *used = platform_table_used(binary, "");
    cr_expect_str_eq(json_string_value(json_object_get(used, "source")), "built-in");
    cr_expect(json_is_null(json_object_get(used, "path")));
    json_decref(used);

    /* The text report says it too. */
    snprintf(cmd, sizeof cmd, "'%s' audit --sample 0 --sysroot '%s'", binary, fixture(H200));
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "\nData tables: ") && strstr(out, "cpu-platforms.csv built-in"), "%s", out);
    free(out);

    /* It speaks Chinese from its built-in catalogue: no .mo beside it, LANG chosen as users do. */
    snprintf(cmd, sizeof cmd, "cd '%s' && env -u LC_ALL -u LC_MESSAGES -u GPUVET_LOCALE_DIR LANG=zh_CN.UTF-8 ./gpuvet audi",
             alone);
    out = run_shell(cmd, &status);
    cr_expect_eq(status, 2, "%s", out);
    cr_expect(strstr(out, "gpuvet: 未知命令“audi”；你是不是想用 audit？"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && env -u GPUVET_LOCALE_DIR ./gpuvet --lang zh audit --claim /nonexistent.json --sample 0 --sysroot '%s'",
             alone, fixture(H200));
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "/nonexistent.json：没有那个文件或目录"), "%s", out);
    free(out);

    /* A translator's catalogue in GPUVET_LOCALE_DIR, built from a changed po/zh_CN.po, wins over the
     * built-in one; the messages it does not change stay as they were. */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/locale/zh_CN/LC_MESSAGES' && "
             "sed 's/^msgstr \"没有那个文件或目录\"/msgstr \"译者改过的：文件不存在\"/' '%s/../po/zh_CN.po' > '%s/changed.po' && "
             "msgfmt -o '%s/locale/zh_CN/LC_MESSAGES/gpuvet.mo' '%s/changed.po'",
             alone, GPUVET_TEST_SOURCE, alone, alone, alone);
    out = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && GPUVET_LOCALE_DIR='%s/locale' ./gpuvet --lang zh audit --claim /nonexistent.json --sample 0 --sysroot '%s'",
             alone, alone, fixture(H200));
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "/nonexistent.json：译者改过的：文件不存在"), "%s", out);
    cr_expect_null(strstr(out, "没有那个文件或目录"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd '%s' && GPUVET_LOCALE_DIR='%s/locale' ./gpuvet --lang zh audi", alone, alone);
    out = run_shell(cmd, &status);
    cr_expect(strstr(out, "未知命令“audi”"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", alone);
    cr_assert_eq(system(cmd), 0);
}

Test(install, installed_tables_override_the_built_in_ones)
{
    char binary[1024], expected[1024];
    snprintf(binary, sizeof binary, "%s/bin/gpuvet", prefix);
    char *real = realpath(prefix, NULL);
    snprintf(expected, sizeof expected, "%s/share/gpuvet/cpu-platforms.csv", real);
    free(real);
    json_t *used = platform_table_used(binary, "");
    cr_expect_str_eq(json_string_value(json_object_get(used, "source")), "installed");
    cr_expect_str_eq(json_string_value(json_object_get(used, "path")), expected);
    json_decref(used);

    char option[1100];
    snprintf(option, sizeof option, "--data '%s/share/gpuvet'", prefix);
    used = platform_table_used(binary, option);
    cr_expect_str_eq(json_string_value(json_object_get(used, "source")), "--data");
    json_decref(used);
}

/* A table named explicitly (a --data folder without it) is an error naming the file, never an audit
 * with the facts it gives quietly unknown. */
Test(install, missing_table_in_data_folder_is_an_error_naming_it)
{
    char dir[] = "/tmp/gpuvet-tables-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[2048];
    /* Every table but cpu-platforms.csv, so the error names that one. */
    snprintf(cmd, sizeof cmd, "cp '%s/share/gpuvet/gpus.csv' '%s/share/gpuvet/board-slot-maps.csv' '%s'", prefix,
             prefix, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s/bin/gpuvet' --data '%s' audit --sample 0 --sysroot '%s'", prefix, dir, fixture(H200));
    int status;
    char *out = run_shell(cmd, &status);
    cr_expect_eq(status, 2, "%s", out);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/cpu-platforms.csv: No such file or directory", dir);
    cr_expect(strstr(out, expected), "%s", out);
    cr_expect_null(strstr(out, "Verdict"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
