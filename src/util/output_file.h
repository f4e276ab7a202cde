/* `--output FILE` for commands that print their report on stdout: stdout goes to a temporary file
 * in FILE's directory, renamed over FILE only when the command succeeded, so a reader never sees a
 * half-written document and a failed run leaves no file (a device or FIFO is written through:
 * struct output_target says the rule). FILE may hold `%h` (this host's short name, as srun/clush
 * runs on every node; audit --sysroot: the recorded machine's) and `%%` (a percent sign). */
#ifndef GPUVET_UTIL_OUTPUT_FILE_H
#define GPUVET_UTIL_OUTPUT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Where a file gpuvet was asked to write goes (--output, --prom). The rule, by what the path is:
 *  - missing, or a regular file: a temporary file in the same folder, renamed over it when complete
 *    (a reader never sees half a document, a failed run leaves the old one);
 *  - a character device or a FIFO (/dev/stdout, /dev/null, a terminal, a pipe): written through,
 *    never replaced; a FIFO that nobody reads is refused at once rather than waited on;
 *  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that descriptor, written through;
 *  - a symlink: followed to its final target, which gets these same rules (the link stays a link).
 *    A link owned by another user (not by this one, not by root) is refused: it could point a root
 *    run at any file;
 *  - a folder, a socket or a block device: refused.
 * Temporary files are removed when SIGINT, SIGTERM or SIGHUP ends the run. */
struct output_target {
    char path[PATH_MAX]; /* what is written: the name given, or a symlink's final target */
    char temp[PATH_MAX]; /* the temporary file beside it; "" when written through */
    int fd;              /* open for writing; -1 once finished */
};

/* Decides how `path` would be written, without creating or writing anything (a run can refuse a
 * bad target before its work). 0, or -1 with the reason in why (English, kept for _()). */
int output_target_check(const char *path, char *why, size_t why_size);
/* output_target_check for a command's option (--prom FILE), before its work: 0, or -1 after
 * "gpuvet COMMAND: OPTION PATH: why" on stderr. */
int output_target_check_option(const char *command, const char *option, const char *path);
/* Opens `path` for writing as the rule above says; a temporary file gets `mode`. 0, or -1 with
 * the reason in why. */
int output_target_open(struct output_target *t, const char *path, mode_t mode, char *why, size_t why_size);
/* keep: flush the temporary file to disk and rename it over the target (or just close a target
 * written through); otherwise remove the temporary file. 0, or -1 with the reason in why. */
int output_target_finish(struct output_target *t, bool keep, char *why, size_t why_size);

struct output_file {
    char path[PATH_MAX]; /* FILE with %h expanded */
    struct output_target target;
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

/* The mode any new file of this user gets (0666 less the umask). */
mode_t output_new_file_mode(void);

/* A page FILE named on the command line (--html FILE, --markdown FILE): "-" is stdout. Other names
 * follow struct output_target's rule: a temporary file renamed over FILE when closed, a device or
 * FIFO written through. */
bool output_is_stdout(const char *file);
/* Opens FILE for writing, or gives stdout for "-"; NULL after "gpuvet COMMAND: FILE: why" on
 * stderr. */
FILE *output_open(const char *file, const char *command);
/* Closes what output_open gave (stdout stays open) and returns rc, or -1 when closing failed (the
 * error on stderr as output_open says it). */
int output_close(FILE *out, const char *file, const char *command, int rc);

#endif
