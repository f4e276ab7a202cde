/* Options declared once (parse_options.h): getopt_long's array, the parsing and the help, all
 * from a command's table. */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "report/wrap.h"
#include "util/i18n.h"
#include "util/parse.h"

/* Long options past every short letter: getopt_long returns OPT_LONG_BASE + the row's index. */
#define OPT_LONG_BASE 256
#define OPT_HELP_ROW (-1)
#define OPT_LIST_ROW (-2)

const struct opt *opt_find(const struct opt *table, const char *name)
{
    for (const struct opt *row = table; row->kind != OPT_KIND_END; row++)
        if (row->kind != OPT_KIND_GROUP && !strcmp(row->name, name))
            return row;
    return NULL;
}

static bool takes_value(const struct opt *row)
{
    switch (row->kind) {
    case OPT_KIND_FLAG:
    case OPT_KIND_CLEAR:
        return false;
    case OPT_KIND_CALLBACK:
        return !(row->flags & OPT_NO_VALUE);
    default:
        return true;
    }
}

/* "a, b or c" in the reader's language, from an enum's choices. */
static void choices_sentence(const struct opt_choice *choices, char *out, size_t len)
{
    int n = 0;
    while (choices[n].name)
        n++;
    snprintf(out, len, "%s", n ? choices[n - 1].name : "");
    if (n < 2)
        return;
    char tail[512];
    snprintf(tail, sizeof tail, "%s", out);
    /* TRANSLATORS: the last two of a list of choices: "cpu or nvme". */
    snprintf(out, len, _("%s or %s"), choices[n - 2].name, tail);
    for (int i = n - 3; i >= 0; i--) {
        snprintf(tail, sizeof tail, "%s", out);
        /* TRANSLATORS: a choice before the rest of a list: "none, optimizer or cpu". */
        snprintf(out, len, _("%s, %s"), choices[i].name, tail);
    }
}

/* An enum's metavar: its choices joined with |. */
static void choices_metavar(const struct opt_choice *choices, char *out, size_t len)
{
    *out = '\0';
    for (int i = 0; choices[i].name; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "|" : "", choices[i].name);
}

static enum opt_result take(const char *cmd, struct opt *row, const char *value)
{
    switch (row->kind) {
    case OPT_KIND_FLAG: *(bool *)row->value = true; return OPT_TAKEN;
    case OPT_KIND_CLEAR: *(bool *)row->value = false; return OPT_TAKEN;
    case OPT_KIND_INT:
        return option_int(cmd, row->name, value, (long)row->min, (long)row->max, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_TOKENS: return option_tokens(cmd, row->name, value, (int)row->max, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_REAL: return option_positive(cmd, row->name, value, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_FRACTION: return option_fraction(cmd, row->name, value, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_PERCENT: return option_percent(cmd, row->name, value, row->max, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_SIZE: return option_bytes(cmd, row->name, value, row->value) ? OPT_TAKEN : OPT_BAD;
    case OPT_KIND_SECONDS:
        return option_seconds(cmd, row->name, value, row->flags & OPT_ZERO_OK, row->max, row->value) ? OPT_TAKEN
                                                                                                     : OPT_BAD;
    case OPT_KIND_STRING:
    case OPT_KIND_FILE:
    case OPT_KIND_DIR: *(const char **)row->value = value; return OPT_TAKEN;
    case OPT_KIND_ENUM:
        for (const struct opt_choice *c = row->choices; c->name; c++)
            if (!strcmp(c->name, value)) {
                *(int *)row->value = c->value;
                return OPT_TAKEN;
            }
        char expected[512];
        choices_sentence(row->choices, expected, sizeof expected);
        option_invalid(cmd, row->name, value, expected);
        return OPT_BAD;
    case OPT_KIND_CALLBACK: return row->callback(cmd, row, value);
    case OPT_KIND_END:
    case OPT_KIND_GROUP: break;
    }
    return OPT_BAD;
}

static double current_value(const struct opt *row)
{
    switch (row->kind) {
    case OPT_KIND_INT:
    case OPT_KIND_TOKENS:
    case OPT_KIND_ENUM: return *(const int *)row->value;
    case OPT_KIND_REAL:
    case OPT_KIND_FRACTION:
    case OPT_KIND_PERCENT:
    case OPT_KIND_SIZE:
    case OPT_KIND_SECONDS: return *(const double *)row->value;
    default: return 0;
    }
}

int opt_parse(const struct opt_command *command, struct opt *table, int argc, char **argv)
{
    int rows = 0;
    while (table[rows].kind != OPT_KIND_END)
        rows++;
    struct option *longopts = calloc((size_t)rows + 3, sizeof *longopts);
    char *shortopts = malloc((size_t)rows * 3 + 3);
    if (!longopts || !shortopts) {
        free(longopts);
        free(shortopts);
        return EXIT_CANNOT_RUN;
    }
    int n = 0, s = 0;
    if (command->stop_at_operand)
        shortopts[s++] = '+';
    for (int i = 0; i < rows; i++) {
        struct opt *row = &table[i];
        row->seen = 0;
        row->initial = current_value(row);
        if (row->kind == OPT_KIND_STRING || row->kind == OPT_KIND_FILE || row->kind == OPT_KIND_DIR)
            row->initial_text = *(const char **)row->value;
        if (row->kind == OPT_KIND_GROUP)
            continue;
        int has_arg = !takes_value(row) ? no_argument
                      : row->flags & OPT_OPTIONAL_VALUE ? optional_argument
                                                        : required_argument;
        /* A row with a short letter returns the letter (option_error names it from the array). */
        longopts[n++] = (struct option){row->name, has_arg, NULL, row->short_name ? row->short_name : OPT_LONG_BASE + i};
        if (row->short_name) {
            shortopts[s++] = (char)row->short_name;
            if (has_arg == required_argument)
                shortopts[s++] = ':';
        }
    }
    shortopts[s++] = 'h';
    shortopts[s] = '\0';
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n++] = (struct option){"list-options", no_argument, NULL, OPT_LONG_BASE + rows};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    int status = 0, c;
    optind = 0; /* glibc starts afresh at 0 (at 1 it keeps the first call's '+', a second table's too) */
    while (status == 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        struct opt *row = NULL;
        if (c >= OPT_LONG_BASE && c < OPT_LONG_BASE + rows)
            row = &table[c - OPT_LONG_BASE];
        for (int i = 0; i < rows && !row && c < OPT_LONG_BASE; i++)
            if (table[i].kind != OPT_KIND_GROUP && table[i].short_name == c)
                row = &table[i];
        if (row) {
            row->seen++;
            enum opt_result r = take(command->name, row, optarg);
            status = r == OPT_BAD ? EXIT_CANNOT_RUN : r == OPT_STOP ? -1 : 0;
        } else if (c == 'h') {
            opt_usage(stdout, command, table);
            status = -1;
        } else if (c == OPT_LONG_BASE + rows) {
            /* For the shell completion: every option, one a line. */
            for (int i = 0; i < n; i++)
                if (strcmp(longopts[i].name, "list-options"))
                    printf("--%s\n", longopts[i].name);
            status = -1;
        } else {
            status = option_error(longopts, argv);
        }
    }
    free(longopts);
    free(shortopts);
    return status;
}

/* A number of a row's help, written as the option takes it. */
static void value_text(const struct opt *row, double v, char *out, size_t len)
{
    *out = '\0';
    switch (row->kind) {
    case OPT_KIND_ENUM:
        for (const struct opt_choice *c = row->choices; c->name; c++)
            if (c->value == (int)v) {
                snprintf(out, len, "%s", c->name);
                break;
            }
        break;
    case OPT_KIND_SIZE: {
        static const struct {
            double unit;
            const char *name;
        } units[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}};
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (v >= units[i].unit) {
                snprintf(out, len, "%.3g %s", v / units[i].unit, units[i].name);
                return;
            }
        snprintf(out, len, "%.0f B", v);
        break;
    }
    case OPT_KIND_STRING:
    case OPT_KIND_FILE:
    case OPT_KIND_DIR: snprintf(out, len, "%s", row->initial_text ? row->initial_text : ""); break;
    default: snprintf(out, len, "%.10g", v); break;
    }
}

const struct opt *opt_take_anywhere(struct opt *table, int *argc, char **argv)
{
    for (struct opt *row = table; row->kind != OPT_KIND_END; row++) {
        if (!(row->flags & OPT_ANYWHERE))
            continue;
        size_t len = strlen(row->name);
        for (int i = 1; i < *argc && strcmp(argv[i], "--");) {
            const char *word = argv[i];
            bool joined = !strncmp(word, "--", 2) && !strncmp(word + 2, row->name, len) && word[2 + len] == '=';
            if (!joined && (strncmp(word, "--", 2) || strcmp(word + 2, row->name))) {
                i++;
                continue;
            }
            const char *value = joined ? word + 3 + len : i + 1 < *argc ? argv[i + 1] : NULL;
            if (!value || !*value)
                return row;
            *(const char **)row->value = value;
            row->seen++;
            int taken = joined ? 1 : 2;
            memmove(&argv[i], &argv[i + taken], sizeof *argv * (size_t)(*argc - i - taken + 1));
            *argc -= taken;
        }
    }
    return NULL;
}

/* The default for a row's help: its name, or the target's value before parsing (or shown_default). */
static void default_text(const struct opt *row, char *out, size_t len)
{
    if (row->default_name)
        snprintf(out, len, "%s", row->default_name);
    else
        value_text(row, row->flags & OPT_SHOWN_DEFAULT ? row->shown_default : row->initial, out, len);
}

/* text with its "%s" replaced by values[0], values[1], ... in turn (nothing past the last); a line
 * break after the first line goes under the option texts' column (indent). */
static void put_filled(FILE *m, const char *text, const char *const *values, int nvalues, size_t indent)
{
    int next = 0;
    for (const char *p = text; *p; p++) {
        if (p[0] == '%' && p[1] == 's') {
            if (next < nvalues)
                fputs(values[next++], m);
            p++;
        } else if (*p == '\n' && p[1] && indent) {
            /* a line of its own in the help: under the text, not a paragraph of its own */
            fprintf(m, "\n%*s", (int)indent, "");
        } else {
            fputc(*p, m);
        }
    }
}

/* The row's help in the reader's language with its defaults put in for %s. */
static void put_help_text(FILE *m, const struct opt *row, size_t column)
{
    char first[128] = "", second[128] = "";
    if (strstr(row->help, "%s")) {
        default_text(row, first, sizeof first);
        if (row->flags & OPT_SHOWN_DEFAULT)
            value_text(row, row->shown_next, second, sizeof second);
    }
    const char *values[] = {first, second};
    put_filled(m, _(row->help), values, 2, column + 4);
}

/* Where the option texts start: after the longest tag that is not too long. */
#define HELP_TAG_MAX 22
/* The furthest column an option's text starts at beside its tag: 44, and less than half the width
 * (at 80 columns, a text beside a 37-column tag would be a narrow strip of short lines). */
#define HELP_TEXT_MAX_COLUMN 44
#define HELP_TEXT_MAX_SHARE 0.45

static void tag_of(const struct opt *row, char *out, size_t len)
{
    char metavar[256] = "";
    if (row->metavar)
        snprintf(metavar, sizeof metavar, "%s", row->metavar);
    else if (row->kind == OPT_KIND_ENUM)
        choices_metavar(row->choices, metavar, sizeof metavar);
    if (!*metavar)
        snprintf(out, len, "--%s", row->name);
    else if (row->flags & OPT_OPTIONAL_VALUE)
        snprintf(out, len, "--%s [%s]", row->name, metavar);
    else
        snprintf(out, len, "--%s %s", row->name, metavar);
}

/* "[--sysroot DIR] [--json] ...": every option of the table but the actions, in its order. */
static void synopsis_of(const struct opt *table, char *out, size_t len)
{
    for (const struct opt *row = table; row->kind != OPT_KIND_END; row++) {
        if (row->kind == OPT_KIND_GROUP || row->flags & (OPT_HIDDEN | OPT_NO_VALUE))
            continue;
        char tag[320];
        tag_of(row, tag, sizeof tag);
        if (strchr(tag, '|')) {
            /* a list of choices is for the options below: here the option's name stands for it, so
             * that no [bracketed] item is too long for a line */
            char upper[64];
            size_t k = 0;
            for (; row->name[k] && k + 1 < sizeof upper; k++)
                upper[k] = row->name[k] == '-' ? '_' : (char)toupper((unsigned char)row->name[k]);
            upper[k] = '\0';
            snprintf(tag, sizeof tag, "--%s %s", row->name, upper);
        }
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s[%s]", used ? " " : "", tag);
    }
}

void opt_usage(FILE *out, const struct opt_command *command, const struct opt *table)
{
    char *text = NULL;
    size_t text_len = 0;
    FILE *m = open_memstream(&text, &text_len);
    if (!m)
        return;
    if (command->usage) {
        char synopsis[4096] = "";
        if (command->synopsis)
            synopsis_of(table, synopsis, sizeof synopsis);
        const char *operands = command->synopsis ? synopsis : command->operands ? command->operands : "";
        put_filled(m, _(command->usage), &operands, 1, 0);
    }
    /* --help's own line, where the command has one, after the table's */
    const struct opt help_row = OPT_FLAG("help", 'h', NULL, command->help_help);
    size_t column = command->help_help ? strlen("--help") : 0, width = report_columns(out);
    size_t max_column = (size_t)((double)width * HELP_TEXT_MAX_SHARE);
    if (max_column > HELP_TEXT_MAX_COLUMN)
        max_column = HELP_TEXT_MAX_COLUMN;
    for (const struct opt *row = table; row->kind != OPT_KIND_END; row++) {
        char tag[320];
        if (row->kind == OPT_KIND_GROUP || row->flags & OPT_HIDDEN)
            continue;
        tag_of(row, tag, sizeof tag);
        size_t w = strlen(tag);
        if (w <= HELP_TAG_MAX && w > column)
            column = w;
    }
    for (const struct opt *next = table; next;) {
        const struct opt *row = next;
        next = next->kind != OPT_KIND_END ? next + 1 : NULL;
        if (row->kind == OPT_KIND_END) {
            if (!command->help_help)
                break;
            row = &help_row;
        }
        if (row->kind == OPT_KIND_GROUP) {
            fprintf(m, "%s\n", *row->name ? _(row->name) : ""); /* "": a blank line */
            continue;
        }
        if (row->flags & OPT_HIDDEN)
            continue;
        char tag[320], *line = NULL;
        size_t line_len = 0;
        FILE *l = open_memstream(&line, &line_len);
        if (!l)
            break;
        tag_of(row, tag, sizeof tag);
        /* a tag too long to keep its text beside it: the text starts on the next line, in the column */
        bool below = strlen(tag) + 4 > max_column;
        if (below)
            fprintf(l, "  %s\n%*s", tag, (int)column + 4, "");
        else
            fprintf(l, "  %-*s  ", (int)column, tag);
        put_help_text(l, row, column);
        fputc('\n', l);
        fclose(l);
        /* Wrapped here, under its text even after a tag longer than the others' (print_help would
         * hang a continuation no deeper than 40 columns); print_help leaves a line that fits. */
        (below ? print_wrapped_indented : print_wrapped_table)(m, line, line_len, width);
        free(line);
    }
    if (command->footer) {
        fputc('\n', m);
        fputs(_(command->footer), m);
    }
    fclose(m);
    print_help(out, text);
    free(text);
}
