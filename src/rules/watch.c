/* Each rule has a condition judged per interval; it holds when the condition held in at least
 * watch_min_time_share of the intervals. Intervals before the GPUs first show any SM activity are
 * the job's start-up (imports, data set opening, CUDA context) and are left out when the GPUs were
 * used later: a trainer importing torch is not launch-bound. The GPU time it explains is the idle GPU time
 * (100 % - SM %) of the intervals where it held (busy time for GPU_THROTTLED and GPU_BOUND),
 * so rules rank by what they cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "rules/watch.h"
#include "util/i18n.h"

#define WARN_ALL {SEV_WARN, SEV_WARN, SEV_WARN, SEV_WARN, SEV_WARN, SEV_WARN}
#define INFO_ALL {SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO}
#define THROTTLE_EVENTS (GPU_EVENT_HW_SLOWDOWN | GPU_EVENT_SW_THERMAL | GPU_EVENT_HW_THERMAL | GPU_EVENT_HW_POWER_BRAKE)

enum watch_rule_index {
    R_INPUT_CPU, R_INPUT_IO, R_LAUNCH, R_CONTENTION, R_PCIE, R_THROTTLED, R_MEMORY, R_NUMA, R_GPU_BOUND, R_COUNT
};

const struct rule watch_rules_table[] = {
    [R_INPUT_CPU] = {"INPUT_CPU_BOUND", "watch", N_("the GPUs wait for CPU-bound data loading"), WARN_ALL, NULL,
     N_("gpuvet watch: the GPUs were partly idle while the job's loader workers (its child processes)\n"
     "each wanted a whole core, or the job wanted every usable core. 'Wanted' is CPU time plus the\n"
     "time its threads waited on a run queue (/proc/PID/task/TID/schedstat), so a saturated worker\n"
     "reads as saturated on a busy machine too. Decoding and augmenting images is the usual cause:\n"
     "one core decodes ~460-500 ImageNet JPEGs/s while an A100 trains ResNet-50 on ~2,470 img/s.\n"
     "Fix: more workers (up to the cores minus two for the trainer and the system), a faster decoder\n"
     "(NVIDIA DALI decodes on the GPU, pillow-simd), or pre-decoded, pre-resized data (FFCV,\n"
     "WebDataset shards of small images). `gpuvet bench decode` measures what this CPU decodes.")},
    [R_INPUT_IO] = {"INPUT_IO_BOUND", "watch", N_("the GPUs wait for storage"), WARN_ALL, NULL,
     N_("gpuvet watch: the GPUs were partly idle while the job read from storage (/proc/PID/io) and the\n"
     "disk holding its open files was busy (io_ticks of /proc/diskstats at 80 % of the time or more),\n"
     "or iowait was high, or its threads sat in uninterruptible I/O sleep (state D), in at least a\n"
     "quarter of the intervals. Fix: keep the dataset in the page cache (enough RAM, or a first\n"
     "warm-up epoch), copy it to local NVMe, or pack small files into large sequential records\n"
     "(WebDataset tar shards, TFRecord).\n"
     "`gpuvet bench storage --dir DATA` measures what the disk delivers.")},
    [R_LAUNCH] = {"LAUNCH_BOUND", "watch", N_("the trainer's main thread is the limit"), WARN_ALL, NULL,
     N_("gpuvet watch: the job's main thread wanted a whole core while the GPUs were partly idle. Python\n"
     "launches every kernel from that thread; small kernels, per-step .item()/.cpu() syncs, or data\n"
     "loading in the main process (num_workers=0) keep the GPU waiting for the next launch. Fix:\n"
     "larger batches, CUDA graphs (torch.compile mode='reduce-overhead'), fewer host syncs, and\n"
     "DataLoader workers for the input pipeline.")},
    [R_CONTENTION] = {"HOST_CONTENTION", "watch", N_("other processes or the hypervisor take the job's CPUs"), WARN_ALL,
     NULL,
     N_("gpuvet watch: while the job waited on run queues (at least 10 % of the CPU time it wanted),\n"
     "processes outside its tree used more than 5 % of the machine, or the hypervisor stole CPU\n"
     "time (steal above 2 %). The same thresholds as the audit's CPU_CONTENTION and CPU_STEAL. The\n"
     "busiest outsiders are named. Fix: stop or move them, pin the job to its own cores (taskset,\n"
     "cpusets), or ask the provider for dedicated vCPUs.")},
    [R_PCIE] = {"PCIE_BOUND", "watch", N_("host<->GPU traffic near the link's rate"), WARN_ALL, NULL,
     N_("gpuvet watch: NVML's PCIe throughput (nvmlDeviceGetPcieThroughput) was at 70 % or more of the\n"
     "negotiated link's theoretical per-direction rate while the GPUs were partly idle; pinned copies\n"
     "reach 79-88 % of it, so the link is nearly full. Fix: pinned host memory (pin_memory=True) and\n"
     "non_blocking copies overlapped with compute, move augmentation to the GPU so smaller tensors\n"
     "cross the bus, check the link is not degraded (`gpuvet audit --load-check`).")},
    [R_THROTTLED] = {"GPU_THROTTLED", "watch", N_("GPU clocks slowed by heat or power during the job"), WARN_ALL, NULL,
     N_("gpuvet watch: NVML's clock-event reasons showed a hardware slowdown, a thermal slowdown or the\n"
     "power brake during the job: the GPU ran below the clocks it was sold for. The software power\n"
     "cap alone is normal at full load and is not counted. Fix: the server's cooling and power\n"
     "(fans, airflow, inlet temperature, power supplies); report it to the provider.")},
    [R_MEMORY] = {"MEMORY_PRESSURE", "watch", N_("the host swaps or the job takes major page faults"), WARN_ALL, NULL,
     N_("gpuvet watch: the machine swapped (pswpin/pswpout of /proc/vmstat, above 1 MB/s) or the job's\n"
     "processes took more than 100 major page faults a second: each one waits for a disk read.\n"
     "Fix: fewer or smaller workers (each holds a copy of the dataset index), a smaller prefetch\n"
     "factor or shuffle buffer, more RAM, or a memory-mapped dataset on fast local storage.")},
    [R_NUMA] = {"NUMA_MISPLACED", "watch", N_("the job runs on CPUs far from its GPUs"), WARN_ALL, NULL,
     N_("gpuvet watch: at least half of the job's threads last ran on CPUs of a NUMA node that holds\n"
     "none of the watched GPUs, so their copies cross the CPU interconnect. Fix: bind the job to\n"
     "the GPUs' node (`numactl --cpunodebind=N --membind=N`, or one process per GPU bound to its\n"
     "node); `gpuvet audit` prints the binding for each GPU (NUMA_BINDING).")},
    [R_GPU_BOUND] = {"GPU_BOUND", "watch", N_("the GPUs are the limit"), INFO_ALL, NULL,
     N_("gpuvet watch: the GPUs were busy (SM utilisation at 80 % or more) for most of the job: the host\n"
     "keeps up, and a faster job needs faster GPU code (mixed precision, fused kernels, larger\n"
     "batches) or more GPUs. Note that SM utilisation counts time any kernel ran, not how full the\n"
     "SMs were.")},
};
const int watch_rules_count = R_COUNT;

struct tally {
    double total_s, held_s, explained_s;
    int held;
};

struct outsider {
    int pid;
    char name[WATCH_NAME_LEN];
    double core_s;
};

struct judge {
    const struct watch_timeline *w;
    const struct thresholds *t;
    struct findings *out;
    bool gpu_seen, host_seen, job_seen;
    int first;             /* the first interval judged (after start-up) */
    struct tally tallies[R_COUNT];
    struct outsider outsiders[32];
    int noutsiders;
    double sum_steal, sum_others, sum_job_wait_share, sum_iowait, sum_disk_busy, sum_read_mbs, sum_blocked;
    double sum_swap, sum_majflt, sum_link_share, sum_workers, sum_saturated_workers, sum_main_demand, sum_idle_cores;
    double sum_sm;
    int nsm;
    unsigned long long throttle_bits;
};

static double sample_sm(const struct judge *j, const struct watch_sample *s)
{
    return j->gpu_seen ? watch_sample_sm(j->w, s) : -1;
}

/* Adds one interval: held, weighted by the idle (or, for busy rules, the busy) GPU time. */
static void tally_add(struct judge *j, int rule, const struct watch_sample *s, bool held, bool busy_weighted)
{
    struct tally *t = &j->tallies[rule];
    double dt = s->seconds > 0 ? s->seconds : 1, sm = sample_sm(j, s);
    t->total_s += dt;
    if (!held)
        return;
    t->held++;
    t->held_s += dt;
    t->explained_s += sm < 0 ? dt : dt * (busy_weighted ? sm / 100 : 1 - sm / 100);
}

static void name_outsiders(struct judge *j, const struct watch_sample *s)
{
    for (int n = 0; n < WATCH_MAX_OUTSIDERS && s->outsiders[n].pid; n++) {
        const struct watch_outsider *o = &s->outsiders[n];
        int k = 0;
        while (k < j->noutsiders && j->outsiders[k].pid != o->pid)
            k++;
        if (k == (int)(sizeof j->outsiders / sizeof j->outsiders[0]))
            continue;
        if (k == j->noutsiders) {
            j->outsiders[j->noutsiders++] = (struct outsider){.pid = o->pid};
            snprintf(j->outsiders[k].name, sizeof j->outsiders[k].name, "%s", o->name);
        }
        j->outsiders[k].core_s += o->cpu * (s->seconds > 0 ? s->seconds : 1);
    }
}

static void judge_interval(struct judge *j, const struct watch_sample *s)
{
    const struct thresholds *t = j->t;
    const struct watch_timeline *w = j->w;
    double sm = sample_sm(j, s);
    bool waiting = sm < 0 || sm < t->watch_gpu_busy_pct; /* unseen GPUs: host side only, judged unknown */
    if (j->host_seen && j->job_seen) {
        /* Workers are the root's descendants: all of them count, not only the busiest kept. */
        int workers = s->nprocs_total > 1 ? s->nprocs_total - 1 : 0, saturated = 0;
        for (int i = 1; i < s->nprocs; i++)
            saturated += s->procs[i].demand >= t->watch_core_saturated;
        bool all_cores = w->ncpus > 0 && s->job_demand >= t->watch_core_saturated * w->ncpus;
        bool input_cpu = (saturated > 0 && 2 * saturated >= workers) || all_cores;
        tally_add(j, R_INPUT_CPU, s, input_cpu && waiting, false);
        if (input_cpu && waiting) {
            j->sum_workers += workers;
            j->sum_saturated_workers += saturated;
            j->sum_idle_cores += s->idle >= 0 && w->ncpus > 0 ? s->idle * w->ncpus : 0;
        }
        bool main_busy = s->nprocs > 0 && s->procs[0].pid == w->root_pid &&
                         s->procs[0].main_demand >= t->watch_core_saturated;
        tally_add(j, R_LAUNCH, s, main_busy && waiting, false);
        if (main_busy && waiting)
            j->sum_main_demand += s->procs[0].main_demand;
        int misplaced = 0, placed = 0;
        for (int i = 0; i < s->nprocs; i++)
            if (s->procs[i].numa_misplaced_threads >= 0) {
                misplaced += s->procs[i].numa_misplaced_threads;
                placed += s->procs[i].threads;
            }
        tally_add(j, R_NUMA, s, placed > 0 && 2 * misplaced >= placed && waiting, false);
    }
    if (j->host_seen) {
        /* The job reads, and the disk is saturated, or the CPUs idle waiting for I/O, or the job's
         * threads sit in I/O sleep (on a busy machine iowait reads low: it counts idle CPUs only). */
        bool job_reads = !j->job_seen || s->job_read_mbs >= 1;
        bool io = job_reads && (s->disk_busy >= t->watch_disk_busy || s->iowait >= t->watch_iowait_share ||
                                (j->job_seen && s->blocked > 0));
        tally_add(j, R_INPUT_IO, s, io && waiting, false);
        if (io && waiting) {
            j->sum_iowait += s->iowait;
            j->sum_disk_busy += s->disk_busy > 0 ? s->disk_busy : 0;
            j->sum_read_mbs += s->disk_read_mbs > 0 ? s->disk_read_mbs : 0;
            j->sum_blocked += s->blocked > 0 ? s->blocked : 0;
        }
        double wait = s->job_demand > 0 ? (s->job_demand - s->job_cpu) / s->job_demand : 0;
        bool others = j->job_seen && w->ncpus > 0 && s->others_cpu >= t->contention_process_share * w->ncpus &&
                      s->job_demand >= 0.05 && wait >= t->watch_run_delay_share;
        bool contention = others || s->steal >= t->steal_warn;
        tally_add(j, R_CONTENTION, s, contention, false);
        if (contention) {
            j->sum_steal += s->steal;
            j->sum_others += s->others_cpu;
            j->sum_job_wait_share += wait;
            name_outsiders(j, s);
        }
        double swap = (s->swap_in_mbs > 0 ? s->swap_in_mbs : 0) + (s->swap_out_mbs > 0 ? s->swap_out_mbs : 0);
        bool memory = swap >= t->watch_swap_mb_s || s->job_majflt_s >= t->watch_majflt_per_s;
        tally_add(j, R_MEMORY, s, memory, false);
        if (memory) {
            j->sum_swap += swap;
            j->sum_majflt += s->job_majflt_s > 0 ? s->job_majflt_s : 0;
        }
    }
    if (j->gpu_seen && sm >= 0) {
        j->sum_sm += sm;
        j->nsm++;
    }
    if (j->gpu_seen) {
        double link_share = 0;
        unsigned long long events = 0;
        for (int g = 0; g < w->ngpus; g++) {
            const struct watch_gpu *x = &s->gpus[g];
            double traffic = x->pcie_rx_mbs > x->pcie_tx_mbs ? x->pcie_rx_mbs : x->pcie_tx_mbs;
            if (x->link_mbs > 0 && traffic / x->link_mbs > link_share)
                link_share = traffic / x->link_mbs;
            if (x->clock_events_known)
                events |= x->clock_events & THROTTLE_EVENTS;
        }
        bool pcie = link_share >= t->watch_pcie_link_share;
        tally_add(j, R_PCIE, s, pcie && waiting, false);
        if (pcie && waiting)
            j->sum_link_share += link_share;
        tally_add(j, R_THROTTLED, s, events != 0, true);
        j->throttle_bits |= events;
        tally_add(j, R_GPU_BOUND, s, sm >= t->watch_gpu_busy_pct, true);
    }
}

static double mean(double sum, int n) { return n > 0 ? sum / n : 0; }

static json_t *evidence(const struct judge *j, int rule)
{
    const struct tally *t = &j->tallies[rule];
    return json_pack("{s:i, s:i, s:i, s:f, s:f, s:b}", "intervals", j->w->count - j->first, "startup_intervals",
                     j->first, "held_intervals", t->held, "held_share", t->total_s > 0 ? t->held_s / t->total_s : 0,
                     "gpu_time_explained", t->total_s > 0 ? t->explained_s / t->total_s : 0, "gpu_seen", j->gpu_seen);
}

/* The first interval in which any GPU shows SM activity; 0 when none ever does (the GPUs then
 * waited the whole time, start-up included). */
static int first_gpu_activity(const struct watch_timeline *w)
{
    for (int i = 0; i < w->count; i++)
        if (watch_sample_sm(w, &w->samples[i]) > 0)
            return i;
    return 0;
}

static bool holds(const struct judge *j, int rule)
{
    const struct tally *t = &j->tallies[rule];
    return t->total_s > 0 && t->held_s / t->total_s >= j->t->watch_min_time_share;
}

static void add(struct judge *j, int rule, enum severity sev, json_t *ev, const char *fix, const char *message)
{
    struct audit_ctx ctx = {.rule = &watch_rules_table[rule], .out = j->out, .thresholds = j->t};
    finding_add(&ctx, sev, j->w->target ? j->w->target : "machine", ev, fix, "%s", message);
}

/* A host-side condition about the job's input that held: a warning when the GPUs were seen to
 * wait, unknown when they were not seen. */
static enum severity input_severity(const struct judge *j) { return j->gpu_seen ? SEV_WARN : SEV_UNKNOWN; }

/* Why the GPU side was not seen, in the language of this pass (the English one for the JSON). */
static const char *gpu_unseen_text(const struct watch_timeline *w)
{
    if (!w->gpu_unseen)
        return _("no GPU was watched");
    return i18n_translating() ? watch_local(w->gpu_unseen, w->gpu_unseen_local) : w->gpu_unseen;
}

/* The end of a diagnosis' message: when the condition held. */
static const char *gpu_clause(const struct judge *j, char *buf, size_t size, int rule)
{
    const struct tally *t = &j->tallies[rule];
    if (j->gpu_seen)
        /* TRANSLATORS: ends a diagnosis' message after a comma: "..., while the GPUs waited (SM below 80 %), 90 % of
         * the watched time". */
        snprintf(buf, size, _("while the GPUs waited (SM below %.0f %%), %.0f %% of the watched time"),
                 j->t->watch_gpu_busy_pct, 100 * t->held_s / t->total_s);
    else
        snprintf(buf, size, _("%.0f %% of the watched time; whether the GPUs waited could not be seen: %s"),
                 100 * t->held_s / t->total_s, gpu_unseen_text(j->w));
    return buf;
}

static void diagnose_input_cpu(struct judge *j)
{
    if (!holds(j, R_INPUT_CPU))
        return;
    int n = j->tallies[R_INPUT_CPU].held, ncpus = j->w->ncpus;
    double workers = mean(j->sum_workers, n), saturated = mean(j->sum_saturated_workers, n);
    double idle = mean(j->sum_idle_cores, n);
    char msg[768], clause[400], fix[768];
    snprintf(msg, sizeof msg, _("%.0f of %.0f loader worker(s) wanted a whole core each, or the job wanted all %d CPUs, %s"),
             saturated, workers, ncpus, gpu_clause(j, clause, sizeof clause, R_INPUT_CPU));
    snprintf(fix, sizeof fix,
             _("raise the DataLoader's num_workers toward %d (this machine's %d CPUs minus two; %.1f were idle on "
               "average while it held), decode faster (NVIDIA DALI, pillow-simd) or train on pre-decoded, pre-resized "
               "data; `gpuvet bench decode` measures the images/s this CPU decodes"),
             ncpus > 2 ? ncpus - 2 : 1, ncpus, idle);
    json_t *ev = evidence(j, R_INPUT_CPU);
    json_object_set_new(ev, "workers", json_real(workers));
    json_object_set_new(ev, "saturated_workers", json_real(saturated));
    json_object_set_new(ev, "idle_cpus", json_real(idle));
    add(j, R_INPUT_CPU, input_severity(j), ev, fix, msg);
}

static void diagnose_input_io(struct judge *j)
{
    if (!holds(j, R_INPUT_IO))
        return;
    int n = j->tallies[R_INPUT_IO].held;
    char msg[768], clause[400];
    snprintf(msg, sizeof msg,
             _("the data disk was %.0f %% busy reading %.0f MB/s, iowait %.0f %%, %.1f of the job's threads in D "
               "state at each sample, %s"),
             100 * mean(j->sum_disk_busy, n), mean(j->sum_read_mbs, n), 100 * mean(j->sum_iowait, n),
             mean(j->sum_blocked, n), gpu_clause(j, clause, sizeof clause, R_INPUT_IO));
    json_t *ev = evidence(j, R_INPUT_IO);
    json_object_set_new(ev, "disk_busy", json_real(mean(j->sum_disk_busy, n)));
    json_object_set_new(ev, "disk_read_mb_s", json_real(mean(j->sum_read_mbs, n)));
    json_object_set_new(ev, "iowait", json_real(mean(j->sum_iowait, n)));
    json_object_set_new(ev, "blocked_threads", json_real(mean(j->sum_blocked, n)));
    add(j, R_INPUT_IO, input_severity(j), ev,
        _("keep the dataset in the page cache, copy it to local NVMe, or pack it into large sequential records "
          "(WebDataset, TFRecord); `gpuvet bench storage --dir DATA` measures the disk"),
        msg);
}

static void diagnose_launch(struct judge *j)
{
    if (!holds(j, R_LAUNCH))
        return;
    char msg[768], clause[400];
    snprintf(msg, sizeof msg, _("the main thread of pid %d wanted %.2f of a core on average, %s"), j->w->root_pid,
             mean(j->sum_main_demand, j->tallies[R_LAUNCH].held), gpu_clause(j, clause, sizeof clause, R_LAUNCH));
    json_t *ev = evidence(j, R_LAUNCH);
    json_object_set_new(ev, "main_thread_demand", json_real(mean(j->sum_main_demand, j->tallies[R_LAUNCH].held)));
    add(j, R_LAUNCH, input_severity(j), ev,
        _("larger batches, CUDA graphs (torch.compile mode=\"reduce-overhead\"), fewer host syncs (.item(), .cpu()), "
          "and DataLoader workers instead of loading in the main process"),
        msg);
}

static int compare_outsider(const void *a, const void *b)
{
    double x = ((const struct outsider *)a)->core_s, y = ((const struct outsider *)b)->core_s;
    return (x < y) - (x > y);
}

static void diagnose_contention(struct judge *j)
{
    if (!holds(j, R_CONTENTION))
        return;
    int n = j->tallies[R_CONTENTION].held;
    qsort(j->outsiders, (size_t)j->noutsiders, sizeof j->outsiders[0], compare_outsider);
    char names[400] = "", msg[1024];
    json_t *list = json_array();
    for (int k = 0; k < j->noutsiders && k < WATCH_MAX_OUTSIDERS; k++) {
        double cores = j->outsiders[k].core_s / j->tallies[R_CONTENTION].held_s;
        size_t len = strlen(names);
        if (k)
            snprintf(names + len, sizeof names - len, ", ");
        len = strlen(names);
        snprintf(names + len, sizeof names - len, _("%s (pid %d, %.2f cores)"), j->outsiders[k].name,
                 j->outsiders[k].pid, cores);
        json_array_append_new(list, json_pack("{s:i, s:s, s:f}", "pid", j->outsiders[k].pid, "name",
                                              j->outsiders[k].name, "cores", cores));
    }
    double held = 100 * j->tallies[R_CONTENTION].held_s / j->tallies[R_CONTENTION].total_s;
    if (*names)
        snprintf(msg, sizeof msg,
                 _("for %.0f %% of the watched time the job waited on run queues for %.0f %% of the CPU time it wanted "
                   "while processes outside it used %.2f cores, busiest: %s; steal %.1f %%"),
                 held, 100 * mean(j->sum_job_wait_share, n), mean(j->sum_others, n), names, 100 * mean(j->sum_steal, n));
    else
        snprintf(msg, sizeof msg,
                 _("for %.0f %% of the watched time the job waited on run queues for %.0f %% of the CPU time it wanted "
                   "while processes outside it used %.2f cores; steal %.1f %%"),
                 held, 100 * mean(j->sum_job_wait_share, n), mean(j->sum_others, n), 100 * mean(j->sum_steal, n));
    json_t *ev = evidence(j, R_CONTENTION);
    json_object_set_new(ev, "others_cores", json_real(mean(j->sum_others, n)));
    json_object_set_new(ev, "job_run_queue_wait_share", json_real(mean(j->sum_job_wait_share, n)));
    json_object_set_new(ev, "steal", json_real(mean(j->sum_steal, n)));
    json_object_set_new(ev, "outsiders", list);
    add(j, R_CONTENTION, SEV_WARN, ev,
        _("stop or move the processes named, pin the job to its own cores (taskset, cpusets), or ask the provider "
          "for dedicated vCPUs when steal is high"),
        msg);
}

static void diagnose_gpu_side(struct judge *j)
{
    char msg[768];
    if (holds(j, R_PCIE)) {
        snprintf(msg, sizeof msg,
                 _("host<->GPU traffic ran at %.0f %% of the negotiated link's rate while the GPUs waited, %.0f %% of "
                   "the watched time"),
                 100 * mean(j->sum_link_share, j->tallies[R_PCIE].held),
                 100 * j->tallies[R_PCIE].held_s / j->tallies[R_PCIE].total_s);
        json_t *ev = evidence(j, R_PCIE);
        json_object_set_new(ev, "link_share", json_real(mean(j->sum_link_share, j->tallies[R_PCIE].held)));
        add(j, R_PCIE, SEV_WARN, ev,
            _("pinned memory and non_blocking copies overlapped with compute, GPU-side augmentation, and "
              "`gpuvet audit --load-check` to rule out a degraded link"),
            msg);
    }
    if (j->tallies[R_THROTTLED].held > 0) { /* any slowdown is a fault, as DCGM judges it */
        json_t *names = json_array();
        static const struct {
            unsigned long long bit;
            const char *name;
        } reasons[] = {{GPU_EVENT_HW_SLOWDOWN, "hw_slowdown"}, {GPU_EVENT_SW_THERMAL, "sw_thermal_slowdown"},
                       {GPU_EVENT_HW_THERMAL, "hw_thermal_slowdown"}, {GPU_EVENT_HW_POWER_BRAKE, "hw_power_brake_slowdown"}};
        char list[200] = "";
        for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++)
            if (j->throttle_bits & reasons[k].bit) {
                json_array_append_new(names, json_string(reasons[k].name));
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", reasons[k].name);
            }
        /* TRANSLATORS: %s lists NVML's clock-event reasons (hw_slowdown, sw_thermal_slowdown, ...). */
        snprintf(msg, sizeof msg, _("%s in %d of %d intervals"), list, j->tallies[R_THROTTLED].held,
                 j->w->count - j->first);
        json_t *ev = evidence(j, R_THROTTLED);
        json_object_set_new(ev, "reasons", names);
        add(j, R_THROTTLED, SEV_WARN, ev, _("check the server's cooling and power; report it to the provider"), msg);
    }
    if (holds(j, R_GPU_BOUND) && j->tallies[R_GPU_BOUND].held_s >= 0.8 * j->tallies[R_GPU_BOUND].total_s) {
        double sm = mean(j->sum_sm, j->nsm) / 100;
        snprintf(msg, sizeof msg,
                 _("the GPUs were busy (SM %.0f %% or more) %.0f %% of the watched time, mean SM %.0f %%: the host "
                   "keeps up"),
                 j->t->watch_gpu_busy_pct, 100 * j->tallies[R_GPU_BOUND].held_s / j->tallies[R_GPU_BOUND].total_s,
                 100 * sm);
        add(j, R_GPU_BOUND, SEV_INFO, evidence(j, R_GPU_BOUND),
            _("a faster job needs faster GPU code (mixed precision, fused kernels, larger batches) or more GPUs"), msg);
    }
}

static void diagnose_memory(struct judge *j)
{
    if (!holds(j, R_MEMORY))
        return;
    int n = j->tallies[R_MEMORY].held;
    char msg[512], clause[400];
    snprintf(msg, sizeof msg, _("swapping %.1f MB/s, the job's major faults %.0f/s, %s"), mean(j->sum_swap, n),
             mean(j->sum_majflt, n), gpu_clause(j, clause, sizeof clause, R_MEMORY));
    json_t *ev = evidence(j, R_MEMORY);
    json_object_set_new(ev, "swap_mb_s", json_real(mean(j->sum_swap, n)));
    json_object_set_new(ev, "majflt_per_s", json_real(mean(j->sum_majflt, n)));
    add(j, R_MEMORY, SEV_WARN, ev,
        _("fewer or smaller workers, a smaller prefetch factor or shuffle buffer, more RAM, or a memory-mapped "
          "dataset on fast local storage"),
        msg);
}

static void diagnose_numa(struct judge *j)
{
    if (!holds(j, R_NUMA))
        return;
    char msg[512], clause[400];
    snprintf(msg, sizeof msg, _("most of the job's threads ran on CPUs of a NUMA node without any of its GPUs, %s"),
             gpu_clause(j, clause, sizeof clause, R_NUMA));
    add(j, R_NUMA, input_severity(j), evidence(j, R_NUMA),
        _("bind the job to its GPUs' node: numactl --cpunodebind=N --membind=N (gpuvet audit prints N per GPU)"), msg);
}

static void unseen(struct judge *j, int rule, const char *why)
{
    json_t *ev = json_pack("{s:s}", "unseen", why);
    add(j, rule, SEV_UNKNOWN, ev, NULL, why);
}

/* What could not be judged at all, and why. */
static void diagnose_unseen(struct judge *j)
{
    const struct watch_timeline *w = j->w;
    char why[768];
    if (!j->gpu_seen) {
        snprintf(why, sizeof why, _("GPU side not seen: %s"), gpu_unseen_text(w));
        unseen(j, R_PCIE, why);
        unseen(j, R_THROTTLED, why);
        unseen(j, R_GPU_BOUND, why);
    }
    if (!j->host_seen) {
        if (w->host_unseen)
            snprintf(why, sizeof why, _("host side not seen: %s"), watch_local(w->host_unseen, NULL));
        else
            snprintf(why, sizeof why, "%s", _("host side not seen: no host facts"));
        for (int r = R_INPUT_CPU; r <= R_NUMA; r++)
            if (r != R_PCIE && r != R_THROTTLED)
                unseen(j, r, why);
        return;
    }
    if (!j->job_seen) {
        snprintf(why, sizeof why, "%s",
                 _("no job was watched (give a command or --pid): the machine alone cannot say whose workers or main "
                   "thread are busy"));
        unseen(j, R_INPUT_CPU, why);
        unseen(j, R_LAUNCH, why);
        unseen(j, R_NUMA, why);
    } else if (w->nnodes > 1) {
        bool placed = false;
        for (int g = 0; g < w->ngpus; g++)
            placed |= w->gpu_info[g].numa_node >= 0;
        if (!placed)
            unseen(j, R_NUMA, _("the GPUs' NUMA nodes are unknown, so the job's placement cannot be judged"));
    }
    if (j->job_seen && w->disk_unseen) {
        snprintf(why, sizeof why, _("the job's data disk is unknown: %s"), watch_local(w->disk_unseen, NULL));
        if (!holds(j, R_INPUT_IO))
            unseen(j, R_INPUT_IO, why);
    }
}

static double explained(const struct finding *f)
{
    json_t *v = json_object_get(f->evidence, "gpu_time_explained");
    return f->severity == SEV_UNKNOWN ? -1 : v ? json_number_value(v) : 0;
}

static int compare_explained(const void *a, const void *b)
{
    double x = explained(a), y = explained(b);
    return (x < y) - (x > y);
}

/* One run of every diagnosis, in the language _() speaks now. */
static void diagnose(const struct watch_timeline *w, struct findings *out)
{
    struct judge j = {.w = w, .t = thresholds_for(WL_GENERAL), .out = out, .gpu_seen = w->ngpus > 0,
                      .host_seen = w->host_seen, .job_seen = w->job_seen};
    j.first = j.gpu_seen ? first_gpu_activity(w) : 0;
    for (int i = j.first; i < w->count; i++)
        judge_interval(&j, &w->samples[i]);
    diagnose_input_cpu(&j);
    diagnose_input_io(&j);
    diagnose_launch(&j);
    diagnose_contention(&j);
    diagnose_gpu_side(&j);
    diagnose_memory(&j);
    diagnose_numa(&j);
    diagnose_unseen(&j);
}

/* The English run is the JSON's; a second, translated run gives the text report its words (as
 * rules_run does for the audit). */
void watch_diagnose(const struct watch_timeline *w, struct findings *out)
{
    if (w->count == 0)
        return;
    i18n_english_begin();
    diagnose(w, out);
    i18n_english_end();
    if (i18n_translating()) {
        struct findings local = {0};
        diagnose(w, &local);
        findings_adopt_local(out, &local);
    }
    if (out->count > 1)
        qsort(out->items, (size_t)out->count, sizeof *out->items, compare_explained);
}
