/* The gpuvet.watch/1 document (docs/watch-json.md): the timeline, one record per interval, and
 * the diagnosis. Unknown numbers are null. probe/watch_replay.c reads it back. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/watch.h"
#include "util/i18n.h"
#include "util/jsonval.h"
#include "util/output_file.h"
#include "util/sanitize.h"

static json_t *number(double v) { return v < 0 ? json_null() : json_real(v); }

static json_t *proc_json(const struct watch_proc *p)
{
    json_t *o = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:o}", "pid", p->pid, "ppid", p->ppid,
                          "name", json_text(p->name), "cpu", number(p->cpu), "demand", number(p->demand), "main_cpu",
                          number(p->main_cpu), "main_demand", number(p->main_demand), "threads", p->threads,
                          "running", p->running, "blocked", p->blocked, "majflt_per_s", number(p->majflt_s));
    json_object_set_new(o, "numa_misplaced_threads",
                        p->numa_misplaced_threads < 0 ? json_null() : json_integer(p->numa_misplaced_threads));
    return o;
}

static json_t *gpu_json(const struct watch_gpu *g)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "sm", number(g->sm), "mem", number(g->mem),
                          "mem_used_mib", number(g->mem_used_mib), "pcie_rx_mb_s", number(g->pcie_rx_mbs),
                          "pcie_tx_mb_s", number(g->pcie_tx_mbs), "link_mb_s", number(g->link_mbs), "sm_clock_mhz",
                          number(g->sm_clock_mhz), "mem_clock_mhz", number(g->mem_clock_mhz), "power_w",
                          number(g->power_w));
    json_object_set_new(o, "clock_events", gpu_clock_events_json(g->clock_events_known, g->clock_events));
    json_object_set_new(o, "clock_events_mask",
                        g->clock_events_known ? json_integer((json_int_t)g->clock_events) : json_null());
    return o;
}

static json_t *sample_json(const struct watch_timeline *w, const struct watch_sample *s)
{
    json_t *o = json_pack("{s:f, s:f}", "t", s->t, "seconds", s->seconds);
    json_object_set_new(o, "cpu",
                        w->host_seen ? json_pack("{s:o, s:o, s:o, s:o, s:o}", "user", number(s->user), "system",
                                                 number(s->system), "iowait", number(s->iowait), "steal",
                                                 number(s->steal), "idle", number(s->idle))
                                     : json_null());
    json_t *job = json_null();
    if (w->job_seen) {
        json_t *procs = json_array();
        for (int i = 0; i < s->nprocs; i++)
            json_array_append_new(procs, proc_json(&s->procs[i]));
        job = json_pack("{s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "processes", s->nprocs_total, "threads",
                        s->threads, "running", s->running, "blocked", s->blocked, "cpu", number(s->job_cpu),
                        "demand", number(s->job_demand), "majflt_per_s", number(s->job_majflt_s), "read_mb_s",
                        number(s->job_read_mbs), "procs", procs);
    }
    json_object_set_new(o, "job", job);
    json_t *top = json_array();
    for (int k = 0; k < WATCH_MAX_OUTSIDERS && s->outsiders[k].pid; k++)
        json_array_append_new(top, json_pack("{s:i, s:o, s:o}", "pid", s->outsiders[k].pid, "name",
                                             json_text(s->outsiders[k].name), "cpu", number(s->outsiders[k].cpu)));
    json_object_set_new(o, "others", w->host_seen ? json_pack("{s:o, s:o}", "cpu", number(s->others_cpu), "top", top)
                                                  : (json_decref(top), json_null()));
    json_object_set_new(o, "disk",
                        s->disk[0] ? json_pack("{s:o, s:o, s:o}", "name", json_text(s->disk), "read_mb_s",
                                               number(s->disk_read_mbs), "busy", number(s->disk_busy))
                                   : json_null());
    json_object_set_new(o, "swap", json_pack("{s:o, s:o}", "in_mb_s", number(s->swap_in_mbs), "out_mb_s",
                                             number(s->swap_out_mbs)));
    json_object_set_new(o, "net", json_pack("{s:o, s:o}", "rx_mb_s", number(s->net_rx_mbs), "tx_mb_s",
                                            number(s->net_tx_mbs)));
    json_t *gpus = json_array();
    for (int g = 0; g < w->ngpus; g++)
        json_array_append_new(gpus, gpu_json(&s->gpus[g]));
    json_object_set_new(o, "gpus", gpus);
    return o;
}


json_t *watch_to_json(const struct watch_timeline *w, const struct findings *diagnosis)
{
    json_t *gpus = json_array();
    for (int g = 0; g < w->ngpus; g++)
        json_array_append_new(gpus, json_pack("{s:i, s:o, s:o, s:o}", "index", g, "bus_id", json_text(w->gpu_info[g].bus_id),
                                              "name", json_text(w->gpu_info[g].name), "numa_node",
                                              w->gpu_info[g].numa_node < 0 ? json_null()
                                                                           : json_integer(w->gpu_info[g].numa_node)));
    json_t *samples = json_array();
    for (int i = 0; i < w->count; i++)
        json_array_append_new(samples, sample_json(w, &w->samples[i]));
    json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:f, s:o, s:o, s:b, s:o, s:b, s:o, s:o, s:o, s:o, s:o}",
                            "schema", WATCH_SCHEMA, "generated_by", "gpuvet " GPUVET_VERSION, "source",
                            json_string_or_null(w->source), "target", json_string_or_null(w->target), "root_pid",
                            w->root_pid ? json_integer(w->root_pid) : json_null(), "interval_s", w->interval, "ncpus",
                            w->ncpus < 0 ? json_null() : json_integer(w->ncpus), "numa_nodes",
                            w->nnodes < 0 ? json_null() : json_integer(w->nnodes), "host_seen", w->host_seen,
                            "host_unseen", json_string_or_null(w->host_unseen), "job_seen", w->job_seen, "disk_unseen",
                            json_string_or_null(w->disk_unseen), "gpu_unseen", json_string_or_null(w->gpu_unseen), "gpus", gpus,
                            "samples", samples, "end", json_string_or_null(w->end_reason));
    json_t *list = diagnosis ? findings_to_json(diagnosis) : json_array();
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *item = json_array_get(list, i);
        json_object_set_new(item, "title", json_string(diagnosis->items[i].rule->title));
        json_t *explained = json_object_get(diagnosis->items[i].evidence, "gpu_time_explained");
        json_object_set_new(item, "gpu_time_explained", explained ? json_copy(explained) : json_null());
    }
    json_object_set_new(doc, "diagnosis", list);
    return doc;
}

/* The report into fd: the document, or the diagnosis as text (no colour: a file). 0, or -1 with
 * errno set where the write said why. */
static int write_report_fd(int fd, bool json, const struct watch_timeline *w, const struct findings *diagnosis)
{
    errno = 0;
    if (json) {
        json_t *doc = watch_to_json(w, diagnosis);
        int rc = json_dumpfd(doc, fd, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
        int error = errno;
        json_decref(doc);
        if (rc == 0 && write(fd, "\n", 1) != 1)
            return -1;
        errno = error;
        return rc;
    }
    int copy = dup(fd);
    FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
    if (!f) {
        if (copy >= 0)
            close(copy);
        return -1;
    }
    watch_print_diagnosis(f, w, diagnosis, false);
    int error = ferror(f) ? errno : 0;
    int rc = fclose(f) != 0 || error ? -1 : 0;
    if (error)
        errno = error;
    return rc;
}

int watch_write_report(const char *path, bool json, const struct watch_timeline *w, const struct findings *diagnosis,
                       char *err, size_t errlen)
{
    if (!path) {
        /* stdout's write errors are every command's (util/output.h), told at exit */
        json_t *doc = watch_to_json(w, diagnosis);
        json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
        fputc('\n', stdout);
        json_decref(doc);
        return 0;
    }
    /* Written as --output is (util/output_file.h): renamed over a regular file, through a device. */
    struct output_target target;
    char why[PATH_MAX + 128];
    if (output_target_open(&target, path, output_new_file_mode(), why, sizeof why) != 0) {
        snprintf(err, errlen, _("%s: cannot write the timeline: %s"), path, _(why));
        return -1;
    }
    int rc = write_report_fd(target.fd, json, w, diagnosis);
    int error = errno; /* the write's reason */
    if (output_target_finish(&target, rc == 0, why, sizeof why) != 0 && rc == 0) {
        snprintf(err, errlen, _("%s: cannot write the timeline: %s"), path, _(why));
        return -1;
    }
    if (rc != 0) {
        if (error)
            snprintf(err, errlen, _("%s: cannot write the timeline: %s"), path, i18n_error_text(error));
        else
            snprintf(err, errlen, _("%s: cannot write the timeline"), path);
    }
    return rc == 0 ? 0 : -1;
}
