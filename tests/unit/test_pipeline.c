/* pipeline/audit.c: the one sequence audit, health, plan --check and snapshot share. One workload's
 * findings are that workload's slice of every workload's; the machine alone judges nothing; the
 * evidence (--kernel-log, --expect-gpus) reaches the findings whether the machine is read beside it
 * (health) or not (audit's evidence-only run); refused inputs and unreadable trees say why. */
#include <criterion/criterion.h>
#include <string.h>

#include "pipeline/audit.h"
#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve" /* 8 accelerators on the PCI bus */
#define XID79 GPUVET_TEST_SOURCE "/corpus/kernel-log/gpud-dmesg-xid79-sxid20034.log"

static int count_rule(const struct findings *f, const char *id, enum severity sev)
{
    int n = 0;
    for (int i = 0; i < f->count; i++)
        n += !strcmp(f->items[i].rule->id, id) && f->items[i].severity == sev;
    return n;
}

Test(pipeline, one_workload_is_that_workloads_slice_of_every_workload)
{
    struct audit_request every = {.sysroot = fixture(INTEL), .depth = AUDIT_EVERY_WORKLOAD};
    struct audit_result all;
    cr_assert_eq(audit_run(&every, &all), AUDIT_DONE);
    cr_assert(all.probed);
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        struct audit_request one = {.sysroot = fixture(INTEL), .workload = (enum workload)w, .depth = AUDIT_ONE_WORKLOAD};
        struct audit_result r;
        cr_assert_eq(audit_run(&one, &r), AUDIT_DONE);
        const struct findings *a = r.findings, *b = &all.verdicts.findings[w];
        cr_assert_eq(r.findings, &r.verdicts.findings[w]);
        cr_assert_gt(a->count, 0);
        cr_assert_eq(a->count, b->count, "workload %d", w);
        for (int i = 0; i < a->count; i++) {
            cr_expect_eq(a->items[i].rule, b->items[i].rule, "workload %d finding %d", w, i);
            cr_expect_eq(a->items[i].severity, b->items[i].severity, "%s", a->items[i].rule->id);
            cr_expect_str_eq(a->items[i].subject, b->items[i].subject);
            cr_expect_str_eq(a->items[i].message, b->items[i].message);
        }
        /* One workload's run judges no verdict: health judges what its --area keeps. */
        cr_expect_null(r.verdicts.verdicts[w].gaps);
        cr_expect_eq(r.verdicts.verdicts[w].applicable, 0);
        audit_result_free(&r);
    }
    /* Every workload's run judges each one. */
    cr_expect_gt(all.verdicts.verdicts[WL_LLM_TRAIN].applicable, 0);
    audit_result_free(&all);
}

Test(pipeline, the_machine_alone_judges_nothing)
{
    struct audit_request req = {.sysroot = fixture(INTEL), .depth = AUDIT_MACHINE};
    struct audit_result r;
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    cr_expect(r.probed);
    cr_expect_null(r.findings);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        cr_expect_eq(r.verdicts.findings[w].count, 0);
    cr_assert_not_null(r.machine.source);
    cr_expect(!strncmp(r.machine.source, "sysroot:", 8), "%s", r.machine.source);
    cr_expect_gt(r.machine.npci, 0);
    audit_result_free(&r);
}

Test(pipeline, a_kernel_log_alone_or_beside_the_tree_reaches_the_rules)
{
    /* audit --kernel-log FILE: the file describes another machine, this one is not read. */
    struct audit_request alone = {.kernel_log = XID79, .depth = AUDIT_EVERY_WORKLOAD};
    struct audit_result r;
    cr_assert_eq(audit_run(&alone, &r), AUDIT_DONE);
    cr_expect_str_eq(r.machine.source, "evidence");
    cr_expect_gt(count_rule(r.findings, "GPU_XID_ERRORS", SEV_FAIL), 0);
    cr_expect_gt(count_rule(r.findings, "GPU_LOST", SEV_FAIL), 0);
    cr_expect_eq(r.verdicts.verdicts[WL_GENERAL].verdict, VERDICT_FAIL);
    audit_result_free(&r);
    /* health --sysroot DIR --kernel-log FILE: the tree is read and the log replaces its own. */
    struct audit_request beside = {.sysroot = fixture(INTEL), .kernel_log = XID79, .always_probe = true,
                                   .depth = AUDIT_ONE_WORKLOAD};
    cr_assert_eq(audit_run(&beside, &r), AUDIT_DONE);
    cr_expect(!strncmp(r.machine.source, "sysroot:", 8), "%s", r.machine.source);
    cr_expect_gt(r.machine.npci, 0);
    cr_expect_gt(count_rule(r.findings, "GPU_XID_ERRORS", SEV_FAIL), 0);
    audit_result_free(&r);
}

/* The class the log's first Xid `code` event got, and what set it; KLOG_CLASS_UNLISTED and NULL when
 * the log has none. */
static enum klog_class xid_class(const struct machine *m, int code, const char **source)
{
    for (int i = 0; i < m->kernel_log.nevents; i++) {
        const struct klog_event *e = &m->kernel_log.events[i];
        if (e->kind == KLOG_XID && e->code == code) {
            *source = e->class_source;
            return e->klass;
        }
    }
    *source = NULL;
    return KLOG_CLASS_UNLISTED;
}

/* --xid-fatal and --xid-ignore travel in the request to the kernel log's reader: one request's
 * overrides reach its own reading and none after it (health's and audit's in one process). */
Test(pipeline, xid_overrides_belong_to_their_request)
{
    struct xid_overrides ignore79 = {0}, fatal79 = {0};
    cr_assert(xid_list_parse("79", ignore79.ignore));
    cr_assert(xid_list_parse("79", fatal79.fatal));
    struct audit_request req = {.kernel_log = XID79, .xid = &ignore79, .depth = AUDIT_MACHINE};
    struct audit_result r;
    const char *source;
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    cr_expect_eq(xid_class(&r.machine, 79, &source), KLOG_CLASS_IGNORED);
    cr_expect_str_eq(source, "--xid-ignore");
    audit_result_free(&r);
    req.xid = NULL;
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    cr_expect_eq(xid_class(&r.machine, 79, &source), KLOG_CLASS_FAULT);
    cr_expect_str_eq(source, "catalogue");
    audit_result_free(&r);
    /* The same with the machine read beside the log (health's request): its own reading and the
     * file's both take the request's overrides. */
    req = (struct audit_request){.sysroot = fixture(INTEL), .kernel_log = XID79, .always_probe = true,
                                 .xid = &fatal79, .depth = AUDIT_MACHINE};
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    cr_expect_eq(xid_class(&r.machine, 79, &source), KLOG_CLASS_FAULT);
    cr_expect_str_eq(source, "--xid-fatal");
    audit_result_free(&r);
}

Test(pipeline, expect_gpus_reaches_every_workload)
{
    struct audit_request req = {.sysroot = fixture(INTEL), .expect_gpus = 9, .depth = AUDIT_EVERY_WORKLOAD};
    struct audit_result r;
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        cr_expect_eq(count_rule(&r.verdicts.findings[w], "GPU_LOST", SEV_FAIL), 1, "workload %d", w);
        cr_expect_eq(r.verdicts.verdicts[w].verdict, VERDICT_FAIL, "workload %d", w);
    }
    audit_result_free(&r);
    req.expect_gpus = 8; /* as many as the tree shows */
    cr_assert_eq(audit_run(&req, &r), AUDIT_DONE);
    cr_expect_eq(count_rule(r.findings, "GPU_LOST", SEV_FAIL), 0);
    audit_result_free(&r);
}

Test(pipeline, a_refused_claim_file_stops_before_the_probe)
{
    struct audit_request req = {.sysroot = fixture(INTEL), .claim_file = "/nonexistent/gpuvet-claim.json",
                                .depth = AUDIT_EVERY_WORKLOAD};
    struct audit_result r;
    cr_assert_eq(audit_run(&req, &r), AUDIT_REFUSED);
    cr_assert_not_null(r.error);
    cr_expect(strstr(r.error, "gpuvet-claim.json"), "%s", r.error);
    cr_expect(!r.probed);
    cr_expect_null(r.findings);
    audit_result_free(&r);
}

Test(pipeline, an_unreadable_tree_names_itself_in_the_problems)
{
    struct audit_request req = {.sysroot = "/nonexistent/gpuvet-tree", .depth = AUDIT_EVERY_WORKLOAD};
    struct audit_result r;
    cr_assert_eq(audit_run(&req, &r), AUDIT_UNREADABLE);
    cr_expect_null(r.error);
    cr_expect(!r.probed);
    cr_assert_gt(r.machine.nproblems, 0);
    cr_expect(strstr(r.machine.problems[0].path, "gpuvet-tree"), "%s", r.machine.problems[0].path);
    audit_result_free(&r);
}
