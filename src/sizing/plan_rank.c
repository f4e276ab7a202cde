/* "What should I rent?": plan without --gpus tries every GPU of the table at 1, 2, 4 and 8 per
 * node and ranks those that fit. Each step is its own function (find, order, describe) so that a
 * ranking by price (offers) can replace one without touching the others. */
#include <stdlib.h>

#include "sizing/plan_internal.h"

/* A GPU of the table at the fewest GPUs per node that fit the job. */
struct candidate {
    const struct gpu_spec *gpu;
    int count;
    double need_per_gpu, dense_bf16_total;
};

/* Plans g at 1, 2, 4 and 8 per node: *fits and *out the fewest that fit. 0, or the plan's error
 * status (an option combination no GPU can change) with p->error set. */
static int fewest_that_fit(struct plan *p, const struct gpu_spec *g, struct candidate *out, bool *fits)
{
    static const int counts[] = {1, 2, 4, 8};
    *fits = false;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        struct plan q = {.opt = p->opt,
                         .table = p->table,
                         .gpu = g,
                         .gpus_per_node = counts[k],
                         .model = p->model,
                         .machine = p->machine};
        int rc = plan_one(&q);
        json_t *memory = json_object_get(q.doc, "gpu_memory");
        double need = json_number_value(
            json_object_get(memory, json_object_get(memory, "total_per_gpu") ? "total_per_gpu" : "total"));
        json_decref(q.doc);
        if (rc != 0) {
            free(p->error);
            p->error = q.error;
            return rc;
        }
        if (!q.does_not_fit) {
            *out = (struct candidate){g, counts[k], need, counts[k] * g->dense[PREC_BF16]};
            *fits = true;
            return 0;
        }
    }
    return 0;
}

static int by_count_then_speed(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->count != y->count)
        return x->count - y->count;
    return (x->dense_bf16_total < y->dense_bf16_total) - (x->dense_bf16_total > y->dense_bf16_total);
}

static json_t *candidate_json(const struct candidate *c, int rank)
{
    return json_pack("{s:i, s:s, s:i, s:f, s:f, s:o, s:s}", "rank", rank, "gpu", c->gpu->id, "count_per_node", c->count,
                     "gpu_memory_bytes_per_gpu", c->need_per_gpu, "memory_bytes", gpu_memory_bytes(c->gpu),
                     "dense_bf16_tflops_total", c->dense_bf16_total > 0 ? json_real(c->dense_bf16_total) : json_null(),
                     "confidence", c->gpu->confidence);
}

/* The fewest of each GPU that fit, ranked by GPU count, then dense BF16 TFLOPS (the table has no
 * prices). */
int plan_rank(struct plan *p)
{
    struct candidate *found = calloc((size_t)p->table.count, sizeof *found);
    int nfound = 0;
    for (int i = 0; i < p->table.count; i++) {
        bool fits;
        int rc = fewest_that_fit(p, &p->table.gpus[i], &found[nfound], &fits);
        if (rc != 0) {
            free(found);
            return rc;
        }
        nfound += fits;
    }
    qsort(found, (size_t)nfound, sizeof *found, by_count_then_speed);
    plan_start_doc(p);
    json_object_set_new(p->doc, "gpu", json_null());
    json_object_set_new(p->doc, "model", model_json(&p->model));
    json_t *list = json_array();
    for (int i = 0; i < nfound; i++)
        json_array_append_new(list, candidate_json(&found[i], i + 1));
    json_object_set_new(p->doc, "candidates", list);
    plan_step(p, N_("candidates"),
              _("%d of %d GPUs fit this job at 1, 2, 4 or 8 per node; ranked by GPU count, then dense BF16 TFLOPS (the "
              "table has no prices: price the offers with gpuvet cost)"),
              nfound, p->table.count);
    plan_finish_doc(p);
    p->does_not_fit = nfound == 0;
    free(found);
    return 0;
}
