/* The README gets a renter there and stays true: its first screen says what to run on a rented
 * box and what the verdict words mean, its sample is what the binary prints today for the machine
 * it names, its Quick start holds the two commands CI runs (the second plainly the test suite), and
 * it stays short (the reference lives in the man pages and docs/). The install commands moved to
 * docs/install.md, checked here too. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char *source_file(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../%s", GPUVET_TEST_SOURCE, rel);
    char *text = file_contents(path, NULL);
    cr_assert_not_null(text, "cannot read %s", rel);
    return text;
}

static char *readme(void) { return source_file("README.md"); }

/* The body of the first code block whose opening fence is `fence` ("```" alone: a plain block;
 * "```sh") at or after `from`, malloc'd. Fences are paired from the top, so a closing fence is
 * never taken for an opening one. */
static char *block_after(const char *text, const char *from, const char *fence)
{
    bool open = false;
    size_t want = strlen(fence);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len >= 3 && !strncmp(line, "```", 3)) {
            if (!open && line >= from && len == want && !strncmp(line, fence, want)) {
                const char *start = nl + 1, *end = strstr(start, "\n```\n");
                cr_assert_not_null(end, "unterminated %s block", fence);
                return strndup(start, (size_t)(end + 1 - start));
            }
            open = !open;
        }
        line = nl ? nl + 1 : NULL;
    }
    cr_assert_fail("no %s block", fence);
    return NULL;
}

static char *first_block(const char *text) { return block_after(text, text, "```"); }

/* Where the n-th line starts (n from 1), or the text's end. */
static const char *line_start(const char *text, int n)
{
    const char *p = text;
    for (int i = 1; i < n && p; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return p ? p : text + strlen(text);
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

/* What a renter needs is on the first screen (60 lines): what to run on a rented box, with the
 * listing (--expect) or the full claim (--claim), and what each verdict word means. */
Test(readme, first_screen_tells_a_renter_what_to_run_and_what_it_means)
{
    char *text = readme();
    const char *rented = strstr(text, "\n## On a rented box\n");
    const char *screen_end = line_start(text, 60);
    cr_assert(rented && rented < screen_end, "the rented-box section starts within the first screen");
    char *commands = block_after(text, rented, "```sh");
    cr_expect(strstr(commands, "gpuvet audit "), "%s", commands);
    cr_expect(strstr(commands, "gpuvet audit --expect \"8x H100 SXM5 80GB\""), "%s", commands);
    cr_expect(strstr(commands, "gpuvet audit --claim "), "%s", commands);
    const char *words[] = {"**PASS**", "**WARN**", "**FAIL**", "**INCONCLUSIVE**", "**unknown**", "Exit status 2"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        const char *at = strstr(text, words[i]);
        cr_expect(at && at < screen_end, "%s is explained on the first screen", words[i]);
    }
    free(commands);
    free(text);
}

/* Quick start: exactly the two commands CI runs (.ci/run), the second labelled as the test suite for
 * people working on gpuvet, so that nobody pastes it onto a rented box. */
Test(readme, quick_start_is_the_two_commands_ci_runs)
{
    char *text = readme();
    const char *quick = strstr(text, "\n## Quick start\n");
    cr_assert_not_null(quick);
    char *block = block_after(text, quick, "```sh");
    cr_expect_str_eq(block,
                     "# gpuvet itself: installs what building and running need, builds build/gpuvet, runs `gpuvet "
                     "audit`\n./scripts/setup.sh\n# the test suite, for people working on gpuvet (not for a rented "
                     "box: about 440 packages and an hour)\n./scripts/test.sh\n");
    char *ci = source_file(".ci/run");
    cr_expect(strstr(ci, "\n./scripts/setup.sh\n./scripts/test.sh\n"), ".ci/run runs the Quick start: %s", ci);
    const char *commands = strstr(text, "\n## Commands\n");
    cr_expect(commands && quick < commands, "Quick start comes before the commands");
    cr_expect(strstr(text, "ctest --test-dir build -L quick"), "the quick label is what a developer runs first");
    free(ci);
    free(block);
    free(text);
}

/* About 300 lines at most: the reference is in the man pages and docs/, which the README names. */
Test(readme, short_and_points_to_the_reference)
{
    char *text = readme();
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    cr_expect_leq(lines, 300, "README.md has %d lines", lines);
    const char *pointers[] = {"man gpuvet-audit", "docs/audit.md", "docs/install.md", "docs/health.md", "docs/fleet.md",
                              "docs/plan.md", "docs/watch.md", "docs/bench.md", "docs/snapshot.md"};
    for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++) {
        cr_expect(strstr(text, pointers[i]), "README names %s", pointers[i]);
        if (!strncmp(pointers[i], "docs/", 5))
            free(source_file(pointers[i])); /* and the file is there */
    }
    free(text);
}

/* The install commands (docs/install.md) are the ones tests/cli/test_deb.c and test_install.c run. */
Test(readme, install_commands)
{
    char *text = source_file("docs/install.md");
    cr_expect(strstr(text, "cpack -G DEB --config build/CPackConfig.cmake -B build/package"), "cpack command");
    cr_expect(strstr(text, "cmake --install build --prefix"), "install command");
    free(text);
}
