/* Text reports wider than a terminal: lines wrapped at a space, or beside a CJK character (which
 * Chinese text breaks anywhere beside, keeping closing punctuation off a line's start). */
#ifndef GPUVET_REPORT_WRAP_H
#define GPUVET_REPORT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* The width text reports fit where nothing says otherwise: a 100-column terminal. */
#define REPORT_COLUMNS 100
/* Narrowest and widest widths report_columns gives: narrower terminals still get readable
 * continuations, wider ones lines a reader's eye can follow. */
#define REPORT_COLUMNS_MIN 40
#define REPORT_COLUMNS_MAX 200

/* The width text written to stream o should fit: the terminal's width when o is a terminal, else
 * COLUMNS when set to a number, else REPORT_COLUMNS; clamped to [REPORT_COLUMNS_MIN,
 * REPORT_COLUMNS_MAX]. */
size_t report_columns(FILE *o);

/* Writes buf (len bytes) to o, wrapping every line wider than width display columns. A
 * continuation is indented 8 columns deeper than its line (at most 40), or, for a line that
 * starts with hang_under (NULL: none; the audit's "fix: "), under the text that follows it. */
void print_wrapped(FILE *o, const char *buf, size_t len, size_t width, const char *hang_under);
/* The same, for text in columns: a continuation starts under its line's last column (the text
 * after the last run of two or more spaces, within the first 60 columns). */
void print_wrapped_table(FILE *o, const char *buf, size_t len, size_t width);
/* The same, each line continuing under its own indent (an option's text on the line below it). */
void print_wrapped_indented(FILE *o, const char *buf, size_t len, size_t width);
/* A command's help text at the terminal's width (report_columns(o)): an option's description
 * continues under its own column, never split inside a word. */
void print_help(FILE *o, const char *text);
/* A note or warning (never an error, which scripts and tests grep as one line) with the error
 * prefix of util/output.h, "gpuvet COMMAND: " (command NULL: "gpuvet: "), on out: on a terminal,
 * wrapped to its width, the continuations under the text after the prefix; written to a file or
 * pipe (a log), one line whatever COLUMNS says, for grep. The first line's text is the same either
 * way, escaped as print_error escapes it. */
void print_note_to(FILE *out, const char *command, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same for a line already prefixed (ending in a newline): continuations under hang_under, the
 * prefix the line starts with. */
void print_note_line(FILE *out, const char *line, const char *hang_under);

/* Runs render into memory, then writes its text to out through print_wrapped_table at
 * report_columns(out). Returns render's result, or -1 when out has a write error. */
int render_wrapped_table(FILE *out, int (*render)(FILE *out, const void *ctx), const void *ctx);

#endif
