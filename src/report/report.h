/* Report formats, one file each (as lstopo's outputs). */
#ifndef GPUVET_REPORT_REPORT_H
#define GPUVET_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/machine.h"
#include "claims/claims.h"
#include "rules/rule.h"

#define AUDIT_SCHEMA "gpuvet.audit/1"

struct audit_report {
    const struct machine *machine;
    const struct findings *findings;
    enum workload workload;
    double elapsed_ms;
    const struct claim_set *claims; /* --claim, evaluated; NULL none */
    bool redact;          /* hide host names, serials, UUIDs and MACs */
};

/* What --redact puts in place of an identifying value. */
#define REDACTED "[redacted]"

/* report/gpu.c: the "gpus" array (null when no NVIDIA source described the GPUs) and the
 * "nvidia" object (null when no NVIDIA source was tried). */
json_t *gpus_to_json(const struct machine *m);
json_t *nvidia_to_json(const struct machine *m);
/* The names of the clock-event reason bits set (GPU_EVENT_*); null when not known. */
json_t *gpu_clock_events_json(bool known, uint64_t bits);
/* Replaces the string values of identifying keys (hostname, serial, uuid, mac...) everywhere. */
void report_redact(json_t *value);
void print_gpus(FILE *out, const struct machine *m, bool redact, const char *bold, const char *reset);

/* The machine model as the documented JSON object (docs/audit-json.md). */
json_t *machine_to_json(const struct machine *m);
json_t *findings_to_json(const struct findings *f);
/* claims[]: key, claimed, found, verdict, message; [] when no claim file was given. */
json_t *claims_to_json(const struct claim_set *set);

/* report/json_memory.c */
json_t *memory_json(const struct memory_info *mem);
json_t *power_json(const struct power_info *p);
json_t *contention_json(const struct contention_info *c);

int report_json(FILE *out, const struct audit_report *r);
/* colour: ANSI colours (caller decides: TTY and no NO_COLOR). */
int report_text(FILE *out, const struct audit_report *r, bool colour, bool verbose);

/* "pass" when no finding is worse than info/unknown/pass, else the worst severity. */
enum severity report_verdict(const struct findings *f);

#endif
