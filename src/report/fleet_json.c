/* gpuvet.fleet/1 and gpuvet.compare/1 (docs/fleet-json.md). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_report.h"
#include "util/i18n.h"
#include "util/jsonval.h"
#include "util/sanitize.h"

/* A field value as JSON: a string, or an array of strings for list fields. */
static json_t *value_json(enum fleet_field field, const char *value)
{
    if (!value)
        return json_null();
    if (!fleet_fields[field].list)
        return json_string(value);
    json_t *items = json_array();
    for (const char *p = value; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        json_array_append_new(items, json_stringn(p, n));
        p += n + (end ? 1 : 0);
    }
    return items;
}

static json_t *number_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* "fail RULE_ID subject" as {severity, id, subject}. */
static json_t *finding_json(const char *key)
{
    struct fleet_finding_parts parts;
    if (!fleet_finding_split(key, &parts))
        return json_pack("{s:s}", "finding", key);
    return json_pack("{s:s, s:s, s:s}", "severity", parts.severity, "id", parts.id, "subject", parts.subject);
}

static json_t *host_array(const struct fleet *f, const size_t *nodes, int n)
{
    json_t *names = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(names, json_text(f->nodes[nodes[i]].host));
    return names;
}

static json_t *hostlist_json(const struct fleet *f, const size_t *nodes, int n)
{
    char *list = fleet_hostlist(f, nodes, (size_t)n);
    json_t *v = json_string(list);
    free(list);
    return v;
}

static json_t *difference_json(const struct fleet_difference *d)
{
    json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "field", fleet_fields[d->field].key, "label",
                          fleet_fields[d->field].label, "value", value_json(d->field, d->value), "majority",
                          value_json(d->field, d->majority));
    if (fleet_fields[d->field].list) {
        char *missing = fleet_items_missing(d->majority, d->value), *extra = fleet_items_missing(d->value, d->majority);
        json_object_set_new(o, "missing", value_json(d->field, missing ? missing : ""));
        json_object_set_new(o, "extra", value_json(d->field, extra ? extra : ""));
        free(missing);
        free(extra);
    }
    return o;
}

static json_t *group_json(const struct fleet *f, const struct fleet_group *g)
{
    json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:o}", "hosts", hostlist_json(f, g->nodes, g->nnodes), "host_names",
                          host_array(f, g->nodes, g->nnodes), "count", g->nnodes, "audited", g->naudited, "class",
                          g->class_key ? json_string(g->class_key) : json_null());
    json_t *config = json_object();
    for (int k = 0; k < FLEET_NFIELDS; k++)
        json_object_set_new(config, fleet_fields[k].key,
                            g->class_key ? value_json((enum fleet_field)k, g->majority[k]) : json_null());
    json_object_set_new(o, "configuration", config);
    json_t *odd = json_array();
    for (int i = 0; i < g->nodd; i++) {
        const struct fleet_node *n = &f->nodes[g->odd[i].node];
        json_t *diffs = json_array();
        for (int k = 0; k < g->odd[i].ndifferences; k++)
            json_array_append_new(diffs, difference_json(&g->odd[i].differences[k]));
        json_array_append_new(odd, json_pack("{s:o, s:o, s:o}", "host", json_text(n->host), "file", json_string_or_null(n->audit_file),
                                             "differences", diffs));
    }
    json_object_set_new(o, "odd_nodes", odd);
    json_t *splits = json_array();
    for (int i = 0; i < g->nsplits; i++) {
        const struct fleet_split *sp = &g->splits[i];
        json_t *values = json_array();
        for (int v = 0; v < sp->nvalues; v++)
            json_array_append_new(values, json_pack("{s:o, s:o, s:i}", "value", value_json(sp->field, sp->values[v].value),
                                                    "hosts", hostlist_json(f, sp->values[v].nodes, sp->values[v].nnodes),
                                                    "count", sp->values[v].nnodes));
        json_array_append_new(splits, json_pack("{s:s, s:s, s:o}", "field", fleet_fields[sp->field].key, "label",
                                                fleet_fields[sp->field].label, "values", values));
    }
    json_object_set_new(o, "splits", splits);
    json_t *bench = json_array();
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (!g->measured[m])
            continue;
        json_t *low = json_array();
        for (int i = 0; i < g->nlow; i++)
            if (g->low[i].metric == (enum fleet_metric)m)
                json_array_append_new(low, json_pack("{s:o, s:f, s:f}", "host", json_text(f->nodes[g->low[i].node].host),
                                                     "value", g->low[i].value, "ratio",
                                                     g->low[i].value / g->low[i].median));
        json_array_append_new(bench, json_pack("{s:s, s:i, s:o, s:o}", "metric", fleet_metrics[m].key, "measured",
                                               g->measured[m], "median", number_or_null(g->median[m]), "low",
                                               low));
    }
    json_object_set_new(o, "bench", bench);
    json_t *partial = json_array();
    for (int i = 0; i < g->npartial; i++) {
        json_t *p = finding_json(g->partial[i].finding);
        json_object_set_new(p, "hosts", hostlist_json(f, g->partial[i].nodes, g->partial[i].nnodes));
        json_object_set_new(p, "host_names", host_array(f, g->partial[i].nodes, g->partial[i].nnodes));
        json_object_set_new(p, "count", json_integer(g->partial[i].nnodes));
        json_array_append_new(partial, p);
    }
    json_object_set_new(o, "partial_findings", partial);
    return o;
}

/* Every node that needs attention, with why: what odd_hosts lists, one entry per host. */
static json_t *attention_json(const struct fleet *f, const struct fleet_analysis *a)
{
    json_t *list = json_array();
    for (int i = 0; i < a->nattention; i++) {
        const struct fleet_attention *at = &a->attention[i];
        const struct fleet_node *n = &f->nodes[at->node];
        json_t *reasons = json_array();
        for (int k = 0; k < at->nreasons; k++) {
            const struct fleet_reason *r = &at->reasons[k];
            json_t *o = json_pack("{s:s}", "kind", fleet_reason_name(r->kind));
            if (r->kind == FR_FAIL_OTHERS_LACK || r->kind == FR_DOCUMENTS_DISAGREE)
                json_object_set_new(o, "finding", finding_json(r->what));
            else
                json_object_set_new(o, r->kind == FR_CONFIGURATION ? "field" : "metric", json_string(r->what));
            if (r->kind == FR_DOCUMENTS_DISAGREE)
                json_object_set_new(o, "other_file", json_string_or_null(n->disagreeing_file));
            json_array_append_new(reasons, o);
        }
        json_array_append_new(list, json_pack("{s:o, s:o, s:o}", "host", json_text(n->host), "file",
                                              json_string_or_null(n->audit_file), "reasons", reasons));
    }
    return list;
}

static int dump(FILE *out, json_t *doc)
{
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    json_decref(doc);
    fputc('\n', out);
    return rc != 0 || ferror(out) ? -1 : 0;
}

static int fleet_json_english(FILE *out, const struct fleet *f, const struct fleet_analysis *a)
{
    json_t *groups = json_array();
    for (int i = 0; i < a->ngroups; i++)
        json_array_append_new(groups, group_json(f, &a->groups[i]));
    char *list = fleet_odd_hostlist(f, a);
    json_t *doc = json_pack("{s:s, s:s, s:f, s:I, s:I, s:I, s:s, s:o}", "schema", FLEET_SCHEMA, "gpuvet_version",
                            GPUVET_VERSION, "tolerance", a->tolerance, "nodes", (json_int_t)f->count,
                            "audit_documents", (json_int_t)f->audits, "bench_documents", (json_int_t)f->benches,
                            "odd_hosts", list, "groups", groups);
    free(list);
    json_object_set_new(doc, "odd_host_reasons", attention_json(f, a));
    /* Names that would change a hostlist's meaning ("gpu[01-99],login1") are in none of its
     * hostlists: listed here, as plain strings. */
    const char **apart;
    size_t napart = fleet_unplain_hosts(f, &apart);
    json_t *unlisted = json_array();
    for (size_t i = 0; i < napart; i++)
        json_array_append_new(unlisted, json_text(apart[i]));
    free(apart);
    json_object_set_new(doc, "hosts_not_in_hostlists", unlisted);
    return dump(out, doc);
}

static json_t *side_json(const struct fleet_node *n)
{
    return json_pack("{s:o, s:o, s:o}", "host", json_text(n->host), "audit_file",
                     n->audit_file ? json_string(n->audit_file) : json_null(), "bench_file",
                     n->bench_file ? json_string(n->bench_file) : json_null());
}

static json_t *findings_only(const struct fleet_node *x, const struct fleet_node *y)
{
    json_t *list = json_array();
    for (int i = 0; i < x->nfindings; i++)
        if (fleet_finding_only_on(x, i, y))
            json_array_append_new(list, finding_json(x->findings[i]));
    return list;
}

static int compare_json_english(FILE *out, const struct fleet *fa, const struct fleet *fb)
{
    const struct fleet_node *a = &fa->nodes[0], *b = &fb->nodes[0];
    json_t *differences = json_array(), *same = json_array(), *bench = json_array();
    for (int k = 0; k < FLEET_NFIELDS; k++) {
        const char *va = a->field[k], *vb = b->field[k];
        enum fleet_field field = (enum fleet_field)k;
        if (va && vb && !strcmp(va, vb)) {
            json_array_append_new(same, json_pack("{s:s, s:s, s:o}", "field", fleet_fields[k].key, "label",
                                                  fleet_fields[k].label, "value", value_json(field, va)));
            continue;
        }
        json_t *d = json_pack("{s:s, s:s, s:o, s:o}", "field", fleet_fields[k].key, "label", fleet_fields[k].label,
                              "a", value_json(field, va), "b", value_json(field, vb));
        if (fleet_fields[k].list && va && vb) {
            char *only_a = fleet_items_missing(va, vb), *only_b = fleet_items_missing(vb, va);
            json_object_set_new(d, "only_a", value_json(field, only_a ? only_a : ""));
            json_object_set_new(d, "only_b", value_json(field, only_b ? only_b : ""));
            free(only_a);
            free(only_b);
        }
        json_array_append_new(differences, d);
    }
    for (int m = 0; m < FLEET_NMETRICS; m++) {
        if (isnan(a->metric[m]) && isnan(b->metric[m]))
            continue;
        double ratio = a->metric[m] > 0 ? b->metric[m] / a->metric[m] : NAN;
        json_array_append_new(bench, json_pack("{s:s, s:o, s:o, s:o}", "metric", fleet_metrics[m].key, "a",
                                               number_or_null(a->metric[m]), "b", number_or_null(b->metric[m]),
                                               "ratio_b_to_a", number_or_null(ratio)));
    }
    json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}", "schema", COMPARE_SCHEMA,
                            "gpuvet_version", GPUVET_VERSION, "a", side_json(a), "b", side_json(b), "differences",
                            differences, "same", same, "bench", bench, "findings", "only_a", findings_only(a, b),
                            "only_b", findings_only(b, a));
    return dump(out, doc);
}

/* Machine output: English whatever language the run shows people (util/i18n.h). */
int fleet_report_json(FILE *out, const struct fleet *f, const struct fleet_analysis *a)
{
    i18n_english_begin();
    int rc = fleet_json_english(out, f, a);
    i18n_english_end();
    return rc;
}

int compare_report_json(FILE *out, const struct fleet *fa, const struct fleet *fb)
{
    i18n_english_begin();
    int rc = compare_json_english(out, fa, fb);
    i18n_english_end();
    return rc;
}
