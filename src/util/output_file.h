/* `--output FILE` for commands that print their report on stdout: stdout goes to a temporary file
 * in FILE's directory, renamed over FILE only when the command succeeded, so a reader never sees a
 * half-written document and a failed run leaves no file. FILE may hold `%h` (this host's short
 * name, as srun/clush runs on every node; audit --sysroot: the recorded machine's) and `%%` (a percent sign). */
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

/* The same for an audited machine that is not this host (audit --sysroot): %h is recorded_host up
 * to its first dot ("" or a name that is not plain, such as "..", makes %h an error); NULL: this
 * host's short name, as output_file_begin. */
int output_file_begin_for(struct output_file *o, const char *pattern, const char *command, const char *recorded_host);

/* Restores stdout; keep: flush, sync and rename the temporary file over FILE (0, or -1 with a
 * message on stderr), otherwise remove it. */
int output_file_end(struct output_file *o, bool keep, const char *command);

/* A file written beside a report that stays on stdout (health --nfd FILE): its content goes into a
 * hidden temporary file in FILE's folder (".NAME.XXXXXX": readers that skip dot files, as Node
 * Feature Discovery's features.d reader does, never see it), which replaces FILE only once whole. */
struct output_atomic {
    char path[PATH_MAX];
    char temp[PATH_MAX];
    FILE *file;
};
/* The stream to write FILE's new content to; NULL after "gpuvet COMMAND: OPTION FILE: why". */
FILE *output_atomic_begin(struct output_atomic *a, const char *path, const char *command, const char *option);
/* keep: flushed, synced, mode 0644 and renamed over FILE (0, or -1 with the error); otherwise the
 * temporary file is removed (0). */
int output_atomic_end(struct output_atomic *a, bool keep, const char *command, const char *option);

/* A page FILE named on the command line (--html FILE, --markdown FILE): "-" is stdout. */
bool output_is_stdout(const char *file);
/* Opens FILE for writing, or gives stdout for "-"; NULL after "gpuvet COMMAND: FILE: why" on
 * stderr. */
FILE *output_open(const char *file, const char *command);
/* Closes what output_open gave (stdout stays open) and returns rc, or -1 when closing failed (the
 * error on stderr as output_open says it). */
int output_close(FILE *out, const char *file, const char *command, int rc);

#endif
