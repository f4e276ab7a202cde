#include <stdio.h>

#include "builtin/builtin.h"
#include "rules/rule.h"

int cmd_explain(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: gpuvet explain RULE_ID   (gpuvet audit --list-rules lists them)\n", stderr);
        return EXIT_CANNOT_RUN;
    }
    const struct rule *r = rule_find(argv[1]);
    if (!r) {
        fprintf(stderr, "gpuvet explain: no rule '%s' (gpuvet audit --list-rules lists them)\n", argv[1]);
        return EXIT_CANNOT_RUN;
    }
    printf("%s — %s\narea: %s\nseverity when it applies:", r->id, r->title, r->area);
    for (int w = 0; w < WORKLOAD_COUNT; w++)
        printf(" %s=%s", workload_name((enum workload)w), severity_name(r->severity[w]));
    printf("\n\n%s\n", r->rationale);
    return 0;
}
