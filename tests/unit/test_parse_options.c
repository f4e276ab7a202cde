/* Options declared once (builtin/parse_options.h): a table's rows parse with their bounds and the
 * one error text per kind, take their defaults into --help from the values the code starts from,
 * and list themselves for the completion. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/parse_options.h"
#include "util/exitcode.h"
#include "util/i18n.h"

enum colour { RED, GREEN, BLUE };
static const struct opt_choice colours[] = {{"red", RED}, {"green", GREEN}, {"blue", BLUE}, {NULL, 0}};

struct sample {
    bool quick;
    int count;
    double share, size;
    const char *file;
    enum colour colour;
};

static const struct opt_command sample_help = {.name = "sample", .usage = N_("usage: gpuvet sample [options]\n\n")};

/* Parses the words (argv[0] first) into s with the sample table; returns opt_parse's status. */
static int parse(struct sample *s, char **words)
{
    int argc = 0;
    while (words[argc])
        argc++;
    opterr = 0; /* as main.c sets it: gpuvet says what is wrong, not getopt */
    struct opt table[] = {
        OPT_FLAG("quick", 'q', &s->quick, "shorter runs"),
        OPT_INT("count", 'n', &s->count, 1, 8, "N", "how many (default %s)"),
        OPT_FRACTION("share", 0, &s->share, "F", "the share used (default %s)"),
        OPT_SIZE("size", &s->size, "SIZE", "a size (default %s)"),
        OPT_FILE("file", 0, &s->file, "FILE", "a file"),
        OPT_ENUM("colour", 0, &s->colour, colours, "the colour (default %s)"),
        OPT_END(),
    };
    return opt_parse(&sample_help, table, argc, words);
}

static void quiet(void)
{
    cr_redirect_stderr();
    cr_redirect_stdout();
}

Test(parse_options, rows_take_their_values, .init = quiet)
{
    struct sample s = {.count = 2, .share = 0.5, .colour = RED};
    char *words[] = {"gpuvet sample", "-q", "--count", "8", "--share=25%", "--size", "1.5GB", "--file", "x.json",
                     "--colour", "blue", "operand", NULL};
    cr_assert_eq(parse(&s, words), 0);
    cr_expect(s.quick);
    cr_expect_eq(s.count, 8);
    cr_expect_float_eq(s.share, 0.25, 1e-12);
    cr_expect_float_eq(s.size, 1.5e9, 1);
    cr_expect_str_eq(s.file, "x.json");
    cr_expect_eq(s.colour, BLUE);
    cr_expect_str_eq(words[optind], "operand");
}

Test(parse_options, bounds_and_choices_refuse_with_one_text_per_kind, .init = cr_redirect_stderr)
{
    struct sample s = {.count = 2};
    char *over[] = {"gpuvet sample", "--count", "9", NULL};
    cr_assert_eq(parse(&s, over), EXIT_CANNOT_RUN);
    cr_expect_eq(s.count, 2, "a refused value leaves the target alone");
    char *colour[] = {"gpuvet sample", "--colour", "pink", NULL};
    cr_assert_eq(parse(&s, colour), EXIT_CANNOT_RUN);
    char *unknown[] = {"gpuvet sample", "--cuont", "3", NULL};
    cr_assert_eq(parse(&s, unknown), EXIT_CANNOT_RUN);
    fflush(stderr);
    cr_expect_stderr_eq_str("gpuvet sample: --count 9: expected a whole number from 1 to 8\n"
                            "gpuvet sample: --colour pink: expected red, green or blue\n"
                            "gpuvet sample: unknown option --cuont; did you mean --count?  (gpuvet sample --help "
                            "lists the options)\n");
}

/* The help states the values the code starts from, not what the command line set before --help. */
Test(parse_options, help_shows_each_option_and_the_starting_defaults, .init = cr_redirect_stdout)
{
    struct sample s = {.count = 2, .share = 0.9, .size = 115e3, .colour = GREEN};
    char *words[] = {"gpuvet sample", "--count", "5", "--help", NULL};
    cr_assert_eq(parse(&s, words), -1);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    cr_expect(strstr(text, "usage: gpuvet sample [options]"), "%s", text);
    cr_expect(strstr(text, "  --quick "), "%s", text);
    cr_expect(strstr(text, "--count N") && strstr(text, "how many (default 2)"), "%s", text);
    cr_expect(strstr(text, "the share used (default 0.9)"), "%s", text);
    cr_expect(strstr(text, "a size (default 115 KB)"), "%s", text);
    cr_expect(strstr(text, "--colour red|green|blue") && strstr(text, "the colour (default green)"), "%s", text);
}

Test(parse_options, list_options_names_every_option, .init = cr_redirect_stdout)
{
    struct sample s = {0};
    char *words[] = {"gpuvet sample", "--list-options", NULL};
    cr_assert_eq(parse(&s, words), -1);
    fflush(stdout);
    cr_expect_stdout_eq_str("--quick\n--count\n--share\n--size\n--file\n--colour\n--help\n");
}

/* A second %s (OPT_SHOWN_DEFAULT's shown_next), a default given by name, and the command's own
 * --help line after the table's. */
Test(parse_options, help_fills_a_second_value_a_named_default_and_the_help_line, .init = cr_redirect_stdout)
{
    double seconds = 0, bytes = 2;
    struct opt table[] = {
        {.kind = OPT_KIND_SECONDS, .name = "seconds", .value = &seconds, .max = 60, .metavar = "S",
         .flags = OPT_SHOWN_DEFAULT, .shown_default = 20, .shown_next = 3,
         .help = "how long (default %s, %s with --quick)"},
        {.kind = OPT_KIND_CALLBACK, .name = "kv", .value = &bytes, .metavar = "bf16|fp8", .default_name = "bf16",
         .help = "KV cache precision (default %s)"},
        OPT_END(),
    };
    const struct opt_command command = {.name = "sample", .usage = "usage: gpuvet sample\n\n",
                                        .help_help = "print this list and exit"};
    char *words[] = {"gpuvet sample", "--help", NULL};
    opterr = 0;
    cr_assert_eq(opt_parse(&command, table, 2, words), -1);
    fflush(stdout);
    FILE *out = cr_get_redirected_stdout();
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    cr_expect(strstr(text, "how long (default 20, 3 with --quick)"), "%s", text);
    cr_expect(strstr(text, "KV cache precision (default bf16)"), "%s", text);
    cr_expect(strstr(text, "\n  --help         print this list and exit\n"), "%s", text);
}

/* gpuvet's --lang and --data: taken before or after the command's name, the last one counting,
 * never from the words after "--" (watch's job keeps its own --data). */
Test(parse_options, anywhere_rows_are_taken_up_to_the_double_dash)
{
    const char *lang = NULL, *data = NULL;
    struct opt table[] = {
        {.kind = OPT_KIND_STRING, .name = "lang", .value = &lang, .metavar = "L", .flags = OPT_ANYWHERE, .help = ""},
        {.kind = OPT_KIND_DIR, .name = "data", .value = &data, .metavar = "DIR", .flags = OPT_ANYWHERE, .help = ""},
        OPT_END(),
    };
    char *words[] = {"gpuvet", "--lang", "en", "watch", "--data=/d", "--lang=zh", "--data-dir", "x", "--",
                     "job", "--data", "/job", NULL};
    int argc = 12;
    cr_assert_null(opt_take_anywhere(table, &argc, words));
    cr_expect_str_eq(lang, "zh");
    cr_expect_str_eq(data, "/d");
    cr_assert_eq(argc, 8);
    const char *left[] = {"gpuvet", "watch", "--data-dir", "x", "--", "job", "--data", "/job"};
    for (int i = 0; i < argc; i++)
        cr_expect_str_eq(words[i], left[i], "word %d", i);
    cr_expect_null(words[argc]);
    char *missing[] = {"gpuvet", "audit", "--lang", NULL};
    argc = 3;
    const struct opt *row = opt_take_anywhere(table, &argc, missing);
    cr_assert_not_null(row);
    cr_expect_str_eq(row->name, "lang");
}
