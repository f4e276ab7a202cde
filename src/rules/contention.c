/* CPU contention, steal and thermal throttling over the sampling window. */
#include <stdio.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

static bool not_sampled(struct audit_ctx *ctx)
{
    const struct contention_info *c = &ctx->machine->contention;
    if (c->sampled)
        return false;
    finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("not sampled: %s"),
                c->unknown_reason ? _(c->unknown_reason) : _("no sample"));
    return true;
}

void check_cpu_contention(struct audit_ctx *ctx)
{
    const struct contention_info *c = &ctx->machine->contention;
    if (not_sampled(ctx))
        return;
    double limit = ctx->thresholds->contention_process_share;
    json_t *busy = json_array();
    char names[512] = "";
    for (int i = 0; i < c->nprocs; i++) {
        const struct proc_cpu_use *p = &c->procs[i];
        if (p->share <= limit)
            continue;
        json_array_append_new(busy, json_pack("{s:i, s:s?, s:f, s:b}", "pid", p->pid, "name", p->name, "share",
                                              p->share, "kernel_thread", p->kernel_thread));
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, _("%s%s (pid %d, %.0f%%)"), len ? ", " : "", p->name, p->pid,
                 p->share * 100);
    }
    int cpus = c->ncpus;
    bool overloaded = c->load1 > cpus;
    json_t *ev = json_pack("{s:o, s:f, s:i, s:f, s:f}", "processes", busy, "load1", c->load1, "cpus", cpus,
                           "busy_share", 1 - c->total.idle - c->total.iowait, "seconds", c->seconds);
    if (json_array_size(busy) > 0)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("stop or move these processes before the job runs"),
                    _("other processes used more than %.0f%% of the machine over %.0f s: %s"), limit * 100, c->seconds,
                    names);
    else if (overloaded)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("find what runs with top; stop it before the job runs"),
                    _("load average %.1f is above the %d CPUs"), c->load1, cpus);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no process used more than %.0f%% of the machine over %.0f s"),
                    limit * 100, c->seconds);
}

void check_cpu_steal(struct audit_ctx *ctx)
{
    const struct contention_info *c = &ctx->machine->contention;
    if (not_sampled(ctx))
        return;
    const struct thresholds *t = ctx->thresholds;
    json_t *ev = json_pack("{s:f, s:f, s:f, s:b}", "steal_ratio", c->steal_ratio, "warn_above", t->steal_warn,
                           "fail_above", t->steal_fail, "vm", ctx->machine->virt.vm);
    const char *fix = _("ask the provider for dedicated (pinned) vCPUs or a bare-metal machine");
    if (c->steal_ratio > t->steal_fail)
        finding_add(ctx, SEV_FAIL, "machine", ev, fix, _("the hypervisor took %.1f%% of the CPU time (steal)"),
                    c->steal_ratio * 100);
    else if (c->steal_ratio > t->steal_warn)
        finding_add(ctx, SEV_WARN, "machine", ev, fix, _("the hypervisor took %.1f%% of the CPU time (steal)"),
                    c->steal_ratio * 100);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("steal time %.1f%% over %.0f s"), c->steal_ratio * 100,
                    c->seconds);
}

void check_cpu_throttle(struct audit_ctx *ctx)
{
    const struct contention_info *c = &ctx->machine->contention;
    if (not_sampled(ctx))
        return;
    if (c->throttle_before < 0 || c->throttle_after < 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    _("no thermal throttle counters (Intel CPUs on bare metal expose them in sysfs)"));
        return;
    }
    json_t *ev = json_pack("{s:i, s:i, s:f}", "events_before", (json_int_t)c->throttle_before, "events_after",
                           (json_int_t)c->throttle_after, "seconds", c->seconds);
    if (c->throttle_after > c->throttle_before)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("check fans, airflow and the BIOS power profile"),
                    _("CPUs were thermally throttled %ld times during the %.0f s sample"),
                    c->throttle_after - c->throttle_before, c->seconds);
    else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("no thermal throttling during the sample (%ld events since boot)"),
                    c->throttle_after);
}
