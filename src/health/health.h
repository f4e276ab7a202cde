/* `gpuvet health`: the fast check for Slurm's HealthCheckProgram and Node Problem Detector. The
 * machine probed without the CPU-use sample, the audit's rules, the worst problem at the asked
 * threshold; and, when asked, the node drained or resumed through Slurm. No output here:
 * report/health.c (the one line), report/health_text.c, report/health_prom.c. */
#ifndef GPUVET_HEALTH_HEALTH_H
#define GPUVET_HEALTH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "model/machine.h"
#include "rules/rule.h"
#include "rules/verdict.h"
#include "rules/workload.h"

struct health_request {
    const char *sysroot; /* a recorded machine; NULL: this one */
    enum workload workload;
    bool fail_on_warn;   /* warnings fail the node too */
    bool verdict;        /* judge the workload's verdict too (--prom writes it) */
    const char *kernel_log; /* --kernel-log: a saved log judged instead of the live one; NULL none */
    int expect_gpus;     /* --expect-gpus: accelerators the node should show; 0 not given */
};

struct health_check {
    double started_s;   /* CLOCK_MONOTONIC when the check began */
    struct machine machine;
    bool probed;        /* false: the machine could not be read (m.problems say why) */
    enum severity threshold;
    struct findings findings;
    const struct finding *problem; /* the worst finding at or above threshold; NULL: OK */
    bool judged;
    struct workload_verdict verdict; /* when req->verdict */
};

/* Probes and checks; 0 checked (h->problem says whether the node has a problem), -1 the machine
 * could not be read. Free h with health_check_free either way. */
int health_check_run(const struct health_request *req, struct health_check *h);
void health_check_free(struct health_check *h);
/* Seconds since the check began. */
double health_elapsed_s(const struct health_check *h);

/* The worst finding at or above threshold (findings sorted worst first); NULL when none. */
const struct finding *health_worst(const struct findings *f, enum severity threshold);

/* Drains this node for problem, or resumes it when problem is NULL (slurm/slurm.c: a node drained
 * or down for any other reason is never touched). scontrol and node: the options, or NULL for
 * the defaults. 0 with what it did in what, or -1 with why in err. */
int health_tell_slurm(const char *scontrol, const char *node, const struct finding *problem, char *what,
                      size_t whatlen, char *err, size_t errlen);

#endif
