/* The completion scripts, each in its shell with the built gpuvet first on PATH: bash's
 * (completion/gpuvet.bash, through COMP_WORDS and compgen) and, where zsh is installed, zsh's
 * (completion/_gpuvet, its compadd and _describe stood in for by functions that keep what they are
 * given and start with the word typed, as zsh's own matching would). Both complete commands, gpuvet's
 * and each command's options, workloads, rule IDs, languages, GPU ids and model names alike. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* zsh's completion builtins as functions: each candidate that starts with $PREFIX goes into reply;
 * files and directories as <files> and <dirs>. */
#define ZSH_STANDINS                                                                                                   \
    "compadd() { local arrays=0 c; local -a given; while (( $# )); do case $1 in -a) arrays=1 ;; -*) ;; "               \
    "*) if (( arrays )); then given+=(${(P)1}); else given+=($1); fi ;; esac; shift; done; "                          \
    "for c in $given; do [[ $c == ${PREFIX}* ]] && reply+=($c); done; }; "                                              \
    "_describe() { local -a described; described=(${(P)2}); local c; "                                                 \
    "for c in ${described%%%%:*}; do [[ $c == ${PREFIX}* ]] && reply+=($c); done; }; "                                  \
    "_files() { reply+=(\"<files>\"); }; _directories() { reply+=(\"<dirs>\"); }; "

static bool have_zsh(void) { return system("command -v zsh >/dev/null 2>&1") == 0; }

/* The candidates offered for the words typed so far (the last is the one being completed), in the
 * order offered, space-separated. */
static char *complete_in(const char *shell, const char *words)
{
    char bin_dir[1024];
    snprintf(bin_dir, sizeof bin_dir, "%s", GPUVET_BIN);
    *strrchr(bin_dir, '/') = '\0';
    char cmd[8192];
    if (!strcmp(shell, "zsh"))
        snprintf(cmd, sizeof cmd,
                 "PATH='%s':\"$PATH\" zsh -f -c '" ZSH_STANDINS "typeset -a reply; words=(%s); CURRENT=${#words}; "
                 "PREFIX=${words[CURRENT]}; source \"%s/../completion/_gpuvet\"; print -r -- \"${reply[*]}\"'",
                 bin_dir, words, GPUVET_TEST_SOURCE);
    else
        snprintf(cmd, sizeof cmd,
                 "PATH='%s':\"$PATH\" bash -c 'source \"%s/../completion/gpuvet.bash\"; COMP_WORDS=(%s); "
                 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gpuvet; echo \"${COMPREPLY[*]}\"'",
                 bin_dir, GPUVET_TEST_SOURCE, words);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, p);
    cr_assert_eq(pclose(p), 0, "%s", cmd);
    cr_assert_gt(n, 0);
    line[strcspn(line, "\n")] = '\0';
    return line;
}

static char *complete(const char *words) { return complete_in("bash", words); }

static void expect_completion(const char *words, const char *expected)
{
    char *got = complete(words);
    cr_expect_str_eq(got, expected, "[%s]", words);
    free(got);
}

Test(completion, commands) { expect_completion("gpuvet au", "audit"); }
Test(completion, command_after_the_data_option) { expect_completion("gpuvet --data /tmp ex", "explain"); }
Test(completion, options_of_a_command) { expect_completion("gpuvet audit --sys", "--sysroot"); }
/* gpuvet's own options, from its table (`gpuvet --list-options`) */
Test(completion, options_of_gpuvet)
{
    expect_completion("gpuvet --ver", "--version");
    expect_completion("gpuvet --la", "--lang");
    expect_completion("gpuvet --data /tmp --d", "--data");
}
Test(completion, options_are_per_command) { expect_completion("gpuvet plan --ze", "--zero"); }
/* from the command's option table (--list-options) */
Test(completion, options_of_a_table)
{
    expect_completion("gpuvet plan --list-m", "--list-models");
    expect_completion("gpuvet bench --dur", "--duration");
    expect_completion("gpuvet plan --chec", "--check");
}
Test(completion, workloads) { expect_completion("gpuvet audit --workload llm", "llm-train llm-infer"); }
Test(completion, rule_ids_for_explain) { expect_completion("gpuvet explain PCIE_SL", "PCIE_SLOT_CAPPED"); }
Test(completion, workloads_for_explain) { expect_completion("gpuvet explain cv", "cv-train"); }
Test(completion, bench_parts) { expect_completion("gpuvet bench mem", "memory"); }
Test(completion, fleet_and_compare_pages)
{
    expect_completion("gpuvet fleet --ht", "--html");
    expect_completion("gpuvet compare --mark", "--markdown");
}
Test(completion, no_file_for_the_tolerance) { expect_completion("gpuvet fleet --tolerance \"\"", ""); }

/* Options quoted in another command's help (`gpuvet bench ... --quick` in audit's) are not offered. */
Test(completion, no_option_borrowed_from_another_command)
{
    char *got = complete("gpuvet audit --qu");
    cr_expect_str_eq(got, "");
    free(got);
}

/* Languages, GPU ids and built-in model names, as gpuvet itself lists them. */
Test(completion, languages) { expect_completion("gpuvet --lang \"\"", "zh en"); }
Test(completion, gpu_ids_for_gpus) { expect_completion("gpuvet gpus h100-s", "h100-sxm5-80gb"); }
Test(completion, gpu_ids_for_the_gpus_option)
{
    expect_completion("gpuvet plan --gpus rtx-pro", "rtx-pro-6000-blackwell-96gb");
}
Test(completion, model_names) { expect_completion("gpuvet plan --model gpt-oss", "gpt-oss-20b gpt-oss-120b"); }

/* zsh's script offers what bash's does, case for case (skipped, saying so, without zsh). */
Test(completion, zsh_offers_what_bash_does)
{
    if (!have_zsh())
        cr_skip_test("zsh is not installed: completion/_gpuvet is not run");
    static const char *const cases[][2] = {
        {"gpuvet au", "audit"},
        {"gpuvet --data /tmp ex", "explain"},
        {"gpuvet --ver", "--version"},
        {"gpuvet --la", "--lang"},
        {"gpuvet audit --sys", "--sysroot"},
        {"gpuvet plan --ze", "--zero"},
        {"gpuvet plan --list-m", "--list-models"},
        {"gpuvet bench --dur", "--duration"},
        {"gpuvet audit --qu", ""},
        {"gpuvet audit --workload llm", "llm-train llm-infer"},
        {"gpuvet explain PCIE_SL", "PCIE_SLOT_CAPPED"},
        {"gpuvet explain cv", "cv-train"},
        {"gpuvet bench mem", "memory"},
        {"gpuvet fleet --ht", "--html"},
        {"gpuvet fleet --tolerance \"\"", ""},
        {"gpuvet --lang \"\"", "zh en"},
        {"gpuvet gpus h100-s", "h100-sxm5-80gb"},
        {"gpuvet plan --gpus rtx-pro", "rtx-pro-6000-blackwell-96gb"},
        {"gpuvet plan --model gpt-oss", "gpt-oss-20b gpt-oss-120b"},
        {"gpuvet snapshot \"\"", "<dirs>"},
        {"gpuvet audit --sysroot \"\"", "<dirs>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bash = complete_in("bash", cases[i][0]), *zsh = complete_in("zsh", cases[i][0]);
        if (strcmp(cases[i][1], "<dirs>"))
            cr_expect_str_eq(bash, cases[i][1], "bash [%s]", cases[i][0]);
        cr_expect_str_eq(zsh, cases[i][1], "zsh [%s]", cases[i][0]);
        free(bash);
        free(zsh);
    }
}
