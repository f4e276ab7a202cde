#include <stdio.h>

#include "builtin/builtin.h"
#include "rules/rule.h"
#include "rules/verdict.h"

int cmd_explain(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: gpuvet explain RULE_ID|WORKLOAD   (gpuvet audit --list-rules lists the rules)\n", stderr);
        return EXIT_CANNOT_RUN;
    }
    enum workload w;
    if (workload_parse(argv[1], &w)) {
        printf("workload %s: the verdict is FAIL with a fail finding, WARN with a warning, INCONCLUSIVE when\n"
               "one of these key facts is unknown, and PASS only when none is:\n", argv[1]);
        verdict_describe_key_facts(stdout, w);
        printf("\nOther unknowns (measurements, history, software settings) are listed but do not make the\n"
               "verdict inconclusive. The exit status is 1 with a fail, else 0 (INCONCLUSIVE included).\n");
        return 0;
    }
    const struct rule *r = rule_find(argv[1]);
    if (!r) {
        fprintf(stderr, "gpuvet explain: no rule or workload '%s' (gpuvet audit --list-rules lists the rules)\n",
                argv[1]);
        return EXIT_CANNOT_RUN;
    }
    printf("%s — %s\narea: %s\nseverity when it applies:", r->id, r->title, r->area);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        printf(" %s=%s", workload_name((enum workload)w), severity_name(r->severity[w]));
    char rationale[4096];
    thresholds_expand(r->rationale, rationale, sizeof rationale);
    printf("\n\n%s\n", rationale);
    return 0;
}
