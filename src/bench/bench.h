/* Benchmarks, in the style of stress-ng's stressor table: one file per benchmark in bench/,
 * each exporting `const struct bench_info bench_<name>_info`, listed once in bench/registry.c.
 * A benchmark returns its JSON object (the value of `benchmarks.<name>` in gpuvet.bench/1,
 * docs/bench-json.md) or {"skipped": "reason"} when it cannot measure on this machine. */
#ifndef GPUVET_BENCH_BENCH_H
#define GPUVET_BENCH_BENCH_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/machine.h"

#define BENCH_SCHEMA "gpuvet.bench/1"
/* jitter's duration when --seconds is not given; bench --help states both (tests/cli/test_bench.c
 * holds the help text to these numbers). */
#define JITTER_SECONDS_DEFAULT 20.0
#define JITTER_SECONDS_QUICK 3.0

struct bench_opts {
    bool quick;          /* --quick: fewer repetitions and shorter runs, same methods */
    const char *dir;     /* --dir: where storage puts its file (default ".") */
    const char *file;    /* --file: an existing file storage reads instead; NULL = write one in dir */
    double seconds;      /* --seconds: jitter duration; 0 = the benchmark's default */
    const char *images;  /* --images: the user's JPEG sample; NULL = the cached default set */
    bool burn;           /* --burn: gpu runs the all-GPU GEMM burn-in instead of its measurements */
    double burn_seconds; /* --duration: the burn's length; 0 = its default */
    int cpu;             /* --cpu: the CPU jitter runs on; -1 = the benchmark chooses */
    /* Reads the kernel log's GPU events now (the pipeline's reader: bench may not read the log
     * itself); --burn compares a read before and after it for new Xids. NULL: not watched. */
    void (*read_kernel_log)(struct kernel_log_info *k);
    double a100_resnet50_img_s; /* decode: the A100's ResNet-50 rate it compares with (thresholds table) */
};

/* What a running benchmark sees: the probed live machine, the options, and where to report
 * progress (a fraction 0..1 of its own work; the command draws the bar). */
struct bench_ctx {
    const struct machine *machine;
    const struct bench_opts *opts;
    void (*progress)(const struct bench_ctx *ctx, double fraction);
    void *progress_state;
};

struct bench_info {
    const char *name;
    /* Measures and returns the result object, never NULL. */
    json_t *(*run)(const struct bench_ctx *ctx);
    const char *help;
    /* Why this benchmark cannot run in this binary or on this machine, or NULL when it can.
     * NULL pointer = always available. */
    const char *(*unavailable_reason)(const struct machine *m);
};

/* The table, in the order `all` runs it. */
extern const struct bench_info *const bench_table[];
extern const int bench_count;
const struct bench_info *bench_find(const char *name);

/* Runs the named benchmarks (all when names is NULL) and returns the gpuvet.bench/1 document.
 * progress_bar draws one on stderr. */
json_t *bench_run_document(const struct machine *m, const struct bench_opts *opts, const char *const *names,
                           int nnames, bool progress_bar);

/* Texts people read (a skip reason, an error, a note): obj[key] gets the English text of fmt, the
 * document's, and obj[key "_local"] the same in the user's language when gpuvet speaks another
 * (the text report shows it; `gpuvet bench --json` runs in an English scope and has none). fmt is
 * the English msgid: scripts/update-po.sh extracts these functions' formats. Returns obj. */
json_t *bench_set_text(json_t *obj, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* {"skipped": reason} */
json_t *bench_skipped(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* {"skipped": why}, why a fixed text marked with N_() (an unavailable_reason). */
json_t *bench_skipped_msgid(const char *why);


static inline void bench_progress(const struct bench_ctx *ctx, double fraction)
{
    if (ctx->progress)
        ctx->progress(ctx, fraction);
}

/* pthread_create for benchmark threads: 0 or the error number. GPUVET_TEST_THREAD_LIMIT=N (tests
 * only) makes a creation fail with EAGAIN while N benchmark threads are alive, as a low
 * RLIMIT_NPROC does for users other than root, so tests running as root reach the failure path. */
int bench_thread_create(pthread_t *id, void *(*fn)(void *), void *arg);
/* {"error": "could not start N threads: <strerror(err)>"}: a benchmark that got fewer threads
 * than it needs reports itself failed rather than measuring something smaller. */
json_t *bench_thread_error(int wanted, int err);

/* Seconds of CLOCK_MONOTONIC. */
double bench_now(void);

/* The median of values[0..n) (n > 0), which it sorts. */
double bench_median(double *values, int n);

/* xorshift64*: reproducible and fast enough for shuffles of hundreds of millions of indices, random
 * offsets per I/O and incompressible file bytes. The state must not start at 0. */
static inline uint64_t bench_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

/* How many bytes a benchmark may allocate: a fraction of MemAvailable and of the headroom left
 * under this process' cgroup memory limit, whichever is smaller. Fills why with the source
 * (e.g. "50% of MemAvailable"). 0 when neither could be read. */
uint64_t bench_memory_budget(char *why, size_t whylen);

/* Bytes of the largest last-level cache any usable CPU sees (hwloc), 0 when unknown; *total_llc
 * gets the sum of all distinct last-level caches over the usable CPUs. */
uint64_t bench_llc_bytes(const struct machine *m, uint64_t *total_llc);

/* One usable PU per physical core inside `cpus` (all usable CPUs when NULL), as a new bitmap. */
hwloc_bitmap_t bench_core_pus(const struct machine *m, hwloc_const_bitmap_t cpus);

/* Anonymous memory for large benchmark buffers, 2 MiB aligned, with transparent huge pages
 * requested (page faults on 4 KiB pages would dominate setup time, and TLB misses the latency),
 * bound to nodeset when it is not NULL. Pages are placed at first touch. NULL on failure. */
void *bench_alloc(const struct machine *m, size_t bytes, hwloc_const_bitmap_t nodeset);
void bench_free(void *p, size_t bytes);

/* Pins the calling thread to one PU; false when hwloc refuses. */
bool bench_pin_thread(const struct machine *m, unsigned pu);

/* memory: adds theoretical_bytes_s and fraction_of_theoretical (triad / theoretical) to a memory
 * result, or nulls and theoretical_unknown = unknown_reason when theoretical_bytes_s <= 0. */
void bench_memory_set_theoretical(json_t *result, double theoretical_bytes_s, const char *unknown_reason);

#endif
