#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "builtin/builtin.h"
#include "rules/rule.h"
#include "rules/verdict.h"
#include "util/i18n.h"
#include "util/suggest.h"

static void print_usage(FILE *out)
{
    fputs(_("usage: gpuvet explain RULE_ID|PREFIX|WORKLOAD\n"
            "\n"
            "Prints a rule's rationale and its severity per workload, the rules whose IDs start with\n"
            "PREFIX (PCIE lists the PCIe rules), or the key facts a workload's verdict needs.\n"
            "\n"
            "workloads:"), out);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        fprintf(out, " %s", workload_name((enum workload)w));
    fputs(_("\nrules: gpuvet audit --list-rules\n"
            "exit status: 0 explained, 2 no such rule, prefix or workload\n"), out);
}

/* The rules whose ID starts with prefix (case-insensitive), one line each; how many. */
static int list_prefixed(const char *prefix)
{
    int n = 0;
    for (int i = 0; i < rules_count; i++)
        if (!strncasecmp(rules_table[i].id, prefix, strlen(prefix))) {
            printf("%-24s %-7s %s\n", rules_table[i].id, rules_table[i].area, _(rules_table[i].title));
            n++;
        }
    return n;
}

static int no_such_rule(const char *query)
{
    const char *names[256];
    size_t count = 0;
    for (int i = 0; i < rules_count && count < 256; i++)
        names[count++] = rules_table[i].id;
    for (int w = 0; w < WORKLOAD_COUNT && count < 256; w++)
        names[count++] = workload_name((enum workload)w);
    const char *closest = closest_name(query, names, count);
    if (closest)
        fprintf(stderr, _("gpuvet explain: no rule, rule prefix or workload '%s'; did you mean %s?\n"), query, closest);
    else
        fprintf(stderr, _("gpuvet explain: no rule, rule prefix or workload '%s' (gpuvet audit --list-rules lists the "
                          "rules)\n"), query);
    return EXIT_CANNOT_RUN;
}

int cmd_explain(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        print_usage(stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        print_usage(stderr);
        return EXIT_CANNOT_RUN;
    }
    enum workload w;
    if (workload_parse(argv[1], &w)) {
        printf(_("workload %s: the verdict is FAIL with a fail finding, WARN with a warning, INCONCLUSIVE when\n"
                 "one of these key facts is unknown, and PASS only when none is:\n"), argv[1]);
        verdict_describe_key_facts(stdout, w);
        fputs(_("\nOther unknowns (measurements, history, software settings) are listed but do not make the\n"
                "verdict inconclusive. The exit status is 1 with a fail, else 0 (INCONCLUSIVE included).\n"), stdout);
        return 0;
    }
    const struct rule *r = rule_find(argv[1]);
    if (!r)
        return list_prefixed(argv[1]) > 0 ? 0 : no_such_rule(argv[1]);
    printf(_("%s — %s\narea: %s\nseverity when it applies:"), r->id, _(r->title), r->area);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        printf(" %s=%s", workload_name((enum workload)w), severity_name(r->severity[w]));
    char rationale[4096];
    thresholds_expand(_(r->rationale), rationale, sizeof rationale);
    printf("\n\n%s\n", rationale);
    return 0;
}
