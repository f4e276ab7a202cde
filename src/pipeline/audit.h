/* The audit's one sequence: evidence files loaded, the machine probed (inside the CPU-use window
 * when one is asked), the claims evaluated, the benchmarks read, the rules run and each workload
 * judged. audit, health, plan --check and snapshot all get their machine here, so that evidence a
 * command takes (--kernel-log, --expect-gpus, several --nvidia-smi files) reaches the same machine
 * model and the same verdicts whichever command asks. Nothing is printed here but what a probe
 * says of a file it was given; the commands print the rest through report/. */
#ifndef GPUVET_PIPELINE_AUDIT_H
#define GPUVET_PIPELINE_AUDIT_H

#include <stdbool.h>

#include "claims/claims.h"
#include "model/machine.h"
#include "probe/probe.h"
#include "rules/rule.h"
#include "rules/verdict.h"
#include "rules/workload.h"

/* How far the sequence goes. */
enum audit_depth {
    AUDIT_MACHINE,        /* the machine model only (plan --check, snapshot) */
    AUDIT_ONE_WORKLOAD,   /* and the findings of req->workload (health's fast tier) */
    AUDIT_EVERY_WORKLOAD, /* and every workload's findings and verdict (audit, health --nfd) */
};

struct audit_request {
    const char *sysroot;          /* a recorded machine's root; NULL: this one */
    const char *nvidia_smi[NVIDIA_SMI_MAX_FILES]; /* --nvidia-smi files, each known by its content */
    int n_nvidia_smi;
    const char *dmidecode;        /* --dmidecode text; NULL none */
    const char *dmi_table;        /* --dmi-table binary SMBIOS dump; NULL none */
    const char *kernel_log;       /* --kernel-log: replaces the live or recorded log; NULL none */
    const char *claim_file;       /* --claim; NULL none */
    const char *expect_listing;   /* --expect: a listing in the provider's words; NULL none */
    const char *data_dir;         /* --data-dir: the dataset's disk is judged; NULL none */
    const char *bench_file;       /* --bench: a saved `gpuvet bench --json` document; NULL none */
    bool bench_quick;             /* --bench-quick: measure this machine first */
    bool bench_progress;          /* --bench-quick's progress on stderr */
    bool load_check;              /* --load-check: re-read GPU links under load */
    bool always_probe;            /* read the machine (live or sysroot) even beside evidence files,
                                     which then replace parts of it (health); false: evidence files
                                     without a sysroot describe another machine (audit, SPEC) */
    double sample_seconds;        /* the CPU-use window on the live machine; 0: no sample */
    const char *no_sample_why;    /* why sample_seconds is 0 (N_() text; NULL: --sample 0 was asked) */
    int nodes;                    /* --nodes; 0 counts as 1 */
    int expect_gpus;              /* --expect-gpus; 0 not given */
    enum workload workload;       /* the workload asked (claims' thresholds, AUDIT_ONE_WORKLOAD) */
    enum audit_depth depth;
    const struct xid_overrides *xid; /* --xid-fatal, --xid-ignore; NULL none */
    double deadline_cap_s;        /* the longest any one blocking call may wait (health's fast tier,
                                     util/deadline.h); 0: each call's own deadline */
};

struct audit_result {
    double started_ms;           /* CLOCK_MONOTONIC, in ms, when audit_run began */
    struct machine machine;
    bool probed;                 /* the machine and every evidence file were read */
    char *error;                 /* why the audit could not run, for the command to print; NULL:
                                    see machine.problems (or the probe said it) */
    struct claim_set claims;     /* --claim, evaluated (empty without one) */
    struct audit_inputs inputs;  /* nodes, claims (NULL without a claim file), expect_gpus */
    struct verdict_set verdicts; /* AUDIT_EVERY_WORKLOAD: every workload; AUDIT_ONE_WORKLOAD: only
                                    findings[workload], no verdict; AUDIT_MACHINE: empty */
    const struct findings *findings; /* verdicts.findings[workload]; NULL for AUDIT_MACHINE */
};

enum audit_status {
    AUDIT_DONE = 0,
    AUDIT_REFUSED = -1,    /* an input was refused before the machine was read: r->error, or the
                              probe of --data-dir or --bench already said why */
    AUDIT_UNREADABLE = -2, /* the machine or an evidence file could not be read: r->machine's
                              problems say why */
};

/* Runs req's sequence into *r (in place: r->inputs points into r). Free r with audit_result_free
 * whatever it returns. */
enum audit_status audit_run(const struct audit_request *req, struct audit_result *r);
/* Applies scrub (--redact, report/redact.c) to the machine and to every workload's findings, and
 * judges them again: the verdicts' gap reasons are copies of finding messages. AUDIT_EVERY_WORKLOAD. */
void audit_result_scrub(struct audit_result *r, void (*scrub)(struct machine *, struct findings *));
/* Milliseconds since audit_run began. */
double audit_elapsed_ms(const struct audit_result *r);
void audit_result_free(struct audit_result *r);

/* The kernel log's GPU events read now, by the reader audit_run uses (probe/kernel_log.c): `bench
 * gpu --burn` reads it before and after its run for the Xids the run brought. k is the caller's
 * (kernel_log_free); unread, k->unknown_reason says why. */
void audit_read_kernel_log(struct kernel_log_info *k);

/* The host name a recorded machine (its --sysroot) carries, before it is audited (a --output
 * pattern's %h); malloc'd, NULL when it has none. */
char *audit_recorded_hostname(const char *sysroot);

#endif
