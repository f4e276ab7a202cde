/* What else runs on the CPUs: a sampling window over /proc/stat and /proc/PID/stat. */
#ifndef GPUVET_MODEL_CONTENTION_H
#define GPUVET_MODEL_CONTENTION_H

#include <stdbool.h>

struct cpu_time_shares {   /* shares of the CPU time of the window, 0..1 */
    int cpu;               /* the CPU number in per_cpu; -1 in total */
    double user, system, iowait, irq, steal, idle;
};

struct proc_cpu_use {
    int pid;
    char *name;            /* comm */
    double share;          /* of the whole machine's CPU time in the window, 0..1 */
    bool kernel_thread;
};

struct contention_info {
    bool sampled;
    char *unknown_reason;  /* why there was no sample (--sample 0, a recorded tree) */
    double seconds;
    int ncpus;             /* CPUs in /proc/stat */
    struct cpu_time_shares total;
    struct cpu_time_shares *per_cpu; /* ncpus entries */
    double steal_ratio;    /* total.steal; -1 unknown */
    struct proc_cpu_use *procs; /* processes that used CPU in the window, busiest first */
    int nprocs;
    double load1, load5, load15; /* -1 unknown */
    long throttle_before, throttle_after; /* core+package thermal throttle events; -1 unknown */
};

void contention_info_init(struct contention_info *c);
void contention_info_free(struct contention_info *c);

#endif
