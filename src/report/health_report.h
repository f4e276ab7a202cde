/* `gpuvet health`'s output besides its one line (report/health.c): the text on stdout and stderr
 * (health_text.c) and node_exporter's textfile (health_prom.c). */
#ifndef GPUVET_REPORT_HEALTH_REPORT_H
#define GPUVET_REPORT_HEALTH_REPORT_H

#include <stdio.h>

#include "health/health.h"

/* The one line on out ("gpuvet: OK", "gpuvet: FAIL ...", or "gpuvet: UNKNOWN ..." when the machine
 * could not be read), then every problem on err, in the user's language where translated. */
void health_report_text(FILE *out, FILE *err, const struct health_check *h);
/* What Slurm was told (rc 0: what it did; -1: why it failed), on err. */
void health_report_slurm(FILE *err, int rc, const char *what, const char *why);
/* --prom FILE, written atomically; 0, or -1 after an error on stderr that names the file. */
int health_report_prom(const char *path, const struct health_check *h);

#endif
