/* One colour policy (util/output.h) for audit's report and watch's diagnosis: they used to disagree
 * (watch coloured a TERM=dumb terminal, and took an empty NO_COLOR as set). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/output.h"

Test(colour, a_terminal_that_can_show_it_and_nothing_else)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0)
        cr_skip_test("no pseudo-terminal here");
    cr_assert_eq(grantpt(master), 0);
    cr_assert_eq(unlockpt(master), 0);
    FILE *tty = fopen(ptsname(master), "w");
    cr_assert_not_null(tty);
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm-256color", 1);
    cr_expect(output_use_colour(tty));
    setenv("NO_COLOR", "", 1);
    cr_expect(output_use_colour(tty), "an empty NO_COLOR does not count (no-color.org)");
    setenv("NO_COLOR", "1", 1);
    cr_expect_not(output_use_colour(tty));
    unsetenv("NO_COLOR");
    setenv("TERM", "dumb", 1);
    cr_expect_not(output_use_colour(tty), "TERM=dumb shows no colour");
    setenv("TERM", "xterm-256color", 1);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    FILE *piped = fdopen(fds[1], "w");
    cr_expect_not(output_use_colour(piped), "a pipe gets no colour");
    fclose(piped);
    close(fds[0]);
    fclose(tty);
    close(master);
}
