/* `gpuvet health`'s output besides its one line (report/health.c): the text on stdout and stderr
 * (health_text.c) and node_exporter's textfile (health_prom.c). */
#ifndef GPUVET_REPORT_HEALTH_REPORT_H
#define GPUVET_REPORT_HEALTH_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "health/health.h"

/* The one line on out ("gpuvet: OK", "gpuvet: FAIL ...", or "gpuvet: UNKNOWN ..." when the machine
 * could not be read), then every problem on err, in the user's language where translated. */
void health_report_text(FILE *out, FILE *err, const struct health_check *h);
/* What Slurm was told (rc 0: what it did; -1: why it failed), on err. */
void health_report_slurm(FILE *err, int rc, const char *what, const char *why);
/* --slurm: what an administrator must see, in syslog (the journal), ident "gpuvet", facility daemon,
 * since slurmd does not log HealthCheckProgram's stderr: a failure to tell Slurm (LOG_ERR), a drain
 * or a resume (LOG_WARNING); nothing when nothing changed (the check runs every few minutes).
 * English, as the reason Slurm stores. */
void health_report_syslog_slurm(int rc, bool changed, const char *what, const char *why);
/* --slurm, the machine could not be read: the first problem, at LOG_ERR. */
void health_report_syslog_unchecked(const struct health_check *h);
/* --nfd FILE: the labels (health/health.h) in features.d format, expiring after two intervals of
 * interval_s from now; written atomically. 0, or -1 after an error on stderr naming the file. */
int health_report_nfd(const char *path, const struct health_check *h, double interval_s, time_t now);
/* --prom FILE, written atomically; 0, or -1 after an error on stderr that names the file. */
int health_report_prom(const char *path, const struct health_check *h);

#endif
