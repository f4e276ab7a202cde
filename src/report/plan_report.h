/* The `gpuvet plan` document (sizing/plan.h builds it) as text for people and as gpuvet.plan/1
 * JSON (docs/plan-cost.md). */
#ifndef GPUVET_REPORT_PLAN_REPORT_H
#define GPUVET_REPORT_PLAN_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define PLAN_SCHEMA "gpuvet.plan/1"

struct machine;
struct plan_offers_ranking;

/* plan: the plan's document (p->doc); offers: the ranking of plan --offers, NULL otherwise. Return
 * 0, or -1 when out could not be written to. */
int plan_report_text(FILE *out, json_t *plan, const struct plan_offers_ranking *offers);
int plan_report_json(FILE *out, json_t *plan, const struct plan_offers_ranking *offers);
/* The problems of the machine --check probed, as warnings, or as errors when the probe failed. */
void plan_report_machine_problems(FILE *out, const struct machine *m, bool failed);

#endif
