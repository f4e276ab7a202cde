/* What gpuvet writes: a report that could not be written is a failure (exit 2), not a silent
 * success, and strings taken from evidence files reach a terminal without its escape codes. */
#ifndef GPUVET_UTIL_OUTPUT_H
#define GPUVET_UTIL_OUTPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

/* Run first: a closed standard descriptor would be reused by the next open(), and a report
 * meant for stdout would land in that file. Closed stdout becomes a read-only /dev/null (every
 * write to it fails, so output_finish reports it); closed stdin/stderr become /dev/null. */
void output_guard_std_fds(void);

/* The one colour policy of every report: ANSI colours only on a terminal that can show them (out is
 * a TTY, TERM is not "dumb"), and never when NO_COLOR is set to a non-empty value (no-color.org). */
bool output_use_colour(FILE *out);

/* Run last: flushes and closes stdout. 0 when everything written reached it; otherwise prints
 * "gpuvet: cannot write the report ..." on stderr and returns -1 (the caller exits 2). */
int output_finish(void);

/* Prints "gpuvet COMMAND: MESSAGE" and a newline on stderr ("gpuvet: MESSAGE" when command is
 * NULL): every error of a command starts with exactly this prefix, built in one place (output.c);
 * a message never carries it in its own text. The prefix is in the user's language (its colon stays
 * ASCII). fmt is translated by the caller; a trailing newline in it is dropped. */
void print_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same line on out: for a report that writes its problems to a stream it is given. */
void print_error_to(FILE *out, const char *command, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same line, malloc'd (NULL without memory): for problems collected now and printed later. */
char *error_vline(const char *command, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Writes text to o with every control character but newline and tab written as \xNN (C0, DEL,
 * and C1 as UTF-8), and every byte that begins no well-formed UTF-8 character as \xNN too
 * (util/sanitize.h), so that strings from evidence files cannot move the cursor, clear, retitle or
 * recolour the user's terminal, nor garble the text after them. The sequences listed in keep (NULL-terminated; the report's own
 * colours, or a control byte a report uses as its own mark) pass as they are. Returns 0, or -1 when o has a write error. */
int text_write_escaped(FILE *o, const char *text, size_t len, const char *const *keep);

/* Runs render into memory: *text (len bytes, NUL-terminated; the caller frees it). Returns
 * render's result (-1 also when the text could not be completed), or TEXT_NO_MEMORY when no
 * buffer could be opened (nothing ran, *text is NULL). */
#define TEXT_NO_MEMORY (-2)

/* RFC 3339 in UTC, to the second ("2026-12-01T21:30:00Z"): what documents and files carry as a time. */
#define UTC_TIME_FORMAT "%Y-%m-%dT%H:%M:%SZ"
int text_render_to_memory(int (*render)(FILE *out, const void *ctx), const void *ctx, char **text, size_t *len);

/* Runs render into memory, then writes its text to o through text_write_escaped (keep as there):
 * for a report that prints strings from files a user gives. Returns render's result, or -1 when o
 * has a write error. Without memory, render writes to o directly. */
int text_render_escaped(FILE *o, int (*render)(FILE *out, const void *ctx), const void *ctx,
                        const char *const *keep);

#endif
