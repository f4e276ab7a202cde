/* The bash completion script, sourced in bash with the built gpuvet first on PATH, completes
 * commands, per-command options, workloads and rule IDs (compgen through COMP_WORDS). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* COMPREPLY for the words typed so far (the last is the one being completed), space-separated. */
static char *complete(const char *words)
{
    char bin_dir[1024];
    snprintf(bin_dir, sizeof bin_dir, "%s", GPUVET_BIN);
    *strrchr(bin_dir, '/') = '\0';
    char cmd[4096];
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

static void expect_completion(const char *words, const char *expected)
{
    char *got = complete(words);
    cr_expect_str_eq(got, expected, "[%s]", words);
    free(got);
}

Test(completion, commands) { expect_completion("gpuvet au", "audit"); }
Test(completion, command_after_the_data_option) { expect_completion("gpuvet --data /tmp ex", "explain"); }
Test(completion, options_of_a_command) { expect_completion("gpuvet audit --sys", "--sysroot"); }
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
