/* STREAM (McCalpin) copy/scale/add/triad: one thread per physical core, pinned with hwloc, each
 * touching its own slice first so its pages are local; best of N repetitions, as STREAM reports.
 * Run for the whole machine and for each NUMA node that holds CPUs (memory bound to that node). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench/bench.h"
#include "util/i18n.h"
#include "util/parse.h"

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_COUNT };
static const char *const kernel_names[K_COUNT] = {"copy", "scale", "add", "triad"};
/* Bytes STREAM counts per element: copy/scale read one array and write one, add/triad read two. */
static const double kernel_bytes[K_COUNT] = {16, 16, 24, 24};
#define STREAM_SCALAR 3.0
/* Arrays must be at least this many times the last-level cache so caches cannot serve them. */
#define LLC_FACTOR 4
/* Elements per slice boundary: keeps every slice 64-byte aligned for the vector stores. */
#define SLICE_ALIGN 64

typedef void (*stream_fn)(double *restrict dst, const double *restrict x, const double *restrict y, size_t n);

struct stream_impl {
    const char *name;
    int vector_bits;     /* 0 = left to the compiler */
    bool nontemporal;
    stream_fn fn[K_COUNT];
};

/* Portable kernels: plain loops, the compiler picks the vector width. */
static void copy_c(double *restrict d, const double *restrict x, const double *restrict y, size_t n)
{
    (void)y;
    for (size_t i = 0; i < n; i++)
        d[i] = x[i];
}
static void scale_c(double *restrict d, const double *restrict x, const double *restrict y, size_t n)
{
    (void)y;
    for (size_t i = 0; i < n; i++)
        d[i] = STREAM_SCALAR * x[i];
}
static void add_c(double *restrict d, const double *restrict x, const double *restrict y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] + y[i];
}
static void triad_c(double *restrict d, const double *restrict x, const double *restrict y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] + STREAM_SCALAR * y[i];
}

#if defined(__x86_64__)
/* Non-temporal stores skip the read-for-ownership of the destination line, so the memory moves
 * exactly the bytes STREAM counts. Slices are 64-byte aligned; the tail is done in C. */
#define STREAM_KERNELS(sfx, TGT, VT, W, LOAD, STREAM, SET1, ADD, MUL)                            \
    __attribute__((target(TGT))) static void copy_##sfx(double *restrict d, const double *restrict x, \
                                                           const double *restrict y, size_t n)         \
    {                                                                                                  \
        size_t i = 0;                                                                                  \
        for (; i + W <= n; i += W)                                                                     \
            STREAM(d + i, LOAD(x + i));                                                                \
        _mm_sfence();                                                                                  \
        copy_c(d + i, x + i, y, n - i);                                                                \
    }                                                                                                  \
    __attribute__((target(TGT))) static void scale_##sfx(double *restrict d, const double *restrict x, \
                                                            const double *restrict y, size_t n)        \
    {                                                                                                  \
        size_t i = 0;                                                                                  \
        VT s = SET1(STREAM_SCALAR);                                                                    \
        for (; i + W <= n; i += W)                                                                     \
            STREAM(d + i, MUL(s, LOAD(x + i)));                                                        \
        _mm_sfence();                                                                                  \
        scale_c(d + i, x + i, y, n - i);                                                               \
    }                                                                                                  \
    __attribute__((target(TGT))) static void add_##sfx(double *restrict d, const double *restrict x, \
                                                          const double *restrict y, size_t n)          \
    {                                                                                                  \
        size_t i = 0;                                                                                  \
        for (; i + W <= n; i += W)                                                                     \
            STREAM(d + i, ADD(LOAD(x + i), LOAD(y + i)));                                              \
        _mm_sfence();                                                                                  \
        add_c(d + i, x + i, y + i, n - i);                                                             \
    }                                                                                                  \
    __attribute__((target(TGT))) static void triad_##sfx(double *restrict d, const double *restrict x, \
                                                            const double *restrict y, size_t n)        \
    {                                                                                                  \
        size_t i = 0;                                                                                  \
        VT s = SET1(STREAM_SCALAR);                                                                    \
        for (; i + W <= n; i += W)                                                                     \
            STREAM(d + i, ADD(LOAD(x + i), MUL(s, LOAD(y + i))));                                      \
        _mm_sfence();                                                                                  \
        triad_c(d + i, x + i, y + i, n - i);                                                           \
    }

STREAM_KERNELS(avx512, "avx512f", __m512d, 8, _mm512_load_pd, _mm512_stream_pd, _mm512_set1_pd, _mm512_add_pd,
               _mm512_mul_pd)
STREAM_KERNELS(avx, "avx", __m256d, 4, _mm256_load_pd, _mm256_stream_pd, _mm256_set1_pd, _mm256_add_pd,
               _mm256_mul_pd)
STREAM_KERNELS(sse2, "sse2", __m128d, 2, _mm_load_pd, _mm_stream_pd, _mm_set1_pd, _mm_add_pd, _mm_mul_pd)
#endif

static struct stream_impl choose_impl(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return (struct stream_impl){"avx512-nt", 512, true, {copy_avx512, scale_avx512, add_avx512, triad_avx512}};
    if (__builtin_cpu_supports("avx"))
        return (struct stream_impl){"avx-nt", 256, true, {copy_avx, scale_avx, add_avx, triad_avx}};
    return (struct stream_impl){"sse2-nt", 128, true, {copy_sse2, scale_sse2, add_sse2, triad_sse2}};
#else
    return (struct stream_impl){"portable-c", 0, false, {copy_c, scale_c, add_c, triad_c}};
#endif
}

struct stream_run {
    const struct machine *machine;
    const struct stream_impl *impl;
    double *a, *b, *c;
    size_t n;
    int nthreads, reps;
    unsigned *pus;
    pthread_barrier_t barrier;
    /* Workers wait here until all of them exist: one that cannot be created would leave the
     * others blocked on the barrier for ever, so then they are told to leave instead. */
    pthread_mutex_t gate;
    pthread_cond_t gate_open;
    enum { GATE_WAIT, GATE_GO, GATE_ABORT } gate_state;
    double best[K_COUNT];     /* seconds */
    double total[K_COUNT];    /* seconds over the timed passes */
    int timed;                /* passes timed per kernel */
    bool pinned_all;
    const struct bench_ctx *ctx;
    double progress_base, progress_span;
};

struct stream_thread {
    struct stream_run *run;
    int index;
};

static void slice_of(const struct stream_run *r, int index, size_t *start, size_t *len)
{
    size_t per = (r->n / (size_t)r->nthreads) / SLICE_ALIGN * SLICE_ALIGN;
    *start = per * (size_t)index;
    *len = index == r->nthreads - 1 ? r->n - *start : per;
}

static void *stream_worker(void *arg)
{
    struct stream_thread *t = arg;
    struct stream_run *r = t->run;
    pthread_mutex_lock(&r->gate);
    while (r->gate_state == GATE_WAIT)
        pthread_cond_wait(&r->gate_open, &r->gate);
    bool go = r->gate_state == GATE_GO;
    pthread_mutex_unlock(&r->gate);
    if (!go)
        return NULL;
    if (!bench_pin_thread(r->machine, r->pus[t->index]))
        r->pinned_all = false;
    size_t start, len;
    slice_of(r, t->index, &start, &len);
    /* First touch from the pinned thread places the pages on its node. STREAM's initial values. */
    for (size_t i = start; i < start + len; i++) {
        r->a[i] = 2.0; /* STREAM sets a = 1 then doubles it before timing */
        r->b[i] = 2.0;
        r->c[i] = 0.0;
    }
    double *dst[K_COUNT] = {r->c, r->b, r->c, r->a};
    const double *x[K_COUNT] = {r->a, r->c, r->a, r->b};
    const double *y[K_COUNT] = {NULL, NULL, r->b, r->c};
    for (int rep = 0; rep < r->reps; rep++) {
        for (int k = 0; k < K_COUNT; k++) {
            pthread_barrier_wait(&r->barrier);
            double t0 = bench_now();
            r->impl->fn[k](dst[k] + start, x[k] + start, y[k] ? y[k] + start : NULL, len);
            pthread_barrier_wait(&r->barrier);
            if (t->index == 0) {
                double elapsed = bench_now() - t0;
                if (rep > 0 || r->reps == 1) { /* STREAM drops the first pass: page-table warm-up */
                    if (r->best[k] == 0 || elapsed < r->best[k])
                        r->best[k] = elapsed;
                    r->total[k] += elapsed;
                    r->timed += k == K_TRIAD;
                }
            }
        }
        if (t->index == 0)
            bench_progress(r->ctx, r->progress_base + r->progress_span * (rep + 1) / r->reps);
    }
    return NULL;
}

/* STREAM's check: replays the kernels on scalars and compares sampled elements. */
static bool stream_results_valid(const struct stream_run *r)
{
    double aj = 2.0, bj = 2.0, cj = 0.0;
    for (int rep = 0; rep < r->reps; rep++) {
        cj = aj;
        bj = STREAM_SCALAR * cj;
        cj = aj + bj;
        aj = bj + STREAM_SCALAR * cj;
    }
    size_t step = r->n / 4096 + 1;
    for (size_t i = 0; i < r->n; i += step) {
        double ea = (r->a[i] - aj) / aj, eb = (r->b[i] - bj) / bj, ec = (r->c[i] - cj) / cj;
        if (ea * ea > 1e-26 || eb * eb > 1e-26 || ec * ec > 1e-26)
            return false;
    }
    return true;
}

/* Runs STREAM with one thread on each PU of `pus`, arrays bound to `nodeset` (NULL: first touch).
 * Returns the result object with <kernel>_bytes_s, or an "error" member. */
static json_t *stream_measure(const struct bench_ctx *ctx, const struct stream_impl *impl, hwloc_const_bitmap_t pus,
                              hwloc_const_bitmap_t nodeset, size_t n, int reps, double progress_base,
                              double progress_span)
{
    const struct machine *m = ctx->machine;
    struct stream_run r = {.machine = m, .impl = impl, .n = n, .reps = reps, .pinned_all = true, .ctx = ctx,
                           .progress_base = progress_base, .progress_span = progress_span};
    r.nthreads = hwloc_bitmap_weight(pus);
    if (r.nthreads <= 0)
        return bench_set_text(json_object(), "error", "no usable CPU to run on");
    size_t bytes = n * sizeof(double);
    double **arrays[3] = {&r.a, &r.b, &r.c};
    for (int i = 0; i < 3; i++) {
        *arrays[i] = bench_alloc(m, bytes, nodeset);
        if (!*arrays[i]) {
            for (int k = 0; k < i; k++)
                bench_free(*arrays[k], bytes);
            return bench_set_text(json_object(), "error", "could not allocate the arrays");
        }
    }
    r.pus = calloc((size_t)r.nthreads, sizeof *r.pus);
    struct stream_thread *threads = calloc((size_t)r.nthreads, sizeof *threads);
    pthread_t *ids = calloc((size_t)r.nthreads, sizeof *ids);
    int k = 0, pu;
    hwloc_bitmap_foreach_begin(pu, pus) r.pus[k++] = (unsigned)pu;
    hwloc_bitmap_foreach_end();
    pthread_barrier_init(&r.barrier, NULL, (unsigned)r.nthreads);
    pthread_mutex_init(&r.gate, NULL);
    pthread_cond_init(&r.gate_open, NULL);
    r.gate_state = GATE_WAIT;
    int started = 0, create_error = 0;
    for (int i = 0; i < r.nthreads; i++) {
        threads[i] = (struct stream_thread){&r, i};
        create_error = bench_thread_create(&ids[i], stream_worker, &threads[i]);
        if (create_error)
            break;
        started++;
    }
    pthread_mutex_lock(&r.gate);
    r.gate_state = started == r.nthreads ? GATE_GO : GATE_ABORT;
    pthread_cond_broadcast(&r.gate_open);
    pthread_mutex_unlock(&r.gate);
    for (int i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    json_t *out;
    if (started != r.nthreads) {
        out = bench_thread_error(r.nthreads, create_error);
    } else if (!stream_results_valid(&r)) {
        out = bench_set_text(json_object(), "error", "STREAM validation failed: the arrays hold wrong values");
    } else {
        out = json_pack("{s:i, s:b}", "threads", r.nthreads, "threads_pinned", r.pinned_all);
        for (k = 0; k < K_COUNT; k++) {
            char key[32];
            snprintf(key, sizeof key, "%s_bytes_s", kernel_names[k]);
            json_object_set_new(out, key, json_real(kernel_bytes[k] * (double)n / r.best[k]));
            /* The mean rate over the same timed passes: what likwid-bench reports for its iterations. */
            snprintf(key, sizeof key, "%s_mean_bytes_s", kernel_names[k]);
            json_object_set_new(out, key, json_real(kernel_bytes[k] * (double)n * r.timed / r.total[k]));
        }
    }
    pthread_barrier_destroy(&r.barrier);
    pthread_mutex_destroy(&r.gate);
    pthread_cond_destroy(&r.gate_open);
    for (int i = 0; i < 3; i++)
        bench_free(*arrays[i], bytes);
    free(r.pus);
    free(threads);
    free(ids);
    return out;
}

void bench_memory_set_theoretical(json_t *result, double theoretical_bytes_s, const char *unknown_reason)
{
    double triad = json_real_value(json_object_get(result, "triad_bytes_s"));
    if (theoretical_bytes_s > 0 && triad > 0) {
        json_object_set_new(result, "theoretical_bytes_s", json_real(theoretical_bytes_s));
        json_object_set_new(result, "fraction_of_theoretical", json_real(triad / theoretical_bytes_s));
        return;
    }
    json_object_set_new(result, "theoretical_bytes_s", json_null());
    json_object_set_new(result, "fraction_of_theoretical", json_null());
    json_object_set_new(result, "theoretical_unknown", json_string(unknown_reason));
    if (i18n_translating()) /* the reasons are marked where they are made (model/bench.c) */
        json_object_set_new(result, "theoretical_unknown_local", json_string(_(unknown_reason)));
}

static json_t *memory_run(const struct bench_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    if (!m->topology)
        return bench_skipped("the hwloc topology could not be loaded, so threads cannot be pinned");
    char budget_why[160];
    uint64_t budget = bench_memory_budget(budget_why, sizeof budget_why);
    uint64_t llc_total, llc = bench_llc_bytes(m, &llc_total);
    (void)llc;
    uint64_t want = LLC_FACTOR * llc_total;
    if (want < (64u << 20))
        want = 64u << 20; /* caches unknown: still far above any L2 */
    uint64_t array_bytes = want;
    bool capped = budget && 3 * array_bytes > budget;
    if (capped)
        array_bytes = budget / 3;
    if (array_bytes < (16u << 20)) {
        /* The budget's reason is a sentence of its own (English, its translation kept): _() of it is
         * evaluated again in the reader's language. */
        char *why = NULL;
        i18n_asprintf(&why, "only %" PRIu64 " MiB may be used (%s): too little for STREAM arrays", budget >> 20,
                      _(budget_why));
        json_t *skipped = json_pack("{s:s}", "skipped", why ? why : "");
        free(why);
        return skipped;
    }
    size_t n = (size_t)(array_bytes / sizeof(double)) / SLICE_ALIGN * SLICE_ALIGN;
    int reps = ctx->opts->quick ? 3 : 10;
    struct stream_impl impl = choose_impl();

    int cpu_nodes = 0;
    for (int i = 0; i < m->nnodes; i++)
        if (!hwloc_bitmap_iszero(m->nodes[i].cpus))
            cpu_nodes++;
    int phases = 1 + (cpu_nodes > 1 ? cpu_nodes : 0);
    hwloc_bitmap_t all = bench_core_pus(m, NULL);
    json_t *result = stream_measure(ctx, &impl, all, NULL, n, reps, 0, 1.0 / phases);
    hwloc_bitmap_free(all);
    if (json_object_get(result, "error"))
        return result;
    json_object_set_new(result, "kernel", json_string(impl.name));
    json_object_set_new(result, "vector_bits", impl.vector_bits ? json_integer(impl.vector_bits) : json_null());
    json_object_set_new(result, "nontemporal_stores", json_boolean(impl.nontemporal));
    json_object_set_new(result, "array_bytes", json_integer((json_int_t)(n * sizeof(double))));
    json_object_set_new(result, "allocated_bytes", json_integer((json_int_t)(3 * n * sizeof(double))));
    json_object_set_new(result, "llc_bytes", llc_total ? json_integer((json_int_t)llc_total) : json_null());
    json_object_set_new(result, "memory_budget_bytes", json_integer((json_int_t)budget));
    json_object_set_new(result, "memory_budget", json_string(budget_why));
    json_object_set_new(result, "repetitions", json_integer(reps));
    json_object_set_new(result, "huge_pages_requested", json_true());
    if (capped)
        bench_set_text(result, "note",
                       "arrays are %zu MiB, below %dx the last-level cache (%" PRIu64 " MiB in all) because of the "
                       "memory budget: caches may serve part of the traffic",
                       n * sizeof(double) >> 20, LLC_FACTOR, llc_total >> 20);

    json_t *per_node = json_array();
    int phase = 1;
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *node = &m->nodes[i];
        if (hwloc_bitmap_iszero(node->cpus))
            continue;
        json_t *entry;
        if (cpu_nodes == 1) {
            /* One node is the whole machine: the same measurement, not a second one. */
            entry = json_deep_copy(result);
            json_t *keep = json_pack("{s:O, s:O, s:O, s:O, s:O}", "threads", json_object_get(entry, "threads"),
                                     "copy_bytes_s", json_object_get(entry, "copy_bytes_s"), "scale_bytes_s",
                                     json_object_get(entry, "scale_bytes_s"), "add_bytes_s",
                                     json_object_get(entry, "add_bytes_s"), "triad_bytes_s",
                                     json_object_get(entry, "triad_bytes_s"));
            json_decref(entry);
            entry = keep;
        } else {
            hwloc_bitmap_t pus = bench_core_pus(m, node->cpus);
            hwloc_bitmap_t nodeset = hwloc_bitmap_alloc();
            hwloc_bitmap_only(nodeset, (unsigned)node->id);
            /* A node holds a share of the memory: keep its arrays inside a share of the budget. */
            size_t node_n = n;
            if (node->memory_known && 3 * node_n * sizeof(double) > node->memory_bytes / 2)
                node_n = (size_t)(node->memory_bytes / 2 / 3 / sizeof(double)) / SLICE_ALIGN * SLICE_ALIGN;
            entry = stream_measure(ctx, &impl, pus, nodeset, node_n, reps, (double)phase / phases, 1.0 / phases);
            phase++;
            hwloc_bitmap_free(pus);
            hwloc_bitmap_free(nodeset);
        }
        char *cpus = format_cpulist(node->cpus);
        json_object_set_new(entry, "node", json_integer(node->id));
        json_object_set_new(entry, "cpus", json_string(cpus ? cpus : ""));
        free(cpus);
        json_array_append_new(per_node, entry);
    }
    json_object_set_new(result, "per_node", per_node);
    const char *why = NULL;
    double theoretical = machine_memory_theoretical_bytes_s(m, &why);
    bench_memory_set_theoretical(result, theoretical, why);
    return result;
}

const struct bench_info bench_memory_info = {
    "memory", memory_run,
    "STREAM copy/scale/add/triad, threads pinned per core, whole machine and per NUMA node", NULL};
