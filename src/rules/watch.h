/* The diagnosis of `gpuvet watch`: why the GPUs wait, from a timeline (model/watch.h). Rules have
 * stable IDs in their own table (watch_rules_table), found by rule_find, so `gpuvet explain ID`
 * works for them as for the audit's. */
#ifndef GPUVET_RULES_WATCH_H
#define GPUVET_RULES_WATCH_H

#include "model/watch.h"
#include "rules/rule.h"

extern const struct rule watch_rules_table[];
extern const int watch_rules_count;

/* Findings, ranked by the share of the watched GPU time each explains (evidence key
 * "gpu_time_explained"; the share of the watched time when the GPUs were not seen). Several can
 * hold; facts that could not be seen give `unknown` findings that say why. */
void watch_diagnose(const struct watch_timeline *w, struct findings *out);

#endif
