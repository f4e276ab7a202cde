#include "health/health.h"

#include <stdio.h>
#include <time.h>

#include "probe/probe.h"
#include "slurm/slurm.h"
#include "util/deadline.h"
#include "util/fsroot.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

double health_elapsed_s(const struct health_check *h) { return now_s() - h->started_s; }

const struct finding *health_worst(const struct findings *f, enum severity threshold)
{
    const struct finding *worst = NULL;
    for (int i = 0; i < f->count; i++)
        if (f->items[i].severity >= threshold && (!worst || f->items[i].severity > worst->severity))
            worst = &f->items[i];
    return worst;
}

int health_check_run(const struct health_request *req, struct health_check *h)
{
    *h = (struct health_check){.started_s = now_s(), .threshold = req->fail_on_warn ? SEV_WARN : SEV_FAIL};
    /* The fast tier: no single blocking call (NVML, statvfs, scontrol) may wait longer than this. */
    deadline_cap(DEADLINE_HEALTH_CAP_S);
    fsroot_set(req->sysroot);
    machine_init(&h->machine);
    if (probe_machine(&h->machine, true) != 0)
        return -1;
    if (req->kernel_log && probe_kernel_log_file(&h->machine, req->kernel_log) != 0)
        return -1;
    h->probed = true;
    probe_contention(&h->machine, 0); /* no sample window: the check must stay fast */
    struct audit_inputs inputs = {.nodes = 1, .expect_gpus = req->expect_gpus};
    rules_run(&h->machine, req->workload, &inputs, &h->findings);
    h->problem = health_worst(&h->findings, h->threshold);
    if (req->verdict) {
        verdict_judge(&h->verdict, &h->machine, req->workload, &h->findings);
        h->judged = true;
    }
    return 0;
}

void health_check_free(struct health_check *h)
{
    if (h->judged)
        workload_verdict_free(&h->verdict);
    findings_free(&h->findings);
    machine_free(&h->machine);
}

int health_tell_slurm(const char *scontrol_given, const char *node_given, const struct finding *problem, char *what,
                      size_t whatlen, char *err, size_t errlen)
{
    char scontrol[4096], node[256], reason[512];
    if (slurm_find_scontrol(scontrol_given, scontrol, sizeof scontrol, err, errlen) != 0)
        return -1;
    if (node_given)
        snprintf(node, sizeof node, "%s", node_given);
    else
        slurm_node_name(node, sizeof node);
    /* Slurm shows the reason in `sinfo -R`: the rule and the subject, short. */
    if (problem)
        snprintf(reason, sizeof reason, "gpuvet: %s %s", problem->rule->id, problem->subject);
    enum slurm_outcome outcome;
    return slurm_apply(scontrol, node, problem ? reason : NULL, &outcome, what, whatlen, err, errlen) != 0 ? -1 : 0;
}
