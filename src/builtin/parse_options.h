/* A command's options declared once, as a table (git's parse-options is the model): one row per
 * option with its kind, bounds, where its value goes, its metavar and its help. From the table come
 * getopt_long's option array, the parsing with its bounds and the one error text per kind
 * (util/parse.h: "gpuvet CMD: --opt VALUE: expected ..."), the options part of --help (which the
 * man page and the shell completion read) and the hidden --list-options listing.
 *
 * A table is an array a command builds where it parses (the rows point into its own structs),
 * ended by OPT_END(). --help (-h) and --list-options are added to every table. */
#ifndef GPUVET_BUILTIN_PARSE_OPTIONS_H
#define GPUVET_BUILTIN_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum opt_kind {
    OPT_KIND_END,
    OPT_KIND_GROUP,    /* a heading in --help ("llm-train:"), no option */
    OPT_KIND_FLAG,     /* bool set true */
    OPT_KIND_CLEAR,    /* bool set false (--no-zero-init) */
    OPT_KIND_INT,      /* int in [min, max] */
    OPT_KIND_TOKENS,   /* int token count in [1, max]: 8k = 8192 */
    OPT_KIND_REAL,     /* double, a positive number with a count suffix (7B, 2T, 1e21) */
    OPT_KIND_FRACTION, /* double in (0, 1], 0.68 or 68% */
    OPT_KIND_PERCENT,  /* double in [0, max), 5 or 5% */
    OPT_KIND_SIZE,     /* double, bytes with a unit (150GB, 512MiB) */
    OPT_KIND_SECONDS,  /* double seconds in (0, max] ([0, max] with OPT_ZERO_OK): 20, 1.5s, 5m */
    OPT_KIND_STRING,   /* const char *, the argument itself */
    OPT_KIND_FILE,     /* const char *, a file the user names (completion offers files) */
    OPT_KIND_DIR,      /* const char *, a directory */
    OPT_KIND_ENUM,     /* int, the value of the choice named */
    OPT_KIND_CALLBACK, /* the row's callback takes the argument (lists, repeatable options, actions) */
};

/* Row flags. */
enum {
    OPT_OPTIONAL_VALUE = 1 << 0, /* --check[=FILE]: getopt's optional_argument */
    OPT_ZERO_OK = 1 << 1,        /* seconds: 0 is allowed */
    OPT_HIDDEN = 1 << 2,         /* parsed, not in --help */
    OPT_NO_VALUE = 1 << 3,       /* a callback that takes no argument (an action: --list-models) */
    OPT_SHOWN_DEFAULT = 1 << 4,  /* help's %s is the row's shown_default, not the target's value */
    OPT_ANYWHERE = 1 << 5,       /* a string taken wherever it stands (opt_take_anywhere): gpuvet's --lang */
};

struct opt_choice {
    const char *name;
    int value;
};

enum opt_result { OPT_TAKEN, OPT_STOP, OPT_BAD };
struct opt;
/* A callback row's parser: value is the argument (NULL for OPT_NO_VALUE); OPT_BAD after saying why
 * (util/parse.h's option_invalid), OPT_STOP when the command is done (an action printed its list). */
typedef enum opt_result (*opt_callback)(const char *cmd, const struct opt *row, const char *value);

struct opt {
    enum opt_kind kind;
    const char *name;     /* long name without dashes; a GROUP's heading (a msgid) */
    int short_name;       /* 0: none */
    void *value;          /* where the parsed value goes (a callback's context) */
    const char *metavar;  /* "N", "FILE"; NULL: a flag, or an enum's choices joined with | */
    const char *help;     /* a msgid; its first "%s" is the default (default_name, shown_default, or the
                             target's value before parsing), a second one shown_next */
    double min, max;      /* INT: [min, max]; TOKENS, PERCENT, SECONDS: max */
    const struct opt_choice *choices; /* ENUM, ended by {NULL} */
    opt_callback callback;
    unsigned flags;
    double shown_default; /* with OPT_SHOWN_DEFAULT */
    double shown_next;    /* with OPT_SHOWN_DEFAULT: help's second %s, written as the first (bench's
                             --seconds under --quick) */
    const char *default_name; /* the default as the option takes it, where the target is no number or
                                 string (a callback's: --kv's "bf16") */
    /* Filled by opt_parse: */
    int seen;             /* how many times it was given */
    double initial;       /* the target's value before parsing (numbers, enums), for --help */
    const char *initial_text; /* the same for a string */
};

/* Row makers, one per kind. h is the help msgid (N_()). */
#define OPT_END() {.kind = OPT_KIND_END}
/* heading: N_("llm-train:"), or "" for a blank line */
#define OPT_GROUP(heading) {.kind = OPT_KIND_GROUP, .name = (heading)}
#define OPT_FLAG(n, s, p, h) {.kind = OPT_KIND_FLAG, .name = (n), .short_name = (s), .value = OPT_CHECK(bool, p), .help = (h)}
#define OPT_CLEAR(n, p, h) {.kind = OPT_KIND_CLEAR, .name = (n), .value = OPT_CHECK(bool, p), .help = (h)}
#define OPT_INT(n, s, p, lo, hi, m, h)                                                                                 \
    {.kind = OPT_KIND_INT, .name = (n), .short_name = (s), .value = OPT_CHECK(int, p), .min = (lo), .max = (hi),      \
     .metavar = (m), .help = (h)}
#define OPT_TOKENS(n, p, hi, m, h)                                                                                     \
    {.kind = OPT_KIND_TOKENS, .name = (n), .value = OPT_CHECK(int, p), .max = (hi), .metavar = (m), .help = (h)}
#define OPT_REAL(n, s, p, m, h)                                                                                        \
    {.kind = OPT_KIND_REAL, .name = (n), .short_name = (s), .value = OPT_CHECK(double, p), .metavar = (m), .help = (h)}
#define OPT_FRACTION(n, s, p, m, h)                                                                                    \
    {.kind = OPT_KIND_FRACTION, .name = (n), .short_name = (s), .value = OPT_CHECK(double, p), .metavar = (m),        \
     .help = (h)}
#define OPT_PERCENT(n, p, hi, m, h)                                                                                    \
    {.kind = OPT_KIND_PERCENT, .name = (n), .value = OPT_CHECK(double, p), .max = (hi), .metavar = (m), .help = (h)}
#define OPT_SIZE(n, p, m, h) {.kind = OPT_KIND_SIZE, .name = (n), .value = OPT_CHECK(double, p), .metavar = (m), .help = (h)}
#define OPT_SECONDS(n, s, p, hi, flg, m, h)                                                                            \
    {.kind = OPT_KIND_SECONDS, .name = (n), .short_name = (s), .value = OPT_CHECK(double, p), .max = (hi),            \
     .flags = (flg), .metavar = (m), .help = (h)}
#define OPT_STRING(n, s, p, m, h)                                                                                      \
    {.kind = OPT_KIND_STRING, .name = (n), .short_name = (s), .value = OPT_CHECK(const char *, p), .metavar = (m),    \
     .help = (h)}
#define OPT_FILE(n, s, p, m, h)                                                                                        \
    {.kind = OPT_KIND_FILE, .name = (n), .short_name = (s), .value = OPT_CHECK(const char *, p), .metavar = (m),      \
     .help = (h)}
#define OPT_DIR(n, s, p, m, h)                                                                                         \
    {.kind = OPT_KIND_DIR, .name = (n), .short_name = (s), .value = OPT_CHECK(const char *, p), .metavar = (m),       \
     .help = (h)}
/* p points to an enum variable (any enum type: stored as int). */
#define OPT_ENUM(n, s, p, c, h) {.kind = OPT_KIND_ENUM, .name = (n), .short_name = (s), .value = (p), .choices = (c), .help = (h)}
#define OPT_CALLBACK(n, s, p, f, flg, m, h)                                                                            \
    {.kind = OPT_KIND_CALLBACK, .name = (n), .short_name = (s), .value = (p), .callback = (f), .flags = (flg),        \
     .metavar = (m), .help = (h)}
/* A pointer of the row's type, or a compile error (a row declares where its value goes once). */
#define OPT_CHECK(type, p) ((void *)(1 ? (p) : (type *)0))

/* What --help says around the options: the usage line and description before them, the notes and
 * exit status after (msgids; either may be NULL). */
struct opt_command {
    const char *name; /* "plan" */
    const char *usage;    /* "%s" in it is operands (bench's benchmark names, from its registry), or
                             with synopsis, every option: "[--sysroot DIR] [--json] ..." */
    const char *operands;
    bool synopsis;
    bool stop_at_operand; /* options end at the first operand (watch -- COMMAND keeps its own options) */
    const char *footer;
    const char *help_help; /* a msgid: --help's own line in the options (NULL: none) */
};

/* Parses argv (argv[0] is "gpuvet CMD") with table: 0 with optind at the first operand; -1 when the
 * command is done and exits 0 (--help, --list-options, an action); EXIT_CANNOT_RUN after an error
 * on stderr. */
int opt_parse(const struct opt_command *command, struct opt *table, int argc, char **argv);
/* The command's --help (usage, the table's options, footer) to out, wrapped to its width. */
void opt_usage(FILE *out, const struct opt_command *command, const struct opt *table);
/* Takes the OPT_ANYWHERE rows (strings) out of argv wherever they stand before a "--", before or after
 * a command's name, as --NAME VALUE or --NAME=VALUE, the last one given counting: left to a command's
 * getopt, `gpuvet audit --data DIR` would be read as the abbreviation of --data-dir. NULL, or the
 * row given without its value. */
const struct opt *opt_take_anywhere(struct opt *table, int *argc, char **argv);
/* The row of table named name (NULL: none). */
const struct opt *opt_find(const struct opt *table, const char *name);

#endif
