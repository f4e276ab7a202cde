/* Saved timelines for `gpuvet watch --replay` and `gpuvet cost --util-from`: a gpuvet.watch/1
 * document (docs/watch-json.md), or an `nvidia-smi dmon` log whose "# gpu ..." header names the
 * columns (`-s pucvmet` gives sm, mem, fb, rxpci, txpci, pclk, mclk, pwr, pviol, tviol; `-o DT`
 * adds date and time columns first). A dmon log has no host side: the report says so. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gpu.h"
#include "probe/watch.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/inputfile.h"
#include "util/jsonerror.h"
#include "util/linereader.h"
#include "util/parse.h"
#include "util/pciaddr.h"

#define MAX_COLUMNS 64

/* null or missing -> -1 (unknown); a negative number is garbage and also unknown. */
static double num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

/* The largest GPU index a dmon log may name (NVML numbers a node's GPUs from 0). */
#define DMON_MAX_GPU_INDEX 1023

static int integer(json_t *obj, const char *key, int fallback)
{
    json_t *v = json_object_get(obj, key);
    /* Past an int it is no count, pid or index of a real timeline: the fallback (unknown), never wrapped. */
    return json_is_integer(v) && json_integer_value(v) >= INT_MIN && json_integer_value(v) <= INT_MAX
               ? (int)json_integer_value(v)
               : fallback;
}

static char *text(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? strdup(s) : NULL;
}

static const char *str_or(json_t *obj, const char *key, const char *fallback)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : fallback;
}

static void read_proc(json_t *o, struct watch_proc *p)
{
    p->pid = integer(o, "pid", 0);
    p->ppid = integer(o, "ppid", 0);
    snprintf(p->name, sizeof p->name, "%s", str_or(o, "name", "?"));
    p->cpu = num(o, "cpu");
    p->demand = num(o, "demand");
    p->main_cpu = num(o, "main_cpu");
    p->main_demand = num(o, "main_demand");
    p->threads = integer(o, "threads", 0);
    p->running = integer(o, "running", 0);
    p->blocked = integer(o, "blocked", 0);
    p->majflt_s = num(o, "majflt_per_s");
    p->numa_misplaced_threads = integer(o, "numa_misplaced_threads", -1);
}

static void read_gpu(json_t *o, struct watch_gpu *g)
{
    g->sm = num(o, "sm");
    g->mem = num(o, "mem");
    g->mem_used_mib = num(o, "mem_used_mib");
    g->pcie_rx_mbs = num(o, "pcie_rx_mb_s");
    g->pcie_tx_mbs = num(o, "pcie_tx_mb_s");
    g->link_mbs = num(o, "link_mb_s");
    g->sm_clock_mhz = num(o, "sm_clock_mhz");
    g->mem_clock_mhz = num(o, "mem_clock_mhz");
    g->power_w = num(o, "power_w");
    json_t *mask = json_object_get(o, "clock_events_mask");
    g->clock_events_known = json_is_integer(mask);
    g->clock_events = g->clock_events_known ? (unsigned long long)json_integer_value(mask) : 0;
}

static int read_sample(json_t *o, struct watch_timeline *w, struct watch_sample *s)
{
    if (!json_is_object(o))
        return -1;
    s->t = num(o, "t");
    s->seconds = num(o, "seconds");
    json_t *cpu = json_object_get(o, "cpu"), *job = json_object_get(o, "job"), *others = json_object_get(o, "others");
    s->user = num(cpu, "user");
    s->system = num(cpu, "system");
    s->iowait = num(cpu, "iowait");
    s->steal = num(cpu, "steal");
    s->idle = num(cpu, "idle");
    if (json_is_object(job)) {
        s->nprocs_total = integer(job, "processes", 0);
        s->threads = integer(job, "threads", -1);
        s->running = integer(job, "running", -1);
        s->blocked = integer(job, "blocked", -1);
        s->job_cpu = num(job, "cpu");
        s->job_demand = num(job, "demand");
        s->job_majflt_s = num(job, "majflt_per_s");
        s->job_read_mbs = num(job, "read_mb_s");
        json_t *procs = json_object_get(job, "procs");
        for (size_t i = 0; i < json_array_size(procs) && s->nprocs < WATCH_MAX_PROCS; i++)
            read_proc(json_array_get(procs, i), &s->procs[s->nprocs++]);
    }
    s->others_cpu = num(others, "cpu");
    json_t *top = json_object_get(others, "top");
    for (size_t k = 0; k < json_array_size(top) && k < WATCH_MAX_OUTSIDERS; k++) {
        json_t *it = json_array_get(top, k);
        s->outsiders[k].pid = integer(it, "pid", 0);
        snprintf(s->outsiders[k].name, sizeof s->outsiders[k].name, "%s", str_or(it, "name", "?"));
        s->outsiders[k].cpu = num(it, "cpu");
    }
    json_t *disk = json_object_get(o, "disk");
    if (json_is_object(disk)) {
        snprintf(s->disk, sizeof s->disk, "%s", str_or(disk, "name", "?"));
        s->disk_read_mbs = num(disk, "read_mb_s");
        s->disk_busy = num(disk, "busy");
    }
    s->swap_in_mbs = num(json_object_get(o, "swap"), "in_mb_s");
    s->swap_out_mbs = num(json_object_get(o, "swap"), "out_mb_s");
    s->net_rx_mbs = num(json_object_get(o, "net"), "rx_mb_s");
    s->net_tx_mbs = num(json_object_get(o, "net"), "tx_mb_s");
    json_t *gpus = json_object_get(o, "gpus");
    for (int g = 0; g < w->ngpus && g < (int)json_array_size(gpus); g++)
        read_gpu(json_array_get(gpus, (size_t)g), &s->gpus[g]);
    return s->t < 0 ? -1 : 0;
}

static int load_json(const char *path, struct watch_timeline *w, char *err, size_t errlen)
{
    json_error_t error;
    char why[256];
    size_t len = 0;
    unsigned char *bytes = input_file_read(path, INPUT_FILE_LIMIT, &len, why, sizeof why);
    if (!bytes) {
        snprintf(err, errlen, _("%s: %s"), path, _(why));
        return -1;
    }
    json_t *doc = json_loadb((const char *)bytes, len, 0, &error);
    free(bytes);
    if (!doc) {
        char what[320];
        json_error_describe(&error, what, sizeof what);
        snprintf(err, errlen, _("%s: not valid JSON: %s"), path, what);
        return -1;
    }
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    json_t *samples = json_object_get(doc, "samples");
    int rc = 0;
    if (!schema || strcmp(schema, WATCH_SCHEMA) || !json_is_array(samples)) {
        /* TRANSLATORS: in "(schema %s)", for a document that names no schema. */
        const char *named = schema ? schema : _("missing");
        snprintf(err, errlen, _("%s: not a %s document (schema %s)"), path, WATCH_SCHEMA, named);
        json_decref(doc);
        return -1;
    }
    watch_set(&w->source, "%s %s", WATCH_SCHEMA, path);
    w->target = text(doc, "target");
    w->root_pid = integer(doc, "root_pid", 0);
    w->ncpus = integer(doc, "ncpus", -1);
    w->nnodes = integer(doc, "numa_nodes", -1);
    w->interval = num(doc, "interval_s") > 0 ? num(doc, "interval_s") : 1;
    w->host_seen = json_is_true(json_object_get(doc, "host_seen"));
    w->job_seen = json_is_true(json_object_get(doc, "job_seen"));
    w->host_unseen = text(doc, "host_unseen");
    w->disk_unseen = text(doc, "disk_unseen");
    w->gpu_unseen = text(doc, "gpu_unseen");
    w->end_reason = text(doc, "end");
    json_t *gpus = json_object_get(doc, "gpus");
    for (size_t g = 0; g < json_array_size(gpus) && w->ngpus < WATCH_MAX_GPUS; g++) {
        json_t *o = json_array_get(gpus, g);
        struct watch_gpu_info *info = &w->gpu_info[w->ngpus++];
        /* Any spelling a saved timeline has is stored in the sysfs form the live GPUs have. */
        const char *bus_id = str_or(o, "bus_id", "");
        if (!pci_address_normalise(bus_id, info->bus_id))
            snprintf(info->bus_id, sizeof info->bus_id, "%s", bus_id);
        snprintf(info->name, sizeof info->name, "%s", str_or(o, "name", ""));
        info->numa_node = integer(o, "numa_node", -1);
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(samples); i++) {
        struct watch_sample *s = watch_sample_add(w);
        if (!s || read_sample(json_array_get(samples, i), w, s) != 0) {
            snprintf(err, errlen, _("%s: samples[%zu] is not a sample (an object with t)"), path, i);
            rc = -1;
        }
    }
    json_decref(doc);
    return rc;
}

enum dmon_field { F_GPU, F_SM, F_MEM, F_FB, F_RX, F_TX, F_PCLK, F_MCLK, F_PWR, F_PVIOL, F_TVIOL, F_COUNT };
static const char *const dmon_names[F_COUNT] = {"gpu", "sm", "mem", "fb", "rxpci", "txpci", "pclk", "mclk", "pwr",
                                                "pviol", "tviol"};

/* "-" (not supported) -> -1; garbage -> false. */
static bool dmon_value(const char *token, double *out)
{
    if (!strcmp(token, "-")) {
        *out = -1;
        return true;
    }
    char *end;
    *out = strtod(token, &end);
    return end != token && *end == '\0' && *out >= 0;
}

static int load_dmon_lines(struct line_reader *r, const char *path, struct watch_timeline *w, char *err,
                           size_t errlen)
{
    int column[F_COUNT], lineno = 0, last_gpu = -1, gpu_ids[WATCH_MAX_GPUS], got;
    for (int k = 0; k < F_COUNT; k++)
        column[k] = -1;
    struct watch_sample *s = NULL;
    watch_set(&w->source, "nvidia-smi dmon %s", path);
    watch_set(&w->target, "%s", path);
    /* a msgid: watch_local shows it translated */
    watch_set(&w->host_unseen, "%s", N_("an nvidia-smi dmon log records only the GPUs"));
    while ((got = line_reader_next(r, err, errlen)) > 0) {
        char *line = r->line;
        lineno = r->number;
        char *tokens[MAX_COLUMNS];
        if (line[0] == '#') {
            int n = split_blanks(line + 1, tokens, MAX_COLUMNS);
            bool header = false;
            for (int i = 0; i < n; i++)
                header |= !strcmp(tokens[i], "gpu");
            for (int k = 0; header && k < F_COUNT; k++) {
                column[k] = -1;
                for (int i = 0; i < n; i++)
                    if (!strcmp(tokens[i], dmon_names[k]))
                        column[k] = i;
            }
            continue;
        }
        int n = split_blanks(line, tokens, MAX_COLUMNS);
        if (n == 0)
            continue;
        if (column[F_GPU] < 0) {
            snprintf(err, errlen, _("%s:%d: a sample before any '# gpu ...' header: not nvidia-smi dmon output"), path,
                     lineno);
            return -1;
        }
        double v[F_COUNT];
        for (int k = 0; k < F_COUNT; k++) {
            v[k] = -1;
            if (column[k] >= n && column[k] >= 0) {
                snprintf(err, errlen, _("%s:%d: %d columns, the header names %d"), path, lineno, n, column[k] + 1);
                return -1;
            }
            if (column[k] >= 0 && !dmon_value(tokens[column[k]], &v[k])) {
                snprintf(err, errlen, _("%s:%d: %s '%s' is not a number"), path, lineno, dmon_names[k], tokens[column[k]]);
                return -1;
            }
        }
        /* dmon's index is NVML's: a small whole number. A huge one would overflow the cast. */
        if (v[F_GPU] < 0 || v[F_GPU] > DMON_MAX_GPU_INDEX || v[F_GPU] != (int)v[F_GPU]) {
            snprintf(err, errlen, _("%s:%d: gpu '%s' is not a GPU index (0 to %d)"), path, lineno, tokens[column[F_GPU]],
                     DMON_MAX_GPU_INDEX);
            return -1;
        }
        int id = (int)v[F_GPU], slot = 0;
        while (slot < w->ngpus && gpu_ids[slot] != id)
            slot++;
        if (slot == w->ngpus) {
            if (slot == WATCH_MAX_GPUS)
                continue;
            gpu_ids[w->ngpus++] = id;
            snprintf(w->gpu_info[slot].name, sizeof w->gpu_info[slot].name, "GPU %d", id);
            w->gpu_info[slot].numa_node = -1;
        }
        /* dmon prints the GPUs in order once per interval: a GPU not after the last starts one. */
        if (!s || id <= last_gpu) {
            if (!(s = watch_sample_add(w))) {
                snprintf(err, errlen, _("%s: out of memory"), path);
                return -1;
            }
            s->seconds = w->interval;
            s->t = w->count * w->interval;
        }
        last_gpu = id;
        struct watch_gpu *g = &s->gpus[slot];
        g->sm = v[F_SM];
        g->mem = v[F_MEM];
        g->mem_used_mib = v[F_FB];
        g->pcie_rx_mbs = v[F_RX];
        g->pcie_tx_mbs = v[F_TX];
        g->sm_clock_mhz = v[F_PCLK];
        g->mem_clock_mhz = v[F_MCLK];
        g->power_w = v[F_PWR];
        /* pviol: % of time held at the power limit (the software power cap); tviol: thermal. */
        g->clock_events_known = column[F_PVIOL] >= 0 || column[F_TVIOL] >= 0;
        g->clock_events = (v[F_PVIOL] > 0 ? GPU_EVENT_SW_POWER_CAP : 0) | (v[F_TVIOL] > 0 ? GPU_EVENT_SW_THERMAL : 0);
    }
    if (got < 0)
        return -1;
    if (w->count == 0) {
        snprintf(err, errlen, _("%s:%d: no samples (record with `nvidia-smi dmon -s pucvmet` while the job runs)"), path,
                 lineno);
        return -1;
    }
    return 0;
}

static int load_dmon(FILE *f, const char *path, struct watch_timeline *w, char *err, size_t errlen)
{
    struct line_reader r;
    line_reader_init(&r, f, path, TEXT_LINE_MAX);
    int rc = load_dmon_lines(&r, path, w, err, errlen);
    line_reader_free(&r);
    return rc;
}

int watch_replay_load(const char *path, struct watch_timeline *w, char *err, size_t errlen)
{
    FILE *f = input_file_open(path, INPUT_FILE_LIMIT);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, input_file_error(errno));
        return -1;
    }
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
        ;
    int rc;
    if (c == '{') {
        fclose(f);
        rc = load_json(path, w, err, errlen);
    } else {
        rewind(f);
        rc = load_dmon(f, path, w, err, errlen);
        fclose(f);
    }
    return rc;
}

int watch_replay_mean_sm(const char *path, double *util, int *samples, char *err, size_t errlen)
{
    struct watch_timeline w;
    watch_timeline_init(&w);
    int rc = watch_replay_load(path, &w, err, errlen);
    if (rc == 0) {
        *util = watch_mean_sm(&w, samples);
        if (*samples == 0) {
            snprintf(err, errlen, _("%s: the timeline holds no GPU utilisation (%s)"), path,
                     w.gpu_unseen ? w.gpu_unseen : _("no GPU was sampled"));
            rc = -1;
        }
    }
    watch_timeline_free(&w);
    return rc;
}
