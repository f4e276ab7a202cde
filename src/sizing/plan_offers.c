/* plan --offers: each offer's GPUs planned like --gpus, the offers ranked by the job's cost. */
#include <stdlib.h>

#include "sizing/plan_internal.h"
#include "sizing/plan_offers.h"

/* The job planned on one offer's GPUs (sizing/offers.c asks for each offer). */
static int plan_offer(void *ctx, const struct gpu_spec *gpu, int count, struct offer_plan *out)
{
    struct plan *p = ctx;
    struct plan q = {.opt = p->opt, .table = p->table, .gpu = gpu, .gpus_per_node = count, .model = p->model};
    int rc = plan_one(&q);
    if (rc == 0) {
        offer_plan_from_doc(q.doc, out);
        /* what the in-node ZeRO collectives depend on (offers.c) */
        json_t *zero = json_object_get(q.doc, "zero");
        out->zero_stage =
            p->opt.finetune == FINETUNE_NONE && zero ? (int)json_integer_value(json_object_get(zero, "stage")) : -1;
        out->offload = p->opt.zero.offload != OFFLOAD_NONE;
        out->seq = p->opt.seq;
        out->micro_batch = p->opt.micro_batch;
        out->params = (double)p->model.params;
    }
    else if (q.error && !p->error) { /* why it could not be planned becomes the command's error */
        p->error = q.error;
        q.error = NULL;
    }
    json_decref(q.doc);
    free(q.error);
    return rc;
}

int plan_rank_offers(struct plan *p, const struct plan_offers_request *req, struct plan_offers_ranking *out)
{
    char err[2048];
    *out = (struct plan_offers_ranking){.file = req->file};
    if (offers_load(req->file, &p->table, &out->offers, err, sizeof err) != 0)
        return plan_fail(p, "%s", err);
    out->job = (struct offer_job){.nodes = p->opt.nodes, .tokens = req->tokens, .images = req->images, .cli_util = req->util,
                                  .inference = p->opt.workload == WL_LLM_INFER,
                                  .rate = p->opt.workload == WL_LLM_INFER ? p->opt.rate : 0};
    if (req->tokens > 0 && !out->job.inference)
        out->job.flops = offer_training_flops((double)p->model.active_params, req->tokens,
                                              p->opt.finetune != FINETUNE_NONE,
                                              plan_recompute(&p->opt) == RECOMPUTE_FULL, &out->job.flops_method);
    int rc = offers_rank_for_plan(&out->offers, &out->job, &req->fx, plan_offer, p, &out->basis, &out->fitting);
    if (rc == 0) {
        plan_start_doc(p);
        json_object_set_new(p->doc, "gpu", json_null());
        if (p->opt.workload != WL_CV_TRAIN)
            json_object_set_new(p->doc, "model", model_json(&p->model));
        plan_finish_doc(p);
        p->does_not_fit = out->fitting == 0;
    }
    return rc;
}

void plan_offers_ranking_free(struct plan_offers_ranking *r) { offers_free(&r->offers); }
