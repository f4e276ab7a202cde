/* `gpuvet plan --check`: compares a plan's requirements with a machine model (model/machine.h),
 * whether a probe filled it (this machine, or a recorded tree with --sysroot) or a saved audit did
 * (probe/audit_json.c). Only facts the model holds are judged; the rest is reported as unknown,
 * with the reason. */
#ifndef GPUVET_SIZING_CHECK_H
#define GPUVET_SIZING_CHECK_H

#include <jansson.h>

#include "model/machine.h"
#include "util/gputable.h"

/* requirements: the plan's "requirements" object; gpu: the planned GPU (NULL when none).
 * Returns an array of {"what", "need", "have", "status": ok|short|unknown|note, "why"}; *shortfalls
 * counts the "short" ones. */
json_t *plan_check(const struct machine *m, json_t *requirements, const struct gpu_spec *gpu,
                   const struct gpu_table *table, int *shortfalls);

#endif
