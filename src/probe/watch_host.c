/* The host side of `gpuvet watch`, one reading per interval: /proc/stat (the audit's parser),
 * every /proc/PID/stat for the job tree (parent links) and what runs beside it, the tree's
 * threads (/proc/PID/task: state, CPU time, run-queue wait from schedstat, major faults, the CPU
 * they last ran on), the disk of the job's open files (/proc/PID/fd -> st_dev ->
 * /sys/dev/block/MAJ:MIN -> /proc/diskstats), swapping (/proc/vmstat) and /proc/net/dev. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"
#include "probe/watch.h"
#include "util/fsroot.h"
#include "util/parse.h"

#define MAX_FDS_PER_PROC 4096 /* enough to find the data files; bounds the cost on huge jobs */
#define MAX_DISKS 256

struct thread_reading {
    int tid;
    unsigned long long ticks, run_ns, wait_ns;
    bool schedstat;
    unsigned long majflt;
};

struct io_reading {
    int pid;
    unsigned long long read_bytes;
};

struct disk_reading {
    char name[WATCH_NAME_LEN];
    unsigned long long sectors_read, io_ticks_ms;
};

struct watch_host {
    int root_pid;
    const struct watch_numa *numa;
    double when, tick_s, page_mb;
    struct cpu_ticks all;
    struct proc_ticks *procs;
    int nprocs;
    struct thread_reading *threads;
    int nthreads;
    struct io_reading *io;
    int nio;
    struct disk_reading disks[MAX_DISKS];
    int ndisks;
    char job_disk[WATCH_NAME_LEN];
    unsigned long long swap_in, swap_out, net_rx, net_tx;
    bool vmstat_ok, net_ok;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare_tid(const void *a, const void *b)
{
    return ((const struct thread_reading *)a)->tid - ((const struct thread_reading *)b)->tid;
}

/* bsearch over an array that may be empty (NULL): C leaves bsearch(NULL, 0) undefined. */
static const void *find_sorted(const void *key, const void *base, int n, size_t size,
                               int (*compare)(const void *, const void *))
{
    return n > 0 && base ? bsearch(key, base, (size_t)n, size, compare) : NULL;
}

static int compare_io_pid(const void *a, const void *b)
{
    return ((const struct io_reading *)a)->pid - ((const struct io_reading *)b)->pid;
}

/* Bytes the process made the block layer fetch (O_DIRECT included), from /proc/PID/io. */
static bool read_io(int pid, struct io_reading *out)
{
    char *text = fs_readf("/proc/%d/io", pid);
    char *at = text ? strstr(text, "read_bytes:") : NULL;
    bool ok = at && sscanf(at, "read_bytes: %llu", &out->read_bytes) == 1;
    out->pid = pid;
    free(text);
    return ok;
}

static bool read_all_cpus(struct cpu_ticks *out)
{
    struct cpu_ticks *t = NULL;
    int n = proc_stat_read(&t);
    if (n >= 1)
        *out = t[0];
    free(t);
    return n >= 1;
}

/* Whole disks of /proc/diskstats: name, sectors read, io_ticks. */
static int read_diskstats(struct disk_reading *out, int max)
{
    char *text = fs_read("/proc/diskstats");
    int n = 0;
    for (char *line = text, *next; line && *line && n < max; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        struct disk_reading d;
        unsigned major, minor;
        if (sscanf(line, " %u %u %31s %*u %*u %llu %*u %*u %*u %*u %*u %*u %llu", &major, &minor, d.name,
                   &d.sectors_read, &d.io_ticks_ms) == 5)
            out[n++] = d;
    }
    free(text);
    return n;
}

static bool read_vmstat(unsigned long long *in, unsigned long long *out)
{
    char *text = fs_read("/proc/vmstat");
    char *a = text ? strstr(text, "\npswpin ") : NULL, *b = text ? strstr(text, "\npswpout ") : NULL;
    bool ok = a && b && sscanf(a, " pswpin %llu", in) == 1 && sscanf(b, " pswpout %llu", out) == 1;
    free(text);
    return ok;
}

/* Bytes received and sent by every interface but loopback. */
static bool read_net(unsigned long long *rx, unsigned long long *tx)
{
    char *text = fs_read("/proc/net/dev");
    bool ok = false;
    *rx = *tx = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *colon = strchr(line, ':');
        unsigned long long r, t;
        if (!colon)
            continue;
        *colon = '\0';
        while (*line == ' ')
            line++;
        if (sscanf(colon + 1, "%llu %*u %*u %*u %*u %*u %*u %*u %llu", &r, &t) == 2) {
            ok = true;
            if (strcmp(line, "lo")) {
                *rx += r;
                *tx += t;
            }
        }
    }
    free(text);
    return ok;
}

/* The whole disk behind a device number: /sys/dev/block/MAJ:MIN names it, and a partition's
 * parent folder is its disk. false for devices without a block node (tmpfs, overlay, NFS). */
static bool disk_of_device(dev_t dev, char out[WATCH_NAME_LEN])
{
    char link[64];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
    char *path = fs_resolve(link);
    if (!path)
        return false;
    char partition[PATH_MAX];
    snprintf(partition, sizeof partition, "%s/partition", path);
    char *slash = strrchr(path, '/');
    if (fs_exists(partition) && slash) {
        *slash = '\0';
        slash = strrchr(path, '/');
    }
    if (slash)
        snprintf(out, WATCH_NAME_LEN, "%s", slash + 1);
    free(path);
    return slash != NULL;
}

struct device_count {
    dev_t dev;
    int files;
};

/* Counts the regular files a process holds open, per device. false when its fd folder may not
 * be read (another user's process). */
static bool count_open_files(int pid, struct device_count *devs, int *ndevs, int max)
{
    char dir[64], **names;
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    int n = fs_list(dir, &names);
    if (n < 0)
        return errno != EACCES && errno != EPERM;
    for (int i = 0; i < n && i < MAX_FDS_PER_PROC; i++) {
        char rel[96], full[PATH_MAX];
        struct stat st;
        snprintf(rel, sizeof rel, "%s/%s", dir, names[i]);
        if (stat(fsroot_path(full, sizeof full, rel), &st) != 0 || !S_ISREG(st.st_mode) || major(st.st_dev) == 0)
            continue;
        int k = 0;
        while (k < *ndevs && devs[k].dev != st.st_dev)
            k++;
        if (k == *ndevs && *ndevs < max)
            devs[(*ndevs)++] = (struct device_count){st.st_dev, 0};
        if (k < *ndevs)
            devs[k].files++;
    }
    fs_list_free(names, n > 0 ? n : 0);
    return true;
}

static unsigned long long ns_field(const char *text, int which)
{
    unsigned long long v[2] = {0, 0};
    if (!text || sscanf(text, "%llu %llu", &v[0], &v[1]) != 2)
        return 0;
    return v[which];
}

/* Reads the threads of one process into *threads (appending), and adds the change since the last
 * reading (h->threads) into p. */
static void read_threads(struct watch_host *h, int pid, double dt, struct watch_proc *p,
                         struct thread_reading **threads, int *nthreads, int *cap)
{
    char dir[64], **names;
    snprintf(dir, sizeof dir, "/proc/%d/task", pid);
    int n = fs_list(dir, &names);
    for (int i = 0; i < n; i++) {
        int tid = atoi(names[i]);
        char *stat = fs_readf("/proc/%d/task/%d/stat", pid, tid);
        struct pid_stat ps;
        if (!stat || !parse_pid_stat(stat, &ps)) {
            free(stat);
            continue; /* ended between the listing and the read */
        }
        free(stat);
        char *sched = fs_readf("/proc/%d/task/%d/schedstat", pid, tid);
        struct thread_reading now = {.tid = tid, .ticks = ps.utime + ps.stime, .majflt = ps.majflt,
                                     .schedstat = sched != NULL, .run_ns = ns_field(sched, 0),
                                     .wait_ns = ns_field(sched, 1)};
        free(sched);
        if (*nthreads == *cap) {
            *cap = *cap ? *cap * 2 : 256;
            struct thread_reading *grown = realloc(*threads, (size_t)*cap * sizeof *grown);
            if (!grown)
                break;
            *threads = grown;
        }
        (*threads)[(*nthreads)++] = now;
        const struct thread_reading *old =
            find_sorted(&now, h->threads, h->nthreads, sizeof now, compare_tid);
        /* A thread born in the interval counts from zero. */
        double cpu = (double)(now.ticks - (old && old->ticks <= now.ticks ? old->ticks : 0)) * h->tick_s / dt;
        double demand = cpu;
        if (now.schedstat) { /* nanoseconds: finer than the 10 ms ticks of stat */
            unsigned long long run = now.run_ns - (old && old->run_ns <= now.run_ns ? old->run_ns : 0);
            unsigned long long wait = now.wait_ns - (old && old->wait_ns <= now.wait_ns ? old->wait_ns : 0);
            cpu = (double)run / 1e9 / dt;
            demand = (double)(run + wait) / 1e9 / dt;
        }
        double majflt = (double)(now.majflt - (old && old->majflt <= now.majflt ? old->majflt : 0)) / dt;
        p->cpu += cpu;
        p->demand += demand;
        p->majflt_s += majflt;
        p->threads++;
        p->running += ps.state == 'R';
        p->blocked += ps.state == 'D';
        if (tid == pid) {
            p->main_cpu = cpu;
            p->main_demand = demand;
        }
        const struct watch_numa *numa = h->numa;
        if (numa && numa->gpu_nodes && ps.processor >= 0 && ps.processor < numa->ncpus &&
            numa->cpu_node[ps.processor] >= 0) {
            if (p->numa_misplaced_threads < 0)
                p->numa_misplaced_threads = 0;
            p->numa_misplaced_threads += !(numa->gpu_nodes >> numa->cpu_node[ps.processor] & 1);
        }
    }
    fs_list_free(names, n > 0 ? n : 0);
}

static int compare_demand(const void *a, const void *b)
{
    double x = ((const struct watch_proc *)a)->demand, y = ((const struct watch_proc *)b)->demand;
    return (x < y) - (x > y);
}

/* Marks the root and its descendants in in_tree (parallel to procs, sorted by pid). */
static int mark_tree(const struct proc_ticks *procs, int n, int root, bool *in_tree)
{
    int count = 0;
    /* A zombie root has ended: only its exit status is left to collect. */
    for (int i = 0; i < n; i++)
        if ((in_tree[i] = procs[i].pid == root && procs[i].state != 'Z'))
            count++;
    for (bool grew = count > 0; grew;) {
        grew = false;
        for (int i = 0; i < n; i++) {
            if (in_tree[i])
                continue;
            struct proc_ticks key = {.pid = procs[i].ppid};
            const struct proc_ticks *parent = find_sorted(&key, procs, n, sizeof key, proc_ticks_compare_pid);
            if (parent && in_tree[parent - procs]) {
                in_tree[i] = grew = true;
                count++;
            }
        }
    }
    return count;
}

static void sample_tree(struct watch_host *h, struct watch_timeline *w, struct watch_sample *s,
                        const struct proc_ticks *procs, int n, const bool *in_tree, double dt)
{
    struct thread_reading *threads = NULL;
    int nthreads = 0, cap = 0, ndevs = 0, denied = 0;
    struct device_count devs[64];
    struct watch_proc *all = calloc((size_t)n + 1, sizeof *all);
    struct io_reading *io = calloc((size_t)n + 1, sizeof *io);
    int nall = 0, nio = 0;
    s->threads = s->running = s->blocked = 0;
    s->job_cpu = s->job_demand = s->job_majflt_s = 0;
    s->job_read_mbs = -1;
    for (int i = 0; all && i < n; i++) {
        if (!in_tree[i])
            continue;
        struct watch_proc *p = &all[nall++];
        p->pid = procs[i].pid;
        p->ppid = procs[i].ppid;
        p->numa_misplaced_threads = -1;
        snprintf(p->name, sizeof p->name, "%s", procs[i].name);
        read_threads(h, p->pid, dt, p, &threads, &nthreads, &cap);
        if (!count_open_files(p->pid, devs, &ndevs, 64) && !denied)
            denied = p->pid;
        if (io && read_io(p->pid, &io[nio])) {
            const struct io_reading *old = find_sorted(&io[nio], h->io, h->nio, sizeof *io, compare_io_pid);
            unsigned long long now = io[nio++].read_bytes;
            s->job_read_mbs = (s->job_read_mbs < 0 ? 0 : s->job_read_mbs) +
                              (double)(now - (old && old->read_bytes <= now ? old->read_bytes : 0)) / 1e6 / dt;
        }
        s->threads += p->threads;
        s->running += p->running;
        s->blocked += p->blocked;
        s->job_cpu += p->cpu;
        s->job_demand += p->demand;
        s->job_majflt_s += p->majflt_s;
    }
    s->nprocs_total = nall;
    /* The root first, then the busiest. */
    for (int i = 0; i < nall; i++)
        if (all[i].pid == h->root_pid && i) {
            struct watch_proc root = all[i];
            memmove(&all[1], &all[0], (size_t)i * sizeof *all);
            all[0] = root;
        }
    if (nall > 2)
        qsort(&all[1], (size_t)nall - 1, sizeof *all, compare_demand);
    s->nprocs = nall < WATCH_MAX_PROCS ? nall : WATCH_MAX_PROCS;
    if (all)
        memcpy(s->procs, all, (size_t)s->nprocs * sizeof *all);
    free(all);
    if (nthreads > 1)
        qsort(threads, (size_t)nthreads, sizeof *threads, compare_tid);
    free(h->threads);
    h->threads = threads;
    h->nthreads = nthreads;
    free(h->io);
    h->io = io;
    h->nio = nio; /* procs are visited in pid order: io stays sorted */
    int best = -1;
    for (int k = 0; k < ndevs; k++)
        if (best < 0 || devs[k].files > devs[best].files)
            best = k;
    /* The disk sticks: a loader that opens and closes each file may hold none at the sample. */
    if (best >= 0 && !disk_of_device(devs[best].dev, h->job_disk))
        h->job_disk[0] = '\0';
    if (!h->job_disk[0] && denied)
        watch_set(&w->disk_unseen, "/proc/%d/fd may not be read (another user's process: run gpuvet as that user "
                                   "or as root)", denied);
    else if (!h->job_disk[0] && !w->disk_unseen)
        watch_set(&w->disk_unseen, "the job held no open file on a block device (tmpfs, overlay or a network "
                                   "filesystem)");
    else if (h->job_disk[0] && w->disk_unseen) {
        free(w->disk_unseen);
        w->disk_unseen = NULL;
    }
}

static void sample_disk(struct watch_host *h, struct watch_sample *s, double dt)
{
    struct disk_reading now[MAX_DISKS];
    int n = read_diskstats(now, MAX_DISKS), pick = -1;
    double pick_busy = -1;
    for (int i = 0; i < n; i++) {
        const struct disk_reading *old = NULL;
        for (int k = 0; k < h->ndisks && !old; k++)
            if (!strcmp(h->disks[k].name, now[i].name))
                old = &h->disks[k];
        if (!old || old->io_ticks_ms > now[i].io_ticks_ms)
            continue;
        double busy = (double)(now[i].io_ticks_ms - old->io_ticks_ms) / 1000 / dt;
        /* the machine's busiest disk: loop and RAM devices are files and memory, not disks */
        bool wanted = h->root_pid ? !strcmp(now[i].name, h->job_disk)
                                  : busy > pick_busy && strncmp(now[i].name, "loop", 4) &&
                                        strncmp(now[i].name, "ram", 3) && strncmp(now[i].name, "zram", 4);
        if (wanted) {
            pick = i;
            pick_busy = busy > 1 ? 1 : busy;
            /* sectors are 512 bytes whatever the device's block size (Documentation/block/stat.rst) */
            s->disk_read_mbs = (double)(now[i].sectors_read - old->sectors_read) * 512 / 1e6 / dt;
        }
    }
    if (pick >= 0) {
        snprintf(s->disk, sizeof s->disk, "%s", now[pick].name);
        s->disk_busy = pick_busy;
    }
    memcpy(h->disks, now, (size_t)n * sizeof *now);
    h->ndisks = n;
}

static void sample_others(struct watch_host *h, struct watch_sample *s, const struct proc_ticks *procs, int n,
                          const bool *in_tree, double dt)
{
    s->others_cpu = 0;
    for (int i = 0; i < n; i++) {
        if (in_tree && in_tree[i])
            continue;
        const struct proc_ticks *old = find_sorted(&procs[i], h->procs, h->nprocs, sizeof *procs,
                                               proc_ticks_compare_pid);
        double cores = (double)(procs[i].ticks - (old && old->ticks <= procs[i].ticks ? old->ticks : 0)) *
                       h->tick_s / dt;
        s->others_cpu += cores;
        /* keep the busiest few, busiest first */
        int at = WATCH_MAX_OUTSIDERS;
        while (at > 0 && (!s->outsiders[at - 1].pid || cores > s->outsiders[at - 1].cpu))
            at--;
        if (at == WATCH_MAX_OUTSIDERS || cores <= 0)
            continue;
        memmove(&s->outsiders[at + 1], &s->outsiders[at], (WATCH_MAX_OUTSIDERS - 1 - at) * sizeof s->outsiders[0]);
        s->outsiders[at].pid = procs[i].pid;
        s->outsiders[at].cpu = cores;
        snprintf(s->outsiders[at].name, sizeof s->outsiders[at].name, "%s", procs[i].name);
    }
}

static void sample_counters(struct watch_host *h, struct watch_sample *s, double dt)
{
    unsigned long long in, out, rx, tx;
    if (read_vmstat(&in, &out)) {
        if (h->vmstat_ok) {
            s->swap_in_mbs = (double)(in - h->swap_in) * h->page_mb / dt;
            s->swap_out_mbs = (double)(out - h->swap_out) * h->page_mb / dt;
        }
        h->swap_in = in;
        h->swap_out = out;
        h->vmstat_ok = true;
    }
    if (read_net(&rx, &tx)) {
        if (h->net_ok) {
            s->net_rx_mbs = (double)(rx - h->net_rx) / 1e6 / dt;
            s->net_tx_mbs = (double)(tx - h->net_tx) / 1e6 / dt;
        }
        h->net_rx = rx;
        h->net_tx = tx;
        h->net_ok = true;
    }
}

struct watch_host *watch_host_open(int root_pid, const struct watch_numa *numa, char *err, size_t errlen)
{
    struct watch_host *h = calloc(1, sizeof *h);
    if (!h || !read_all_cpus(&h->all)) {
        snprintf(err, errlen, "/proc/stat cannot be read: the host side cannot be watched");
        free(h);
        return NULL;
    }
    h->root_pid = root_pid;
    h->numa = numa;
    h->tick_s = 1.0 / (double)sysconf(_SC_CLK_TCK);
    h->page_mb = (double)sysconf(_SC_PAGESIZE) / 1e6;
    h->when = now_s();
    /* A baseline reading, so that the first interval counts only its own CPU time, faults and
     * bytes, not the lifetime of processes that were running before. */
    struct watch_timeline scratch_timeline;
    struct watch_sample scratch;
    watch_timeline_init(&scratch_timeline);
    memset(&scratch, 0, sizeof scratch);
    watch_host_sample(h, &scratch_timeline, &scratch);
    watch_timeline_free(&scratch_timeline);
    return h;
}

int watch_host_sample(struct watch_host *h, struct watch_timeline *w, struct watch_sample *s)
{
    struct cpu_ticks all;
    if (!read_all_cpus(&all))
        return -1;
    double now = now_s(), dt = now - h->when;
    if (dt <= 0)
        dt = 1e-3;
    struct proc_ticks *procs = NULL;
    int n = proc_ticks_read(&procs);
    bool *in_tree = h->root_pid && n > 0 ? calloc((size_t)n, sizeof *in_tree) : NULL;
    if (h->root_pid && (!in_tree || mark_tree(procs, n, h->root_pid, in_tree) == 0)) {
        free(in_tree);
        free(procs);
        return 1;
    }
    struct cpu_time_shares share = cpu_shares_between(&h->all, &all);
    s->user = share.user;
    s->system = share.system + share.irq;
    s->iowait = share.iowait;
    s->steal = share.steal;
    s->idle = share.idle;
    if (h->root_pid)
        sample_tree(h, w, s, procs, n, in_tree, dt);
    sample_others(h, s, procs, n, in_tree, dt);
    sample_disk(h, s, dt);
    sample_counters(h, s, dt);
    free(in_tree);
    free(h->procs);
    h->procs = procs;
    h->nprocs = n;
    h->all = all;
    h->when = now;
    return 0;
}

void watch_host_close(struct watch_host *h)
{
    if (!h)
        return;
    free(h->procs);
    free(h->threads);
    free(h->io);
    free(h);
}

void watch_numa_from_machine(struct watch_numa *numa, const struct machine *m, struct watch_timeline *w)
{
    for (int g = 0; g < w->ngpus; g++)
        for (int k = 0; k < m->gpus.count; k++)
            if (!strcmp(m->gpus.items[k].bus_id, w->gpu_info[g].bus_id))
                w->gpu_info[g].numa_node = gpu_numa_node(m, &m->gpus.items[k]);
    w->nnodes = machine_cpu_node_count(m);
    memset(numa, 0, sizeof *numa);
    int max_cpu = -1;
    for (int i = 0; i < m->nnodes; i++)
        if (m->nodes[i].cpus)
            max_cpu = hwloc_bitmap_last(m->nodes[i].cpus) > max_cpu ? hwloc_bitmap_last(m->nodes[i].cpus) : max_cpu;
    if (max_cpu < 0 || !(numa->cpu_node = malloc((size_t)(max_cpu + 1) * sizeof *numa->cpu_node)))
        return;
    numa->ncpus = max_cpu + 1;
    for (int c = 0; c <= max_cpu; c++)
        numa->cpu_node[c] = -1;
    for (int i = 0; i < m->nnodes; i++) {
        if (!m->nodes[i].cpus)
            continue;
        unsigned c;
        hwloc_bitmap_foreach_begin(c, m->nodes[i].cpus)
        {
            if ((int)c <= max_cpu)
                numa->cpu_node[c] = m->nodes[i].id;
        }
        hwloc_bitmap_foreach_end();
    }
    for (int g = 0; g < w->ngpus; g++)
        if (w->gpu_info[g].numa_node >= 0 && w->gpu_info[g].numa_node < 64)
            numa->gpu_nodes |= 1ULL << w->gpu_info[g].numa_node;
}

void watch_numa_free(struct watch_numa *numa)
{
    free(numa->cpu_node);
    memset(numa, 0, sizeof *numa);
}
