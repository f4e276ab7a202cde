/* `gpuvet cost` reports: text (cost_text.c) and the gpuvet.cost/1 JSON document (cost_json.c,
 * docs/plan-cost.md); and the offers section of `gpuvet plan --offers` (plan.offers), which the
 * same two files write. */
#ifndef GPUVET_REPORT_COST_REPORT_H
#define GPUVET_REPORT_COST_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "sizing/offers.h"
#include "sizing/plan_offers.h"

/* What a cost run was asked, beside its ranked offers. */
struct cost_report {
    const char *offers_file;
    enum precision prec;
    double job_flops;         /* 0 = no job */
    double params, tokens;    /* when the job is 6 x params x tokens; 0 otherwise */
    const char *util_from;    /* --util-from FILE, or NULL */
    double measured_util;     /* its mean SM utilisation */
    int measured_samples;
};

/* 0, or -1 when writing failed. */
int cost_report_text(FILE *out, const struct cost_report *r, const struct offers *offers);
int cost_report_json(FILE *out, const struct cost_report *r, const struct offers *offers);

/* plan --offers: a new plan document, plan with plan.offers (the ranking) added before its steps,
 * which plan_json.c and plan_text.c write; and the text of a plan document that holds one. */
json_t *plan_with_offers(json_t *plan, const struct plan_offers_ranking *ranking);
void plan_offers_text(FILE *out, json_t *plan);

#endif
