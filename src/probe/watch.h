/* The samplers and readers of `gpuvet watch` (model/watch.h): the host and the job's process tree
 * from /proc and /sys, the GPUs from NVML, and saved timelines or `nvidia-smi dmon` logs. */
#ifndef GPUVET_PROBE_WATCH_H
#define GPUVET_PROBE_WATCH_H

#include <stddef.h>

#include "model/machine.h"
#include "model/watch.h"

/* Which NUMA node each CPU belongs to, and the nodes the GPUs hang off, for NUMA_MISPLACED. */
struct watch_numa {
    int ncpus;          /* entries in cpu_node; 0 unknown */
    int *cpu_node;
    unsigned long long gpu_nodes; /* bit per node; 0 unknown */
};
/* Fills numa from the probed machine, and the GPUs' NUMA nodes and w->nnodes from the machine's
 * view of them (sysfs, then NVML); frees with watch_numa_free. */
void watch_numa_from_machine(struct watch_numa *numa, const struct machine *m, struct watch_timeline *w);
void watch_numa_free(struct watch_numa *numa);

struct watch_host;
/* root_pid 0 watches the machine. Takes the first reading. NULL when /proc/stat is unreadable. */
struct watch_host *watch_host_open(int root_pid, const struct watch_numa *numa, char *err, size_t errlen);
/* Fills the host and job fields of s from the change since the last reading. Returns 0, 1 when
 * the root process is gone (nothing filled), -1 when /proc/stat could not be read. */
int watch_host_sample(struct watch_host *h, struct watch_timeline *w, struct watch_sample *s);
void watch_host_close(struct watch_host *h);

struct watch_gpus;
/* Opens NVML and lists the GPUs into w->gpu_info; NULL (with w->gpu_unseen set) when it cannot. */
struct watch_gpus *watch_gpus_open(struct watch_timeline *w);
/* Reads every GPU into s->gpus. */
void watch_gpus_sample(struct watch_gpus *g, const struct watch_timeline *w, struct watch_sample *s);
void watch_gpus_close(struct watch_gpus *g);

/* Reads a gpuvet.watch/1 document or an `nvidia-smi dmon` log (any -s selection with the gpu
 * column; pucvmet gives the most) into w. 0, or -1 with "FILE[:LINE]: what" in err. */
int watch_replay_load(const char *path, struct watch_timeline *w, char *err, size_t errlen);
/* The mean SM utilisation (a fraction) of the timeline in path and the samples it counts
 * (`gpuvet cost --util-from`). 0, or -1 with "FILE...: what" in err, also when no GPU was sampled. */
int watch_replay_mean_sm(const char *path, double *util, int *samples, char *err, size_t errlen);

#endif
