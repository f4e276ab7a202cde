#include "report/explain_text.h"

#include <string.h>
#include <strings.h>

#include "rules/verdict.h"
#include "util/i18n.h"

void explain_text_rule(FILE *out, const struct rule *r)
{
    /* The severities go on a line of their own, indented: after the label six workloads pass the
     * report's 100 columns. */
    fprintf(out, _("%s — %s\narea: %s\nseverity when it applies:\n  "), r->id, _(r->title), r->area);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        fprintf(out, "%s%s=%s", w ? " " : "", workload_name((enum workload)w), _(severity_name(r->severity[w])));
    char rationale[4096];
    thresholds_expand(_(r->rationale), rationale, sizeof rationale);
    fprintf(out, "\n\n%s\n", rationale);
}

void explain_text_rule_list(FILE *out)
{
    for (int i = 0; i < rules_count; i++) {
        const struct rule *r = &rules_table[i];
        fprintf(out, "%-24s %-7s %s\n", r->id, r->area, _(r->title));
    }
}

int explain_text_prefixed(FILE *out, const char *prefix)
{
    int n = 0;
    for (int i = 0; i < rules_count; i++)
        if (!strncasecmp(rules_table[i].id, prefix, strlen(prefix))) {
            fprintf(out, "%-24s %-7s %s\n", rules_table[i].id, rules_table[i].area, _(rules_table[i].title));
            n++;
        }
    return n;
}

void explain_text_workload(FILE *out, enum workload w, const char *name)
{
    fprintf(out, _("workload %s: the verdict is FAIL with a fail finding, WARN with a warning, INCONCLUSIVE when\n"
                   "one of these key facts is unknown, and PASS only when none is:\n"), name);
    verdict_describe_key_facts(out, w);
    fputs(_("\nOther unknowns (measurements, history, software settings) are listed but do not make the\n"
            "verdict inconclusive. The exit status is 1 with a fail, else 0 (INCONCLUSIVE included).\n"), out);
}
