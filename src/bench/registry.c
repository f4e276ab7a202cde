/* The benchmark table and the driver that runs a selection of it into one document. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "util/i18n.h"

extern const struct bench_info bench_memory_info, bench_latency_info, bench_pcie_info, bench_storage_info,
    bench_jitter_info, bench_decode_info;
extern const struct bench_info bench_gpu_info;

const struct bench_info *const bench_table[] = {
    &bench_memory_info, &bench_latency_info, &bench_pcie_info, &bench_storage_info, &bench_jitter_info,
    &bench_decode_info,
    &bench_gpu_info,
};
const int bench_count = (int)(sizeof bench_table / sizeof bench_table[0]);

const struct bench_info *bench_find(const char *name)
{
    for (int i = 0; i < bench_count; i++)
        if (!strcmp(bench_table[i]->name, name))
            return bench_table[i];
    return NULL;
}

#define LOCAL_SUFFIX "_local" /* report/bench_text.c reads these */

static json_t *set_text(json_t *obj, const char *key, const char *fmt, va_list ap)
{
    char buf[512], local_key[64];
    va_list again;
    va_copy(again, ap);
    vsnprintf(buf, sizeof buf, fmt, ap);
    json_object_set_new(obj, key, json_string(buf));
    if (i18n_translating()) {
        vsnprintf(buf, sizeof buf, i18n_text(fmt), again);
        snprintf(local_key, sizeof local_key, "%s" LOCAL_SUFFIX, key);
        json_object_set_new(obj, local_key, json_string(buf));
    }
    va_end(again);
    return obj;
}

json_t *bench_set_text(json_t *obj, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_text(obj, key, fmt, ap);
    va_end(ap);
    return obj;
}

json_t *bench_skipped(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *obj = set_text(json_object(), "skipped", fmt, ap);
    va_end(ap);
    return obj;
}

json_t *bench_skipped_msgid(const char *why)
{
    json_t *obj = json_pack("{s:s}", "skipped", why);
    if (i18n_translating())
        json_object_set_new(obj, "skipped" LOCAL_SUFFIX, json_string(i18n_text(why)));
    return obj;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof values[0], compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct bar_state {
    int index, count;      /* benchmark being run, of how many */
    const char *name;
    double last_draw;
};

static void draw_bar(const struct bench_ctx *ctx, double fraction)
{
    struct bar_state *bar = ctx->progress_state;
    double now = bench_now();
    if (now - bar->last_draw < 0.1 && fraction < 1.0)
        return;
    bar->last_draw = now;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    double overall = (bar->index + fraction) / bar->count;
    enum { WIDTH = 30 };
    char cells[WIDTH + 1];
    int filled = (int)(overall * WIDTH + 0.5);
    for (int i = 0; i < WIDTH; i++)
        cells[i] = i < filled ? '#' : '.';
    cells[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %-8s", cells, (int)(overall * 100 + 0.5), bar->name);
    fflush(stderr);
}

json_t *bench_run_document(const struct machine *m, const struct bench_opts *opts, const char *const *names,
                           int nnames, bool progress_bar)
{
    const struct bench_info *selected[16];
    int nselected = 0;
    if (!names)
        for (int i = 0; i < bench_count && nselected < 16; i++)
            selected[nselected++] = bench_table[i];
    for (int i = 0; names && i < nnames && nselected < 16; i++) {
        const struct bench_info *b = bench_find(names[i]);
        if (b)
            selected[nselected++] = b;
    }

    char started[32];
    time_t t = time(NULL);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    json_t *benchmarks = json_object();
    json_t *doc = json_pack("{s:s, s:s, s:s?, s:s, s:b, s:o}", "schema", BENCH_SCHEMA, "gpuvet_version", GPUVET_VERSION,
                            "hostname", m->hostname, "started", started, "quick", opts->quick, "benchmarks",
                            benchmarks);
    struct bar_state bar = {0, nselected, NULL, 0};
    for (int i = 0; i < nselected; i++) {
        const struct bench_info *b = selected[i];
        bar.index = i;
        bar.name = b->name;
        bar.last_draw = 0;
        struct bench_ctx ctx = {m, opts, progress_bar ? draw_bar : NULL, &bar};
        const char *why = b->unavailable_reason ? b->unavailable_reason(m) : NULL;
        double start = bench_now();
        bench_progress(&ctx, 0);
        json_t *result = why ? bench_skipped_msgid(why) : b->run(&ctx);
        if (json_is_object(result) && !json_object_get(result, "skipped"))
            json_object_set_new(result, "elapsed_s", json_real(bench_now() - start));
        json_object_set_new(benchmarks, b->name, result);
        bench_progress(&ctx, 1);
    }
    if (progress_bar)
        fprintf(stderr, "\r%60s\r", "");
    return doc;
}
