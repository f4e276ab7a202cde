/* Who else uses the CPUs: two readings of /proc/stat and every /proc/PID/stat around a sampling
 * window, the load average, and the thermal throttle counters before and after. Needs the live
 * machine: a recorded tree has one frozen reading, nothing to subtract. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"

#define PF_KTHREAD 0x00200000UL /* include/linux/sched.h */
#define MAX_NAMED_PROCS 20
#define MIN_NAMED_SHARE 0.001   /* below 0.1 % of the machine a process is noise */

int proc_stat_read(struct cpu_ticks **all)
{
    char *text = fs_read("/proc/stat");
    int n = text ? parse_proc_stat(text, all) : 0;
    free(text);
    if (n > 0 && (*all)[0].cpu != -1)
        n = 0;
    return n - 1;
}

/* Both readings list the same CPUs in the same order. */
static bool same_cpus(const struct cpu_ticks *a, const struct cpu_ticks *b, int ncpus)
{
    for (int i = 0; i <= ncpus; i++)
        if (a[i].cpu != b[i].cpu)
            return false;
    return true;
}

int proc_ticks_compare_pid(const void *a, const void *b)
{
    return ((const struct proc_ticks *)a)->pid - ((const struct proc_ticks *)b)->pid;
}

int proc_ticks_read(struct proc_ticks **out)
{
    char **names;
    int n = fs_list("/proc", &names), count = 0;
    struct proc_ticks *list = calloc((size_t)(n > 0 ? n : 1), sizeof *list);
    int self = (int)getpid();
    for (int i = 0; list && i < n; i++) {
        char *end;
        long pid = strtol(names[i], &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char *stat = fs_readf("/proc/%ld/stat", pid);
        struct pid_stat ps;
        if (stat && parse_pid_stat(stat, &ps)) {
            struct proc_ticks *p = &list[count++];
            p->pid = (int)pid;
            p->ppid = ps.ppid;
            p->state = ps.state;
            p->ticks = ps.utime + ps.stime;
            p->kernel_thread = ps.flags & PF_KTHREAD;
            snprintf(p->name, sizeof p->name, "%s", ps.name);
        }
        free(stat);
    }
    fs_list_free(names, n > 0 ? n : 0);
    if (list)
        qsort(list, (size_t)count, sizeof *list, proc_ticks_compare_pid);
    *out = list;
    return count;
}

static long read_throttle_events(void)
{
    char **names;
    int n = fs_list("/sys/devices/system/cpu", &names);
    long total = -1;
    for (int i = 0; i < n; i++) {
        int cpu;
        char tail;
        if (sscanf(names[i], "cpu%d%c", &cpu, &tail) != 1)
            continue;
        static const char *const counters[] = {"core_throttle_count", "package_throttle_count"};
        for (int k = 0; k < 2; k++) {
            char path[256];
            long v;
            snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/thermal_throttle/%s", names[i], counters[k]);
            if (fs_read_long(path, &v))
                total = (total < 0 ? 0 : total) + v;
        }
    }
    fs_list_free(names, n > 0 ? n : 0);
    return total;
}

struct cpu_time_shares cpu_shares_between(const struct cpu_ticks *a, const struct cpu_ticks *b)
{
    double total = (double)(cpu_ticks_total(b) - cpu_ticks_total(a));
    struct cpu_time_shares s = {.cpu = b->cpu};
    if (total <= 0)
        return s;
    s.user = (double)((b->user + b->nice) - (a->user + a->nice)) / total;
    s.system = (double)(b->system - a->system) / total;
    s.iowait = (double)(b->iowait - a->iowait) / total;
    s.irq = (double)((b->irq + b->softirq) - (a->irq + a->softirq)) / total;
    s.steal = (double)(b->steal - a->steal) / total;
    s.idle = (double)(b->idle - a->idle) / total;
    return s;
}

static int compare_share(const void *a, const void *b)
{
    double x = ((const struct proc_cpu_use *)a)->share, y = ((const struct proc_cpu_use *)b)->share;
    return (x < y) - (x > y);
}

static void name_processes(struct contention_info *c, const struct proc_ticks *before, int nbefore,
                           const struct proc_ticks *after, int nafter, double window_ticks)
{
    c->procs = calloc((size_t)nafter + 1, sizeof *c->procs);
    for (int i = 0; c->procs && i < nafter; i++) {
        struct proc_ticks key = {.pid = after[i].pid};
        const struct proc_ticks *old = bsearch(&key, before, (size_t)nbefore, sizeof *before, proc_ticks_compare_pid);
        /* A process born in the window counts from zero. */
        unsigned long long used = after[i].ticks - (old && old->ticks <= after[i].ticks ? old->ticks : 0);
        double share = window_ticks > 0 ? used / window_ticks : 0;
        if (share < MIN_NAMED_SHARE)
            continue;
        struct proc_cpu_use *p = &c->procs[c->nprocs++];
        p->pid = after[i].pid;
        p->name = strdup(after[i].name);
        p->share = share > 1 ? 1 : share;
        p->kernel_thread = after[i].kernel_thread;
    }
    if (c->nprocs > 1)
        qsort(c->procs, (size_t)c->nprocs, sizeof *c->procs, compare_share);
    for (int i = MAX_NAMED_PROCS; i < c->nprocs; i++)
        free(c->procs[i].name);
    if (c->nprocs > MAX_NAMED_PROCS)
        c->nprocs = MAX_NAMED_PROCS;
}

/* gpuvet's own CPU seconds so far, user and system, its reaped children's included. */
static void self_cpu(double *user, double *system)
{
    struct rusage self, children;
    *user = *system = 0;
    if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &children) != 0)
        return;
    *user = (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 + (double)children.ru_utime.tv_sec +
            children.ru_utime.tv_usec / 1e6;
    *system = (double)self.ru_stime.tv_sec + self.ru_stime.tv_usec / 1e6 + (double)children.ru_stime.tv_sec +
              children.ru_stime.tv_usec / 1e6;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

void contention_window_open(struct contention_window *w, double seconds)
{
    *w = (struct contention_window){.seconds = seconds, .open = true};
    clock_gettime(CLOCK_MONOTONIC, &w->start);
    self_cpu(&w->self_user, &w->self_system);
    w->throttle = read_throttle_events();
    w->ncpus = proc_stat_read(&w->ticks);
    w->nprocs = proc_ticks_read(&w->procs);
}

/* Moves gpuvet's own CPU time of the window from busy to idle in the all-CPU line (never below zero). */
static void discount_self(const struct contention_window *w, struct cpu_ticks *after)
{
    double user, system;
    self_cpu(&user, &system);
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        return;
    unsigned long long du = (unsigned long long)((user - w->self_user) * (double)hz + 0.5);
    unsigned long long ds = (unsigned long long)((system - w->self_system) * (double)hz + 0.5);
    du = du > after->user - w->ticks[0].user ? after->user - w->ticks[0].user : du;
    ds = ds > after->system - w->ticks[0].system ? after->system - w->ticks[0].system : ds;
    after->user -= du;
    after->system -= ds;
    after->idle += du + ds;
}

void probe_contention_close(struct machine *m, struct contention_window *w)
{
    struct contention_info *c = &m->contention;
    contention_info_free(c);
    const char *why = NULL;
    if (m->source && !strcmp(m->source, "evidence"))
        why = N_("an evidence file describes another machine: there is nothing of it to sample");
    else if (!fsroot_is_live())
        why = N_("a recorded tree has no CPU activity to sample (run gpuvet audit on the machine itself)");
    else if (w->seconds <= 0)
        why = w->skipped_why ? w->skipped_why : N_("sampling skipped (--sample 0)");
    if (why) {
        c->unknown_reason = strdup(why);
        free(w->ticks);
        free(w->procs);
        *w = (struct contention_window){0};
        return;
    }
    if (!w->open)
        contention_window_open(w, w->seconds);
    double left = w->seconds - seconds_since(&w->start);
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    struct cpu_ticks *t0 = w->ticks, *t1;
    struct proc_ticks *p0 = w->procs, *p1;
    int ncpu0 = w->ncpus, np0 = w->nprocs;
    c->throttle_before = w->throttle;
    int ncpu1 = proc_stat_read(&t1), np1 = proc_ticks_read(&p1);
    double seconds = seconds_since(&w->start);
    c->throttle_after = read_throttle_events();
    if (ncpu0 < 1 || ncpu1 != ncpu0 || !same_cpus(t0, t1, ncpu1) || !p0 || !p1) {
        c->unknown_reason = strdup(N_("/proc/stat could not be read twice with the same CPUs (CPU hotplug?)"));
    } else {
        discount_self(w, &t1[0]);
        c->sampled = true;
        /* The window as asked, unless the probes inside it took longer. */
        c->seconds = seconds > w->seconds + 0.05 ? seconds : w->seconds;
        c->ncpus = ncpu1;
        c->total = cpu_shares_between(&t0[0], &t1[0]);
        c->steal_ratio = c->total.steal;
        c->per_cpu = calloc((size_t)ncpu1, sizeof *c->per_cpu);
        for (int i = 0; c->per_cpu && i < ncpu1; i++)
            c->per_cpu[i] = cpu_shares_between(&t0[i + 1], &t1[i + 1]);
        name_processes(c, p0, np0, p1, np1, (double)(cpu_ticks_total(&t1[0]) - cpu_ticks_total(&t0[0])));
    }
    char *load = fs_read("/proc/loadavg");
    if (!load || sscanf(load, "%lf %lf %lf", &c->load1, &c->load5, &c->load15) != 3) {
        c->load1 = c->load5 = c->load15 = -1;
        machine_problem(m, "/proc/loadavg", "missing or not three numbers");
    }
    free(load);
    free(t0);
    free(t1);
    free(p0);
    free(p1);
    *w = (struct contention_window){0};
}

void probe_contention(struct machine *m, double seconds)
{
    struct contention_window w = {.seconds = seconds};
    probe_contention_close(m, &w);
}
