/* What gpuvet writes: a report that could not be written is a failure (exit 2), not a silent
 * success, and strings taken from evidence files reach a terminal without its escape codes. */
#ifndef GPUVET_UTIL_OUTPUT_H
#define GPUVET_UTIL_OUTPUT_H

#include <stddef.h>

/* Run first: a closed standard descriptor would be reused by the next open(), and a report
 * meant for stdout would land in that file. Closed stdout becomes a read-only /dev/null (every
 * write to it fails, so output_finish reports it); closed stdin/stderr become /dev/null. */
void output_guard_std_fds(void);

/* Run last: flushes and closes stdout. 0 when everything written reached it; otherwise prints
 * "gpuvet: cannot write the report ..." on stderr and returns -1 (the caller exits 2). */
int output_finish(void);

/* Copies s into out (size bytes, always NUL-terminated) with control characters written as
 * \xNN, so an evidence file cannot move the cursor, recolour or retitle the user's terminal.
 * Returns out. */
char *text_escape_controls(const char *s, char *out, size_t size);

#endif
