/* One `gpuvet watch` run: start or attach to the job, sample it every interval until it ends,
 * the duration passes or Ctrl-C, then diagnose and report. Orchestrates probe/watch, rules/watch
 * and report/watch; builtin/watch.c only parses the options. */
#ifndef GPUVET_WATCH_SESSION_H
#define GPUVET_WATCH_SESSION_H

#include <stdbool.h>

/* Seconds between samples when --interval is not given (watch --help formats it in). */
#define WATCH_INTERVAL_DEFAULT 1.0

struct watch_options {
    char **command;          /* the job to start (NULL-terminated argv), or NULL */
    int pid;                 /* the running job to attach to, or 0 */
    double interval;         /* seconds between samples (WATCH_INTERVAL_DEFAULT) */
    double duration;         /* seconds to watch; 0 = until the job ends or Ctrl-C */
    bool json;               /* --json: the report is the gpuvet.watch/1 document */
    const char *output_path; /* --output FILE: the report goes to FILE, not stdout; or NULL */
    const char *replay_path; /* --replay FILE, or NULL */
};

/* Exit status of the command a job started by gpuvet decides: its own (128+N when killed by
 * signal N, 127 when it could not be started); otherwise 0 watched, 2 could not run. */
int watch_run(const struct watch_options *o);

#endif
