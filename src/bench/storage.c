/* Storage read throughput as fio measures it: 1 MiB sequential reads and 4 KiB random reads with
 * O_DIRECT (the page cache would measure memory instead), queue depth 16, through io_uring
 * (raw syscalls, <linux/io_uring.h>) or, where io_uring is missing or forbidden (old kernels,
 * container seccomp profiles), 16 threads doing pread. The reads run in a child process in a
 * session of its own, as fio's job processes do (see read_in_own_session). The file is bounded,
 * lives in --dir, and is removed at the end and when SIGINT/SIGTERM/SIGHUP/SIGXFSZ arrives; or it
 * is the user's own (--file), which is only read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "util/i18n.h"

#define QUEUE_DEPTH 16
#define SEQ_BLOCK (1u << 20)
#define RAND_BLOCK 4096u
#define DIRECT_ALIGN 4096u
/* The file takes at most this share of the free space. */
#define MAX_SHARE_OF_FREE 0.10
#define MIN_FILE (64ull << 20)

/* The file to remove if a signal ends the process; written before the handler is installed. */
static char cleanup_path[PATH_MAX];
/* SIGXFSZ: writing the file past `ulimit -f` ends the process like a Ctrl-C would. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
#define NCLEANUP_SIGNALS (sizeof cleanup_signals / sizeof *cleanup_signals)
static struct sigaction previous[NCLEANUP_SIGNALS];

/* The child that reads (read_in_own_session) while the parent waits; 0 when none runs. */
static volatile sig_atomic_t reading_child;

static void remove_and_reraise(int sig)
{
    if (reading_child > 0)
        kill(reading_child, SIGKILL);
    unlink(cleanup_path);
    /* Die of the same signal, so the shell sees a Ctrl-C as one. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard_file(const char *path)
{
    snprintf(cleanup_path, sizeof cleanup_path, "%s", path);
    struct sigaction sa = {0};
    sa.sa_handler = remove_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCLEANUP_SIGNALS; i++)
        sigaction(cleanup_signals[i], &sa, &previous[i]);
}

static void unguard_and_remove(void)
{
    for (size_t i = 0; i < NCLEANUP_SIGNALS; i++)
        sigaction(cleanup_signals[i], &previous[i], NULL);
    unlink(cleanup_path);
    cleanup_path[0] = '\0';
}

/* ---- io_uring, the minimum: one ring, read requests, completions. ---- */
struct uring {
    int fd;
    unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    void *sq_ring, *cq_ring;
    size_t sq_len, cq_len, sqes_len;
};

static int uring_open(struct uring *u, unsigned entries)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    memset(u, 0, sizeof *u);
    u->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
    if (u->fd < 0)
        return -errno;
    u->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    u->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    bool single = p.features & IORING_FEAT_SINGLE_MMAP;
    if (single)
        u->sq_len = u->cq_len = u->sq_len > u->cq_len ? u->sq_len : u->cq_len;
    u->sq_ring = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQ_RING);
    u->cq_ring = single ? u->sq_ring
                        : mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
                               IORING_OFF_CQ_RING);
    u->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
    u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQES);
    if (u->sq_ring == MAP_FAILED || u->cq_ring == MAP_FAILED || u->sqes == MAP_FAILED) {
        int err = errno;
        close(u->fd);
        return -err;
    }
    char *sq = u->sq_ring, *cq = u->cq_ring;
    u->sq_head = (unsigned *)(sq + p.sq_off.head);
    u->sq_tail = (unsigned *)(sq + p.sq_off.tail);
    u->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    u->sq_array = (unsigned *)(sq + p.sq_off.array);
    u->cq_head = (unsigned *)(cq + p.cq_off.head);
    u->cq_tail = (unsigned *)(cq + p.cq_off.tail);
    u->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    return 0;
}

static void uring_close(struct uring *u)
{
    munmap(u->sqes, u->sqes_len);
    if (u->cq_ring != u->sq_ring)
        munmap(u->cq_ring, u->cq_len);
    munmap(u->sq_ring, u->sq_len);
    close(u->fd);
}

static void uring_queue_read(struct uring *u, int fd, void *buf, unsigned len, uint64_t offset, uint64_t tag)
{
    unsigned tail = *u->sq_tail, index = tail & *u->sq_mask;
    struct io_uring_sqe *sqe = &u->sqes[index];
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_READ;
    sqe->fd = fd;
    sqe->addr = (uint64_t)(uintptr_t)buf;
    sqe->len = len;
    sqe->off = offset;
    sqe->user_data = tag;
    u->sq_array[index] = index;
    __atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

static int uring_enter(struct uring *u, unsigned submit, unsigned wait)
{
    long rc = syscall(__NR_io_uring_enter, u->fd, submit, wait, wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
    return rc < 0 ? -errno : (int)rc;
}

/* ---- the read pattern, shared by both engines ---- */
struct pattern {
    int fd;
    uint64_t file_bytes;
    unsigned block;
    bool random;
    uint64_t next;          /* sequential: next offset */
    pthread_mutex_t lock;   /* pread threads share `next` */
};

static uint64_t pattern_offset(struct pattern *p, uint64_t *rng)
{
    if (p->random)
        return (bench_random(rng) % (p->file_bytes / p->block)) * p->block;
    pthread_mutex_lock(&p->lock);
    uint64_t off = p->next;
    p->next = off + p->block >= p->file_bytes ? 0 : off + p->block;
    pthread_mutex_unlock(&p->lock);
    return off;
}

/* Keeps QUEUE_DEPTH reads in flight until the deadline; returns bytes read, -errno on failure. */
static int64_t run_uring(struct uring *u, struct pattern *p, char *buffers, double seconds)
{
    uint64_t rng = 0x2545f4914f6cdd1dull, done = 0;
    for (unsigned i = 0; i < QUEUE_DEPTH; i++)
        uring_queue_read(u, p->fd, buffers + (size_t)i * SEQ_BLOCK, p->block, pattern_offset(p, &rng), i);
    unsigned to_submit = QUEUE_DEPTH, inflight = QUEUE_DEPTH;
    double deadline = bench_now() + seconds;
    int error = 0;
    while (inflight > 0) {
        int rc = uring_enter(u, to_submit, 1);
        if (rc < 0 && rc != -EINTR)
            return rc;
        to_submit = 0;
        bool stop = error || bench_now() >= deadline;
        unsigned head = *u->cq_head;
        while (head != __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE)) {
            struct io_uring_cqe *cqe = &u->cqes[head & *u->cq_mask];
            uint64_t slot = cqe->user_data;
            if (cqe->res < 0)
                error = cqe->res;
            else
                done += (uint64_t)cqe->res;
            head++;
            inflight--;
            if (!stop && !error) {
                uring_queue_read(u, p->fd, buffers + slot * SEQ_BLOCK, p->block, pattern_offset(p, &rng), slot);
                to_submit++;
                inflight++;
            }
        }
        __atomic_store_n(u->cq_head, head, __ATOMIC_RELEASE);
    }
    return error ? error : (int64_t)done;
}

struct pread_worker {
    struct pattern *pattern;
    char *buffer;
    double deadline;
    uint64_t done;
    int error;
    uint64_t rng;
};

static void *pread_loop(void *arg)
{
    struct pread_worker *w = arg;
    while (bench_now() < w->deadline) {
        uint64_t off = pattern_offset(w->pattern, &w->rng);
        ssize_t n = pread(w->pattern->fd, w->buffer, w->pattern->block, (off_t)off);
        if (n < 0) {
            w->error = -errno;
            break;
        }
        w->done += (uint64_t)n;
    }
    return NULL;
}

static int64_t run_pread_threads(struct pattern *p, char *buffers, double seconds)
{
    struct pread_worker workers[QUEUE_DEPTH];
    pthread_t ids[QUEUE_DEPTH];
    double deadline = bench_now() + seconds;
    int started = 0, error = 0;
    for (int i = 0; i < QUEUE_DEPTH && !error; i++) {
        workers[i] = (struct pread_worker){p, buffers + (size_t)i * SEQ_BLOCK, deadline, 0, 0, 0x9e3779b9u * (i + 1)};
        if ((error = bench_thread_create(&ids[i], pread_loop, &workers[i])) == 0)
            started++;
    }
    /* Fewer threads would be a shallower queue than the figure claims: report the error instead. */
    if (error)
        error = -error;
    int64_t done = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(ids[i], NULL);
        done += (int64_t)workers[i].done;
        if (workers[i].error)
            error = workers[i].error;
    }
    return error ? error : done;
}

/* Lays the file out as fio does before a read job: preallocated, then written through the page
 * cache in 1 MiB pieces, flushed, and dropped from the cache. How the file was written decides
 * where its blocks land (on a VM, in the host's image too), and that moves sequential reads by tens
 * of percent, so the file is written the way the anchor writes its own. The bytes are
 * incompressible: thin-provisioned or compressing storage would otherwise serve zeros without
 * reading. The buffer is the writer's own, so the read buffers keep untouched pages until the
 * reads fault them in, as fio's do. Returns 0 or -errno. */
static int lay_out_file(const char *path, uint64_t bytes, const struct bench_ctx *ctx)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -errno;
    uint64_t *words = malloc(SEQ_BLOCK);
    int rc = words ? 0 : -ENOMEM;
    /* Preallocation is a layout hint; filesystems without it still get the writes. */
    if (rc == 0)
        (void)posix_fallocate(fd, 0, (off_t)bytes);
    uint64_t rng = 0xda942042e4dd58b5ull;
    for (uint64_t off = 0; off < bytes && rc == 0; off += SEQ_BLOCK) {
        for (size_t i = 0; i < SEQ_BLOCK / sizeof *words; i++)
            words[i] = bench_random(&rng);
        if (pwrite(fd, words, SEQ_BLOCK, (off_t)off) != (ssize_t)SEQ_BLOCK)
            rc = errno ? -errno : -EIO;
        bench_progress(ctx, 0.3 * (double)(off + SEQ_BLOCK) / (double)bytes);
    }
    free(words);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (rc == 0)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc;
}

/* What one measurement yields; the child process sends it to the parent through a pipe. */
struct read_result {
    int64_t seq_bytes, rand_bytes; /* bytes read, or -errno */
    double seq_seconds, rand_seconds;
    int uring_rc;                  /* 0: io_uring; else -errno from io_uring_setup (pread threads ran) */
};

/* Both read patterns on fd, in this process. */
static void read_both_patterns(const struct bench_ctx *ctx, int fd, uint64_t file_bytes, struct read_result *r)
{
    memset(r, 0, sizeof *r);
    char *buffers = aligned_alloc(DIRECT_ALIGN, (size_t)QUEUE_DEPTH * SEQ_BLOCK);
    if (!buffers) {
        r->seq_bytes = -ENOMEM;
        return;
    }
    double seconds = ctx->opts->quick ? 2.0 : 6.0;
    struct uring ring;
    r->uring_rc = uring_open(&ring, QUEUE_DEPTH);
    struct pattern seq = {fd, file_bytes, SEQ_BLOCK, false, 0, PTHREAD_MUTEX_INITIALIZER};
    struct pattern rnd = {fd, file_bytes, RAND_BLOCK, true, 0, PTHREAD_MUTEX_INITIALIZER};
    double t0 = bench_now();
    r->seq_bytes = r->uring_rc == 0 ? run_uring(&ring, &seq, buffers, seconds) : run_pread_threads(&seq, buffers, seconds);
    r->seq_seconds = bench_now() - t0;
    bench_progress(ctx, 0.65);
    t0 = bench_now();
    r->rand_bytes = r->seq_bytes < 0 ? 0
                    : r->uring_rc == 0 ? run_uring(&ring, &rnd, buffers, seconds)
                                       : run_pread_threads(&rnd, buffers, seconds);
    r->rand_seconds = bench_now() - t0;
    if (r->uring_rc == 0)
        uring_close(&ring);
    free(buffers);
}

/* Runs read_both_patterns in a child process that calls setsid() first, as fio does for each job.
 * Where the kernel groups tasks by session for CPU time (CONFIG_SCHED_AUTOGROUP, on by default in
 * the common distributions, for tasks outside a cpu cgroup), a process in the caller's session
 * shares one group's CPU time with everything else started from that shell, and waits behind it
 * after each completion while the queue drains; in its own session it competes as a group of its
 * own, as fio's job does. On a 2-core VM under `stress-ng --cpu 2` from the same shell that took
 * the ratio to fio from 0.80 to 1.01 (docs/bench-method.md). Returns 0, or -errno when no child
 * could be started (then nothing was measured), 1 when the child ended without a result
 * (*child_status: its wait status). */
static int read_in_own_session(const struct bench_ctx *ctx, int fd, uint64_t file_bytes, struct read_result *r,
                               int *child_status)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return -errno;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return -err;
    }
    if (pid == 0) {
        close(pipe_fds[0]);
        /* A new session leaves the terminal's process group, so Ctrl-C reaches only the parent:
         * the child dies with it, whatever kills it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        for (size_t i = 0; i < NCLEANUP_SIGNALS; i++)
            signal(cleanup_signals[i], SIG_DFL);
        (void)setsid();
        struct read_result mine;
        read_both_patterns(ctx, fd, file_bytes, &mine);
        ssize_t n = write(pipe_fds[1], &mine, sizeof mine);
        _exit(n == (ssize_t)sizeof mine ? 0 : 1);
    }
    reading_child = pid;
    close(pipe_fds[1]);
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(pipe_fds[0], (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    reading_child = 0;
    *child_status = got == sizeof *r ? 0 : status;
    return got == sizeof *r ? 0 : 1;
}

/* Reads the file at fd (already laid out) and returns the result object. */
static json_t *storage_measure(const struct bench_ctx *ctx, int fd, uint64_t file_bytes)
{
    struct read_result r;
    int child_status = 0;
    int fork_rc = read_in_own_session(ctx, fd, file_bytes, &r, &child_status);
    if (fork_rc == 1)
        return WIFSIGNALED(child_status)
                   ? bench_set_text(json_object(), "error", "the reading process was killed by signal %d",
                                    WTERMSIG(child_status))
                   : bench_set_text(json_object(), "error", "the reading process exited with status %d and no result",
                                    WEXITSTATUS(child_status));
    /* Without a child (process limit reached), measure here; the result says so. */
    if (fork_rc < 0)
        read_both_patterns(ctx, fd, file_bytes, &r);
    if (r.seq_bytes < 0 || r.rand_bytes < 0)
        return json_pack("{s:s}", "error", i18n_error_text((int)-(r.seq_bytes < 0 ? r.seq_bytes : r.rand_bytes)));
    json_t *out = json_pack("{s:f, s:f, s:s, s:i, s:i, s:i, s:I, s:b, s:b}", "seq_read_bytes_s",
                            (double)r.seq_bytes / r.seq_seconds, "rand_read_iops",
                            (double)r.rand_bytes / RAND_BLOCK / r.rand_seconds, "engine",
                            r.uring_rc == 0 ? "io_uring" : "pread-threads", "queue_depth", QUEUE_DEPTH,
                            "seq_block_bytes", SEQ_BLOCK, "rand_block_bytes", RAND_BLOCK, "file_bytes",
                            (json_int_t)file_bytes, "o_direct", true, "own_session", fork_rc == 0);
    if (r.uring_rc != 0)
        json_object_set_new(out, "engine_reason", json_sprintf("io_uring_setup failed: %s", i18n_error_text(-r.uring_rc)));
    if (fork_rc < 0)
        json_object_set_new(out, "own_session_reason", json_sprintf("fork failed: %s", i18n_error_text(-fork_rc)));
    /* Linux 6.6 accepts O_DIRECT on tmpfs, where the "disk" is RAM. */
    struct statfs fs;
    if (fstatfs(fd, &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
        bench_set_text(out, "note", "the file is on tmpfs/ramfs: this measured memory, not a disk");
    return out;
}

/* The user's own file (--file) or the test file in --dir: the remedy differs. */
static json_t *skipped_no_direct(const char *path, bool own_file)
{
    if (own_file)
        return bench_skipped("%s: cannot open with O_DIRECT (%s); tmpfs and some network filesystems do not support "
                             "it: copy it to the disk under test",
                             path, i18n_error_text(errno));
    return bench_skipped("%s: cannot open with O_DIRECT (%s); tmpfs and some network filesystems do not support it: "
                         "choose another --dir",
                         path, i18n_error_text(errno));
}

/* --file: the user's own file (a dataset shard, say), read and never written or removed. */
static json_t *storage_run_on_file(const struct bench_ctx *ctx, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return bench_skipped("%s: %s", path, i18n_error_text(errno));
    if (!S_ISREG(st.st_mode))
        return bench_skipped("%s: not a regular file", path);
    /* Smaller files would be served from the drive's own cache after the first pass. */
    if ((uint64_t)st.st_size < MIN_FILE)
        return bench_skipped("%s: %lld MiB; the reads need a file of at least %llu MiB", path,
                             (long long)(st.st_size >> 20), (unsigned long long)(MIN_FILE >> 20));
    int fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0)
        return errno == EINVAL ? skipped_no_direct(path, true) : bench_skipped("%s: %s", path, i18n_error_text(errno));
    json_t *out = storage_measure(ctx, fd, (uint64_t)st.st_size / SEQ_BLOCK * SEQ_BLOCK);
    close(fd);
    if (!json_object_get(out, "skipped") && !json_object_get(out, "error"))
        json_object_set_new(out, "file", json_string(path));
    return out;
}

static json_t *storage_run(const struct bench_ctx *ctx)
{
    if (ctx->opts->file)
        return storage_run_on_file(ctx, ctx->opts->file);
    const char *dir = ctx->opts->dir ? ctx->opts->dir : ".";
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return bench_skipped("%s: %s", dir, i18n_error_text(errno));
    uint64_t free_bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
    uint64_t file_bytes = ctx->opts->quick ? 256ull << 20 : 1024ull << 20;
    if (file_bytes > free_bytes * MAX_SHARE_OF_FREE)
        file_bytes = (uint64_t)(free_bytes * MAX_SHARE_OF_FREE) / SEQ_BLOCK * SEQ_BLOCK;
    if (file_bytes < MIN_FILE)
        return bench_skipped("%s: only %llu MiB free; the test file needs %llu MiB at most %d%% of it", dir,
                             (unsigned long long)(free_bytes >> 20), (unsigned long long)(MIN_FILE >> 20),
                             (int)(MAX_SHARE_OF_FREE * 100));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.gpuvet-bench-XXXXXX", dir);
    /* Block the signals while the file exists unguarded, so no window leaves it behind. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NCLEANUP_SIGNALS; i++)
        sigaddset(&block, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(path);
    if (fd >= 0)
        guard_file(path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0)
        return bench_skipped("%s: cannot create a file here (%s)", dir, i18n_error_text(errno));
    close(fd);
    json_t *out;
    int rc = lay_out_file(path, file_bytes, ctx);
    if (rc < 0)
        out = json_pack("{s:s}", "error", i18n_error_text(-rc));
    else if ((fd = open(path, O_RDONLY | O_DIRECT)) < 0)
        out = skipped_no_direct(path, false);
    else {
        out = storage_measure(ctx, fd, file_bytes);
        close(fd);
    }
    unguard_and_remove();
    if (!json_object_get(out, "skipped") && !json_object_get(out, "error"))
        json_object_set_new(out, "dir", json_string(dir));
    return out;
}

const struct bench_info bench_storage_info = {
    "storage", storage_run,
    "O_DIRECT 1 MiB sequential read and 4 KiB random-read IOPS at queue depth 16 on a file in --dir, or on --file",
    NULL};
