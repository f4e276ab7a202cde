/* Groups, majorities and the nodes that stand out (fleet.h). Counting uses the string pool's
 * scratch counters, so every pass is linear in the number of nodes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "util/hostlist.h"
#include "util/sanitize.h"

static void *grow_array(void *array, int count, size_t size)
{
    void *p = realloc(array, (size_t)(count + 1) * size);
    if (!p)
        abort();
    return p;
}

/* The value more than half of the group's audited nodes hold, or NULL. */
static const char *majority_of(const struct fleet *f, const struct fleet_group *g, enum fleet_field field)
{
    const char *best = NULL;
    int best_count = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = f->nodes[g->nodes[i]].field[field];
        if (!v)
            continue;
        int c = ++*fleet_counter(v);
        if (c > best_count)
            best = v, best_count = c;
    }
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = f->nodes[g->nodes[i]].field[field];
        if (v)
            *fleet_counter(v) = 0;
    }
    return best_count * 2 > g->naudited ? best : NULL;
}

/* Each value of a field without a majority, with its nodes; the value's counter holds its index + 1
 * while they are gathered. */
static void record_split(const struct fleet *f, struct fleet_group *g, enum fleet_field field)
{
    struct fleet_split split = {field, NULL, 0};
    for (int i = 0; i < g->nnodes; i++) {
        const char *v = f->nodes[g->nodes[i]].field[field];
        if (!v)
            continue;
        int *index = fleet_counter(v);
        if (*index == 0) {
            split.values = grow_array(split.values, split.nvalues, sizeof *split.values);
            split.values[split.nvalues] = (struct fleet_value_nodes){v, NULL, 0};
            *index = ++split.nvalues;
        }
        struct fleet_value_nodes *vn = &split.values[*index - 1];
        vn->nodes = grow_array(vn->nodes, vn->nnodes, sizeof *vn->nodes);
        vn->nodes[vn->nnodes++] = g->nodes[i];
    }
    for (int i = 0; i < split.nvalues; i++)
        *fleet_counter(split.values[i].value) = 0;
    g->splits = grow_array(g->splits, g->nsplits, sizeof *g->splits);
    g->splits[g->nsplits++] = split;
}

static void find_odd_nodes(const struct fleet *f, struct fleet_group *g)
{
    for (int k = 0; k < FLEET_NFIELDS; k++) {
        g->majority[k] = majority_of(f, g, (enum fleet_field)k);
        if (!g->majority[k] && g->naudited > 1)
            record_split(f, g, (enum fleet_field)k);
    }
    for (int i = 0; i < g->nnodes; i++) {
        const struct fleet_node *n = &f->nodes[g->nodes[i]];
        if (!n->class_key)
            continue;
        struct fleet_odd_node odd = {g->nodes[i], NULL, 0};
        for (int k = 0; k < FLEET_NFIELDS; k++) {
            if (!g->majority[k] || n->field[k] == g->majority[k])
                continue;
            odd.differences = grow_array(odd.differences, odd.ndifferences, sizeof *odd.differences);
            odd.differences[odd.ndifferences++] =
                (struct fleet_difference){(enum fleet_field)k, n->field[k], g->majority[k]};
        }
        if (odd.ndifferences) {
            g->odd = grow_array(g->odd, g->nodd, sizeof *g->odd);
            g->odd[g->nodd++] = odd;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* SuperBench's rule: a node more than `tolerance` below its group's median is flagged. With fewer
 * than three measured nodes there is no majority to stand out from. */
static void find_low_figures(const struct fleet *f, struct fleet_group *g, double tolerance)
{
    double *values = malloc((size_t)g->nnodes * sizeof *values);
    if (!values)
        abort();
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        int n = 0;
        for (int i = 0; i < g->nnodes; i++)
            if (!isnan(f->nodes[g->nodes[i]].metric[m]))
                values[n++] = f->nodes[g->nodes[i]].metric[m];
        g->measured[m] = n;
        g->median[m] = NAN;
        if (n < FLEET_MIN_MEDIAN_NODES)
            continue;
        qsort(values, (size_t)n, sizeof *values, cmp_double);
        double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        g->median[m] = median;
        for (int i = 0; i < g->nnodes; i++) {
            double v = f->nodes[g->nodes[i]].metric[m];
            if (isnan(v) || !(v < median * (1 - tolerance)))
                continue;
            g->low = grow_array(g->low, g->nlow, sizeof *g->low);
            g->low[g->nlow++] = (struct fleet_low_figure){g->nodes[i], (enum fleet_metric)m, v, median};
        }
    }
    free(values);
}

/* Problem findings some audited nodes of the group have and others do not (bench-only groups: some
 * nodes). */
static void find_partial_findings(const struct fleet *f, struct fleet_group *g)
{
    const char **distinct = NULL;
    int ndistinct = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const struct fleet_node *n = &f->nodes[g->nodes[i]];
        for (int k = 0; k < n->nfindings; k++)
            if ((*fleet_counter(n->findings[k]))++ == 0) {
                distinct = grow_array(distinct, ndistinct, sizeof *distinct);
                distinct[ndistinct++] = n->findings[k];
            }
    }
    /* Counters now hold how many nodes have each finding; a partial one's becomes -(index + 1)
     * so that the second pass can place its nodes. */
    /* A bench-only group's findings come from its bench documents (GPU_MEMORY_ERRORS): all its nodes were judged. */
    int judged = g->naudited ? g->naudited : g->nnodes;
    for (int d = 0; d < ndistinct; d++) {
        int *counter = fleet_counter(distinct[d]);
        if (*counter >= judged) {
            *counter = 0;
            continue;
        }
        g->partial = grow_array(g->partial, g->npartial, sizeof *g->partial);
        g->partial[g->npartial] = (struct fleet_partial_finding){distinct[d], malloc((size_t)*counter * sizeof(size_t)), 0};
        if (!g->partial[g->npartial].nodes)
            abort();
        *counter = -(++g->npartial);
    }
    for (int i = 0; i < g->nnodes; i++) {
        const struct fleet_node *n = &f->nodes[g->nodes[i]];
        for (int k = 0; k < n->nfindings; k++) {
            int c = *fleet_counter(n->findings[k]);
            if (c < 0) {
                struct fleet_partial_finding *p = &g->partial[-c - 1];
                p->nodes[p->nnodes++] = g->nodes[i];
            }
        }
    }
    for (int d = 0; d < ndistinct; d++)
        *fleet_counter(distinct[d]) = 0;
    free(distinct);
}

static int cmp_group(const void *a, const void *b)
{
    const struct fleet_group *x = a, *y = b;
    if (x->nnodes != y->nnodes)
        return y->nnodes - x->nnodes;
    if (!x->class_key || !y->class_key)
        return !x->class_key - !y->class_key;
    return strcmp(x->class_key, y->class_key);
}

const char *fleet_reason_name(enum fleet_reason_kind kind)
{
    switch (kind) {
    case FR_CONFIGURATION: return "configuration";
    case FR_LOW_FIGURE: return "low_figure";
    case FR_FAIL_OTHERS_LACK: return "fail_others_lack";
    case FR_DOCUMENTS_DISAGREE: return "documents_disagree";
    }
    return "configuration";
}

static void add_reason(struct fleet_attention *per_node, size_t node, enum fleet_reason_kind kind, const char *what,
                       int index)
{
    struct fleet_attention *a = &per_node[node];
    a->node = node;
    a->reasons = grow_array(a->reasons, a->nreasons, sizeof *a->reasons);
    a->reasons[a->nreasons++] = (struct fleet_reason){kind, what, index};
}

/* Every node that needs attention, with why, in node order: a drain script keyed on odd_hosts
 * must not skip the one node of four with a FAIL the others lack. */
static void find_attention(const struct fleet *f, struct fleet_analysis *out)
{
    struct fleet_attention *per_node = calloc(f->count ? f->count : 1, sizeof *per_node);
    if (!per_node)
        abort();
    for (int i = 0; i < out->ngroups; i++) {
        const struct fleet_group *g = &out->groups[i];
        for (int k = 0; k < g->nodd; k++)
            for (int d = 0; d < g->odd[k].ndifferences; d++)
                add_reason(per_node, g->odd[k].node, FR_CONFIGURATION,
                           fleet_fields[g->odd[k].differences[d].field].key, (int)g->odd[k].differences[d].field);
        for (int k = 0; k < g->nlow; k++)
            add_reason(per_node, g->low[k].node, FR_LOW_FIGURE, fleet_metrics[g->low[k].metric].key,
                       (int)g->low[k].metric);
        for (int k = 0; k < g->npartial; k++)
            if (!strncmp(g->partial[k].finding, "fail ", 5))
                for (int n = 0; n < g->partial[k].nnodes; n++)
                    add_reason(per_node, g->partial[k].nodes[n], FR_FAIL_OTHERS_LACK, g->partial[k].finding, 0);
    }
    for (size_t i = 0; i < f->count; i++)
        if (f->nodes[i].disagreeing_fail)
            add_reason(per_node, i, FR_DOCUMENTS_DISAGREE, f->nodes[i].disagreeing_fail, 0);
    for (size_t i = 0; i < f->count; i++)
        if (per_node[i].nreasons) {
            out->attention = grow_array(out->attention, out->nattention, sizeof *out->attention);
            out->attention[out->nattention++] = per_node[i];
        }
    free(per_node);
}

void fleet_analyse(struct fleet *f, double tolerance, struct fleet_analysis *out)
{
    memset(out, 0, sizeof *out);
    out->tolerance = tolerance;
    /* The class key's counter holds its group's index + 1 while grouping; bench-only nodes (no
     * class) share one group. */
    int bench_only = -1;
    for (size_t i = 0; i < f->count; i++) {
        const char *key = f->nodes[i].class_key;
        int index = key ? *fleet_counter(key) - 1 : bench_only;
        if (index < 0) {
            out->groups = grow_array(out->groups, out->ngroups, sizeof *out->groups);
            memset(&out->groups[out->ngroups], 0, sizeof *out->groups);
            out->groups[out->ngroups].class_key = key;
            index = out->ngroups++;
            if (key)
                *fleet_counter(key) = index + 1;
            else
                bench_only = index;
        }
        struct fleet_group *g = &out->groups[index];
        g->nodes = grow_array(g->nodes, g->nnodes, sizeof *g->nodes);
        g->nodes[g->nnodes++] = i;
        g->naudited += key != NULL;
    }
    for (int i = 0; i < out->ngroups; i++)
        if (out->groups[i].class_key)
            *fleet_counter(out->groups[i].class_key) = 0;
    qsort(out->groups, (size_t)out->ngroups, sizeof *out->groups, cmp_group);
    for (int i = 0; i < out->ngroups; i++) {
        find_odd_nodes(f, &out->groups[i]);
        find_low_figures(f, &out->groups[i], tolerance);
        find_partial_findings(f, &out->groups[i]);
    }
    find_attention(f, out);
}

void fleet_analysis_free(struct fleet_analysis *a)
{
    for (int i = 0; i < a->ngroups; i++) {
        struct fleet_group *g = &a->groups[i];
        for (int k = 0; k < g->nodd; k++)
            free(g->odd[k].differences);
        for (int k = 0; k < g->npartial; k++)
            free(g->partial[k].nodes);
        for (int k = 0; k < g->nsplits; k++) {
            for (int v = 0; v < g->splits[k].nvalues; v++)
                free(g->splits[k].values[v].nodes);
            free(g->splits[k].values);
        }
        free(g->splits);
        free(g->odd);
        free(g->low);
        free(g->partial);
        free(g->nodes);
    }
    free(a->groups);
    for (int i = 0; i < a->nattention; i++)
        free(a->attention[i].reasons);
    free(a->attention);
    memset(a, 0, sizeof *a);
}

char *fleet_hostlist(const struct fleet *f, const size_t *nodes, size_t n)
{
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
        abort();
    size_t plain = 0;
    for (size_t i = 0; i < n; i++)
        if (hostname_is_plain(f->nodes[nodes[i]].host)) /* "gpu[01-99],login1" would name 100 nodes */
            names[plain++] = f->nodes[nodes[i]].host;
    char *list = hostlist_compress(names, plain);
    free(names);
    return list;
}

char *fleet_odd_hostlist(const struct fleet *f, const struct fleet_analysis *a)
{
    size_t *nodes = malloc((a->nattention ? (size_t)a->nattention : 1) * sizeof *nodes);
    if (!nodes)
        abort();
    for (int i = 0; i < a->nattention; i++)
        nodes[i] = a->attention[i].node;
    char *list = fleet_hostlist(f, nodes, (size_t)a->nattention);
    free(nodes);
    return list;
}

size_t fleet_unplain_hosts(const struct fleet *f, const char ***names)
{
    size_t n = 0;
    *names = NULL;
    for (size_t i = 0; i < f->count; i++) {
        if (hostname_is_plain(f->nodes[i].host))
            continue;
        const char **grown = realloc(*names, (n + 1) * sizeof *grown);
        if (!grown)
            abort();
        *names = grown;
        (*names)[n++] = f->nodes[i].host;
    }
    return n;
}

size_t fleet_failing_nodes(const struct fleet *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++) {
        bool fails = false;
        for (int k = 0; k < f->nodes[i].nfindings && !fails; k++)
            fails = !strncmp(f->nodes[i].findings[k], "fail ", 5);
        n += fails;
    }
    return n;
}

char *fleet_unplain_line(const struct fleet *f)
{
    const char **names;
    size_t n = fleet_unplain_hosts(f, &names);
    char *line = NULL;
    size_t len = 0;
    FILE *o = n ? open_memstream(&line, &len) : NULL;
    for (size_t i = 0; o && i < n; i++)
        fprintf(o, "%s\"%s\"", i ? ", " : "", names[i]);
    if (o)
        fclose(o);
    free(names);
    return line;
}
