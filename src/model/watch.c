#include "model/watch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n.h"

void watch_timeline_init(struct watch_timeline *w)
{
    memset(w, 0, sizeof *w);
    w->ncpus = w->nnodes = -1;
    w->interval = 1;
}

void watch_timeline_free(struct watch_timeline *w)
{
    free(w->source);
    free(w->target);
    free(w->target_local);
    free(w->host_unseen);
    free(w->disk_unseen);
    free(w->gpu_unseen);
    free(w->gpu_unseen_local);
    free(w->end_reason);
    free(w->end_reason_local);
    free(w->samples);
    watch_timeline_init(w);
}

static void sample_unknown(struct watch_sample *s)
{
    memset(s, 0, sizeof *s);
    double *host[] = {&s->user, &s->system, &s->iowait, &s->steal, &s->idle, &s->job_cpu, &s->job_demand,
                      &s->job_majflt_s, &s->job_read_mbs, &s->others_cpu, &s->disk_read_mbs, &s->disk_busy,
                      &s->swap_in_mbs, &s->swap_out_mbs, &s->net_rx_mbs, &s->net_tx_mbs};
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
        *host[i] = -1;
    s->threads = s->running = s->blocked = -1;
    for (int g = 0; g < WATCH_MAX_GPUS; g++) {
        struct watch_gpu *x = &s->gpus[g];
        x->sm = x->mem = x->mem_used_mib = x->pcie_rx_mbs = x->pcie_tx_mbs = x->link_mbs = -1;
        x->sm_clock_mhz = x->mem_clock_mhz = x->power_w = -1;
    }
}

struct watch_sample *watch_sample_add(struct watch_timeline *w)
{
    if (w->count == w->capacity) {
        int cap = w->capacity ? w->capacity * 2 : 64;
        struct watch_sample *grown = realloc(w->samples, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        w->samples = grown;
        w->capacity = cap;
    }
    struct watch_sample *s = &w->samples[w->count++];
    sample_unknown(s);
    return s;
}

void watch_set(char **field, const char *fmt, ...)
{
    free(*field);
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(field, fmt, ap) < 0)
        *field = NULL;
    va_end(ap);
}

void watch_set_text(char **english, char **local, const char *fmt, ...)
{
    free(*english);
    free(*local);
    va_list ap;
    va_start(ap, fmt);
    i18n_vformat_pair(english, local, fmt, ap);
    va_end(ap);
}

const char *const watch_saved_formats[WATCH_SAVED_TEXTS] = {
    /* xgettext:c-format */
    [WATCH_TARGET_COMMAND] = N_("command: %s"),
    /* xgettext:c-format */
    [WATCH_TARGET_PID] = N_("pid %d"),
    /* xgettext:c-format */
    [WATCH_END_KILLED] = N_("the job ended after %.1f s: killed by signal %d"),
    /* xgettext:c-format */
    [WATCH_END_EXITED] = N_("the job ended after %.1f s: exit status %d"),
    /* xgettext:c-format */
    [WATCH_END_PROCESS] = N_("process %d ended after %.1f s"),
    /* xgettext:c-format */
    [WATCH_END_SIGNAL_JOB] = N_("interrupted by signal %d after %.1f s: passed on to the job, which gpuvet waits for"),
    /* xgettext:c-format */
    [WATCH_END_SIGNAL] = N_("interrupted by signal %d after %.1f s"),
    /* xgettext:c-format */
    [WATCH_END_DURATION] = N_("--duration passed after %.1f s; the job runs on and gpuvet waits for it"),
};

/* The values of text written by fmt (conversions %d, %.1f, and %s as the last one); the letters of
 * their kinds ('i', 'f', 's') in kinds. false when text is not fmt's. */
static bool scan_saved(const char *fmt, const char *text, char *kinds, long *ints, double *reals, const char **rest)
{
    int n = 0;
    while (*fmt) {
        if (*fmt != '%') {
            if (*fmt++ != *text++)
                return false;
            continue;
        }
        char *end;
        if (!strncmp(fmt, "%d", 2)) {
            ints[n] = strtol(text, &end, 10);
            kinds[n++] = 'i';
            fmt += 2;
        } else if (!strncmp(fmt, "%.1f", 4)) {
            reals[n] = strtod(text, &end);
            kinds[n++] = 'f';
            fmt += 4;
        } else if (!strcmp(fmt, "%s")) {
            *rest = text;
            kinds[n++] = 's';
            kinds[n] = '\0';
            return true;
        } else {
            return false;
        }
        if (end == text || n == 3)
            return false;
        text = end;
    }
    kinds[n] = '\0';
    return *text == '\0';
}

/* The translations made here, kept for the process's life (a replay shows a handful): a string
 * watch_local returned stays valid. */
static struct {
    char *english, *local;
} made_texts[16];

static const char *saved_in_language(const char *english)
{
    size_t slot = 0;
    while (slot < sizeof made_texts / sizeof made_texts[0] && made_texts[slot].english) {
        if (!strcmp(made_texts[slot].english, english))
            return made_texts[slot].local;
        slot++;
    }
    if (slot == sizeof made_texts / sizeof made_texts[0])
        return i18n_text(english);
    for (int k = 0; k < WATCH_SAVED_TEXTS; k++) {
        char kinds[4];
        long i[3] = {0};
        double f[3] = {0};
        const char *rest = "";
        if (!scan_saved(watch_saved_formats[k], english, kinds, i, f, &rest))
            continue;
        const char *local = i18n_text(watch_saved_formats[k]);
        char *text = NULL;
        int made = !strcmp(kinds, "s")    ? asprintf(&text, local, rest)
                   : !strcmp(kinds, "i")  ? asprintf(&text, local, (int)i[0])
                   : !strcmp(kinds, "f")  ? asprintf(&text, local, f[0])
                   : !strcmp(kinds, "fi") ? asprintf(&text, local, f[0], (int)i[1])
                   : !strcmp(kinds, "if") ? asprintf(&text, local, (int)i[0], f[1])
                                          : -1;
        if (made < 0)
            return english;
        made_texts[slot].english = strdup(english);
        made_texts[slot].local = text;
        if (!made_texts[slot].english) {
            free(text);
            made_texts[slot].local = NULL;
            return english;
        }
        return text;
    }
    return i18n_text(english);
}

const char *watch_local(const char *english, const char *local)
{
    if (local || !english)
        return local ? local : english;
    return i18n_translating() ? saved_in_language(english) : english;
}

double watch_sample_sm(const struct watch_timeline *w, const struct watch_sample *s)
{
    double sum = 0;
    int n = 0;
    for (int g = 0; g < w->ngpus; g++)
        if (s->gpus[g].sm >= 0) {
            sum += s->gpus[g].sm;
            n++;
        }
    return n ? sum / n : -1;
}

double watch_mean_sm(const struct watch_timeline *w, int *samples)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < w->count; i++)
        for (int g = 0; g < w->ngpus; g++)
            if (w->samples[i].gpus[g].sm >= 0) {
                sum += w->samples[i].gpus[g].sm;
                n++;
            }
    *samples = n;
    return n ? sum / n / 100 : -1;
}
