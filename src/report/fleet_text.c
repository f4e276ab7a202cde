/* `gpuvet fleet` and `gpuvet compare` for people. compare wraps its three columns within 100
 * columns; fleet prints long values (a DIMM list item, a model name) whole. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "util/output.h"

#define LABEL_WIDTH 24
#define CELL_WIDTH 36

static void print_items(FILE *out, const char *indent, const char *what, const char *items)
{
    for (const char *p = items; p && *p;) {
        const char *end = strchr(p, '\n');
        int n = end ? (int)(end - p) : (int)strlen(p);
        fprintf(out, "%s%s%s%.*s\n", indent, what, *what ? " " : "", n, p);
        p = end ? end + 1 : NULL;
    }
}

static void print_difference(FILE *out, const struct fleet_difference *d)
{
    const struct fleet_field_info *info = &fleet_fields[d->field];
    if (!info->list) {
        fprintf(out, "      %s: %s\n        the group has: %s\n", info->label, d->value, d->majority);
        return;
    }
    fprintf(out, "      %s:\n", info->label);
    char *missing = fleet_items_missing(d->majority, d->value), *extra = fleet_items_missing(d->value, d->majority);
    print_items(out, "        ", "lacks", missing);
    print_items(out, "        ", "has  ", extra);
    free(missing);
    free(extra);
}

static void print_figure(FILE *out, enum fleet_metric m, double v)
{
    char buf[64];
    fleet_figure_text(buf, sizeof buf, m, v);
    fputs(buf, out);
}

static void print_group(FILE *out, const struct fleet *f, const struct fleet_analysis *a, int index)
{
    const struct fleet_group *g = &a->groups[index];
    char *title = fleet_group_title(f, a, index, false);
    fprintf(out, "\n%s\n", title);
    free(title);
    if (!g->class_key) {
        fprintf(out, "  bench documents without an audit document: configuration unknown\n");
    } else {
        fprintf(out, "  configuration%s:\n", g->nnodes > 1 ? " of the majority" : "");
        for (int k = 0; k < FLEET_NFIELDS; k++) {
            fprintf(out, "    %-*s ", LABEL_WIDTH, fleet_fields[k].label);
            char value[4096];
            if (g->majority[k])
                fleet_value_line(value, sizeof value, (enum fleet_field)k, g->majority[k]);
            fprintf(out, "%s\n", g->majority[k] ? value : "no majority: the nodes differ");
        }
    }
    if (g->nodd) {
        fprintf(out, "  odd nodes, against the group's majority:\n");
        for (int i = 0; i < g->nodd; i++) {
            fprintf(out, "    %s\n", f->nodes[g->odd[i].node].host);
            for (int k = 0; k < g->odd[i].ndifferences; k++)
                print_difference(out, &g->odd[i].differences[k]);
        }
    }
    for (int i = 0; i < g->nsplits; i++) {
        const struct fleet_split *sp = &g->splits[i];
        fprintf(out, "  %s: no value on more than half of the nodes\n", fleet_fields[sp->field].label);
        for (int v = 0; v < sp->nvalues; v++) {
            char *list = fleet_hostlist(f, sp->values[v].nodes, (size_t)sp->values[v].nnodes);
            if (fleet_fields[sp->field].list)
                print_items(out, "    ", "", sp->values[v].value);
            else
                fprintf(out, "    %s\n", sp->values[v].value);
            fprintf(out, "      on %s (%d of %d)\n", list, sp->values[v].nnodes, g->naudited);
            free(list);
        }
    }
    if (g->nlow) {
        fprintf(out, "  bench figures more than %g%% below the group's median:\n", a->tolerance * 100);
        for (int i = 0; i < g->nlow; i++) {
            const struct fleet_low_figure *l = &g->low[i];
            fprintf(out, "    %s  %s ", f->nodes[l->node].host, fleet_metrics[l->metric].label);
            print_figure(out, l->metric, l->value);
            fprintf(out, ", median ");
            print_figure(out, l->metric, l->median);
            fprintf(out, " (%+.1f%%)\n", (l->value / l->median - 1) * 100);
        }
    }
    for (int m = 0; m < FLEET_NMETRICS; m++)
        if (g->measured[m] > 0 && g->measured[m] < FLEET_MIN_MEDIAN_NODES)
            fprintf(out, "  %s: measured on %d node%s, fewer than %d: no median to judge against\n",
                    fleet_metrics[m].label, g->measured[m], g->measured[m] == 1 ? "" : "s", FLEET_MIN_MEDIAN_NODES);
    if (g->npartial) {
        fprintf(out, "  problem findings on only some nodes:\n");
        for (int i = 0; i < g->npartial; i++) {
            char *list = fleet_hostlist(f, g->partial[i].nodes, (size_t)g->partial[i].nnodes);
            fprintf(out, "    %s\n      on %s (%d of %d)\n", g->partial[i].finding, list, g->partial[i].nnodes,
                    g->naudited);
            free(list);
        }
    }
    if (g->class_key && !g->nodd && !g->nsplits && !g->nlow && !g->npartial)
        fprintf(out, "  every node alike\n");
}

static int fleet_text_unescaped(FILE *out, const struct fleet *f, const struct fleet_analysis *a)
{
    char summary[256];
    fleet_summary_line(summary, sizeof summary, f, a);
    fprintf(out, "gpuvet fleet: %s\n", summary);
    char *odd = fleet_odd_hostlist(f, a);
    fprintf(out, "odd nodes: %s\n", *odd ? odd : "none");
    free(odd);
    for (int i = 0; i < a->ngroups; i++)
        print_group(out, f, a, i);
    return ferror(out) ? -1 : 0;
}

/* ---- compare ---- */

/* How much of `text` fits a cell of `width`: up to the last blank that fits, else cut. */
static int cell_take(const char *text, int width)
{
    int len = (int)strlen(text);
    if (len <= width)
        return len;
    for (int take = width; take > width / 2; take--)
        if (text[take] == ' ')
            return take;
    return width;
}

/* One row of three columns (label, A, B), each wrapped to its width on as many lines as needed;
 * no trailing blanks. */
static void print_row(FILE *out, const char *label, const char *a, const char *b)
{
    const char *cells[3] = {label, a, b};
    const int widths[3] = {LABEL_WIDTH, CELL_WIDTH, CELL_WIDTH};
    do {
        char line[LABEL_WIDTH + 2 * CELL_WIDTH + 8];
        int take[3];
        for (int c = 0; c < 3; c++)
            take[c] = cell_take(cells[c], widths[c]);
        int n = snprintf(line, sizeof line, "  %-*.*s %-*.*s %.*s", widths[0], take[0], cells[0], widths[1], take[1],
                         cells[1], take[2], cells[2]);
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
        print_row(out, info->label, value_or_dash(a), value_or_dash(b));
        return;
    }
    char *only_a = fleet_items_missing(a, b), *only_b = fleet_items_missing(b, a);
    print_row(out, info->label, "only on A:", "only on B:");
    print_item_rows(out, only_a, true);
    print_item_rows(out, only_b, false);
    free(only_a);
    free(only_b);
}

/* Problem findings of `x` that `y` lacks. */
static void print_findings_only(FILE *out, const struct fleet_node *x, const struct fleet_node *y, const char *title)
{
    bool any = false;
    for (int i = 0; i < x->nfindings; i++) {
        if (!fleet_finding_only_on(x, i, y))
            continue;
        if (!any)
            fprintf(out, "\n%s:\n", title);
        any = true;
        fprintf(out, "  %s\n", x->findings[i]);
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
        fprintf(out, "\n%s\n", ndiff ? "differences:" : "no differences in configuration");
        if (ndiff)
            print_row(out, "", "A", "B");
        for (int k = 0; k < FLEET_NFIELDS; k++)
            if (strcmp(a->field[k], b->field[k]))
                print_compare_field(out, (enum fleet_field)k, a->field[k], b->field[k]);
        fprintf(out, "\nthe same on both:\n");
        for (int k = 0; k < FLEET_NFIELDS; k++)
            if (!strcmp(a->field[k], b->field[k]))
                print_row(out, fleet_fields[k].label, a->field[k], "");
    } else {
        fprintf(out, "\nconfiguration: %s\n", a->class_key   ? "B has no audit document"
                                               : b->class_key ? "A has no audit document"
                                                              : "neither has an audit document");
    }
    bool bench_header = false;
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (isnan(a->metric[m]) && isnan(b->metric[m]))
            continue;
        if (!bench_header)
            fprintf(out, "\nbench figures:\n");
        bench_header = true;
        char va[64], vb[96];
        fleet_figure_text(va, sizeof va, (enum fleet_metric)m, a->metric[m]);
        fleet_figure_text(vb, sizeof vb, (enum fleet_metric)m, b->metric[m]);
        if (!isnan(a->metric[m]) && !isnan(b->metric[m]) && a->metric[m] > 0)
            snprintf(vb + strlen(vb), sizeof vb - strlen(vb), " (%+.1f%% against A)", (b->metric[m] / a->metric[m] - 1) * 100);
        print_row(out, fleet_metrics[m].label, va, vb);
    }
    print_findings_only(out, a, b, "problem findings only on A");
    print_findings_only(out, b, a, "problem findings only on B");
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
