/* `gpuvet fleet` and `gpuvet compare` reports: text (fleet_text.c) and JSON (fleet_json.c,
 * gpuvet.fleet/1 and gpuvet.compare/1, docs/fleet-json.md). */
#ifndef GPUVET_REPORT_FLEET_REPORT_H
#define GPUVET_REPORT_FLEET_REPORT_H

#include <stdio.h>

#include "fleet/fleet.h"

#define FLEET_SCHEMA "gpuvet.fleet/1"
#define COMPARE_SCHEMA "gpuvet.compare/1"

/* 0, or -1 when writing failed. */
int fleet_report_text(FILE *out, const struct fleet *f, const struct fleet_analysis *a);
int fleet_report_json(FILE *out, const struct fleet *f, const struct fleet_analysis *a);

/* Two machines, each the one node of its own fleet (a and b). */
int compare_report_text(FILE *out, const struct fleet *a, const struct fleet *b);
int compare_report_json(FILE *out, const struct fleet *a, const struct fleet *b);

#endif
