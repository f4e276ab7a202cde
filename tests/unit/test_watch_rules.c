/* The watch diagnoses whose facts this CPU-only machine cannot produce for real (a full PCIe
 * link, a thermal slowdown, swapping, threads on the wrong NUMA node): the rules on timelines
 * built here, each fact set where a sampler would set it. The CLI tests cover the others live. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/gpu.h"
#include "rules/watch.h"

/* Ten 1-s intervals of a job of two threads on a 2-node machine with one GPU on node 0, the GPU at
 * SM sm %, nothing else wrong. */
static void timeline(struct watch_timeline *w, double sm)
{
    watch_timeline_init(w);
    w->host_seen = w->job_seen = true;
    w->ncpus = 16;
    w->nnodes = 2;
    w->root_pid = 100;
    w->ngpus = 1;
    w->gpu_info[0].numa_node = 0;
    for (int i = 0; i < 10; i++) {
        struct watch_sample *s = watch_sample_add(w);
        s->t = i + 1;
        s->seconds = 1;
        s->user = 0.1, s->system = 0.02, s->iowait = 0, s->steal = 0, s->idle = 0.88;
        s->nprocs_total = s->nprocs = 1;
        s->threads = 2, s->running = 1, s->blocked = 0;
        s->job_cpu = s->job_demand = 0.5;
        s->job_majflt_s = 0;
        s->job_read_mbs = 0;
        s->others_cpu = 0.1;
        s->swap_in_mbs = s->swap_out_mbs = 0;
        s->procs[0] = (struct watch_proc){.pid = 100, .name = "trainer", .cpu = 0.5, .demand = 0.5, .main_cpu = 0.4,
                                          .main_demand = 0.4, .threads = 2, .numa_misplaced_threads = 0};
        s->gpus[0] = (struct watch_gpu){.sm = sm, .mem = 10, .pcie_rx_mbs = 100, .pcie_tx_mbs = 10,
                                        .link_mbs = 63015, .clock_events_known = true, .power_w = 300};
    }
}

static const struct finding *find(const struct findings *f, const char *id)
{
    for (int i = 0; i < f->count; i++)
        if (!strcmp(f->items[i].rule->id, id))
            return &f->items[i];
    return NULL;
}

static int diagnose_count(struct watch_timeline *w, struct findings *f)
{
    *f = (struct findings){0};
    watch_diagnose(w, f);
    int judged = 0;
    for (int i = 0; i < f->count; i++)
        judged += f->items[i].severity != SEV_UNKNOWN;
    return judged;
}

Test(watch_rules, a_quiet_job_at_full_gpu_is_gpu_bound_only)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 97);
    cr_expect_eq(diagnose_count(&w, &f), 1);
    cr_expect_not_null(find(&f, "GPU_BOUND"));
    cr_expect_eq(find(&f, "GPU_BOUND")->severity, SEV_INFO);
    findings_free(&f);
    watch_timeline_free(&w);
}

Test(watch_rules, traffic_near_the_link_rate_is_pcie_bound)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 40);
    for (int i = 0; i < 10; i++)
        w.samples[i].gpus[0].pcie_rx_mbs = 50000; /* 79 % of Gen5 x16 */
    diagnose_count(&w, &f);
    const struct finding *pcie = find(&f, "PCIE_BOUND");
    cr_assert_not_null(pcie);
    cr_expect_eq(pcie->severity, SEV_WARN);
    cr_expect_float_eq(json_number_value(json_object_get(pcie->evidence, "gpu_time_explained")), 0.6, 1e-9);
    cr_expect_null(find(&f, "GPU_BOUND"));
    findings_free(&f);
    watch_timeline_free(&w);
}

Test(watch_rules, a_thermal_slowdown_throttles_and_the_power_cap_does_not)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 95);
    for (int i = 0; i < 10; i++)
        w.samples[i].gpus[0].clock_events = GPU_EVENT_SW_POWER_CAP;
    diagnose_count(&w, &f);
    cr_expect_null(find(&f, "GPU_THROTTLED"), "a GPU at its power limit is normal");
    findings_free(&f);
    w.samples[3].gpus[0].clock_events |= GPU_EVENT_HW_THERMAL;
    diagnose_count(&w, &f);
    const struct finding *hot = find(&f, "GPU_THROTTLED");
    cr_assert_not_null(hot, "one interval of thermal slowdown is enough");
    cr_expect(strstr(hot->message, "hw_thermal_slowdown in 1 of 10 intervals"), "%s", hot->message);
    findings_free(&f);
    watch_timeline_free(&w);
}

Test(watch_rules, swapping_is_memory_pressure)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 50);
    for (int i = 0; i < 5; i++)
        w.samples[i].swap_in_mbs = 12;
    diagnose_count(&w, &f);
    cr_assert_not_null(find(&f, "MEMORY_PRESSURE"));
    cr_expect_eq(find(&f, "MEMORY_PRESSURE")->severity, SEV_WARN);
    findings_free(&f);
    watch_timeline_free(&w);
}

Test(watch_rules, threads_off_the_gpus_node_are_numa_misplaced)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 50);
    for (int i = 0; i < 10; i++)
        w.samples[i].procs[0].numa_misplaced_threads = 2;
    diagnose_count(&w, &f);
    cr_assert_not_null(find(&f, "NUMA_MISPLACED"));
    findings_free(&f);
    w.gpu_info[0].numa_node = -1;
    for (int i = 0; i < 10; i++)
        w.samples[i].procs[0].numa_misplaced_threads = -1;
    diagnose_count(&w, &f);
    cr_assert_not_null(find(&f, "NUMA_MISPLACED"));
    cr_expect_eq(find(&f, "NUMA_MISPLACED")->severity, SEV_UNKNOWN, "GPU nodes unknown on a 2-node machine");
    findings_free(&f);
    watch_timeline_free(&w);
}

Test(watch_rules, causes_rank_by_the_gpu_time_they_explain)
{
    struct watch_timeline w;
    struct findings f;
    timeline(&w, 20);
    for (int i = 0; i < 10; i++) {
        w.samples[i].procs[0].main_demand = 1.0; /* launch-bound all the time */
        if (i < 3)
            w.samples[i].swap_out_mbs = 30;      /* swapping for 3 s */
    }
    diagnose_count(&w, &f);
    cr_assert_geq(f.count, 2);
    cr_expect_str_eq(f.items[0].rule->id, "LAUNCH_BOUND");
    cr_expect_str_eq(f.items[1].rule->id, "MEMORY_PRESSURE");
    findings_free(&f);
    watch_timeline_free(&w);
}
