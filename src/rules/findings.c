#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule.h"
#include "rules/verdict.h"
#include "util/i18n.h"
#include "util/sanitize.h"

const char *severity_name(enum severity s)
{
    switch (s) {
    case SEV_PASS: return N_("pass"); /* translated where people read it (explain) */
    case SEV_INFO: return N_("info");
    case SEV_UNKNOWN: return N_("unknown");
    case SEV_WARN: return N_("warn");
    case SEV_FAIL: return N_("fail");
    }
    return "?";
}

enum severity ctx_severity(const struct audit_ctx *ctx) { return ctx->rule->severity[ctx->workload]; }

void finding_add(struct audit_ctx *ctx, enum severity severity, const char *subject, json_t *evidence,
                 const char *fix, const char *fmt, ...)
{
    struct findings *f = ctx->out;
    struct finding *grown = realloc(f->items, (size_t)(f->count + 1) * sizeof *grown);
    if (!grown) {
        json_decref(evidence);
        return;
    }
    f->items = grown;
    struct finding *it = &f->items[f->count++];
    it->rule = ctx->rule;
    it->severity = severity;
    /* One line in every report: a newline or escape from the machine (a folder name, a DMI field)
     * shown as \xNN, never a line of its own (util/sanitize.h). */
    it->subject = text_without_controls(subject ? subject : "machine");
    it->evidence = evidence ? evidence : json_object();
    it->fix = fix ? strdup(fix) : NULL;
    it->message_local = it->fix_local = NULL;
    va_list ap;
    va_start(ap, fmt);
    char *message = NULL;
    if (vasprintf(&message, fmt, ap) < 0)
        message = NULL;
    va_end(ap);
    it->message = text_without_controls(message ? message : "");
    free(message);
}

const char *finding_message(const struct finding *f) { return f->message_local ? f->message_local : f->message; }
const char *finding_fix(const struct finding *f) { return f->fix_local ? f->fix_local : f->fix; }

void findings_adopt_local(struct findings *out, struct findings *local)
{
    bool paired = local->count == out->count;
    for (int i = 0; paired && i < out->count; i++)
        paired = local->items[i].rule == out->items[i].rule && local->items[i].severity == out->items[i].severity &&
                 !strcmp(local->items[i].subject, out->items[i].subject);
    for (int i = 0; paired && i < out->count; i++) {
        struct finding *it = &out->items[i];
        it->message_local = local->items[i].message;
        it->fix_local = local->items[i].fix;
        local->items[i].message = local->items[i].fix = NULL;
    }
    findings_free(local);
}

static int rule_index(const struct rule *r) { return (int)(r - rules_table); }

static int compare(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    if (x->severity != y->severity)
        return (int)y->severity - (int)x->severity;
    if (x->rule != y->rule)
        return rule_index(x->rule) - rule_index(y->rule);
    return strcmp(x->subject, y->subject);
}

void findings_sort(struct findings *f)
{
    if (f->count > 1)
        qsort(f->items, (size_t)f->count, sizeof *f->items, compare);
}

void findings_free(struct findings *f)
{
    for (int i = 0; i < f->count; i++) {
        free(f->items[i].subject);
        free(f->items[i].message);
        free(f->items[i].fix);
        free(f->items[i].message_local);
        free(f->items[i].fix_local);
        json_decref(f->items[i].evidence);
    }
    free(f->items);
    f->items = NULL;
    f->count = 0;
}

int findings_count(const struct findings *f, enum severity severity)
{
    int n = 0;
    for (int i = 0; i < f->count; i++)
        n += f->items[i].severity == severity;
    return n;
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

int findings_group(const struct findings *f, struct finding_group **out)
{
    *out = NULL;
    struct finding_group *groups = calloc((size_t)(f->count ? f->count : 1), sizeof *groups);
    if (!groups)
        return 0;
    int n = 0;
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        struct finding_group *g = NULL;
        /* Findings are sorted by severity and rule, so a fellow is in the groups of this run. */
        for (int k = n - 1; k >= 0 && groups[k].members[0]->rule == it->rule &&
                            groups[k].members[0]->severity == it->severity; k--) {
            const struct finding *first = groups[k].members[0];
            if (same_text(first->message, it->message) && same_text(first->fix, it->fix)) {
                g = &groups[k];
                break;
            }
        }
        if (!g) {
            g = &groups[n];
            g->members = calloc((size_t)f->count, sizeof *g->members);
            if (!g->members)
                continue;
            g->message = it->message;
            n++;
        }
        g->members[g->count++] = it;
    }
    *out = groups;
    return n;
}

void finding_groups_free(struct finding_group *groups, int count)
{
    for (int i = 0; i < count; i++)
        free(groups[i].members);
    free(groups);
}
