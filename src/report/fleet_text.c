/* `gpuvet fleet` and `gpuvet compare` for people. compare wraps its three columns within 100
 * columns; fleet prints long values (a DIMM list item, a model name) whole. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/width.h"

#define LABEL_WIDTH 24
#define CELL_WIDTH 36

/* Each item of `items` on a line: after `what` padded to `what_width` columns, when given. */
static void print_items(FILE *out, const char *indent, const char *what, size_t what_width, const char *items)
{
    for (const char *p = items; p && *p;) {
        const char *end = strchr(p, '\n');
        int n = end ? (int)(end - p) : (int)strlen(p);
        fputs(indent, out);
        if (*what) {
            fput_padded(out, what, what_width);
            fputc(' ', out);
        }
        fprintf(out, "%.*s\n", n, p);
        p = end ? end + 1 : NULL;
    }
}

static size_t max_width(const char *a, const char *b)
{
    size_t x = display_width(a), y = display_width(b);
    return x > y ? x : y;
}

static void print_difference(FILE *out, const struct fleet_difference *d)
{
    const struct fleet_field_info *info = &fleet_fields[d->field];
    if (!info->list) {
        char *value = fleet_value_shown(d->field, d->value), *majority = fleet_value_shown(d->field, d->majority);
        fprintf(out, _("      %s: %s\n        the group has: %s\n"), _(info->label), value, majority);
        free(value);
        free(majority);
        return;
    }
    fprintf(out, _("      %s:\n"), _(info->label));
    char *missing = fleet_items_missing(d->majority, d->value), *extra = fleet_items_missing(d->value, d->majority);
    char *missing_shown = fleet_value_shown(d->field, missing), *extra_shown = fleet_value_shown(d->field, extra);
    /* TRANSLATORS: before an item of the group's majority this node lacks, and one it has besides. */
    const char *lacks = _("lacks"), *has = _("has");
    print_items(out, "        ", lacks, max_width(lacks, has), missing_shown);
    print_items(out, "        ", has, max_width(lacks, has), extra_shown);
    free(missing);
    free(extra);
    free(missing_shown);
    free(extra_shown);
}

/* A finding key "warn RULE_ID subject", its severity in the reader's language, and a newline. */
static void print_finding(FILE *out, const char *key)
{
    struct fleet_finding_parts parts;
    if (fleet_finding_split(key, &parts))
        fprintf(out, "%s %s %s\n", fleet_severity_shown(parts.severity), parts.id, parts.subject);
    else
        fprintf(out, "%s\n", key);
}

static void print_group(FILE *out, const struct fleet *f, const struct fleet_analysis *a, int index)
{
    const struct fleet_group *g = &a->groups[index];
    char *title = fleet_group_title(f, a, index, false);
    fprintf(out, "\n%s\n", title);
    free(title);
    if (!g->class_key) {
        fputs(_("  bench documents without an audit document: configuration unknown\n"), out);
    } else {
        fputs(g->nnodes > 1 ? _("  configuration of the majority:\n") : _("  configuration:\n"), out);
        for (int k = 0; k < FLEET_NFIELDS; k++) {
            fputs("    ", out);
            fput_padded(out, _(fleet_fields[k].label), LABEL_WIDTH);
            fputc(' ', out);
            char value[4096];
            char *shown = fleet_value_shown((enum fleet_field)k, g->majority[k]);
            if (shown)
                fleet_value_line(value, sizeof value, (enum fleet_field)k, shown);
            fprintf(out, "%s\n", shown ? value : _("no majority: the nodes differ"));
            free(shown);
        }
    }
    if (g->nodd) {
        fputs(_("  odd nodes, against the group's majority:\n"), out);
        for (int i = 0; i < g->nodd; i++) {
            fprintf(out, "    %s\n", f->nodes[g->odd[i].node].host);
            for (int k = 0; k < g->odd[i].ndifferences; k++)
                print_difference(out, &g->odd[i].differences[k]);
        }
    }
    for (int i = 0; i < g->nsplits; i++) {
        const struct fleet_split *sp = &g->splits[i];
        fprintf(out, _("  %s: no value on more than half of the nodes\n"), _(fleet_fields[sp->field].label));
        for (int v = 0; v < sp->nvalues; v++) {
            char *list = fleet_hostlist(f, sp->values[v].nodes, (size_t)sp->values[v].nnodes);
            char *shown = fleet_value_shown(sp->field, sp->values[v].value);
            if (fleet_fields[sp->field].list)
                print_items(out, "    ", "", 0, shown);
            else
                fprintf(out, "    %s\n", shown);
            fprintf(out, _("      on %s (%d of %d)\n"), list, sp->values[v].nnodes, g->naudited);
            free(shown);
            free(list);
        }
    }
    if (g->nlow) {
        fprintf(out, _("  bench figures more than %g%% below the group's median:\n"), a->tolerance * 100);
        for (int i = 0; i < g->nlow; i++) {
            const struct fleet_low_figure *l = &g->low[i];
            char value[64], median[64];
            fleet_figure_text(value, sizeof value, l->metric, l->value);
            fleet_figure_text(median, sizeof median, l->metric, l->median);
            /* TRANSLATORS: host, bench figure, its value, the group's median, the difference. */
            fprintf(out, _("    %s  %s %s, median %s (%+.1f%%)\n"), f->nodes[l->node].host,
                    _(fleet_metrics[l->metric].label), value, median, (l->value / l->median - 1) * 100);
        }
    }
    for (int m = 0; m < FLEET_NMETRICS; m++)
        if (g->measured[m] > 0 && g->measured[m] < FLEET_MIN_MEDIAN_NODES)
            fprintf(out,
                    i18n_plural("  %s: measured on %d node, fewer than %d: no median to judge against\n",
                                "  %s: measured on %d nodes, fewer than %d: no median to judge against\n",
                                (unsigned long)g->measured[m]),
                    _(fleet_metrics[m].label), g->measured[m], FLEET_MIN_MEDIAN_NODES);
    if (g->npartial) {
        fputs(_("  problem findings on only some nodes:\n"), out);
        for (int i = 0; i < g->npartial; i++) {
            char *list = fleet_hostlist(f, g->partial[i].nodes, (size_t)g->partial[i].nnodes);
            fputs("    ", out);
            print_finding(out, g->partial[i].finding);
            fprintf(out, _("      on %s (%d of %d)\n"), list, g->partial[i].nnodes, g->naudited);
            free(list);
        }
    }
    if (g->class_key && !g->nodd && !g->nsplits && !g->nlow && !g->npartial)
        fputs(_("  every node alike\n"), out);
}

static int fleet_text_unescaped(FILE *out, const struct fleet *f, const struct fleet_analysis *a)
{
    char summary[256];
    fleet_summary_line(summary, sizeof summary, f, a);
    fprintf(out, "gpuvet fleet: %s\n", summary);
    char *odd = fleet_odd_hostlist(f, a);
    fprintf(out, _("odd nodes: %s\n"), *odd ? odd : _("none"));
    free(odd);
    for (int i = 0; i < a->nattention; i++) {
        const struct fleet_attention *at = &a->attention[i];
        fprintf(out, "  %s:\n", f->nodes[at->node].host);
        for (int k = 0; k < at->nreasons; k++) {
            const struct fleet_reason *r = &at->reasons[k];
            switch (r->kind) {
            case FR_CONFIGURATION:
                fprintf(out, _("    differs from its group: %s\n"), _(fleet_fields[r->index].label));
                break;
            case FR_LOW_FIGURE:
                fprintf(out, _("    below its group's median: %s\n"), _(fleet_metrics[r->index].label));
                break;
            case FR_FAIL_OTHERS_LACK:
                fputs(_("    a FAIL the others lack: "), out);
                print_finding(out, r->what);
                break;
            case FR_DOCUMENTS_DISAGREE:
                fprintf(out, _("    two audits of it disagree (%s): "), f->nodes[at->node].disagreeing_file);
                print_finding(out, r->what);
                break;
            }
        }
    }
    char *apart = fleet_unplain_line(f);
    if (apart)
        fprintf(out, _("in no hostlist (not a Slurm host name): %s\n"), apart);
    free(apart);
    for (int i = 0; i < a->ngroups; i++)
        print_group(out, f, a, i);
    return ferror(out) ? -1 : 0;
}

/* ---- compare ---- */

/* How many bytes of `text` fit a cell of `width` columns: up to the last blank that fits, else
 * cut at a whole character (Chinese has no blanks between words). */
static int cell_take(const char *text, int width)
{
    size_t len = strlen(text);
    if (display_width(text) <= (size_t)width)
        return (int)len;
    size_t fits = display_prefix(text, len, (size_t)width);
    for (size_t take = fits; take > 0 && display_width_n(text, take) > (size_t)width / 2; take--)
        if (text[take] == ' ')
            return (int)take;
    return fits ? (int)fits : 1;
}

/* One row of three columns (label, A, B), each wrapped to its width on as many lines as needed;
 * no trailing blanks. */
static void print_row(FILE *out, const char *label, const char *a, const char *b)
{
    const char *cells[3] = {label, a, b};
    const int widths[3] = {LABEL_WIDTH, CELL_WIDTH, CELL_WIDTH};
    do {
        /* Up to 4 bytes a column (UTF-8) and the blanks between. */
        char line[4 * (LABEL_WIDTH + 2 * CELL_WIDTH) + 16] = "  ";
        int take[3];
        for (int c = 0; c < 3; c++) {
            take[c] = cell_take(cells[c], widths[c]);
            char part[4 * CELL_WIDTH + 4];
            snprintf(part, sizeof part, "%.*s", take[c], cells[c]);
            if (c < 2) {
                append_padded(line, sizeof line, part, (size_t)widths[c]);
                append_padded(line, sizeof line, " ", 1);
            } else {
                append_padded(line, sizeof line, part, 0);
            }
        }
        int n = (int)strlen(line);
        while (n > 0 && line[n - 1] == ' ')
            n--;
        fprintf(out, "%.*s\n", n, line);
        for (int c = 0; c < 3; c++) {
            cells[c] += take[c];
            while (*cells[c] == ' ')
                cells[c]++;
        }
    } while (*cells[0] || *cells[1] || *cells[2]);
}

/* Each item of `items` ('\n'-separated) on a row of its own, in the A or the B column. */
static void print_item_rows(FILE *out, const char *items, bool in_a)
{
    char *copy = strdup(items ? items : "");
    if (!copy)
        abort();
    char *save = NULL;
    for (char *tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
        print_row(out, "", in_a ? tok : "", in_a ? "" : tok);
    free(copy);
}

static const char *value_or_dash(const char *v)
{
    return v ? v : "-";
}

static void print_compare_field(FILE *out, enum fleet_field k, const char *a, const char *b)
{
    const struct fleet_field_info *info = &fleet_fields[k];
    if (!info->list || !a || !b) {
        char *shown_a = fleet_value_shown(k, a), *shown_b = fleet_value_shown(k, b);
        print_row(out, _(info->label), value_or_dash(shown_a), value_or_dash(shown_b));
        free(shown_a);
        free(shown_b);
        return;
    }
    char *only_a = fleet_items_missing(a, b), *only_b = fleet_items_missing(b, a);
    char *shown_a = fleet_value_shown(k, only_a), *shown_b = fleet_value_shown(k, only_b);
    print_row(out, _(info->label), _("only on A:"), _("only on B:"));
    print_item_rows(out, shown_a, true);
    print_item_rows(out, shown_b, false);
    free(only_a);
    free(only_b);
    free(shown_a);
    free(shown_b);
}

/* Problem findings of `x` that `y` lacks. */
static void print_findings_only(FILE *out, const struct fleet_node *x, const struct fleet_node *y, const char *title)
{
    bool any = false;
    for (int i = 0; i < x->nfindings; i++) {
        if (!fleet_finding_only_on(x, i, y))
            continue;
        if (!any)
            fprintf(out, "\n%s\n", title);
        any = true;
        fputs("  ", out);
        print_finding(out, x->findings[i]);
    }
}

static int compare_text_unescaped(FILE *out, const struct fleet *fa, const struct fleet *fb)
{
    const struct fleet_node *a = &fa->nodes[0], *b = &fb->nodes[0];
    fprintf(out, "gpuvet compare\n  A  %s  (%s)\n  B  %s  (%s)\n", a->host, a->audit_file ? a->audit_file : a->bench_file,
            b->host, b->audit_file ? b->audit_file : b->bench_file);
    bool audits = a->class_key && b->class_key;
    if (audits) {
        int ndiff = 0;
        for (int k = 0; k < FLEET_NFIELDS; k++)
            ndiff += strcmp(a->field[k], b->field[k]) != 0;
        fprintf(out, "\n%s\n", ndiff ? _("differences:") : _("no differences in configuration"));
        if (ndiff)
            print_row(out, "", "A", "B");
        for (int k = 0; k < FLEET_NFIELDS; k++)
            if (strcmp(a->field[k], b->field[k]))
                print_compare_field(out, (enum fleet_field)k, a->field[k], b->field[k]);
        fputs(_("\nthe same on both:\n"), out);
        for (int k = 0; k < FLEET_NFIELDS; k++)
            if (!strcmp(a->field[k], b->field[k])) {
                char *shown = fleet_value_shown((enum fleet_field)k, a->field[k]);
                print_row(out, _(fleet_fields[k].label), shown, "");
                free(shown);
            }
    } else {
        fputs(a->class_key   ? _("\nconfiguration: B has no audit document\n")
              : b->class_key ? _("\nconfiguration: A has no audit document\n")
                             : _("\nconfiguration: neither has an audit document\n"),
              out);
    }
    bool bench_header = false;
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (isnan(a->metric[m]) && isnan(b->metric[m]))
            continue;
        if (!bench_header)
            fputs(_("\nbench figures:\n"), out);
        bench_header = true;
        char va[64], vb[96];
        fleet_figure_text(va, sizeof va, (enum fleet_metric)m, a->metric[m]);
        fleet_figure_text(vb, sizeof vb, (enum fleet_metric)m, b->metric[m]);
        if (!isnan(a->metric[m]) && !isnan(b->metric[m]) && a->metric[m] > 0)
            snprintf(vb + strlen(vb), sizeof vb - strlen(vb), _(" (%+.1f%% against A)"),
                     (b->metric[m] / a->metric[m] - 1) * 100);
        print_row(out, _(fleet_metrics[m].label), va, vb);
    }
    print_findings_only(out, a, b, _("problem findings only on A:"));
    print_findings_only(out, b, a, _("problem findings only on B:"));
    return ferror(out) ? -1 : 0;
}

/* Host names, models and finding texts come from the documents read: their terminal escape codes
 * are escaped on the way out (util/output.h), as the audit's text report does. */
struct fleet_text_args {
    const struct fleet *f, *fb;
    const struct fleet_analysis *a;
};

static int render_fleet(FILE *out, const void *ctx)
{
    const struct fleet_text_args *x = ctx;
    return fleet_text_unescaped(out, x->f, x->a);
}

static int render_compare(FILE *out, const void *ctx)
{
    const struct fleet_text_args *x = ctx;
    return compare_text_unescaped(out, x->f, x->fb);
}

int fleet_report_text(FILE *out, const struct fleet *f, const struct fleet_analysis *a)
{
    const struct fleet_text_args x = {.f = f, .a = a};
    return text_render_escaped(out, render_fleet, &x, NULL);
}

int compare_report_text(FILE *out, const struct fleet *fa, const struct fleet *fb)
{
    const struct fleet_text_args x = {.f = fa, .fb = fb};
    return text_render_escaped(out, render_compare, &x, NULL);
}
