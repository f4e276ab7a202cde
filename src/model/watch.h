/* `gpuvet watch`: a timeline of one job (or the machine) seen once per interval, host side and
 * GPU side together. Probes append samples (live or replayed), rules/watch.c diagnoses them,
 * report/watch_*.c print them. Every number is -1 when its source could not be read. */
#ifndef GPUVET_MODEL_WATCH_H
#define GPUVET_MODEL_WATCH_H

#include <stdbool.h>

#define WATCH_SCHEMA "gpuvet.watch/1"
#define WATCH_MAX_GPUS 8     /* an HGX board; more are left out, and the report says so */
#define WATCH_MAX_PROCS 16   /* per sample: the busiest processes of the job tree (bounds memory: ~2.5 KB a sample) */
#define WATCH_NAME_LEN 32
#define WATCH_MAX_OUTSIDERS 5

/* One process of the job tree in one interval. CPU figures are in cores (1.0 = one core busy for
 * the whole interval); "demand" adds the time its threads waited on a run queue
 * (/proc/PID/task/TID/schedstat), so a thread that wants a whole core reads ~1.0 on a busy machine
 * too. */
struct watch_proc {
    int pid, ppid;
    char name[WATCH_NAME_LEN];
    double cpu, demand;              /* all threads */
    double main_cpu, main_demand;    /* the thread whose id is the pid */
    int threads, running, blocked;   /* threads, in state R, in state D at the sample */
    double majflt_s;                 /* major faults per second */
    int numa_misplaced_threads;      /* threads last run on a CPU off every GPU's node; -1 unknown */
};

struct watch_gpu {
    double sm, mem;                  /* utilisation, % */
    double mem_used_mib;
    double pcie_rx_mbs, pcie_tx_mbs; /* host->GPU and GPU->host MB/s */
    double link_mbs;                 /* the negotiated link's per-direction rate, MB/s */
    double sm_clock_mhz, mem_clock_mhz;
    bool clock_events_known;
    unsigned long long clock_events; /* GPU_EVENT_* bits (model/gpu.h) */
    double power_w;
};

struct watch_sample {
    double t, seconds;               /* end of the interval since the start, its length */
    /* host: shares of all CPUs' time, 0..1 */
    double user, system, iowait, steal, idle;
    /* the job tree (absent in machine mode) */
    int nprocs_total;                /* processes in the tree, threads summed over them */
    int threads, running, blocked;
    double job_cpu, job_demand, job_majflt_s;
    double job_read_mbs;             /* bytes the tree fetched from storage (/proc/PID/io read_bytes) */
    struct watch_proc procs[WATCH_MAX_PROCS]; /* the root first, then the busiest */
    int nprocs;
    /* the busiest processes outside the tree, and all of them together, in cores */
    struct watch_outsider {
        int pid;                     /* 0: no entry */
        char name[WATCH_NAME_LEN];
        double cpu;
    } outsiders[WATCH_MAX_OUTSIDERS];
    double others_cpu;
    /* the disk holding the job's open files (or the busiest disk in machine mode) */
    char disk[WATCH_NAME_LEN];
    double disk_read_mbs, disk_busy; /* busy: io_ticks share of the interval, 0..1 */
    double swap_in_mbs, swap_out_mbs, net_rx_mbs, net_tx_mbs;
    struct watch_gpu gpus[WATCH_MAX_GPUS];
};

struct watch_gpu_info {
    char bus_id[32];
    char name[64];
    int numa_node;                   /* -1 unknown */
};

struct watch_timeline {
    char *source;                    /* "live", "gpuvet.watch/1 FILE", "nvidia-smi dmon FILE" */
    char *target;                    /* "command: ...", "pid N", "machine" */
    char *target_local;              /* the same in the user's language (NULL: as target) */
    int root_pid;                    /* 0 in machine mode and for replayed dmon logs */
    int ncpus;                       /* -1 unknown */
    int nnodes;                      /* NUMA nodes holding CPUs; -1 unknown */
    double interval;
    bool host_seen;                  /* host facts were read (a dmon log has none) */
    char *host_unseen;               /* why not */
    bool job_seen;                   /* a job tree was watched */
    char *disk_unseen;               /* why the job's disk is unknown; NULL known */
    int ngpus;                       /* GPUs sampled; 0 with gpu_unseen set when NVML was not there */
    char *gpu_unseen;
    char *gpu_unseen_local;          /* the same in the user's language (NULL: as gpu_unseen) */
    struct watch_gpu_info gpu_info[WATCH_MAX_GPUS];
    struct watch_sample *samples;
    int count, capacity;
    char *end_reason;                /* "the job exited with status 0", "interrupted (Ctrl-C)", ... */
    char *end_reason_local;          /* the same in the user's language (NULL: as end_reason) */
};

void watch_timeline_init(struct watch_timeline *w);
void watch_timeline_free(struct watch_timeline *w);
/* A new sample at the end, every number -1; NULL when out of memory. */
struct watch_sample *watch_sample_add(struct watch_timeline *w);
/* Replaces a string field (strdup of a printf). */
void watch_set(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a field people read as well as the JSON: *english gets the English text (the
 * gpuvet.watch/1 file), *local the translated one when gpuvet speaks another language (else
 * NULL). fmt is the English msgid (scripts/update-po.sh extracts this function's format). */
void watch_set_text(char **english, char **local, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The text of a field pair for people: the local one when there is one. A replayed file keeps
 * only the English: a sentence of watch_saved_formats, or one the catalogue knows as it stands,
 * is shown in the user's language; any other stays as saved. */
const char *watch_local(const char *english, const char *local);

/* The sentences gpuvet.watch/1 keeps in "target" and "end" (English msgids): session.c writes them,
 * watch_local recognises them in a saved file. */
enum watch_saved_text {
    WATCH_TARGET_COMMAND, /* %s */
    WATCH_TARGET_PID,     /* %d */
    WATCH_END_KILLED,     /* %.1f %d */
    WATCH_END_EXITED,     /* %.1f %d */
    WATCH_END_PROCESS,    /* %d %.1f */
    WATCH_END_SIGNAL_JOB, /* %d %.1f */
    WATCH_END_SIGNAL,     /* %d %.1f */
    WATCH_END_DURATION,   /* %.1f */
    WATCH_SAVED_TEXTS
};
extern const char *const watch_saved_formats[WATCH_SAVED_TEXTS];

/* Mean SM utilisation over every sample and GPU that reported one, as a fraction; -1 when none.
 * *samples gets the count of (sample, GPU) readings. */
double watch_mean_sm(const struct watch_timeline *w, int *samples);
/* Mean SM % of the GPUs in one sample; -1 when none reported. */
double watch_sample_sm(const struct watch_timeline *w, const struct watch_sample *s);

#endif
