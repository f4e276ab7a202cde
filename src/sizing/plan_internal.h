/* What the parts of `plan` share (plan.c, plan_train.c, plan_infer.c, plan_cv.c, plan_rank.c): the
 * plan's bookkeeping (steps, requirements, corrections, errors) and the numbers every workload
 * sizes alike. Not for use outside src/sizing/plan*.c. */
#ifndef GPUVET_SIZING_PLAN_INTERNAL_H
#define GPUVET_SIZING_PLAN_INTERNAL_H

#include "sizing/plan.h"
#include "util/i18n.h"
#include "util/units.h"

/* The status a plan that could not be made returns (main's "could not run", exit 2). */
#define PLAN_CANNOT_RUN 2

/* Records why the plan could not be made (p->error) and returns PLAN_CANNOT_RUN. */
int plan_fail(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A step of the reasoning, in the order a person would take it. */
void plan_step(struct plan *p, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Where a common rule of thumb is wrong, and by how much here. */
void plan_correction(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A requirement per node: its value (owned) and why. */
void plan_require(struct plan *p, const char *key, json_t *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline double gb(double bytes) { return bytes / GB; }
/* One device's memory as the driver reports it (util/gputable.h): the "fits" answers use it. */
static inline double gpu_bytes(const struct plan *p) { return gpu_memory_bytes(p->gpu); }

/* Cores per GPU: own (the job's processes), raised to what the audit's CPU_CORES_PER_GPU asks. */
int cores_per_gpu(enum workload w, int own, double images_s);
/* The network requirement (the audit's NET_MULTINODE numbers). */
void plan_network(struct plan *p, bool llm_train);
json_t *model_json(const struct llm_shape *m);

/* A fresh p->doc with the workload and node count, and empty steps, requirements, corrections. */
void plan_start_doc(struct plan *p);
/* Moves steps, requirements and corrections into p->doc (the keys that end every plan). */
void plan_finish_doc(struct plan *p);
/* Plans the workload for p->gpu x p->gpus_per_node into a fresh p->doc. */
int plan_one(struct plan *p);

int plan_train(struct plan *p);    /* plan_train.c: llm-train, DeepSpeed ZeRO */
int plan_finetune(struct plan *p); /* plan_train.c: llm-train --finetune lora|qlora */
int plan_infer(struct plan *p);    /* plan_infer.c: llm-infer, vLLM's KV cache */
int plan_cv(struct plan *p);       /* plan_cv.c: cv-train, the input pipeline */
int plan_rank(struct plan *p);     /* plan_rank.c: no --gpus, "what should I rent?" */

#endif
