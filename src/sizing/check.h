/* `gpuvet plan --check`: compares a plan's requirements with a machine as the audit describes it
 * (the "machine" object of a gpuvet.audit/1 document, saved or built from a live probe). Only
 * facts the audit records are judged; the rest is reported as unknown, with the reason. */
#ifndef GPUVET_SIZING_CHECK_H
#define GPUVET_SIZING_CHECK_H

#include <jansson.h>

#include "util/gputable.h"

/* requirements: the plan's "requirements" object; gpu: the planned GPU (NULL when none).
 * Returns an array of {"what", "need", "have", "status": ok|short|unknown|note, "why"}; *shortfalls
 * counts the "short" ones. */
json_t *plan_check(json_t *machine, json_t *requirements, const struct gpu_spec *gpu, const struct gpu_table *table,
                   int *shortfalls);

#endif
