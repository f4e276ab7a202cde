/* The text of `gpuvet watch`: a compact live block, then the diagnosis in the audit's style. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/watch.h"
#include "report/wrap.h"
#include "rules/watch.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/width.h"

#define CLEAR_TO_END "\033[J"
/* Where a live line too wide for the terminal may continue on the next: between two readings,
 * never inside one (fit_block). */
#define BREAK "\x1f"
#define CONTINUATION "      "

static void pct(FILE *o, const char *label, double share)
{
    if (share < 0)
        fprintf(o, " %s ?", label);
    else
        fprintf(o, " %s %.0f%%", label, 100 * share);
}

/* MB/s: a tenth below 100, whole above (a PCIe rate of 25000.0 only widens the line). */
static void mbs(FILE *o, const char *label, double v)
{
    if (v < 0)
        fprintf(o, " %s ?", label);
    else
        fprintf(o, v < 100 ? " %s %.1f" : " %s %.0f", label, v);
}

/* The clock events on a line of their own under the GPU's (the names are long: seven of them take
 * more than a line). */
static void clock_event_names(FILE *o, const struct watch_gpu *g)
{
    if (!g->clock_events_known)
        return;
    json_t *names = gpu_clock_events_json(true, g->clock_events);
    if (json_array_size(names)) {
        char list[512] = "";
        size_t i;
        json_t *v;
        json_array_foreach (names, i, v)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," BREAK " " : "", json_string_value(v));
        /* TRANSLATORS: NVML's clock event reasons (sw_power_cap, hw_slowdown, ...), which stay as they are. */
        fputs("\n" CONTINUATION, o);
        fprintf(o, _("clock events: %s"), list);
    }
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
        /* TRANSLATORS: the GPU memory controller's utilisation (nvidia-smi's "mem"). */
        fprintf(o, _(" mem %3.0f%%"), g->mem);
    if (g->mem_used_mib >= 0)
        fprintf(o, _(" used %.0f MiB"), g->mem_used_mib);
    if (g->pcie_rx_mbs >= 0 || g->pcie_tx_mbs >= 0) {
        fputs(BREAK, o);
        mbs(o, _("PCIe rx"), g->pcie_rx_mbs);
        mbs(o, _("tx"), g->pcie_tx_mbs);
        fputs(" MB/s", o);
        if (g->link_mbs > 0)
            /* TRANSLATORS: "PCIe rx 120.0 tx 30.0 MB/s of 25000": the link's rate in MB/s. */
            fprintf(o, _(" of %.0f"), g->link_mbs);
    }
    if (g->sm_clock_mhz >= 0)
        fprintf(o, BREAK " %.0f/%.0f MHz", g->sm_clock_mhz, g->mem_clock_mhz);
    if (g->power_w >= 0)
        fprintf(o, BREAK " %.0f W", g->power_w);
    clock_event_names(o, g);
}

/* The target on one line: a command given several lines (`watch -- python3 -c "..."`) shows its
 * line breaks and tabs as \n and \t, so the header keeps its shape. buf holds the result. */
static const char *target_text(const struct watch_timeline *w, char *buf, size_t n)
{
    const char *t = w->target ? watch_local(w->target, w->target_local) : _("machine");
    size_t k = 0;
    for (; *t && k + 3 < n; t++) {
        if (*t == '\n' || *t == '\t' || *t == '\r') {
            buf[k++] = '\\';
            buf[k++] = *t == '\n' ? 'n' : *t == '\t' ? 't' : 'r';
        } else
            buf[k++] = *t;
    }
    buf[k] = '\0';
    return buf;
}

/* The first line: the target (a command can be any length) is cut to keep the line within columns. */
static void title(FILE *o, const struct watch_timeline *w, const struct watch_sample *s, size_t columns)
{
    char one_line[1024];
    const char *target = target_text(w, one_line, sizeof one_line);
    char line[512];
    snprintf(line, sizeof line, _("gpuvet watch  %s  t=%.0fs  (Ctrl-C ends and diagnoses)\n"), "", s->t);
    size_t room = display_width(line) + 1 < columns ? columns - 1 - display_width(line) : 0;
    if (display_width(target) <= room) {
        fprintf(o, _("gpuvet watch  %s  t=%.0fs  (Ctrl-C ends and diagnoses)\n"), target, s->t);
        return;
    }
    char cut[512];
    size_t bytes = display_prefix(target, strlen(target), room > 3 ? room - 3 : 0);
    snprintf(cut, sizeof cut, "%.*s...", (int)bytes, target);
    fprintf(o, _("gpuvet watch  %s  t=%.0fs  (Ctrl-C ends and diagnoses)\n"), cut, s->t);
}

/* The busiest processes outside the job, as many as the line has room for. */
static void outsiders(FILE *o, const struct watch_sample *s, size_t columns)
{
    char line[1024];
    snprintf(line, sizeof line, _("others %.2f cores, busiest:"), s->others_cpu);
    for (int k = 0; k < WATCH_MAX_OUTSIDERS && s->outsiders[k].pid; k++) {
        char one[128];
        snprintf(one, sizeof one, " %s (pid %d) %.2f", s->outsiders[k].name, s->outsiders[k].pid, s->outsiders[k].cpu);
        if (k > 0 && display_width(line) + display_width(one) > columns)
            break;
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s", one);
    }
    fprintf(o, "%s\n", line);
}

static void block(FILE *o, const struct watch_timeline *w, const struct watch_sample *s)
{
    title(o, w, s, REPORT_COLUMNS);
    fputs(_("host "), o);
    pct(o, _("user"), s->user);
    pct(o, _("sys"), s->system);
    pct(o, "iowait", s->iowait);
    pct(o, "steal", s->steal);
    pct(o, _("idle"), s->idle);
    fputs(BREAK " ", o);
    mbs(o, _("swap in"), s->swap_in_mbs);
    mbs(o, _("out"), s->swap_out_mbs);
    fputs(" MB/s" BREAK " ", o);
    fputs(_(" net"), o);
    mbs(o, _("rx"), s->net_rx_mbs);
    mbs(o, _("tx"), s->net_tx_mbs);
    fputs(" MB/s\n", o);
    if (s->disk[0])
        fprintf(o, _("disk  %s read %.1f MB/s busy %.0f%%\n"), s->disk, s->disk_read_mbs, 100 * s->disk_busy);
    if (w->job_seen) {
        /* TRANSLATORS: R and D are the kernel's thread states (running, uninterruptible I/O sleep); majflt the
         * major page faults. */
        fprintf(o, _("job   %d procs %d threads (%d R, %d D) %.2f cores, wants %.2f; majflt %.0f/s; read %.1f MB/s\n"),
                s->nprocs_total, s->threads, s->running, s->blocked, s->job_cpu, s->job_demand, s->job_majflt_s,
                s->job_read_mbs < 0 ? 0 : s->job_read_mbs);
        for (int i = 0; i < s->nprocs && i < 6; i++) {
            const struct watch_proc *p = &s->procs[i];
            fprintf(o, "  %7d ", p->pid);
            fput_padded(o, p->name, 16);
            fprintf(o, _(" %.2f cores (wants %.2f), main thread %.2f, %d thr\n"), p->cpu, p->demand, p->main_cpu,
                    p->threads);
        }
    }
    if (s->outsiders[0].pid)
        outsiders(o, s, REPORT_COLUMNS);
    for (int g = 0; g < w->ngpus; g++) {
        gpu_line(o, g, &s->gpus[g]);
        fputc('\n', o);
    }
}

static void plain_line(FILE *o, const struct watch_timeline *w, const struct watch_sample *s)
{
    fprintf(o, "t=%.1fs cpu", s->t);
    pct(o, _("usr"), s->user);
    pct(o, _("sys"), s->system);
    pct(o, "io", s->iowait);
    pct(o, "steal", s->steal);
    if (w->job_seen)
        fprintf(o, _(" | job %.2f cores (wants %.2f) R%d D%d"), s->job_cpu, s->job_demand, s->running, s->blocked);
    if (s->disk[0])
        fprintf(o, " | %s %.1f MB/s %.0f%%", s->disk, s->disk_read_mbs, 100 * s->disk_busy);
    for (int g = 0; g < w->ngpus; g++)
        fprintf(o, " | gpu%d SM %.0f%% rx %.0f tx %.0f MB/s", g, s->gpus[g].sm, s->gpus[g].pcie_rx_mbs,
                s->gpus[g].pcie_tx_mbs);
    fputc('\n', o);
}

/* Writes the block with each line that is wider than columns continued at its BREAK marks (an
 * indented line), the marks dropped. */
static void fit_block(FILE *o, const char *text, size_t columns)
{
    for (const char *line = text; *line;) {
        const char *end = line + strcspn(line, "\n");
        size_t col = 0;
        for (const char *p = line; p < end;) {
            const char *mark = memchr(p, BREAK[0], (size_t)(end - p));
            if (!mark)
                mark = end;
            size_t width = display_width_n(p, (size_t)(mark - p));
            if (p != line && col + width > columns) {
                fputs("\n" CONTINUATION, o);
                col = strlen(CONTINUATION);
                for (; p < mark && *p == ' '; p++)
                    width--;
            }
            fwrite(p, 1, (size_t)(mark - p), o);
            col += width;
            p = mark < end ? mark + 1 : end;
        }
        if (*end)
            fputc('\n', o);
        line = *end ? end + 1 : end;
    }
}

/* Rows a text takes on a terminal of width columns: a long line wraps and takes several (a CJK
 * character takes two columns). */
static int terminal_rows(const char *text, int width)
{
    int rows = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        size_t columns = display_width_n(line, len);
        rows += 1 + (columns > 0 ? (int)((columns - 1) / (size_t)width) : 0);
        line += len + (line[len] == '\n');
    }
    return rows;
}

/* text (len bytes) with the machine's control and invalid bytes as \xNN (util/output.h), the
 * sequences of keep passed as they are; malloc'd, *out_len its length; NULL without memory. Process
 * names are anyone's to choose, a replayed timeline is a file from anywhere. */
static char *escaped(const char *text, size_t len, const char *const *keep, size_t *out_len)
{
    char *safe = NULL;
    *out_len = 0;
    FILE *sb = text ? open_memstream(&safe, out_len) : NULL;
    if (!sb)
        return NULL;
    int rc = text_write_escaped(sb, text, len, keep);
    if (fclose(sb) != 0 || rc != 0) {
        free(safe);
        return NULL;
    }
    return safe;
}

void watch_print_live(FILE *out, struct watch_live *live, const struct watch_timeline *w, const struct watch_sample *s)
{
    if (!live->tty) {
        plain_line(out, w, s);
        fflush(out);
        return;
    }
    char *drawn = NULL, *text = NULL;
    size_t drawn_len = 0, len = 0;
    FILE *buf = open_memstream(&drawn, &drawn_len);
    if (!buf)
        return;
    block(buf, w, s);
    fclose(buf);
    /* Our own BREAK marks stay for fit_block, which drops them (one in a process name only adds a
     * place to break); every other control byte is shown as \xNN. */
    static const char *const marks[] = {BREAK, NULL};
    size_t safe_len;
    char *safe = escaped(drawn, drawn_len, marks, &safe_len);
    if (safe) {
        free(drawn);
        drawn = safe;
        drawn_len = safe_len;
    }
    /* A line wider than a 100-column terminal (a language's longer words, eight-digit rates)
     * continues under itself at a reading's edge, so the block keeps its shape. */
    buf = open_memstream(&text, &len);
    if (!buf) {
        free(drawn);
        return;
    }
    fit_block(buf, drawn, REPORT_COLUMNS);
    fclose(buf);
    free(drawn);
    struct winsize ws;
    int width = ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    if (live->lines)
        fprintf(out, "\033[%dA\r" CLEAR_TO_END, live->lines);
    fputs(text, out);
    live->lines = terminal_rows(text, width);
    free(text);
    fflush(out);
}

/* The diagnosis goes through a buffer so that long lines wrap as the audit's text does. */
static void diagnosis(FILE *o, const struct watch_timeline *w, const struct findings *f, const char *bold,
                      const char *reset)
{
    double seconds = w->count ? w->samples[w->count - 1].t : 0;
    const char *source = !w->source ? _("live") : !strcmp(w->source, "live") ? _("live") : w->source;
    char one_line[1024];
    fprintf(o, _("\n%sDiagnosis%s  %s, %d interval(s), %.0f s (%s)\n"), bold, reset,
            target_text(w, one_line, sizeof one_line), w->count, seconds,
            source);
    if (w->count == 0)
        fputs(_("  nothing to diagnose: no interval was watched\n"), o);
    json_t *startup = f->count ? json_object_get(f->items[0].evidence, "startup_intervals") : NULL;
    if (json_integer_value(startup) > 0)
        fprintf(o, _("  the first %d interval(s), before the GPUs showed any activity, are start-up and not judged\n"),
                (int)json_integer_value(startup));
    int shown = 0;
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        if (it->severity == SEV_UNKNOWN)
            continue;
        double explains = json_number_value(json_object_get(it->evidence, "gpu_time_explained"));
        bool gpu_seen = json_is_true(json_object_get(it->evidence, "gpu_seen"));
        fprintf(o, "  %s", bold);
        fput_padded(o, severity_label(it->severity), 5);
        fprintf(o, " %s%s — ", it->rule->id, reset);
        if (gpu_seen)
            fprintf(o, _("%s; explains %.0f %% of the GPU time\n"), _(it->rule->title), 100 * explains);
        else
            fprintf(o, _("%s; explains %.0f %% of the watched time (GPUs not seen)\n"), _(it->rule->title),
                    100 * explains);
        fprintf(o, "        %s\n", finding_message(it));
        if (it->fix)
            fprintf(o, "        %s%s\n", _("fix: "), finding_fix(it));
        shown++;
    }
    int sm_samples = 0;
    double sm = w->count && !shown ? watch_mean_sm(w, &sm_samples) : -1;
    if (w->count && !shown && sm_samples > 0)
        /* TRANSLATORS: %.1f %%: the mean SM utilisation; %d: GPU samples it is the mean of. */
        fprintf(o, _("  no bottleneck found in what could be seen; mean SM utilisation %.1f %% over %d GPU samples\n"),
                sm * 100, sm_samples);
    else if (w->count && !shown)
        fputs(_("  no bottleneck found in what could be seen\n"), o);
    for (int i = 0; i < f->count; i++)
        if (f->items[i].severity == SEV_UNKNOWN)
            fprintf(o, _("  unknown %s: %s\n"), f->items[i].rule->id, finding_message(&f->items[i]));
    if (w->end_reason)
        fprintf(o, "  %s\n", watch_local(w->end_reason, w->end_reason_local));
    fputs(_("  (gpuvet explain ID says what each diagnosis means)\n"), o);
}

void watch_print_diagnosis(FILE *o, const struct watch_timeline *w, const struct findings *f, bool color)
{
    char *text = NULL;
    size_t len = 0;
    FILE *buf = open_memstream(&text, &len);
    if (!buf)
        return;
    diagnosis(buf, w, f, color ? "\033[1m" : "", color ? "\033[0m" : "");
    fclose(buf);
    /* A replayed timeline is a file from anywhere: its names and reasons reach the terminal with
     * their control bytes and invalid bytes as \xNN (util/sanitize.h), only our bold kept. */
    static const char *const own[] = {"\033[1m", "\033[0m", NULL};
    size_t safe_len;
    char *safe = escaped(text, len, own, &safe_len);
    print_wrapped(o, safe ? safe : text, safe ? safe_len : len, report_columns(o), _("fix: "));
    free(safe);
    free(text);
}
