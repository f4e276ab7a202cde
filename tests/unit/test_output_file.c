/* util/output_file.c: a page FILE of --html/--markdown, "-" standing for stdout (audit, fleet and
 * compare share these). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/output_file.h"

Test(output_file, only_a_lone_dash_is_stdout)
{
    cr_expect(output_is_stdout("-"));
    cr_expect_not(output_is_stdout(NULL));
    cr_expect_not(output_is_stdout("--"));
    cr_expect_not(output_is_stdout("./-"));
    cr_expect_not(output_is_stdout("report.html"));
}

Test(output_file, a_dash_gives_stdout_and_closing_leaves_it_open)
{
    FILE *out = output_open("-", "fleet");
    cr_assert_eq(out, stdout);
    cr_expect_eq(output_close(out, "-", "fleet", 0), 0);
    cr_expect_neq(fcntl(STDOUT_FILENO, F_GETFD), -1, "stdout was closed");
}

Test(output_file, a_named_file_is_written_and_closed)
{
    char path[] = "/tmp/gpuvet-output-file-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    FILE *out = output_open(path, "audit");
    cr_assert_not_null(out);
    cr_assert_neq(out, stdout);
    fputs("<html></html>\n", out);
    /* The writer's status comes back when closing succeeds. */
    cr_expect_eq(output_close(out, path, "audit", -1), -1);
    FILE *in = fopen(path, "r");
    char line[64] = "";
    cr_assert_not_null(fgets(line, sizeof line, in));
    fclose(in);
    cr_expect_str_eq(line, "<html></html>\n");
    unlink(path);
}

Test(output_file, a_file_that_cannot_be_created_is_named_in_the_error, .init = cr_redirect_stderr)
{
    cr_expect_null(output_open("/nonexistent-dir/page.html", "compare"));
    fflush(stderr);
    cr_expect_stderr_eq_str("gpuvet compare: /nonexistent-dir/page.html: No such file or directory\n");
}
