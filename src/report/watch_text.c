/* The text of `gpuvet watch`: a compact live block, then the diagnosis in the audit's style. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/watch.h"
#include "rules/watch.h"

#define CLEAR_TO_END "\033[J"

static void pct(FILE *o, const char *label, double share)
{
    if (share < 0)
        fprintf(o, " %s ?", label);
    else
        fprintf(o, " %s %.0f%%", label, 100 * share);
}

static void mbs(FILE *o, const char *label, double v)
{
    if (v < 0)
        fprintf(o, " %s ?", label);
    else
        fprintf(o, " %s %.1f", label, v);
}

static void clock_event_names(FILE *o, const struct watch_gpu *g)
{
    if (!g->clock_events_known)
        return;
    json_t *names = gpu_clock_events_json(true, g->clock_events);
    size_t i;
    json_t *v;
    fputs(json_array_size(names) ? " [" : "", o);
    json_array_foreach (names, i, v)
        fprintf(o, "%s%s", i ? "," : "", json_string_value(v));
    fputs(json_array_size(names) ? "]" : "", o);
    json_decref(names);
}

static void gpu_line(FILE *o, int index, const struct watch_gpu *g)
{
    fprintf(o, "gpu%d ", index);
    if (g->sm < 0)
        fputs(" SM ?", o);
    else
        fprintf(o, " SM %3.0f%%", g->sm);
    if (g->mem >= 0)
        fprintf(o, " mem %3.0f%%", g->mem);
    if (g->mem_used_mib >= 0)
        fprintf(o, " used %.0f MiB", g->mem_used_mib);
    if (g->pcie_rx_mbs >= 0 || g->pcie_tx_mbs >= 0) {
        mbs(o, "PCIe rx", g->pcie_rx_mbs);
        mbs(o, "tx", g->pcie_tx_mbs);
        fputs(" MB/s", o);
        if (g->link_mbs > 0)
            fprintf(o, " of %.0f", g->link_mbs);
    }
    if (g->sm_clock_mhz >= 0)
        fprintf(o, " %.0f/%.0f MHz", g->sm_clock_mhz, g->mem_clock_mhz);
    if (g->power_w >= 0)
        fprintf(o, " %.0f W", g->power_w);
    clock_event_names(o, g);
}

static void block(FILE *o, const struct watch_timeline *w, const struct watch_sample *s)
{
    fprintf(o, "gpuvet watch  %s  t=%.0fs  (Ctrl-C ends and diagnoses)\n", w->target ? w->target : "machine", s->t);
    fputs("host ", o);
    pct(o, "user", s->user);
    pct(o, "sys", s->system);
    pct(o, "iowait", s->iowait);
    pct(o, "steal", s->steal);
    pct(o, "idle", s->idle);
    fputs("  swap", o);
    mbs(o, "in", s->swap_in_mbs);
    mbs(o, "out", s->swap_out_mbs);
    fputs(" MB/s  net", o);
    mbs(o, "rx", s->net_rx_mbs);
    mbs(o, "tx", s->net_tx_mbs);
    fputs(" MB/s\n", o);
    if (s->disk[0]) {
        fprintf(o, "disk  %s read %.1f MB/s busy %.0f%%\n", s->disk, s->disk_read_mbs, 100 * s->disk_busy);
        }
    if (w->job_seen) {
        fprintf(o, "job   %d procs %d threads (%d R, %d D) %.2f cores, wants %.2f; majflt %.0f/s; read %.1f MB/s\n",
                s->nprocs_total, s->threads, s->running, s->blocked, s->job_cpu, s->job_demand, s->job_majflt_s,
                s->job_read_mbs < 0 ? 0 : s->job_read_mbs);
            for (int i = 0; i < s->nprocs && i < 6; i++) {
            const struct watch_proc *p = &s->procs[i];
            fprintf(o, "  %7d %-16s %.2f cores (wants %.2f), main thread %.2f, %d thr\n", p->pid, p->name, p->cpu,
                    p->demand, p->main_cpu, p->threads);
                }
    }
    if (s->outsiders[0].pid) {
        fprintf(o, "others %.2f cores, busiest:", s->others_cpu);
        for (int k = 0; k < WATCH_MAX_OUTSIDERS && s->outsiders[k].pid; k++)
            fprintf(o, " %s (pid %d) %.2f", s->outsiders[k].name, s->outsiders[k].pid, s->outsiders[k].cpu);
        fputc('\n', o);
        }
    for (int g = 0; g < w->ngpus; g++) {
        gpu_line(o, g, &s->gpus[g]);
        fputc('\n', o);
        }
}

static void plain_line(FILE *o, const struct watch_timeline *w, const struct watch_sample *s)
{
    fprintf(o, "t=%.1fs cpu", s->t);
    pct(o, "usr", s->user);
    pct(o, "sys", s->system);
    pct(o, "io", s->iowait);
    pct(o, "steal", s->steal);
    if (w->job_seen)
        fprintf(o, " | job %.2f cores (wants %.2f) R%d D%d", s->job_cpu, s->job_demand, s->running, s->blocked);
    if (s->disk[0])
        fprintf(o, " | %s %.1f MB/s %.0f%%", s->disk, s->disk_read_mbs, 100 * s->disk_busy);
    for (int g = 0; g < w->ngpus; g++)
        fprintf(o, " | gpu%d SM %.0f%% rx %.0f tx %.0f MB/s", g, s->gpus[g].sm, s->gpus[g].pcie_rx_mbs,
                s->gpus[g].pcie_tx_mbs);
    fputc('\n', o);
}

/* Rows a text takes on a terminal of width columns: a long line wraps and takes several. */
static int terminal_rows(const char *text, int width)
{
    int rows = 0, column = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            rows += 1 + (column > 0 ? (column - 1) / width : 0);
            column = 0;
        } else if ((*p & 0xC0) != 0x80) { /* count UTF-8 characters, not bytes */
            column++;
        }
    }
    return rows;
}

void watch_print_live(FILE *out, struct watch_live *live, const struct watch_timeline *w, const struct watch_sample *s)
{
    if (!live->tty) {
        plain_line(out, w, s);
        fflush(out);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *buf = open_memstream(&text, &len);
    if (!buf)
        return;
    block(buf, w, s);
    fclose(buf);
    struct winsize ws;
    int width = ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    if (live->lines)
        fprintf(out, "\033[%dA\r" CLEAR_TO_END, live->lines);
    fputs(text, out);
    live->lines = terminal_rows(text, width);
    free(text);
    fflush(out);
}

void watch_print_diagnosis(FILE *o, const struct watch_timeline *w, const struct findings *f, bool color)
{
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    double seconds = w->count ? w->samples[w->count - 1].t : 0;
    fprintf(o, "\n%sDiagnosis%s  %s, %d interval(s), %.0f s (%s)\n", bold, reset, w->target ? w->target : "machine",
            w->count, seconds, w->source ? w->source : "live");
    if (w->count == 0)
        fputs("  nothing to diagnose: no interval was watched\n", o);
    json_t *startup = f->count ? json_object_get(f->items[0].evidence, "startup_intervals") : NULL;
    if (json_integer_value(startup) > 0)
        fprintf(o, "  the first %d interval(s), before the GPUs showed any activity, are start-up and not judged\n",
                (int)json_integer_value(startup));
    int shown = 0;
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        if (it->severity == SEV_UNKNOWN)
            continue;
        double explains = json_number_value(json_object_get(it->evidence, "gpu_time_explained"));
        bool gpu_seen = json_is_true(json_object_get(it->evidence, "gpu_seen"));
        fprintf(o, "  %s%-5s %s%s — %s; explains %.0f %% of the %s\n", bold, severity_name(it->severity), it->rule->id,
                reset, it->rule->title, 100 * explains, gpu_seen ? "GPU time" : "watched time (GPUs not seen)");
        fprintf(o, "        %s\n", it->message);
        if (it->fix)
            fprintf(o, "        fix: %s\n", it->fix);
        shown++;
    }
    if (w->count && !shown)
        fputs("  no bottleneck found in what could be seen\n", o);
    for (int i = 0; i < f->count; i++)
        if (f->items[i].severity == SEV_UNKNOWN)
            fprintf(o, "  unknown %s: %s\n", f->items[i].rule->id, f->items[i].message);
    if (w->end_reason)
        fprintf(o, "  %s\n", w->end_reason);
    fprintf(o, "  (gpuvet explain ID says what each diagnosis means)\n");
}
