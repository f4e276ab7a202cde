/* The balance model's output (sizing/balance.h): plan.balance in the JSON document, and its section
 * of the plan's text report, printed from that JSON. */
#ifndef GPUVET_REPORT_PLAN_BALANCE_H
#define GPUVET_REPORT_PLAN_BALANCE_H

#include <jansson.h>
#include <stdio.h>

#include "sizing/balance.h"

json_t *plan_balance_json(const struct balance *b);
/* The plan document's "balance" member: plan_balance_json(b) set into plan. */
void plan_balance_attach(json_t *plan, const struct balance *b);
/* Prints plan.balance; nothing when the plan has none. */
void plan_balance_print_text(FILE *out, json_t *balance);

#endif
