/* report/wrap.c: lines wrapped within the width, never between a number and its unit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wrap.h"

static char *wrapped(const char *text, size_t width)
{
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    cr_assert(o);
    print_wrapped(o, text, strlen(text), width, NULL);
    fclose(o);
    return out;
}

/* Each case puts its number right at the edge: a plain break would leave the unit alone on the
 * next line ("(34\n ms)", "steal 2.3\n %", "25\n s"). */
Test(wrap, number_stays_with_its_unit)
{
    const char *cases[][2] = {
        {"aaaa aaaa aaaa (34 ms) bbb", "34 ms"},
        {"aaaa aaaa steal 2.3 % bbbb", "2.3 %"},
        {"aaaa aaaa aaaa bb 25 s, cc", "25 s"},
        {"aaaa aaaa aaaa a 80 GB. dd", "80 GB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t width = 20; width <= 27; width++) {
            char *out = wrapped(cases[i][0], width);
            cr_expect(strstr(out, cases[i][1]), "width %zu: '%s' split in:\n%s", width, cases[i][1], out);
            free(out);
        }
    }
}

/* A space before a word that is not a unit still breaks; every line stays within the width. */
Test(wrap, other_breaks_kept_and_width_held)
{
    char *out = wrapped("the 3 cats sat on 25 mats near 4 dogs and 7 birds", 14);
    for (char *line = out; *line;) {
        char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        cr_expect(n <= 14, "%zu columns: %.*s", n, (int)n, line);
        line += n + (eol != NULL);
    }
    cr_expect(strstr(out, "\n"), "wrapped");
    free(out);
}
