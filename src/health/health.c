#include "health/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "util/deadline.h"
#include "util/i18n.h"
#include "util/parse.h"

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

const char *const health_areas[] = {"pcie", "gpu", "memory", "numa", "cpu", "kernel", "storage", "network", "power", NULL};

bool health_area_known(const char *area)
{
    for (int i = 0; health_areas[i]; i++)
        if (!strcmp(area, health_areas[i]))
            return true;
    return false;
}

/* h->findings: the workload's findings of one rule area (one Node Problem Detector condition per
 * area), or all of them; a view of h->audit's findings, which own their texts. */
static void view_area(struct health_check *h, const struct findings *all, const char *area)
{
    h->findings = (struct findings){calloc((size_t)all->count + 1, sizeof *all->items), 0};
    if (!h->findings.items)
        abort();
    for (int i = 0; i < all->count; i++)
        if (!area || !strcmp(all->items[i].rule->area, area))
            h->findings.items[h->findings.count++] = all->items[i];
}

int health_check_run(const struct health_request *req, struct health_check *h)
{
    *h = (struct health_check){.started_s = now_s(), .threshold = req->fail_on_warn ? SEV_WARN : SEV_FAIL};
    /* No sample window: the check must stay fast. The machine is read beside --kernel-log and
     * --nvidia-smi files, which replace what they describe. */
    struct audit_request audit = {.sysroot = req->sysroot, .kernel_log = req->kernel_log, .always_probe = true,
                                  .no_sample_why = N_("health's fast check takes no CPU-use sample (gpuvet audit does)"),
                                  .expect_gpus = req->expect_gpus, .workload = req->workload, .xid = req->xid,
                                  /* The fast tier: no single blocking call (NVML, statvfs) may wait
                                   * longer than this. */
                                  .deadline_cap_s = DEADLINE_HEALTH_CAP_S,
                                  .depth = req->every_workload ? AUDIT_EVERY_WORKLOAD : AUDIT_ONE_WORKLOAD};
    for (int i = 0; i < req->n_nvidia_smi && i < NVIDIA_SMI_MAX_FILES; i++)
        audit.nvidia_smi[audit.n_nvidia_smi++] = req->nvidia_smi[i];
    if (audit_run(&audit, &h->audit) != AUDIT_DONE)
        return -1;
    h->probed = true;
    const struct findings *all = h->audit.findings;
    int judged = 0;
    for (int i = 0; i < all->count; i++)
        judged += all->items[i].severity != SEV_UNKNOWN;
    if (judged == 0) {
        /* A tree (or a machine) that gave no fact: "OK" would resume a node nobody checked. */
        h->blind = true;
        h->problem = NULL;
        return -1;
    }
    view_area(h, all, req->area);
    h->problem = health_worst(&h->findings, h->threshold);
    if (req->every_workload) {
        h->all = &h->audit.verdicts;
        h->all_judged = true;
    }
    if (req->verdict) {
        verdict_judge(&h->verdict, &h->audit.machine, req->workload, &h->findings);
        h->judged = true;
    }
    return 0;
}

void health_check_free(struct health_check *h)
{
    if (h->judged)
        workload_verdict_free(&h->verdict);
    free(h->findings.items); /* a view: the texts are h->audit's */
    audit_result_free(&h->audit);
}

void health_slurm_reason(char *out, size_t size, const struct finding *problem)
{
    /* `sinfo -R` shows 20 characters of a reason: the prefix without a space, then the rule, then
     * the subject (the device), so that the rule is what those 20 show. */
    snprintf(out, size, SLURM_REASON_PREFIX "%s %s", problem->rule->id, problem->subject);
}

int health_tell_slurm(const char *scontrol_given, const char *node_given, const struct finding *problem, bool *changed,
                      char *what, size_t whatlen, char *err, size_t errlen)
{
    char scontrol[4096], node[256], reason[512], conf[4096];
    *changed = false;
    if (slurm_find_scontrol(scontrol_given, scontrol, sizeof scontrol, err, errlen) != 0)
        return -1;
    const char *how = slurm_conf_locate(conf, sizeof conf);
    if (node_given)
        snprintf(node, sizeof node, "%s", node_given);
    else
        slurm_node_name(node, sizeof node);
    if (problem)
        health_slurm_reason(reason, sizeof reason, problem);
    enum slurm_outcome outcome;
    char why[2048];
    if (slurm_apply(scontrol, node, problem ? reason : NULL, &outcome, what, whatlen, why, sizeof why) != 0) {
        /* Which configuration scontrol read: under slurmd the usual cause of a failure. */
        if (how)
            snprintf(err, errlen, "with slurm.conf %s (from %s): %s", conf, how, why);
        else
            snprintf(err, errlen, "with no slurm.conf (SLURM_CONF unset, not run by slurmd, no " SLURM_CONF_DEFAULT
                     " or " SLURM_CONF_CONFIGLESS ": set SLURM_CONF in the HealthCheckProgram wrapper): %s", why);
        return -1;
    }
    *changed = outcome == SLURM_DRAINED || outcome == SLURM_RESUMED;
    return 0;
}

static void label(struct health_labels *out, const char *name, const char *value)
{
    struct health_label *l = &out->items[out->count++];
    snprintf(l->key, sizeof l->key, HEALTH_NFD_PREFIX "%s", name);
    snprintf(l->value, sizeof l->value, "%s", value);
}

/* "true" when every finding of the rule passed, "false" when one warned or failed, "unknown" when
 * one could not be judged or there is none. */
static const char *rule_state(const struct findings *f, const char *id)
{
    enum severity worst = SEV_PASS;
    bool any = false;
    for (int i = 0; i < f->count; i++)
        if (!strcmp(f->items[i].rule->id, id)) {
            any = true;
            if (f->items[i].severity > worst)
                worst = f->items[i].severity;
        }
    if (!any || worst == SEV_UNKNOWN)
        return "unknown";
    return worst >= SEV_WARN ? "false" : "true";
}

void health_nfd_labels(const struct health_check *h, struct health_labels *out)
{
    out->count = 0;
    if (!h->all_judged)
        return;
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        char name[64];
        snprintf(name, sizeof name, "verdict-%s", workload_name((enum workload)w));
        label(out, name, verdict_name(h->all->verdicts[w].verdict));
    }
    /* The narrowest accelerator link: the least bandwidth, as it negotiated. */
    const struct machine *m = &h->audit.machine;
    const struct pci_link *narrowest = NULL;
    bool unknown = !m->pci_scanned, any = false;
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *d = &m->pci[i];
        if (d->role != PCI_ROLE_ACCELERATOR)
            continue;
        any = true;
        if (!d->link.known || pcie_generation(d->link.cur_gt_s) <= 0 || d->link.cur_width <= 0) {
            unknown = true;
            continue;
        }
        if (!narrowest || pci_link_gb_s(d->link.cur_gt_s, d->link.cur_width) <
                              pci_link_gb_s(narrowest->cur_gt_s, narrowest->cur_width))
            narrowest = &d->link;
    }
    char link[32];
    if (unknown)
        snprintf(link, sizeof link, "unknown");
    else if (!any)
        snprintf(link, sizeof link, "none");
    else
        snprintf(link, sizeof link, "gen%d-x%d", pcie_generation(narrowest->cur_gt_s), narrowest->cur_width);
    label(out, "gpu-link-narrowest", link);
    const struct findings *general = &h->all->findings[WL_GENERAL];
    label(out, "gpu-numa-memory", any ? rule_state(general, "NUMA_GPU_NODE_NO_MEMORY") : "none");
    label(out, "memory-channels-full", rule_state(general, "MEM_CHANNELS_UNDERPOPULATED"));
}
