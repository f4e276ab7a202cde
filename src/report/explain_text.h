/* The output of `gpuvet explain`: a rule's rationale, the rules under a prefix, a workload's key facts. */
#ifndef GPUVET_REPORT_EXPLAIN_TEXT_H
#define GPUVET_REPORT_EXPLAIN_TEXT_H

#include <stdio.h>

#include "rules/rule.h"

/* A rule: title, area, severity per workload and rationale (threshold values from the table). */
void explain_text_rule(FILE *out, const struct rule *r);
/* The rules whose ID starts with prefix (case-insensitive), one line each; returns how many. */
int explain_text_prefixed(FILE *out, const char *prefix);
/* Every rule, one line each (ID, area, title): `gpuvet audit --list-rules`. */
void explain_text_rule_list(FILE *out);
/* What a workload's verdict needs; name is the workload as the user wrote it. */
void explain_text_workload(FILE *out, enum workload w, const char *name);

#endif
