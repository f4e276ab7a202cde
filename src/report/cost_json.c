/* `gpuvet cost --json`: the gpuvet.cost/1 document; and plan.offers of `gpuvet plan --offers`
 * (docs/plan-cost.md). */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "report/cost_report.h"
#include "rules/workload.h"
#include "util/jsonval.h"

static json_t *positive_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }
/* A positive figure, null when not positive; inf or NaN is null with its reason (never dropped). */
static void set_positive(json_t *o, const char *key, double v)
{
    if (v > 0 || isnan(v))
        json_set_real(o, key, v);
    else
        json_object_set_new(o, key, json_null());
}

static json_t *flags_json(const struct offer *it)
{
    json_t *flags = json_array();
    for (int k = 0; k < it->nflags; k++)
        json_array_append_new(flags, json_string(it->flags[k]));
    return flags;
}

/* What both rankings say first of an offer: its rank, name, GPUs and price as the file gives it. */
static json_t *offer_head_json(const struct offer *it, int rank)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(rank));
    json_object_set_new(o, "name", json_string(it->name));
    json_object_set_new(o, "gpu", json_string(it->gpu_query));
    json_object_set_new(o, "gpu_id", json_string(it->gpu->id));
    json_object_set_new(o, "count", json_integer(it->count));
    json_object_set_new(o, "currency", json_string(it->currency));
    json_set_real(o, "price_per_hour", it->price_per_hour);
    json_object_set_new(o, "price_basis", json_string(it->monthly ? "price_per_month / 720" : "price_per_hour"));
    return o;
}

/* And what both say last: the job's hours and cost, the host the offer names, the flags. */
static json_t *offer_tail_json(json_t *o, const struct offer *it)
{
    set_positive(o, "hours", it->hours);
    set_positive(o, "cost", it->cost);
    json_object_set_new(o, "cpu", positive_or_null(it->cpu));
    json_object_set_new(o, "ram_gb", positive_or_null(it->ram_gb));
    json_object_set_new(o, "flags", flags_json(it));
    return o;
}

/* How the offer's GPUs reach each other (sizing/interconnect.h). */
static json_t *interconnect_json(const struct interconnect *ic)
{
    json_t *o = json_object();
    json_object_set_new(o, "link", json_string(ic->link));
    json_object_set_new(o, "p2p", ic->kind == IC_PCIE ? json_boolean(ic->p2p) : json_null());
    set_positive(o, "bus_bandwidth_gbs", ic->busbw_bytes_s / 1e9);
    json_object_set_new(o, "basis", json_string(ic_basis_name(ic->basis)));
    json_object_set_new(o, "source", json_string(ic->source));
    return o;
}

static json_t *offer_json(const struct offer *it, enum precision prec, int rank)
{
    json_t *o = offer_head_json(it, rank);
    json_set_real(o, "utilisation", it->applied_util);
    json_object_set_new(o, "utilisation_source", json_string(it->util_source));
    json_object_set_new(o, "dense_tflops_per_gpu", positive_or_null(it->gpu->dense[prec]));
    json_object_set_new(o, "sparse_tflops_per_gpu", positive_or_null(it->gpu->sparse[prec]));
    json_object_set_new(o, "quoted_tflops", positive_or_null(it->quoted_tflops));
    json_object_set_new(o, "price_currency", json_string(it->ranked_currency));
    set_positive(o, "fx_to_usd", it->fx_to_usd);
    set_positive(o, "price_per_dense_tflops_hour", it->per_dense_tflops_hour);
    json_set_real(o, "per_gpu_memory_gb_hour", it->per_gpu_memory_gb_hour);
    char basis[256]; /* the price per TFLOPS-hour rests on peak FLOPS, never on a measured rate */
    snprintf(basis, sizeof basis, "peak dense TFLOPS (vendor datasheet) x utilisation (%s)", it->util_source);
    json_object_set_new(o, "tflops_basis", json_string(basis));
    json_object_set_new(o, "interconnect", interconnect_json(&it->ic));
    return offer_tail_json(o, it);
}

int cost_report_json(FILE *out, const struct cost_report *r, const struct offers *offers)
{
    json_t *list = json_array(), *currencies = json_array();
    for (int i = 0, rank = 0; i < offers->count; i++) {
        bool first = i == 0 || strcasecmp(offers->items[i].ranked_currency, offers->items[i - 1].ranked_currency);
        if (first) {
            json_array_append_new(currencies, json_string(offers->items[i].ranked_currency));
            rank = 0;
        }
        json_array_append_new(list, offer_json(&offers->items[i], r->prec, ++rank));
    }
    json_t *job = r->job_flops > 0 ? json_pack("{s:f, s:o, s:o}", "flops", r->job_flops, "params",
                                               positive_or_null(r->params), "tokens", positive_or_null(r->tokens))
                                   : json_null();
    json_t *measured = r->util_from ? json_pack("{s:s, s:f, s:i}", "file", r->util_from, "mean_sm", r->measured_util,
                                                "samples", r->measured_samples)
                                    : json_null();
    json_t *doc = json_pack("{s:s, s:{s:s, s:s, s:o, s:o, s:o, s:o}}", "schema", "gpuvet.cost/1", "cost", "precision",
                            precision_name(r->prec), "offers_file", r->offers_file, "currencies", currencies,
                            "utilisation_measured", measured, "job", job, "offers", list);
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(doc);
    return rc != 0 || ferror(out) ? -1 : 0;
}

/* ---- plan --offers ------------------------------------------------------------------------- */

static json_t *plan_offer_json(const struct offer *it, int rank, int nodes)
{
    json_t *o = offer_head_json(it, rank);
    json_object_set_new(o, "nodes", json_integer(nodes));
    json_object_set_new(o, "price_currency", json_string(it->ranked_currency));
    set_positive(o, "fx_to_usd", it->fx_to_usd);
    json_set_real(o, "price_per_hour_all_nodes", it->price_per_hour_ranked * nodes);
    json_object_set_new(o, "dense_bf16_tflops_per_gpu", positive_or_null(it->gpu->dense[PREC_BF16]));
    set_positive(o, "utilisation", it->applied_util);
    json_object_set_new(o, "utilisation_source", it->util_source ? json_string(it->util_source) : json_null());
    if (it->per_token) { /* llm-infer: the estimate the offer is ranked by (null when unknown) */
        set_positive(o, "output_tokens_s", it->output_tokens_s * nodes);
        set_positive(o, "cost_per_million_output_tokens", it->cost_per_million_tokens);
        json_object_set_new(o, "tensor_parallel",
                            it->tensor_parallel > 0 ? json_integer(it->tensor_parallel) : json_null());
        json_object_set_new(o, "output_tokens_s_basis",
                            json_string("estimate: peak HBM bandwidth and dense tensor FLOPS at the plan's shares "
                                        "(plan.throughput.formula), not a measurement"));
    }
    if (it->per_rate) { /* llm-infer --rate: the offers the rate needs (plan.rate.nodes of each offer's plan) */
        json_object_set_new(o, "offers_needed", it->offers_needed > 0 ? json_integer(it->offers_needed) : json_null());
        json_object_set_new(o, "headroom", it->offers_needed > 0 ? json_real(it->rate_headroom) : json_null());
        set_positive(o, "cost_per_hour_at_rate", it->rate_cost_per_hour);
        set_positive(o, "cost_per_million_output_tokens_at_rate", it->rate_cost_per_million);
    }
    json_object_set_new(o, "interconnect", interconnect_json(&it->ic));
    if (it->compute_hours > 0) { /* llm-train with a FLOPs count: what the hours rest on */
        json_set_real(o, "compute_hours", it->compute_hours);
        json_object_set_new(o, "communication_hours", it->comm_hours > 0    ? json_real(it->comm_hours)
                                                      : it->comm_hours < 0 ? json_null()
                                                                           : json_real(0));
        json_object_set_new(o, "communication_not_counted",
                            it->comm_not_counted ? json_string(it->comm_not_counted) : json_null());
        bool comm_bound = it->comm_hours > it->compute_hours;
        json_object_set_new(o, "bound", json_string(comm_bound ? "interconnect" : "compute"));
        json_object_set_new(o, "hours_basis",
                            json_string(comm_bound ? (it->ic.basis == IC_BASIS_MEASURED
                                                          ? "interconnect: a published bus-bandwidth measurement"
                                                          : "interconnect: bus bandwidth estimated from a published "
                                                            "measurement of another link")
                                                   : "compute: peak dense BF16 TFLOPS (vendor datasheet) x "
                                                     "utilisation"));
    }
    return offer_tail_json(o, it);
}

static json_t *plan_offers_json(const struct plan_offers_ranking *ranking)
{
    const struct offers *offers = &ranking->offers;
    const struct offer_job *job = &ranking->job;
    json_t *ranked = json_array(), *not_fitting = json_array(), *currencies = json_array();
    for (int i = 0, rank = 0; i < offers->count; i++) {
        const struct offer *it = &offers->items[i];
        if (!it->fits) {
            json_t *o = json_pack("{s:s?, s:s?, s:s, s:i, s:s?}", "name", it->name, "gpu", it->gpu_query, "gpu_id",
                                  it->gpu->id, "count", it->count, "why", it->why_not);
            json_object_set_new(o, "flags", flags_json(it));
            json_array_append_new(not_fitting, o);
            continue;
        }
        if (i == 0 || strcasecmp(it->ranked_currency, offers->items[i - 1].ranked_currency)) {
            json_array_append_new(currencies, json_string(it->ranked_currency));
            rank = 0;
        }
        json_array_append_new(ranked, plan_offer_json(it, ++rank, job->nodes));
    }
    json_t *j = json_object();
    json_object_set_new(j, "nodes", json_integer(job->nodes));
    json_object_set_new(j, "tokens", positive_or_null(job->tokens));
    set_positive(j, "flops", job->flops);
    json_object_set_new(j, "flops_method", job->flops_method ? json_string(job->flops_method) : json_null());
    json_object_set_new(j, "images", positive_or_null(job->images));
    if (job->inference && job->rate > 0) {
        json_set_real(j, "rate_requests_s", job->rate);
        json_object_set_new(j, "rate_method",
                            json_string("each offer is one node: offers needed = plan.rate.nodes of that offer's "
                                        "plan; cost per hour at the rate = offers needed x price per hour; cost per "
                                        "million output tokens at the rate = that / (output tokens/s needed x 3600) "
                                        "x 1e6"));
    }
    if (job->flops > 0)
        json_object_set_new(j, "communication_method",
                            json_string("in-node ZeRO collectives per micro-step: passes x (GPUs - 1) / GPUs x "
                                        "parameters x 2 B / bus bandwidth, passes 2 (DDP, ZeRO-1/2) or 3 (ZeRO-3; "
                                        "Rajbhandari et al. 2020, ZeRO, section 7); steps = tokens / (GPUs x "
                                        "micro-batch x seq); hours = the longer of compute and communication "
                                        "(overlapped: DeepSpeed overlap_comm, DDP's gradient buckets)"));
    if (job->inference) {
        json_object_set_new(j, "output_tokens", positive_or_null(job->tokens));
        json_object_set_new(j, "output_tokens_method",
                            json_string("an estimate (plan.throughput.formula): cost per million output tokens = "
                                        "price per hour / (output tokens/s per node x 3600) x 1e6; hours = output "
                                        "tokens / (nodes x output tokens/s per node x 3600)"));
        const struct thresholds *t = thresholds_for(WL_LLM_INFER);
        json_set_real(j, "hbm_bandwidth_share", t->infer_decode_bandwidth_share);
        json_set_real(j, "flops_share", t->infer_prefill_flops_share);
    }
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(ranking->file));
    json_object_set_new(o, "basis",
                        json_string(ranking->basis == OFFER_BASIS_RATE                    ? "cost_of_rate"
                                    : ranking->basis == OFFER_BASIS_JOB_COST                ? "job_cost"
                                    : ranking->basis == OFFER_BASIS_PER_MILLION_TOKENS ? "cost_per_million_output_tokens"
                                                                                       : "price_per_hour"));
    json_object_set_new(o, "job", j);
    json_object_set_new(o, "currencies", currencies);
    json_object_set_new(o, "ranked", ranked);
    json_object_set_new(o, "not_fitting", not_fitting);
    return o;
}

json_t *plan_with_offers(json_t *plan, const struct plan_offers_ranking *ranking)
{
    json_t *whole = json_object(), *value;
    const char *key;
    json_object_foreach (plan, key, value) {
        if (!strcmp(key, "steps")) /* plan.offers comes before the keys that end every plan */
            json_object_set_new(whole, "offers", plan_offers_json(ranking));
        json_object_set(whole, key, value);
    }
    return whole;
}
