/* Every command `gpuvet --help` lists has a man page, with examples, that groff renders without a
 * single warning (-ww), as `man -l` would show it, and that `mandoc -T lint` passes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A whole file; NULL when it cannot be read. */
static char *slurp(const char *path)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "cat '%s'", path);
    int status;
    char *text = run_shell(cmd, &status);
    if (status == 0)
        return text;
    free(text);
    return NULL;
}

/* groff's warnings for one page ("" when none), malloc'd. */
static char *groff_warnings(const char *page)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "LC_ALL=C.UTF-8 groff -ww -man -Tutf8 '%s' 2>&1 >/dev/null", page);
    int status;
    char *text = run_shell(cmd, &status);
    cr_assert_eq(status, 0, "groff failed on %s: %s", page, text);
    return text;
}

/* mandoc's lint at warning level and worse ("" when none, or when mandoc is not installed: it is an
 * optional package of scripts/test.sh), malloc'd. */
static char *mandoc_warnings(const char *page)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "! command -v mandoc >/dev/null || mandoc -T lint -W warning '%s' 2>&1", page);
    int status;
    char *text = run_shell(cmd, &status);
    cr_expect(status == 0 || *text, "mandoc failed on %s", page);
    return text;
}

static void check_page(const char *name)
{
    char page[1024];
    snprintf(page, sizeof page, "%s/man/%s.1", GPUVET_BUILD_DIR, name);
    char *text = slurp(page);
    cr_assert_not_null(text, "no man page %s", page);
    cr_expect(strstr(text, "\n.SH SYNOPSIS\n"), "%s: no SYNOPSIS", page);
    cr_expect(strstr(text, "\n.SH EXAMPLES\n"), "%s: no EXAMPLES", page);
    free(text);
    char *warnings = groff_warnings(page);
    cr_expect_str_eq(warnings, "", "%s", page);
    free(warnings);
    warnings = mandoc_warnings(page);
    cr_expect_str_eq(warnings, "", "%s", page);
    free(warnings);
}

Test(man, every_command_has_a_page_that_renders_without_warnings)
{
    check_page("gpuvet");
    struct run_result r = run_gpuvet("--help", NULL);
    cr_assert_eq(r.status, 0);
    int pages = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64], page[80];
        /* "  audit      find the traps ..." lines are the commands */
        if (!strncmp(line, "  ", 2) && line[2] >= 'a' && line[2] <= 'z' && sscanf(line, "  %63[a-z] ", name) == 1) {
            snprintf(page, sizeof page, "gpuvet-%s", name);
            check_page(page);
            pages++;
        }
    }
    cr_expect_geq(pages, 7);
    run_result_free(&r);
}

/* The options section is the command's own --help: an option there is in the page. */
Test(man, options_come_from_the_help_text)
{
    char page[1024];
    snprintf(page, sizeof page, "%s/man/gpuvet-audit.1", GPUVET_BUILD_DIR);
    char *text = slurp(page);
    cr_assert_not_null(text);
    cr_expect(strstr(text, ".B \\-\\-sysroot DIR\n"), "%s", text);
    cr_expect(strstr(text, ".SH EXIT STATUS\n"), "%s", text);
    free(text);
    snprintf(page, sizeof page, "%s/man/gpuvet.1", GPUVET_BUILD_DIR);
    text = slurp(page);
    cr_assert_not_null(text);
    cr_expect(strstr(text, ".B \\-\\-version\n"), "gpuvet(1) lists --version");
    free(text);
}

/* gpuvet-audit(1) is the reference the README points to: every option of `audit --help` and every rule
 * of `--list-rules`, each with its explain text (the rationale's first words are in the page). */
Test(man, audit_page_has_every_option_and_every_rule_with_its_rationale)
{
    char page[1024];
    snprintf(page, sizeof page, "%s/man/gpuvet-audit.1", GPUVET_BUILD_DIR);
    char *text = slurp(page);
    cr_assert_not_null(text);
    cr_assert_not_null(strstr(text, "\n.SH RULES\n"), "no RULES section");
    struct run_result help = run_gpuvet("audit", "--help", NULL);
    int options = 0;
    for (char *line = strtok(help.out, "\n"); line; line = strtok(NULL, "\n")) {
        char option[64], roff[160] = ".B ";
        if (strncmp(line, "  --", 4) != 0 || sscanf(line + 2, "%63[a-z-]", option) != 1)
            continue;
        size_t n = strlen(roff); /* mkman writes each '-' as "\-" */
        for (const char *c = option; *c && n + 3 < sizeof roff; c++) {
            if (*c == '-')
                roff[n++] = '\\';
            roff[n++] = *c;
        }
        roff[n] = '\0';
        cr_expect(strstr(text, roff), "%s is not in gpuvet-audit(1) (%s)", line, roff);
        options++;
    }
    cr_expect_geq(options, 20);
    run_result_free(&help);
    struct run_result list = run_gpuvet("audit", "--list-rules", NULL);
    int rules = 0;
    for (char *line = strtok(list.out, "\n"); line; line = strtok(NULL, "\n")) {
        char id[64], tag[80];
        if (sscanf(line, "%63s", id) != 1)
            continue;
        snprintf(tag, sizeof tag, "\n.B %s\n", id);
        const char *at = strstr(text, tag);
        cr_expect(at, "rule %s is not in gpuvet-audit(1)", id);
        /* its rationale: the explain text's first paragraph line after the severities */
        struct run_result why = run_gpuvet("--lang", "en", "explain", id, NULL);
        const char *para = strstr(why.out, "\n\n");
        if (at && para) {
            /* its first words, from the first letter on (a backquoted command is bold in the page) */
            char first[40] = "";
            const char *from = para + 2;
            while (*from && !((*from >= 'A' && *from <= 'Z') || (*from >= 'a' && *from <= 'z')))
                from++;
            sscanf(from, "%39[A-Za-z ,'()]", first);
            cr_expect(first[0] && strstr(at, first), "%s: its rationale (\"%s\") is not in the page", id, first);
        }
        run_result_free(&why);
        rules++;
    }
    cr_expect_geq(rules, 40);
    run_result_free(&list);
    free(text);
}

/* A command with an option table (builtin/parse_options.h): every option it parses, as
 * --list-options names them, is in its --help and so in its man page. */
static void expect_every_listed_option_in_the_page(const char *command)
{
    char page[1024];
    snprintf(page, sizeof page, "%s/man/gpuvet-%s.1", GPUVET_BUILD_DIR, command);
    char *text = slurp(page);
    cr_assert_not_null(text, "%s", page);
    struct run_result list = run_gpuvet(command, "--list-options", NULL);
    cr_assert_eq(list.status, 0, "%s --list-options: %s", command, list.err);
    int options = 0;
    for (char *line = strtok(list.out, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strcmp(line, "--help"))
            continue;
        char roff[160] = ".B ";
        size_t n = strlen(roff);
        for (const char *c = line; *c && n + 3 < sizeof roff; c++) {
            if (*c == '-')
                roff[n++] = '\\';
            roff[n++] = *c;
        }
        roff[n] = '\0';
        cr_expect(strstr(text, roff), "%s %s is not in gpuvet-%s(1)", command, line, command);
        options++;
    }
    cr_expect_geq(options, 5, "%s lists %d options", command, options);
    run_result_free(&list);
    free(text);
}

Test(man, every_option_of_plan_is_in_its_page) { expect_every_listed_option_in_the_page("plan"); }
Test(man, every_option_of_bench_is_in_its_page) { expect_every_listed_option_in_the_page("bench"); }
Test(man, every_option_of_audit_is_in_its_page) { expect_every_listed_option_in_the_page("audit"); }
Test(man, every_option_of_health_is_in_its_page) { expect_every_listed_option_in_the_page("health"); }
