/* The audit's verdict per workload, and how much of the machine it rests on.
 *
 * A check is one finding (one rule on one subject). A fact is what a group of rules needs from
 * the machine ("DIMMs", "GPU clocks"). A fact is *key* for a workload when the workload's verdict
 * cannot be trusted without it (the table in verdict.c says which, and why). The verdict is, in
 * this order: FAIL (a fail finding), WARN (a warn finding), INCONCLUSIVE (a key fact unknown),
 * PASS. A problem found stays a problem whatever else is unknown; only a clean result needs the
 * key facts to be clean. Reports (text, JSON, HTML, Markdown) all read this one judgement. */
#ifndef GPUVET_RULES_VERDICT_H
#define GPUVET_RULES_VERDICT_H

#include <stdbool.h>
#include <stdio.h>

#include "rules/rule.h"

enum verdict { VERDICT_PASS, VERDICT_INCONCLUSIVE, VERDICT_WARN, VERDICT_FAIL };

/* "pass", "inconclusive", "warn", "fail" (the JSON values; reports upper-case them). */
const char *verdict_name(enum verdict v);

/* A fact the audit could not establish, with the reason of its first unknown check. */
struct coverage_gap {
    const char *fact;      /* "DIMMs", "GPU clocks", "accelerators", ... */
    char *reason;          /* why, from the unknown finding or the machine model */
    char *reason_local;    /* the same in the user's language (the finding's local text); NULL: none */
    int checks;            /* unknown checks behind it (model facts count 1) */
    bool key;              /* the workload's verdict needs it */
    bool outside_evidence; /* an evidence-file audit: the files given cannot hold this fact */
};

struct workload_verdict {
    enum workload workload;
    enum verdict verdict;
    int fails, warns;
    int checked;           /* checks that reached a judgement (pass, info, warn, fail) */
    int applicable;        /* every check that applies: checked plus unknown */
    int outside_evidence;  /* unknown checks the evidence files cannot hold (0 unless evidence only) */
    struct coverage_gap *gaps; /* key gaps first, then in rule-table order */
    int ngaps;
};

/* Every workload judged on one machine: the rules run once per workload (they are cheap), so a
 * problem that only matters to CV training shows under cv-train whichever workload was asked. */
struct verdict_set {
    struct findings findings[WORKLOAD_COUNT]; /* sorted worst first, as rules_run leaves them */
    struct workload_verdict verdicts[WORKLOAD_COUNT];
};

/* Runs the rules for every workload and judges each. inputs may be NULL (single node, no claims). */
void verdict_set_build(struct verdict_set *set, const struct machine *m, const struct audit_inputs *inputs);
void verdict_set_free(struct verdict_set *set);

/* Judges one workload's findings (already produced by rules_run for w). */
void verdict_judge(struct workload_verdict *out, const struct machine *m, enum workload w,
                   const struct findings *f);
void workload_verdict_free(struct workload_verdict *v);
/* What reports for people print: the fact's name and the reason, in the user's language. */
const char *gap_fact_text(const struct coverage_gap *g);
const char *gap_reason_text(const struct coverage_gap *g);

/* Key facts of a workload, for `gpuvet explain` and the README: one line per fact, with the rules
 * behind it and why the workload needs it. Writes nothing for an unknown workload. */
void verdict_describe_key_facts(FILE *out, enum workload w);

/* An unknown finding of an evidence-file audit (machine_from_evidence) that the evidence files
 * given cannot hold (the kernel settings in a dmidecode dump): reports say so once for all of
 * them. False for any finding of a live or recorded-tree audit. */
bool finding_outside_evidence(const struct machine *m, const struct finding *f);

/* Findings of one rule that say the same thing about several subjects ("bind its feeding process
 * to NUMA node 0" for 8 accelerators), so a report can print them once. */
struct finding_group {
    const struct finding **members; /* in the findings' order (worst first) */
    int count;
    const char *message;            /* the members' message (owned by the findings) */
};

/* Groups f (sorted, as rules_run leaves it): members share rule, severity, fix and message, and
 * differ in their subject only. Returns the number of groups (*out is freed with finding_groups_free). */
int findings_group(const struct findings *f, struct finding_group **out);
void finding_groups_free(struct finding_group *groups, int count);

#endif
