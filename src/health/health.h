/* `gpuvet health`: the fast check for Slurm's HealthCheckProgram and Node Problem Detector. The
 * machine probed without the CPU-use sample, the audit's rules, the worst problem at the asked
 * threshold; and, when asked, the node drained or resumed through Slurm. No output here:
 * report/health.c (the one line), report/health_text.c, report/health_prom.c. */
#ifndef GPUVET_HEALTH_HEALTH_H
#define GPUVET_HEALTH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "model/machine.h"
#include "pipeline/audit.h"
#include "rules/rule.h"
#include "rules/verdict.h"
#include "rules/workload.h"

struct health_request {
    const char *sysroot; /* a recorded machine; NULL: this one */
    enum workload workload;
    bool fail_on_warn;   /* warnings fail the node too */
    bool verdict;        /* judge the workload's verdict too (--prom writes it) */
    const char *area;    /* --area: only the findings of this rule area ("pcie", ...); NULL: all */
    bool every_workload; /* judge every workload too (--nfd labels them) */
    const char *kernel_log; /* --kernel-log: a saved log judged instead of the live one; NULL none */
    int expect_gpus;     /* --expect-gpus: accelerators the node should show; 0 not given */
    const struct xid_overrides *xid; /* --xid-fatal, --xid-ignore; NULL none */
    const char *const *nvidia_smi; /* --nvidia-smi files: the GPUs as they describe them */
    int n_nvidia_smi;
};

struct health_check {
    double started_s;   /* CLOCK_MONOTONIC when the check began */
    struct audit_result audit; /* the machine and the workload's findings (every workload's and
                                  their verdicts with every_workload): pipeline/audit.h */
    bool probed;        /* false: the machine could not be read (audit.machine's problems say why) */
    bool blind;         /* probed, but not one check could judge anything (every finding unknown):
                           silence is not health, the check is unknown */
    enum severity threshold;
    struct findings findings;      /* the workload's findings in --area: a view of audit's */
    const struct finding *problem; /* the worst finding at or above threshold; NULL: OK */
    bool judged;
    struct workload_verdict verdict; /* when req->verdict */
    bool all_judged;
    const struct verdict_set *all;   /* when req->every_workload: each workload's findings, verdict
                                        (audit's, every area) */
};

/* Seconds between health checks when --nfd-interval is not given: NFD labels expire after twice it
 * (health --help formats it in). */
#define HEALTH_NFD_INTERVAL_DEFAULT 300.0

/* The rule areas --area takes (those of the rule table a node check can judge), NULL-terminated. */
extern const char *const health_areas[];
bool health_area_known(const char *area);

/* Node Feature Discovery's features.d labels (health --nfd FILE). The keys are under NFD's own
 * label namespace, which nfd-master accepts without configuration (a features.d name without a
 * namespace gets it too); each name within 63 characters, each value within Kubernetes' label
 * alphabet ([A-Za-z0-9._-], at most 63, alphanumeric at both ends). */
#define HEALTH_NFD_PREFIX "feature.node.kubernetes.io/gpuvet-"
struct health_label {
    char key[128];
    char value[64];
};
struct health_labels {
    struct health_label items[WORKLOAD_COUNT + 4];
    int count;
};
/* The labels of a check run with every_workload: verdict-WORKLOAD (pass, inconclusive, warn,
 * fail), gpu-link-narrowest ("gen4-x8"; "none" without accelerators, "unknown" when a link could
 * not be read), gpu-numa-memory and memory-channels-full ("true", "false", "unknown"; the first
 * "none" without accelerators), from NUMA_GPU_NODE_NO_MEMORY's and MEM_CHANNELS_UNDERPOPULATED's
 * findings. */
void health_nfd_labels(const struct health_check *h, struct health_labels *out);

/* Probes and checks; 0 checked (h->problem says whether the node has a problem), -1 the machine
 * could not be read, or nothing on it could be checked (h->blind). Free h with health_check_free either way. */
int health_check_run(const struct health_request *req, struct health_check *h);
void health_check_free(struct health_check *h);
/* Seconds since the check began. */
double health_elapsed_s(const struct health_check *h);

/* The worst finding at or above threshold (findings sorted worst first); NULL when none. */
const struct finding *health_worst(const struct findings *f, enum severity threshold);

/* Drains this node for problem, or resumes it when problem is NULL (slurm/slurm.c: a node drained
 * or down for any other reason is never touched). scontrol and node: the options, or NULL for
 * the defaults. 0 with what it did in what (*changed: drained or resumed now), or -1 with why in
 * err (naming the slurm.conf scontrol read). */
int health_tell_slurm(const char *scontrol, const char *node, const struct finding *problem, bool *changed, char *what,
                      size_t whatlen, char *err, size_t errlen);
/* The drain reason for problem: "gpuvet:RULE_ID subject" (SLURM_REASON_PREFIX first, then what
 * `sinfo -R`'s 20 characters should show: the rule, then the device). */
void health_slurm_reason(char *out, size_t size, const struct finding *problem);

#endif
