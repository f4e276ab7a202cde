/* What the fleet and compare reports share (report/fleet_report.h): the one-line texts of values
 * and figures, and what the HTML and Markdown pages show, in order: their sections, titles, notes
 * and tables, drawn through each format's primitives (fleet_html.c, fleet_markdown.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "util/i18n.h"
#include "util/output_file.h"

enum fleet_part {
    FLEET_PART_CONFIGURATION,
    FLEET_PART_ODD,
    FLEET_PART_SPLITS,
    FLEET_PART_BENCH,
    FLEET_PART_PARTIAL,
    FLEET_NPARTS
};

enum compare_part {
    COMPARE_PART_DIFFERENCES,
    COMPARE_PART_SAME,
    COMPARE_PART_BENCH,
    COMPARE_PART_ONLY_A,
    COMPARE_PART_ONLY_B,
    COMPARE_NPARTS
};

/* Every heading and note of the pages, in order. */
static const char *const fleet_part_titles[FLEET_NPARTS] = {
    [FLEET_PART_CONFIGURATION] = N_("Configuration of the majority"),
    [FLEET_PART_ODD] = N_("Odd nodes, against the group's majority"),
    [FLEET_PART_SPLITS] = N_("Fields without a value on more than half of the nodes"),
    [FLEET_PART_BENCH] = N_("Bench figures against the group's median"),
    [FLEET_PART_PARTIAL] = N_("Problem findings on only some nodes"),
};
/* What a part's table needs said first (the bench part's is BENCH_NOTE). */
static const char LIST_NOTE[] = N_("Lists (DIMMs, accelerator links) show only the items that differ.");
static const char *const fleet_part_ids[FLEET_NPARTS] = {"configuration", "odd", "splits", "bench", "partial"};
static const char *const compare_part_titles[COMPARE_NPARTS] = {
    [COMPARE_PART_DIFFERENCES] = N_("Differences"),
    [COMPARE_PART_SAME] = N_("The same on both"),
    [COMPARE_PART_BENCH] = N_("Bench figures"),
    [COMPARE_PART_ONLY_A] = N_("Problem findings only on A"),
    [COMPARE_PART_ONLY_B] = N_("Problem findings only on B"),
};
static const char *const compare_part_ids[COMPARE_NPARTS] = {"differences", "same", "bench", "only-a", "only-b"};
/* BENCH_NOTE is a printf format: marked where it is used, so that msgfmt checks its conversions. */
#define BENCH_NOTE                                                                                                     \
    _("A figure more than %g %% below the median of the group's measured nodes is named; with fewer than %d "         \
      "measured nodes there is no median to judge against.")
static const char FLEET_TITLE[] = "gpuvet fleet";
static const char COMPARE_TITLE[] = "gpuvet compare";
static const char GROUPS_TITLE[] = N_("Groups");
static const char BENCH_ONLY_CLASS[] = N_("configuration unknown (bench documents only)");
static const char NO_MAJORITY[] = N_("no majority: the nodes differ");
static const char NO_MEDIAN[] = N_("no median");
static const char NONE_LOW[] = N_("none");
static const char NO_AUDIT_NOTE[] = N_("Bench documents without an audit document: configuration unknown.");
static const char ALIKE_NOTE[] = N_("Every node alike.");
static const char NO_DIFFERENCES_NOTE[] = N_("No differences in configuration.");

int fleet_report_to_file(const char *path, int (*fn)(FILE *, const struct fleet *, const struct fleet_analysis *),
                         const struct fleet *f, const struct fleet_analysis *a)
{
    FILE *out = output_open(path, "fleet");
    return out ? output_close(out, path, "fleet", fn(out, f, a)) : -1;
}

int compare_report_to_file(const char *path, int (*fn)(FILE *, const struct fleet *, const struct fleet *),
                           const struct fleet *a, const struct fleet *b)
{
    FILE *out = output_open(path, "compare");
    return out ? output_close(out, path, "compare", fn(out, a, b)) : -1;
}

void fleet_value_line(char *buf, size_t n, enum fleet_field field, const char *value)
{
    if (!fleet_fields[field].list) {
        snprintf(buf, n, "%s", value);
        return;
    }
    int items = *value ? 1 : 0;
    for (const char *p = value; *p; p++)
        items += *p == '\n';
    if (items > 1 && (field == FF_DIMMS || items > 4)) {
        snprintf(buf, n, _("%d entries"), items);
        return;
    }
    size_t len = 0;
    for (const char *p = value; *p && len + 3 < n; p++) {
        if (*p == '\n') {
            buf[len++] = ';';
            buf[len++] = ' ';
        } else {
            buf[len++] = *p;
        }
    }
    buf[len] = '\0';
}

/* ---- values for people ---- */

/* The fleet documents keep the English values (they are compared and written to JSON as they
 * are); a reader of another language gets them through these formats, one per shape fleet.c
 * builds. A value of another shape is shown as it is. */
static const char *word_shown(const char *word)
{
    return !strcmp(word, "unknown") ? _("unknown") : word;
}

/* "socket 0: 2 channels, socket 1: 1 channel" or "socket 0: 3 DIMMs, channels unknown". */
static void channels_shown(FILE *o, const char *value)
{
    for (const char *p = value; *p;) {
        char socket[64], count[64];
        int n = 0;
        if (sscanf(p, "socket %63[^:]: %63s%n", socket, count, &n) != 2) {
            fputs(p, o);
            return;
        }
        p += n;
        if (!strncmp(p, " DIMMs, channels unknown", 24)) {
            fprintf(o, _("socket %s: %s DIMMs, channels unknown"), word_shown(socket), word_shown(count));
            p += 24;
        } else if (!strncmp(p, " channel", 8)) {
            /* TRANSLATORS: used for one channel and for several. */
            fprintf(o, _("socket %s: %s channels"), word_shown(socket), word_shown(count));
            p += !strncmp(p, " channels", 9) ? 9 : 8;
        } else {
            fprintf(o, "socket %s: %s%s", socket, count, p);
            return;
        }
        if (!strncmp(p, ", ", 2)) {
            /* TRANSLATORS: between two sockets' channel counts. */
            fputs(_("; "), o);
            p += 2;
        }
    }
}

static void item_shown(FILE *o, enum fleet_field k, const char *item)
{
    static const char *const whole[] = {N_("unknown"),
                                        N_("none"),
                                        N_("off"),
                                        N_("bare metal"),
                                        N_("none (no NVIDIA device)"),
                                        N_("unknown (the PCI bus could not be read)"),
                                        N_("none (no cpufreq)"),
                                        N_("no DIMMs"),
                                        NULL};
    for (int i = 0; whole[i]; i++)
        if (!strcmp(item, whole[i])) {
            fputs(_(whole[i]), o);
            return;
        }
    char a[256], b[256], c[256], d[256];
    int n = 0;
    const char *container = strstr(item, ", container ");
    switch (k) {
    case FF_CPU_COUNT:
        if (sscanf(item, "sockets %255[^,], cores %255[^,], threads %255s%n", a, b, c, &n) == 3 && !item[n]) {
            fprintf(o, _("sockets %s, cores %s, threads %s"), word_shown(a), word_shown(b), word_shown(c));
            return;
        }
        break;
    case FF_MEMORY_CHANNELS: channels_shown(o, item); return;
    case FF_DIMMS:
        /* "socket 0 channel 1 P1-DIMMD1 8 GiB DDR4 2400 MT/s": the rest is a locator, a size, a type
         * and a speed, shown as they are. */
        if (sscanf(item, "socket %255s channel %255s %n", a, b, &n) == 2 && n > 0) {
            fprintf(o, _("socket %s channel %s %s"), word_shown(a), word_shown(b), item + n);
            return;
        }
        break;
    case FF_LINKS:
        if (sscanf(item, "%255s link unknown%n", a, &n) == 1 && !item[n]) {
            fprintf(o, _("%s link unknown"), a);
            return;
        }
        if (sscanf(item, "%255s Gen%255s x%255s of x%255s%n", a, b, c, d, &n) == 4 && !item[n]) {
            /* TRANSLATORS: a PCIe link "0000:1b:00.0 Gen3 x8 of x16": bus address, generation, current
             * width, the width the card and slot allow. */
            fprintf(o, _("%s Gen%s x%s of x%s"), a, b, c, d);
            return;
        }
        break;
    case FF_THP:
        if (sscanf(item, "enabled %255[^,], defrag %255s%n", a, b, &n) == 2 && !item[n]) {
            fprintf(o, _("enabled %s, defrag %s"), word_shown(a), word_shown(b));
            return;
        }
        break;
    case FF_VIRTUALIZATION:
        /* "VM, kvm", "bare metal", "unknown", each perhaps followed by ", container docker". */
        if (container) {
            char *head = strndup(item, (size_t)(container - item));
            if (!head)
                abort();
            char *out = NULL;
            size_t len = 0;
            FILE *h = open_memstream(&out, &len);
            item_shown(h, k, head);
            fclose(h);
            fprintf(o, _("%s, container %s"), out, word_shown(container + 12));
            free(out);
            free(head);
            return;
        }
        if (!strcmp(item, "VM, hypervisor unknown")) {
            fputs(_("VM, hypervisor unknown"), o);
            return;
        }
        if (!strncmp(item, "VM, ", 4)) {
            fprintf(o, _("VM, %s"), item + 4);
            return;
        }
        break;
    default: break;
    }
    fputs(item, o);
}

char *fleet_value_shown(enum fleet_field k, const char *value)
{
    if (!value)
        return NULL;
    if (!i18n_translating()) {
        char *copy = strdup(value);
        if (!copy)
            abort();
        return copy;
    }
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    if (!o)
        abort();
    for (const char *p = value; *p;) {
        const char *end = strchr(p, '\n');
        char *item = strndup(p, end ? (size_t)(end - p) : strlen(p));
        if (!item)
            abort();
        item_shown(o, k, item);
        free(item);
        if (end)
            fputc('\n', o);
        p = end ? end + 1 : p + strlen(p);
    }
    fclose(o);
    return out;
}

const char *fleet_severity_shown(const char *severity)
{
    if (!i18n_translating())
        return severity;
    return !strcmp(severity, "fail") ? _("FAIL") : !strcmp(severity, "warn") ? _("WARN") : severity;
}

void fleet_figure_text(char *buf, size_t n, enum fleet_metric m, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.*f %s", fleet_metrics[m].scale > 1 ? 2 : 0, v / fleet_metrics[m].scale,
                 fleet_metrics[m].unit);
}

/* "vm02: 12.49 GB/s (-10.0%)": a figure below its group's median. */
static void fleet_low_text(char *buf, size_t n, const struct fleet *f, const struct fleet_low_figure *l)
{
    char value[64];
    fleet_figure_text(value, sizeof value, l->metric, l->value);
    snprintf(buf, n, "%s: %s (%+.1f%%)", f->nodes[l->node].host, value, (l->value / l->median - 1) * 100);
}

void fleet_summary_line(char *buf, size_t n, const struct fleet *f, const struct fleet_analysis *a)
{
    if (i18n_translating()) {
        /* TRANSLATORS: the English text picks "node"/"nodes" (and the others) for its counts itself;
         * this format is used only for a language with one form. */
        snprintf(buf, n, _("%zu nodes (%zu audit, %zu bench documents), %d groups by CPU and accelerator models"),
                 f->count, f->audits, f->benches, a->ngroups);
        return;
    }
    snprintf(buf, n, "%zu node%s (%zu audit, %zu bench document%s), %d group%s by CPU and accelerator models",
             f->count, f->count == 1 ? "" : "s", f->audits, f->benches, f->benches == 1 ? "" : "s", a->ngroups,
             a->ngroups == 1 ? "" : "s");
}

char *fleet_group_title(const struct fleet *f, const struct fleet_analysis *a, int group, bool capital)
{
    const struct fleet_group *g = &a->groups[group];
    char *hosts = fleet_hostlist(f, g->nodes, (size_t)g->nnodes), *title = NULL;
    const char *format = capital ? i18n_plural("Group %d: %s (%d node)", "Group %d: %s (%d nodes)", (unsigned long)g->nnodes)
                                 : i18n_plural("group %d: %s (%d node)", "group %d: %s (%d nodes)", (unsigned long)g->nnodes);
    if (asprintf(&title, format, group + 1, hosts, g->nnodes) < 0)
        abort();
    free(hosts);
    return title;
}

bool fleet_finding_split(const char *key, struct fleet_finding_parts *out)
{
    const char *id = strchr(key, ' ');
    const char *subject = id ? strchr(id + 1, ' ') : NULL;
    out->severity[0] = out->id[0] = '\0';
    out->subject = key;
    if (!id || !subject)
        return false;
    snprintf(out->severity, sizeof out->severity, "%.*s", (int)(id - key), key);
    snprintf(out->id, sizeof out->id, "%.*s", (int)(subject - id - 1), id + 1);
    out->subject = subject + 1;
    return true;
}

bool fleet_finding_only_on(const struct fleet_node *x, int i, const struct fleet_node *y)
{
    return !fleet_node_has_finding(y, x->findings[i]);
}

void fleet_write_items(FILE *o, const char *items, void (*text)(FILE *, const char *), const char *separator)
{
    for (const char *p = items; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *item = strndup(p, len);
        if (!item)
            abort();
        if (p != items)
            fputs(separator, o);
        text(o, item);
        free(item);
        p = end ? end + 1 : NULL;
    }
}

/* ---- the pages: what each shows, in order, drawn through a format's primitives ---- */

static void row(FILE *o, const struct fleet_page_format *fmt, bool odd, const enum fleet_cell *kinds,
                const char *const *cells, int n)
{
    fmt->row_begin(o, odd);
    for (int i = 0; i < n; i++)
        fmt->cell(o, kinds[i], cells[i] ? cells[i] : "");
    fmt->row_end(o);
}

/* The format's table_begin with the column names in the reader's language. */
static void table_begin(FILE *o, const struct fleet_page_format *fmt, const char *const *columns)
{
    const char *shown[8];
    int n = 0;
    for (; columns[n] && n < 7; n++)
        shown[n] = *columns[n] ? _(columns[n]) : "";
    shown[n] = NULL;
    fmt->table_begin(o, shown);
}

static void table_end(FILE *o, const struct fleet_page_format *fmt)
{
    if (fmt->table_end)
        fmt->table_end(o);
}

static void section_end(FILE *o, const struct fleet_page_format *fmt, int level)
{
    if (fmt->section_end)
        fmt->section_end(o, level);
}

/* A field's label and its value (list values item by item); value NULL: no majority. */
static void field_row(FILE *o, const struct fleet_page_format *fmt, enum fleet_field k, const char *value)
{
    const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, fleet_fields[k].list ? FLEET_CELL_ITEMS : FLEET_CELL_TEXT};
    char *shown = fleet_value_shown(k, value);
    const char *cells[] = {_(fleet_fields[k].label), shown ? shown : _(NO_MAJORITY)};
    row(o, fmt, false, kinds, cells, 2);
    free(shown);
}

/* A field's label and two values; for list fields only the items the other lacks. */
static void difference_row(FILE *o, const struct fleet_page_format *fmt, const char *node, enum fleet_field k,
                           const char *first, const char *second)
{
    bool list = fleet_fields[k].list;
    char *only_first = list ? fleet_items_missing(first, second) : NULL;
    char *only_second = list ? fleet_items_missing(second, first) : NULL;
    char *shown_first = fleet_value_shown(k, list ? only_first : first);
    char *shown_second = fleet_value_shown(k, list ? only_second : second);
    enum fleet_cell kind = list ? FLEET_CELL_ITEMS : FLEET_CELL_TEXT;
    const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, FLEET_CELL_TEXT, kind, kind};
    const char *cells[] = {node, _(fleet_fields[k].label), shown_first, shown_second};
    /* Without a node (compare) the first cell is left out. */
    if (node)
        row(o, fmt, true, kinds, cells, 4);
    else
        row(o, fmt, false, kinds + 1, cells + 1, 3);
    free(only_first);
    free(only_second);
    free(shown_first);
    free(shown_second);
}

static void hosts_text(char **out, const struct fleet *f, const size_t *nodes, int n)
{
    free(*out);
    *out = fleet_hostlist(f, nodes, (size_t)n);
}

static void overview(FILE *o, const struct fleet *f, const struct fleet_analysis *a,
                     const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("group"),     N_("hosts"),     N_("nodes"),
                                          N_("CPU / accelerators"), N_("odd nodes"), N_("low bench figures"),
                                          N_("findings on some nodes"), NULL};
    static const enum fleet_cell kinds[] = {FLEET_CELL_GROUP,  FLEET_CELL_HOSTS,  FLEET_CELL_NUMBER,
                                            FLEET_CELL_TEXT,   FLEET_CELL_NUMBER, FLEET_CELL_NUMBER,
                                            FLEET_CELL_NUMBER};
    table_begin(o, fmt, columns);
    char *hosts = NULL;
    for (int i = 0; i < a->ngroups; i++) {
        const struct fleet_group *g = &a->groups[i];
        char number[16], count[16], odd[16], low[16], partial[16];
        snprintf(number, sizeof number, "%d", i + 1);
        snprintf(count, sizeof count, "%d", g->nnodes);
        snprintf(odd, sizeof odd, "%d", g->nodd);
        snprintf(low, sizeof low, "%d", g->nlow);
        snprintf(partial, sizeof partial, "%d", g->npartial);
        hosts_text(&hosts, f, g->nodes, g->nnodes);
        /* A group without accelerator models ("CPU / ") says why: none, or the bus not read. */
        char *models = NULL, *shown = NULL;
        size_t key_len = g->class_key ? strlen(g->class_key) : 0;
        if (key_len >= 3 && !strcmp(g->class_key + key_len - 3, " / ")) {
            shown = fleet_value_shown(FF_ACCELERATORS, g->majority[FF_ACCELERATORS]);
            if (asprintf(&models, "%s%s", g->class_key, shown ? shown : _(NO_MAJORITY)) < 0)
                abort();
        }
        const char *cells[] = {number, hosts, count,
                               models ? models : g->class_key ? g->class_key : _(BENCH_ONLY_CLASS), odd, low, partial};
        row(o, fmt, false, kinds, cells, 7);
        free(models);
        free(shown);
    }
    free(hosts);
    table_end(o, fmt);
}

static void part_configuration(FILE *o, const struct fleet *f, const struct fleet_group *g,
                               const struct fleet_page_format *fmt)
{
    (void)f;
    static const char *const columns[] = {N_("field"), N_("value"), NULL};
    table_begin(o, fmt, columns);
    for (int k = 0; k < FLEET_NFIELDS; k++)
        field_row(o, fmt, (enum fleet_field)k, g->majority[k]);
    table_end(o, fmt);
}

static void part_odd(FILE *o, const struct fleet *f, const struct fleet_group *g, const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("node"), N_("field"), N_("this node"), N_("the group has"), NULL};
    table_begin(o, fmt, columns);
    for (int i = 0; i < g->nodd; i++)
        for (int k = 0; k < g->odd[i].ndifferences; k++) {
            const struct fleet_difference *d = &g->odd[i].differences[k];
            difference_row(o, fmt, f->nodes[g->odd[i].node].host, d->field, d->value, d->majority);
        }
    table_end(o, fmt);
}

static void part_splits(FILE *o, const struct fleet *f, const struct fleet_group *g,
                        const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("field"), N_("value"), N_("nodes"), N_("count"), NULL};
    static const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, FLEET_CELL_ITEMS, FLEET_CELL_HOSTS, FLEET_CELL_NUMBER};
    table_begin(o, fmt, columns);
    char *hosts = NULL;
    for (int i = 0; i < g->nsplits; i++)
        for (int v = 0; v < g->splits[i].nvalues; v++) {
            const struct fleet_value_nodes *value = &g->splits[i].values[v];
            char count[32];
            /* TRANSLATORS: nodes holding a value, of the nodes audited: "3 of 5". */
            snprintf(count, sizeof count, _("%d of %d"), value->nnodes, g->naudited);
            hosts_text(&hosts, f, value->nodes, value->nnodes);
            char *shown = fleet_value_shown(g->splits[i].field, value->value);
            const char *cells[] = {_(fleet_fields[g->splits[i].field].label), shown, hosts, count};
            row(o, fmt, false, kinds, cells, 4);
            free(shown);
        }
    free(hosts);
    table_end(o, fmt);
}

static void part_bench(FILE *o, const struct fleet *f, const struct fleet_group *g,
                       const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("figure"), N_("measured on"), N_("median"), N_("below the median"), NULL};
    static const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, FLEET_CELL_NUMBER, FLEET_CELL_TEXT, FLEET_CELL_ITEMS};
    table_begin(o, fmt, columns);
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (!g->measured[m])
            continue;
        char measured[16], median[64], line[256];
        snprintf(measured, sizeof measured, "%d", g->measured[m]);
        fleet_figure_text(median, sizeof median, (enum fleet_metric)m, g->median[m]);
        /* The low nodes, one item each. */
        char *low = NULL;
        size_t len = 0;
        FILE *items = open_memstream(&low, &len);
        for (int i = 0; i < g->nlow; i++)
            if (g->low[i].metric == (enum fleet_metric)m) {
                fleet_low_text(line, sizeof line, f, &g->low[i]);
                fprintf(items, "%s%s", len ? "\n" : "", line);
                fflush(items);
            }
        fclose(items);
        const char *cells[] = {_(fleet_metrics[m].label), measured, isnan(g->median[m]) ? _(NO_MEDIAN) : median,
                               *low ? low : _(NONE_LOW)};
        row(o, fmt, false, kinds, cells, 4);
        free(low);
    }
    table_end(o, fmt);
}

static void finding_row(FILE *o, const struct fleet_page_format *fmt, const char *key, const char *hosts,
                        const char *count)
{
    static const enum fleet_cell kinds[] = {FLEET_CELL_SEVERITY, FLEET_CELL_TEXT, FLEET_CELL_TEXT,
                                            FLEET_CELL_HOSTS, FLEET_CELL_NUMBER};
    struct fleet_finding_parts parts;
    fleet_finding_split(key, &parts);
    const char *cells[] = {parts.severity, parts.id, parts.subject, hosts, count};
    row(o, fmt, false, kinds, cells, hosts ? 5 : 3);
}

static void part_partial(FILE *o, const struct fleet *f, const struct fleet_group *g,
                         const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("severity"), N_("rule"), N_("subject"), N_("nodes"), N_("count"), NULL};
    table_begin(o, fmt, columns);
    char *hosts = NULL;
    for (int i = 0; i < g->npartial; i++) {
        char count[32];
        snprintf(count, sizeof count, _("%d of %d"), g->partial[i].nnodes, g->naudited);
        hosts_text(&hosts, f, g->partial[i].nodes, g->partial[i].nnodes);
        finding_row(o, fmt, g->partial[i].finding, hosts, count);
    }
    free(hosts);
    table_end(o, fmt);
}

static bool fleet_part_shown(const struct fleet_group *g, enum fleet_part part)
{
    switch (part) {
    case FLEET_PART_CONFIGURATION: return g->class_key != NULL;
    case FLEET_PART_ODD: return g->nodd > 0;
    case FLEET_PART_SPLITS: return g->nsplits > 0;
    case FLEET_PART_BENCH:
        for (int m = 0; m < FLEET_NMETRICS; m++)
            if (g->measured[m])
                return true;
        return false;
    case FLEET_PART_PARTIAL: return g->npartial > 0;
    default: return false;
    }
}

void fleet_page_write(FILE *o, const struct fleet *f, const struct fleet_analysis *a,
                      const struct fleet_page_format *fmt)
{
    static void (*const draw[FLEET_NPARTS])(FILE *, const struct fleet *, const struct fleet_group *,
                                            const struct fleet_page_format *) = {
        part_configuration, part_odd, part_splits, part_bench, part_partial,
    };
    char text[256];
    fmt->heading(o, 1, NULL, FLEET_TITLE);
    fleet_summary_line(text, sizeof text, f, a);
    fmt->note(o, text);
    /* Hostlists can be long (10,000 nodes with irregular names): allocated, not cut. */
    char *odd = fleet_odd_hostlist(f, a), *line = NULL;
    if (asprintf(&line, _("odd nodes: %s"), *odd ? odd : _("none")) < 0)
        abort();
    fmt->note(o, line);
    free(line);
    free(odd);
    char *apart = fleet_unplain_line(f);
    if (apart && asprintf(&line, _("in no hostlist (not a Slurm host name): %s"), apart) >= 0) {
        fmt->note(o, line);
        free(line);
    }
    free(apart);
    /* What a folder's walk skipped or left out (not gpuvet documents, older audits of a host): on
     * the page, not only on stderr. */
    for (int i = 0; i < f->nnotes; i++) {
        if (asprintf(&line, _("not read: %s"), f->notes[i]) < 0)
            abort();
        fmt->note(o, line);
        free(line);
    }
    fmt->note(o, "gpuvet " GPUVET_VERSION);
    fmt->heading(o, 2, "groups", _(GROUPS_TITLE));
    overview(o, f, a, fmt);
    section_end(o, fmt, 2);
    for (int i = 0; i < a->ngroups; i++) {
        const struct fleet_group *g = &a->groups[i];
        char id[64];
        snprintf(id, sizeof id, "group-%d", i + 1);
        char *title = fleet_group_title(f, a, i, true);
        fmt->heading(o, 2, id, title);
        free(title);
        if (!g->class_key)
            fmt->note(o, _(NO_AUDIT_NOTE));
        for (int p = 0; p < FLEET_NPARTS; p++) {
            if (!fleet_part_shown(g, (enum fleet_part)p))
                continue;
            snprintf(id, sizeof id, "group-%d-%s", i + 1, fleet_part_ids[p]);
            fmt->heading(o, 3, id, _(fleet_part_titles[p]));
            if (p == FLEET_PART_ODD)
                fmt->note(o, _(LIST_NOTE));
            if (p == FLEET_PART_BENCH) {
                snprintf(text, sizeof text, BENCH_NOTE, a->tolerance * 100, FLEET_MIN_MEDIAN_NODES);
                fmt->note(o, text);
            }
            draw[p](o, f, g, fmt);
            section_end(o, fmt, 3);
        }
        if (g->class_key && !g->nodd && !g->nsplits && !g->nlow && !g->npartial)
            fmt->note(o, _(ALIKE_NOTE));
        section_end(o, fmt, 2);
    }
}

/* ---- compare ---- */

static void compare_differences(FILE *o, const struct fleet_node *a, const struct fleet_node *b,
                                const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("field"), "A", "B", NULL};
    table_begin(o, fmt, columns);
    for (int k = 0; k < FLEET_NFIELDS; k++)
        if (strcmp(a->field[k], b->field[k]))
            difference_row(o, fmt, NULL, (enum fleet_field)k, a->field[k], b->field[k]);
    table_end(o, fmt);
}

static void compare_same(FILE *o, const struct fleet_node *a, const struct fleet_node *b,
                         const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("field"), N_("value"), NULL};
    table_begin(o, fmt, columns);
    for (int k = 0; k < FLEET_NFIELDS; k++)
        if (!strcmp(a->field[k], b->field[k]))
            field_row(o, fmt, (enum fleet_field)k, a->field[k]);
    table_end(o, fmt);
}

static void compare_bench(FILE *o, const struct fleet_node *a, const struct fleet_node *b,
                          const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("figure"), "A", "B", N_("B against A"), NULL};
    static const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, FLEET_CELL_TEXT, FLEET_CELL_TEXT, FLEET_CELL_NUMBER};
    table_begin(o, fmt, columns);
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (isnan(a->metric[m]) && isnan(b->metric[m]))
            continue;
        char va[64], vb[64], ratio[32] = "-";
        fleet_figure_text(va, sizeof va, (enum fleet_metric)m, a->metric[m]);
        fleet_figure_text(vb, sizeof vb, (enum fleet_metric)m, b->metric[m]);
        if (!isnan(a->metric[m]) && !isnan(b->metric[m]) && a->metric[m] > 0)
            snprintf(ratio, sizeof ratio, "%+.1f%%", (b->metric[m] / a->metric[m] - 1) * 100);
        const char *cells[] = {_(fleet_metrics[m].label), va, vb, ratio};
        row(o, fmt, false, kinds, cells, 4);
    }
    table_end(o, fmt);
}

/* The problem findings of x that y lacks. */
static void compare_findings_only(FILE *o, const struct fleet_node *x, const struct fleet_node *y,
                                  const struct fleet_page_format *fmt)
{
    static const char *const columns[] = {N_("severity"), N_("rule"), N_("subject"), NULL};
    table_begin(o, fmt, columns);
    for (int i = 0; i < x->nfindings; i++)
        if (fleet_finding_only_on(x, i, y))
            finding_row(o, fmt, x->findings[i], NULL, NULL);
    table_end(o, fmt);
}

static bool findings_only_on(const struct fleet_node *x, const struct fleet_node *y)
{
    for (int i = 0; i < x->nfindings; i++)
        if (fleet_finding_only_on(x, i, y))
            return true;
    return false;
}

static bool compare_part_shown(const struct fleet_node *a, const struct fleet_node *b, enum compare_part part)
{
    bool audits = a->class_key && b->class_key;
    switch (part) {
    case COMPARE_PART_DIFFERENCES: return audits && fleet_node_differences(a, b) > 0;
    case COMPARE_PART_SAME: return audits && fleet_node_differences(a, b) < FLEET_NFIELDS;
    case COMPARE_PART_BENCH:
        for (int m = 0; m < FLEET_NMETRICS; m++)
            if (!isnan(a->metric[m]) || !isnan(b->metric[m]))
                return true;
        return false;
    case COMPARE_PART_ONLY_A: return findings_only_on(a, b);
    case COMPARE_PART_ONLY_B: return findings_only_on(b, a);
    default: return false;
    }
}

void compare_page_write(FILE *o, const struct fleet_node *a, const struct fleet_node *b,
                        const struct fleet_page_format *fmt)
{
    static void (*const draw[COMPARE_NPARTS])(FILE *, const struct fleet_node *, const struct fleet_node *,
                                              const struct fleet_page_format *) = {
        compare_differences, compare_same, compare_bench, compare_findings_only, compare_findings_only,
    };
    char title[600];
    snprintf(title, sizeof title, _("%s: %s and %s"), COMPARE_TITLE, a->host, b->host);
    fmt->heading(o, 1, NULL, title);
    static const char *const columns[] = {"", N_("host"), N_("audit document"), N_("bench document"), NULL};
    static const enum fleet_cell kinds[] = {FLEET_CELL_TEXT, FLEET_CELL_TEXT, FLEET_CELL_TEXT, FLEET_CELL_TEXT};
    table_begin(o, fmt, columns);
    for (int side = 0; side < 2; side++) {
        const struct fleet_node *n = side ? b : a;
        const char *cells[] = {side ? "B" : "A", n->host, n->audit_file ? n->audit_file : "-",
                               n->bench_file ? n->bench_file : "-"};
        row(o, fmt, false, kinds, cells, 4);
    }
    table_end(o, fmt);
    fmt->note(o, "gpuvet " GPUVET_VERSION);
    if (!a->class_key || !b->class_key)
        fmt->note(o, a->class_key   ? _("Configuration: B has no audit document.")
                     : b->class_key ? _("Configuration: A has no audit document.")
                                    : _("Configuration: neither has an audit document."));
    else if (fleet_node_differences(a, b) == 0)
        fmt->note(o, _(NO_DIFFERENCES_NOTE));
    for (int p = 0; p < COMPARE_NPARTS; p++) {
        if (!compare_part_shown(a, b, (enum compare_part)p))
            continue;
        fmt->heading(o, 2, compare_part_ids[p], _(compare_part_titles[p]));
        if (p == COMPARE_PART_DIFFERENCES)
            fmt->note(o, _(LIST_NOTE));
        if (p == COMPARE_PART_ONLY_B)
            draw[p](o, b, a, fmt);
        else
            draw[p](o, a, b, fmt);
        section_end(o, fmt, 2);
    }
}
