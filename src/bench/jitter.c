/* Timer wake-up latency, cyclictest's method: a thread on one CPU sleeps until an absolute time
 * 1 ms ahead (clock_nanosleep TIMER_ABSTIME, CLOCK_MONOTONIC), and the lateness of each wake-up
 * is the latency. Memory is locked (cyclictest -m) so page faults do not count. The CPU's steal
 * time and the thread's involuntary context switches say what explains the spikes. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench.h"
#include "util/fsroot.h"
#include "util/parse.h"

#define INTERVAL_NS 1000000L

/* Steal and total jiffies of one CPU from /proc/stat; false when its line is missing. */
static bool cpu_jiffies(int cpu, unsigned long long *steal, unsigned long long *total)
{
    char *text = fs_read("/proc/stat");
    struct cpu_ticks *all = NULL;
    int n = text ? parse_proc_stat(text, &all) : 0;
    free(text);
    bool found = false;
    for (int i = 0; i < n && !found; i++) {
        if (all[i].cpu != cpu)
            continue;
        *steal = all[i].steal;
        *total = cpu_ticks_total(&all[i]);
        found = true;
    }
    free(all);
    return found;
}

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

struct jitter_run {
    const struct bench_ctx *ctx;
    int cpu;
    long count;
    long *latency_ns;
    bool pinned;
    long involuntary;
};

static void *jitter_thread(void *arg)
{
    struct jitter_run *r = arg;
    r->pinned = bench_pin_thread(r->ctx->machine, (unsigned)r->cpu);
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long i = 0; i < r->count; i++) {
        next.tv_nsec += INTERVAL_NS;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        clock_gettime(CLOCK_MONOTONIC, &now);
        r->latency_ns[i] = (now.tv_sec - next.tv_sec) * 1000000000L + (now.tv_nsec - next.tv_nsec);
        /* As cyclictest does, the periods a stall overran are skipped, not each counted late: one 5 ms
         * stall is one late sample, not five (the next wake-up is the first period still ahead). */
        for (long behind = r->latency_ns[i]; behind >= INTERVAL_NS; behind -= INTERVAL_NS) {
            next.tv_nsec += INTERVAL_NS;
            if (next.tv_nsec >= 1000000000L) {
                next.tv_nsec -= 1000000000L;
                next.tv_sec++;
            }
        }
        if (i % 256 == 0)
            bench_progress(r->ctx, (double)i / r->count);
    }
    getrusage(RUSAGE_THREAD, &after);
    r->involuntary = after.ru_nivcsw - before.ru_nivcsw;
    return NULL;
}

static int default_cpu(const struct machine *m)
{
    /* The last usable CPU: the first ones take most interrupts and housekeeping by default. */
    if (!m->topology)
        return 0;
    int last = hwloc_bitmap_last(hwloc_topology_get_allowed_cpuset(m->topology));
    return last < 0 ? 0 : last;
}

static json_t *jitter_run(const struct bench_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    double seconds = ctx->opts->seconds > 0 ? ctx->opts->seconds : ctx->opts->quick ? JITTER_SECONDS_QUICK : JITTER_SECONDS_DEFAULT;
    int cpu = ctx->opts->cpu >= 0 ? ctx->opts->cpu : default_cpu(m);
    if (m->topology && !hwloc_bitmap_isset(hwloc_topology_get_allowed_cpuset(m->topology), (unsigned)cpu))
    {
        if (!m->cpu.usable_cpus)
            return bench_skipped("CPU %d is not one this process may run on", cpu);
        return bench_skipped("CPU %d is not one this process may run on (usable: %s)", cpu, m->cpu.usable_cpus);
    }
    struct jitter_run r = {ctx, cpu, (long)(seconds * 1e9 / INTERVAL_NS), NULL, false, 0};
    if (r.count < 1)
        r.count = 1;
    r.latency_ns = calloc((size_t)r.count, sizeof *r.latency_ns);
    if (!r.latency_ns)
        return bench_set_text(json_object(), "error", "out of memory for the samples");
    bool locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    unsigned long long steal0 = 0, total0 = 0, steal1 = 0, total1 = 0;
    bool have_steal = cpu_jiffies(cpu, &steal0, &total0);
    pthread_t id;
    int thread_error = bench_thread_create(&id, jitter_thread, &r);
    if (thread_error) {
        free(r.latency_ns);
        if (locked)
            munlockall();
        return bench_thread_error(1, thread_error);
    }
    pthread_join(id, NULL);
    have_steal = have_steal && cpu_jiffies(cpu, &steal1, &total1);
    if (locked)
        munlockall();
    qsort(r.latency_ns, (size_t)r.count, sizeof *r.latency_ns, compare_long);
    double p50 = r.latency_ns[r.count / 2] / 1e3, p99 = r.latency_ns[(long)(r.count * 0.99)] / 1e3,
           max = r.latency_ns[r.count - 1] / 1e3, min = r.latency_ns[0] / 1e3;
    long over_100us = 0;
    for (long i = 0; i < r.count; i++)
        over_100us += r.latency_ns[i] > 100000;
    free(r.latency_ns);
    if (!r.pinned)
        return bench_skipped("cannot run on CPU %d (offline, outside this process' cpuset, or not present)", cpu);
    double steal_pct = have_steal && total1 > total0 ? 100.0 * (double)(steal1 - steal0) / (double)(total1 - total0) : -1;
    json_t *out = json_pack("{s:i, s:f, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:s}", "cpu", cpu, "seconds", seconds,
                            "samples", (json_int_t)r.count, "min_us", min, "p50_us", p50, "p99_us", p99, "max_us", max,
                            "samples_over_100us", (json_int_t)over_100us, "involuntary_switches",
                            (json_int_t)r.involuntary, "memory_locked", locked, "method",
                            "clock_nanosleep TIMER_ABSTIME every 1 ms, SCHED_OTHER (cyclictest -m -i 1000 -t 1)");
    json_object_set_new(out, "steal_percent", steal_pct >= 0 ? json_real(steal_pct) : json_null());
    /* Why the tail is long, in the order a person would check. */
    if (steal_pct > 0.5)
        bench_set_text(out, "explanation", "the hypervisor stole %.1f%% of CPU %d's time: spikes are the host's",
                       steal_pct, cpu);
    else if (r.involuntary > r.count / 100)
        bench_set_text(out, "explanation", "other tasks preempted the timer thread %ld times: CPU %d is shared",
                       r.involuntary, cpu);
    else if (max > 10 * p99 && max > 100)
        bench_set_text(out, "explanation",
                       "a rare long stall (max %.0f us) with neither steal nor preemption: an interrupt or firmware "
                       "(SMI) is the usual cause",
                       max);
    else
        json_object_set_new(out, "explanation", json_null());
    return out;
}

const struct bench_info bench_jitter_info = {
    "jitter", jitter_run, "timer wake-up latency p50/p99/max of a 1 ms sleep loop on one CPU (cyclictest's method)",
    NULL};
