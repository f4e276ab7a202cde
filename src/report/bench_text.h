/* `gpuvet bench` text report (bench_text.c); the JSON report is the bench document itself. */
#ifndef GPUVET_REPORT_BENCH_TEXT_H
#define GPUVET_REPORT_BENCH_TEXT_H

#include <stdio.h>

#include <jansson.h>

/* The document's benchmarks in a fixed order; 0, or -1 when writing failed. */
int bench_report_text(FILE *out, json_t *doc);

#endif
