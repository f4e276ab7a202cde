/* Rules: a table of stable, public IDs, each with the workloads' severities, a check
 * and a rationale. A check reads the machine model and adds findings; it never reads files. */
#ifndef GPUVET_RULES_RULE_H
#define GPUVET_RULES_RULE_H

#include <jansson.h>
#include <stdbool.h>

#include "model/machine.h"
#include "rules/workload.h"

/* Ordered from best to worst; reports sort worst first. */
enum severity { SEV_PASS, SEV_INFO, SEV_UNKNOWN, SEV_WARN, SEV_FAIL };

struct audit_ctx;
struct claim_set;

/* What the audit was told besides the machine: the job's shape and the provider's claims. */
struct audit_inputs {
    int nodes;                /* --nodes: machines one job spans; 1 = a single-node job */
    const struct claim_set *claims; /* --claim, already evaluated (claims_evaluate); NULL none */
    int expect_gpus;          /* --expect-gpus: accelerators the node should show; 0 not given */
};

struct rule {
    const char *id;        /* public and stable */
    const char *area;      /* report group: "pcie", "numa", "kernel", "cpu", "virt", ... */
    const char *title;
    enum severity severity[WORKLOAD_COUNT]; /* what a failed check weighs, per workload */
    void (*check)(struct audit_ctx *ctx);
    const char *rationale; /* printed by `gpuvet explain ID` */
};

struct finding {
    const struct rule *rule;
    enum severity severity;
    char *subject;         /* "machine", a bus id, a NUMA node, ... */
    char *message;
    json_t *evidence;      /* object: the values the verdict rests on */
    char *fix;             /* a command or action; NULL when nothing to do */
    /* The same two in the user's language (util/i18n.h) for the reports people read; NULL when
     * English is shown. JSON and Prometheus keep message and fix. */
    char *message_local;
    char *fix_local;
};

struct findings {
    struct finding *items;
    int count;
};

struct audit_ctx {
    const struct machine *machine;
    enum workload workload;
    const struct thresholds *thresholds;
    const struct audit_inputs *inputs; /* never NULL */
    const struct rule *rule; /* the rule being checked */
    struct findings *out;
};

/* Sets found, verdict and message of every claim from the machine model (rules/claims.c). */
void claims_evaluate(struct claim_set *set, const struct machine *m, const struct thresholds *t);

/* The table, in report order. */
extern const struct rule rules_table[];
extern const int rules_count;
const struct rule *rule_find(const char *id);

/* Runs every rule on the machine; findings are sorted worst first, then by area. inputs may be
 * NULL (a single-node job, no claims). */
void rules_run(const struct machine *m, enum workload workload, const struct audit_inputs *inputs,
               struct findings *out);

/* The current rule's severity for the current workload. */
enum severity ctx_severity(const struct audit_ctx *ctx);
/* Adds a finding for ctx->rule. evidence is taken over (may be NULL); fix may be NULL. */
void finding_add(struct audit_ctx *ctx, enum severity severity, const char *subject, json_t *evidence,
                 const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* What a report for people prints: the local text when there is one, else the English. */
const char *finding_message(const struct finding *f);
/* Gives each finding of out the message and fix of its fellow in local, a second run of the same
 * checks in the user's language (the checks are pure, so the runs pair up finding by finding),
 * and frees local. Runs that do not pair up (never seen) keep English. */
void findings_adopt_local(struct findings *out, struct findings *local);
const char *finding_fix(const struct finding *f);

void findings_sort(struct findings *f);
void findings_free(struct findings *f);
int findings_count(const struct findings *f, enum severity severity);

const char *severity_name(enum severity s);

#endif
