/* Every command's errors start with exactly one "gpuvet COMMAND: " (util/output.c builds it; no
 * message carries it in its own text): one usage error and one runtime error per command, in
 * English and in Chinese. The Chinese prefix is the same ASCII "gpuvet COMMAND: ", followed by the
 * translated message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define NO_TREE "/nonexistent/gpuvet-tree"

/* Per process: other checkouts may run this test at the same time. */
static char bad_json[64], snapshot_dir[64];

struct error_case {
    const char *command;
    const char *args[14]; /* after the command, NULL-terminated */
};

/* One usage error a command: a missing or extra argument, or a misspelt option. */
static const struct error_case usage_errors[] = {
    {"audit", {"extra"}},
    {"bench", {"nosuch"}},
    {"explain", {NULL}},
    {"snapshot", {NULL}},
    {"gpus", {"--jsno"}},
    {"plan", {NULL}},
    {"cost", {NULL}},
    {"health", {"extra"}},
    {"fleet", {NULL}},
    {"compare", {"one.json"}},
    {"watch", {"--pid", "1", "--replay", "x"}},
};

/* One runtime error a command: input it cannot read or use, in gpuvet's own words. */
static const struct error_case runtime_errors[] = {
    {"audit", {"--sysroot", NO_TREE}},
    {"bench", {"storage", "--quick", "--file", "/nonexistent/gpuvet-shard"}},
    {"explain", {"NO_SUCH_RULE_QQ"}},
    {"snapshot", {"--sysroot", NO_TREE, snapshot_dir}},
    {"gpus", {"no-such-gpu"}},
    {"plan", {"--workload", "cv-train", "--gpus", "4xa100-sxm4-80gb", "--check", "--sysroot", NO_TREE}},
    {"cost", {"/dev/null"}},
    {"health", {"--sysroot", NO_TREE}},
    {"fleet", {bad_json}},
    {"compare", {bad_json, bad_json}},
    {"watch", {"--replay", bad_json}},
};

static struct run_result run_case(const struct error_case *c, bool chinese)
{
    const char *a[18] = {0};
    size_t n = 0;
    if (chinese) {
        a[n++] = "--lang";
        a[n++] = "zh";
    }
    a[n++] = c->command;
    for (size_t i = 0; c->args[i] && n < 17; i++)
        a[n++] = c->args[i];
    if (*snapshot_dir)
        rmdir(snapshot_dir);
    struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
                                     a[13], a[14], a[15], a[16], a[17], NULL);
    if (*snapshot_dir)
        rmdir(snapshot_dir);
    return r;
}

/* The first line of err (malloc'd). */
static char *first_line(const char *err)
{
    return strndup(err, strcspn(err, "\n"));
}

static bool has_non_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return true;
    return false;
}

static void check_case(const struct error_case *c, const char *kind)
{
    char prefix[64], full_width[64], doubled[128];
    snprintf(prefix, sizeof prefix, "gpuvet %s: ", c->command);
    snprintf(full_width, sizeof full_width, "gpuvet %s：", c->command);
    snprintf(doubled, sizeof doubled, "gpuvet %s: gpuvet", c->command);
    struct run_result en = run_case(c, false), zh = run_case(c, true);
    const struct run_result *runs[] = {&en, &zh};
    for (int i = 0; i < 2; i++) {
        const char *lang = i ? "zh" : "en";
        const char *err = runs[i]->err;
        cr_expect_eq(runs[i]->status, 2, "%s %s error of %s: status %d\n%s", lang, kind, c->command, runs[i]->status,
                     err);
        cr_expect(!strncmp(err, prefix, strlen(prefix)), "%s %s error of %s does not start with '%s':\n%s", lang, kind,
                  c->command, prefix, err);
        cr_expect_eq(count_of(err, prefix), 1, "%s %s error of %s: '%s' not exactly once:\n%s", lang, kind, c->command,
                     prefix, err);
        cr_expect_null(strstr(err, full_width), "%s %s error of %s: a full-width colon in the prefix:\n%s", lang, kind,
                       c->command, err);
        cr_expect_null(strstr(err, doubled), "%s %s error of %s: a doubled prefix:\n%s", lang, kind, c->command, err);
    }
    /* The message after the prefix is translated; the prefix is not. */
    char *en_line = first_line(en.err), *zh_line = first_line(zh.err);
    const char *zh_message = strncmp(zh_line, prefix, strlen(prefix)) ? zh_line : zh_line + strlen(prefix);
    cr_expect(has_non_ascii(zh_message), "%s error of %s not in Chinese: %s", kind, c->command, zh_line);
    cr_expect(!has_non_ascii(en_line), "%s error of %s not in English: %s", kind, c->command, en_line);
    free(en_line);
    free(zh_line);
    run_result_free(&en);
    run_result_free(&zh);
}

Test(error_prefix, every_usage_error_has_one_prefix_in_both_languages)
{
    for (size_t i = 0; i < sizeof usage_errors / sizeof *usage_errors; i++)
        check_case(&usage_errors[i], "usage");
}

Test(error_prefix, every_runtime_error_has_one_prefix_in_both_languages)
{
    snprintf(bad_json, sizeof bad_json, "/tmp/gpuvet-error-prefix-%d.json", (int)getpid());
    snprintf(snapshot_dir, sizeof snapshot_dir, "/tmp/gpuvet-error-prefix-%d.snapshot", (int)getpid());
    FILE *f = fopen(bad_json, "w");
    cr_assert_not_null(f);
    fputs("not json", f);
    fclose(f);
    for (size_t i = 0; i < sizeof runtime_errors / sizeof *runtime_errors; i++)
        check_case(&runtime_errors[i], "runtime");
    unlink(bad_json);
}

/* Every command of `gpuvet --help` is in both tables: a new command gets its two cases here. */
Test(error_prefix, both_tables_name_every_command)
{
    struct run_result r = run_gpuvet("--help", NULL);
    size_t listed = 0;
    for (const char *line = r.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char name[32];
        /* "  audit      find the traps...": two spaces, then the command (scanf's spaces match none too) */
        if (strncmp(line, "  ", 2) || line[2] < 'a' || line[2] > 'z' || sscanf(line + 2, "%31[a-z]", name) != 1)
            continue;
        bool in_usage = false, in_runtime = false;
        for (size_t i = 0; i < sizeof usage_errors / sizeof *usage_errors; i++) {
            in_usage |= !strcmp(usage_errors[i].command, name);
            in_runtime |= !strcmp(runtime_errors[i].command, name);
        }
        cr_expect(in_usage && in_runtime, "command %s has no error case here", name);
        listed++;
    }
    cr_expect_eq(listed, sizeof usage_errors / sizeof *usage_errors, "commands in gpuvet --help:\n%s", r.out);
    run_result_free(&r);
}

/* A warning wider than the terminal: the audit of nvidiagpunumanodes warns in lines of 235
 * columns. On a terminal of 80 columns (a pseudo-terminal of util-linux's script) each warning wraps,
 * its first line keeping the prefix and text it had, its continuations 8 columns in ("gpuvet: ", under
 * the text), no line over 80 unless one word; the words are the same as on one line. Written to a
 * pipe, it stays one line whatever COLUMNS says, for logs and grep. */
Test(error_prefix, a_long_warning_wraps_to_the_terminal_under_its_text)
{
    if (access("/usr/bin/script", X_OK) != 0)
        cr_skip_test("util-linux's script is not installed: no pseudo-terminal to print to");
    char command[4096];
    int status;
    snprintf(command, sizeof command, "COLUMNS=80 LANG=C LC_ALL=C '%s' audit --sysroot '%s' 2>&1 >/dev/null",
             GPUVET_BIN, fixture("sysroot/nvidiagpunumanodes"));
    char *flat = run_shell(command, &status);
    snprintf(command, sizeof command,
             "script -qec \"stty cols 80 rows 50; LANG=C LC_ALL=C '%s' audit --sysroot '%s' 2>&1 >/dev/null\" "
             "/dev/null </dev/null | tr -d '\\r'",
             GPUVET_BIN, fixture("sysroot/nvidiagpunumanodes"));
    char *wrapped = run_shell(command, &status);
    size_t longest = 0, wrapped_lines = 0;
    for (const char *line = flat; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > longest)
            longest = len;
        cr_expect(!strncmp(line, "gpuvet: warning: ", 17), "unwrapped: %.*s", (int)len, line);
        line += len + (line[len] == '\n');
    }
    cr_assert_gt(longest, 200, "the fixture's long warning:\n%s", flat);
    /* Undo the wraps: a continuation (8 spaces) joins its line with one space. */
    char *joined = calloc(1, strlen(wrapped) + 1);
    cr_assert_not_null(joined);
    size_t at = 0;
    for (const char *line = wrapped; *line;) {
        size_t len = strcspn(line, "\n");
        cr_expect(len <= 80 || !memchr(line + 8, ' ', len - 8), "over 80 columns: %.*s", (int)len, line);
        if (!strncmp(line, "        ", 8) && line[8] != ' ') {
            cr_assert(at > 0 && joined[at - 1] == '\n', "a continuation first:\n%s", wrapped);
            joined[at - 1] = ' ';
            memcpy(joined + at, line + 8, len - 8);
            at += len - 8;
            wrapped_lines++;
        } else {
            cr_expect(!strncmp(line, "gpuvet: warning: ", 17), "wrapped: %.*s", (int)len, line);
            memcpy(joined + at, line, len);
            at += len;
        }
        joined[at++] = '\n';
        line += len + (line[len] == '\n');
    }
    cr_expect_gt(wrapped_lines, 0, "%s", wrapped);
    cr_expect_str_eq(joined, flat);
    free(joined);
    free(flat);
    free(wrapped);
}
