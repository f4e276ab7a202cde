/* `--output FILE` for commands that print their report on stdout: stdout goes to a temporary file
 * in FILE's directory, renamed over FILE only when the command succeeded, so a reader never sees a
 * half-written document and a failed run leaves no file. FILE may hold `%h` (this host's short
 * name, as srun/clush runs on every node) and `%%` (a percent sign). */
#ifndef GPUVET_UTIL_OUTPUT_FILE_H
#define GPUVET_UTIL_OUTPUT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct output_file {
    char path[PATH_MAX]; /* FILE with %h expanded */
    char temp[PATH_MAX];
    int saved_stdout;    /* -1 when stdout was not redirected */
};

/* Expands %h and %%; any other % sequence is an error. 0, or -1 with a message in `why`. */
int output_path_expand(const char *pattern, const char *host, char *out, size_t size, char *why, size_t why_size);

/* Redirects stdout into a temporary file beside the expanded FILE. 0, or -1 with a message on
 * stderr prefixed by `command` (nothing redirected then). */
int output_file_begin(struct output_file *o, const char *pattern, const char *command);

/* Restores stdout; keep: flush, sync and rename the temporary file over FILE (0, or -1 with a
 * message on stderr), otherwise remove it. */
int output_file_end(struct output_file *o, bool keep, const char *command);

/* A page FILE named on the command line (--html FILE, --markdown FILE): "-" is stdout. */
bool output_is_stdout(const char *file);
/* Opens FILE for writing, or gives stdout for "-"; NULL after "gpuvet COMMAND: FILE: why" on
 * stderr. */
FILE *output_open(const char *file, const char *command);
/* Closes what output_open gave (stdout stays open) and returns rc, or -1 when closing failed (the
 * error on stderr as output_open says it). */
int output_close(FILE *out, const char *file, const char *command, int rc);

#endif
