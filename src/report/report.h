/* Report formats, one file each (as lstopo's outputs). */
#ifndef GPUVET_REPORT_REPORT_H
#define GPUVET_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "model/machine.h"
#include "claims/claims.h"
#include "rules/rule.h"
#include "rules/verdict.h"
#include "util/redact.h"

#define AUDIT_SCHEMA "gpuvet.audit/1"

struct audit_report {
    const struct machine *machine;
    const struct findings *findings;
    enum workload workload;
    double elapsed_ms;
    const struct claim_set *claims; /* --claim, evaluated; NULL none */
    bool redact;          /* hide host names, serials, UUIDs and MACs */
    const struct verdict_set *verdicts; /* every workload judged (pipeline/audit.h); findings is
                                         * verdicts->findings[workload]. Never NULL: a report
                                         * formats the verdicts it is given, it judges nothing */
    time_t finished;      /* when the audit ended: the document's generated_at; 0 leaves it out */
};

/* What --redact puts in place of an identifying value. */
#define REDACTED REDACT_MARK

/* report/gpu.c: the "gpus" array (null when no NVIDIA source described the GPUs) and the
 * "nvidia" object (null when no NVIDIA source was tried). */
json_t *gpus_to_json(const struct machine *m);
json_t *nvidia_to_json(const struct machine *m);
/* The names of the clock-event reason bits set (GPU_EVENT_*); null when not known. */
json_t *gpu_clock_events_json(bool known, uint64_t bits);
/* Replaces the string values of identifying keys (hostname, serial, uuid, mac...) everywhere. */
void report_redact(json_t *value);
/* "Gen4 x16", with "?" for an unknown generation or width. */
void report_link_text(char *buf, size_t n, int gen, int width);
/* A severity as people read it: "WARN", in the user's language (text.c). */
const char *severity_label(enum severity s);
/* A finding's subject as people read it: the words rules write ("machine", "socket 1", "power
 * supply PSU1") in the user's language, anything else (a PCI address, a name) as it is. The
 * finding and the JSON keep the English subject, as they keep the rule ID (text.c). */
const char *finding_subject_shown(const char *subject, char *buf, size_t n);
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
/* colour: ANSI colours (the caller asks output_use_colour, util/output.h). */
int report_text(FILE *out, const struct audit_report *r, bool colour, bool verbose);

/* report/html.c: one self-contained page; report/markdown.c: the same for a ticket. */
int report_html(FILE *out, const struct audit_report *r);
int report_markdown(FILE *out, const struct audit_report *r);
/* Writes the report through fn into path ("-" is stdout); errors name the file. 0 or -1. */
int report_to_file(const char *path, int (*fn)(FILE *, const struct audit_report *), const struct audit_report *r);
/* report/redact.c: --redact, applied to the model and findings before any format is written. */
void report_redact_audit(struct machine *m, struct findings *f);
/* report/prom.c: node_exporter's textfile format. */
struct prom_report {
    const char *command;              /* "audit", "bench" or "health": a label on every sample */
    const struct machine *machine;    /* for dcgm-exporter's GPU labels; may be NULL */
    const struct findings *findings;  /* gpuvet_finding and gpuvet_verdict; NULL for bench */
    json_t *bench;                    /* a gpuvet.bench/1 document: its figures in base units; or NULL */
    double elapsed_s;
    time_t finished;
    const struct workload_verdict *verdict; /* gpuvet_verdict (rules/verdict.h); NULL for bench */
};
/* Writes the file atomically (a temporary file in its folder, then rename). 0, or -1 after an
 * error on stderr that names the file. */
int report_prom_file(const char *path, const struct prom_report *r);

/* report/health.c: gpuvet health's one-line reason, for Slurm and Node Problem Detector. */
#define HEALTH_REASON_MAX 80
/* "gpuvet: OK", or "gpuvet: FAIL RULE subject [+N more]: message", cut to HEALTH_REASON_MAX bytes
 * on a character boundary. out has room for HEALTH_REASON_MAX + 1 bytes. */
void health_reason(char out[HEALTH_REASON_MAX + 1], const struct findings *f, enum severity threshold);

#endif
