/* The README's opening stays true: its sample is what the binary prints today for the machine it
 * names, and the Quick start and Install commands are the ones the scripts and tests use. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char *readme(void)
{
    char *text = file_contents(GPUVET_TEST_SOURCE "/../README.md", NULL);
    cr_assert_not_null(text, "cannot read README.md");
    return text;
}

/* The first ``` block of text, malloc'd. */
static char *first_block(const char *text)
{
    const char *start = strstr(text, "\n```\n");
    cr_assert_not_null(start, "README has no plain ``` block");
    start += 5;
    const char *end = strstr(start, "```\n");
    cr_assert_not_null(end);
    return strndup(start, (size_t)(end - start));
}

Test(readme, sample_output_is_what_the_binary_prints)
{
    char *text = readme();
    char *sample = first_block(text);
    /* The sample's header names the tree it ran on: "(sysroot:recorded/NAME)". */
    char tree[128];
    const char *named = strstr(sample, "(sysroot:recorded/");
    cr_assert_not_null(named, "the sample does not name its recorded tree: %s", sample);
    cr_assert_eq(sscanf(named, "(sysroot:recorded/%127[^)])", tree), 1);
    const char *command = strstr(text, "`gpuvet audit --workload cv-train`");
    cr_assert(command && command < strstr(text, sample), "the sample is introduced by its command");

    char dir[] = "/tmp/gpuvet-readme-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    /* as many lines as the sample has */
    int lines = 0;
    for (const char *p = sample; *p; p++)
        lines += *p == '\n';
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && ln -s '%s' recorded && '%s' audit --workload cv-train --sysroot 'recorded/%s' "
             "2>/dev/null | head -n %d", dir, fixture("sysroot"), GPUVET_BIN, tree, lines);
    int status;
    char *out = run_shell(cmd, &status);
    cr_expect_str_eq(out, sample, "README's sample is stale; today's output:\n%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(sample);
    free(text);
}

/* Quick start comes before the long sections, with the two commands CI runs. */
Test(readme, quick_start_and_install_commands)
{
    char *text = readme();
    const char *quick = strstr(text, "\n## Quick start\n");
    cr_assert_not_null(quick);
    cr_expect(strstr(quick, "```sh\n./scripts/setup.sh\n./scripts/test.sh\n```\n"), "Quick start's two commands");
    const char *commands = strstr(text, "\n## Commands\n");
    cr_expect(commands && quick < commands, "Quick start comes before the commands");
    /* the package command tests/cli/test_deb.c runs (into its own folder) */
    cr_expect(strstr(text, "cpack -G DEB --config build/CPackConfig.cmake -B build/package"), "cpack command");
    cr_expect(strstr(text, "cmake --install build --prefix"), "install command");
    free(text);
}
