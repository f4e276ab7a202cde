/* `gpuvet plan --offers FILE`: "what should I rent?" from an offers file. Each offer's GPUs are
 * planned (plan.c) and the offers ranked by the job's cost (offers.c); the ranking is returned as
 * a struct, which report/plan_json.c and report/plan_text.c write. */
#ifndef GPUVET_SIZING_PLAN_OFFERS_H
#define GPUVET_SIZING_PLAN_OFFERS_H

#include "sizing/offers.h"
#include "sizing/plan.h"

/* What the user asked besides the plan's options. */
struct plan_offers_request {
    const char *file;   /* --offers */
    double tokens;      /* --tokens (llm-train: trained on; llm-infer: output tokens), 0 = not given */
    double images;      /* --images (cv-train), 0 = not given */
    double util;        /* --util for offers without a util field, 0 = peak */
    struct fx_rates fx; /* --fx */
};

/* The offers of the file, ranked: those that fit first (see offers_rank_for_plan). */
struct plan_offers_ranking {
    const char *file;
    struct offers offers;
    struct offer_job job;
    enum offer_basis basis;
    int fitting; /* how many fit */
};

/* Plans the job on each offer of req->file and ranks them into *out; p->doc gets the plan's frame
 * (workload, nodes, gpu null, model) and p->does_not_fit is set when no offer fits. 0, or nonzero
 * with p->error set. Free *out with plan_offers_ranking_free either way. */
int plan_rank_offers(struct plan *p, const struct plan_offers_request *req, struct plan_offers_ranking *out);
void plan_offers_ranking_free(struct plan_offers_ranking *r);

#endif
