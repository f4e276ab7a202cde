#include "sizing/offers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "sizing/jsonfile.h"
#include "util/csv.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/units.h"

/* A quoted TFLOPS figure "matches" a table figure within this relative tolerance (rounding). */
#define QUOTE_TOLERANCE 0.02

static void offer_flag(struct offer *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void offer_flag(struct offer *it, const char *fmt, ...)
{
    if (it->nflags >= OFFER_MAX_FLAGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = strdup("(a note could not be formatted)");
    va_end(ap);
    it->flags[it->nflags++] = text;
}

const char fx_hint[] = N_("CUR=RATE, US dollars per unit of CUR (CNY=0.14)");

bool fx_add(struct fx_rates *fx, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : 0;
    double rate;
    if (!eq || len < 1 || len >= sizeof fx->currency[0] || fx->count >= 16 || !parse_quantity(eq + 1, &rate))
        return false;
    snprintf(fx->currency[fx->count], sizeof fx->currency[0], "%.*s", (int)len, arg);
    fx->usd[fx->count++] = rate;
    return true;
}

static double fx_lookup(const struct fx_rates *fx, const char *currency)
{
    for (int i = 0; i < fx->count; i++)
        if (!strcasecmp(fx->currency[i], currency))
            return fx->usd[i];
    return 0;
}

void offers_free(struct offers *o)
{
    for (int i = 0; i < o->count; i++) {
        struct offer *it = &o->items[i];
        free(it->name);
        free(it->gpu_query);
        free(it->currency);
        free(it->why_not);
        for (int k = 0; k < it->nflags; k++)
            free(it->flags[k]);
    }
    free(o->items);
    *o = (struct offers){0};
}

static struct offer *offer_add(struct offers *o)
{
    struct offer *grown = realloc(o->items, sizeof *o->items * (size_t)(o->count + 1));
    if (!grown)
        abort(); /* out of memory for a few hundred bytes: nothing sensible is left to do */
    o->items = grown;
    struct offer *it = &o->items[o->count];
    *it = (struct offer){.index = o->count++};
    return it;
}

/* Checks the fields common to both formats once they are read; err gets "WHERE: what". */
static int offer_finish(struct offer *it, const struct gpu_table *table, double price_h, double price_m, double count,
                        char *err, size_t errlen)
{
    if (!it->name || !*it->name || !it->gpu_query || !*it->gpu_query) {
        snprintf(err, errlen, _("%s: %s is missing"), it->where, !it->name || !*it->name ? "name" : "gpu");
        return -1;
    }
    if (count < 1 || count != floor(count) || count > 100000) {
        snprintf(err, errlen, _("%s: count must be a whole number of GPUs >= 1"), it->where);
        return -1;
    }
    it->count = (int)count;
    if ((price_h > 0) == (price_m > 0)) {
        snprintf(err, errlen, _("%s: give one positive price: price_per_hour or price_per_month"), it->where);
        return -1;
    }
    it->monthly = price_m > 0;
    it->price_per_hour = it->monthly ? price_m / HOURS_PER_MONTH : price_h;
    if (it->util_given && (it->util <= 0 || it->util > 1)) {
        snprintf(err, errlen, _("%s: util must be a fraction in (0, 1]%s"), it->where,
                 it->util == 0 ? _(" (0: the GPUs did no work, so no price per TFLOPS; leave it empty for --util)") : "");
        return -1;
    }
    if (it->tflops_given && it->quoted_tflops <= 0) {
        snprintf(err, errlen, _("%s: tflops must be positive (leave it empty when the offer quotes none)"), it->where);
        return -1;
    }
    char why[1024];
    it->gpu = gpu_lookup(table, it->gpu_query, it->gpu_note, sizeof it->gpu_note, why, sizeof why);
    if (!it->gpu) {
        snprintf(err, errlen, "%s: %s", it->where, why);
        return -1;
    }
    if (!it->currency || !*it->currency) {
        free(it->currency);
        it->currency = strdup("USD");
    }
    return 0;
}

static bool csv_field_given(const struct csv_table *csv, const struct csv_row *row, const char *column)
{
    int c = csv_column(csv, column);
    return c >= 0 && row->fields[c][0];
}

static bool json_field_given(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v);
}

static int load_csv_offers(const char *path, const struct gpu_table *table, struct offers *out, char *err,
                           size_t errlen)
{
    struct csv_table csv;
    int rc = csv_load(path, &csv, err, errlen);
    static const char *const required[] = {"name", "gpu", "count"};
    for (size_t i = 0; rc == 0 && i < sizeof required / sizeof required[0]; i++)
        if (csv_column(&csv, required[i]) < 0) {
            snprintf(err, errlen, _("%s:1: no '%s' column (name, gpu, count, price_per_hour|price_per_month)"), path,
                     required[i]);
            rc = -1;
        }
    int name = csv_column(&csv, "name"), gpu = csv_column(&csv, "gpu"), currency = csv_column(&csv, "currency");
    for (int r = 0; rc == 0 && r < csv.nrows; r++) {
        const struct csv_row *row = &csv.rows[r];
        struct offer *it = offer_add(out);
        snprintf(it->where, sizeof it->where, "%s:%d", path, row->line);
        it->name = strdup(row->fields[name]);
        it->gpu_query = strdup(row->fields[gpu]);
        it->currency = strdup(currency >= 0 ? row->fields[currency] : "");
        it->util_given = csv_field_given(&csv, row, "util");
        it->tflops_given = csv_field_given(&csv, row, "tflops");
        double count, price_h, price_m;
        if (csv_number(&csv, row, csv_column(&csv, "count"), true, &count, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "price_per_hour"), false, &price_h, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "price_per_month"), false, &price_m, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "util"), false, &it->util, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "tflops"), false, &it->quoted_tflops, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "cpu"), false, &it->cpu, err, errlen) ||
            csv_number(&csv, row, csv_column(&csv, "ram_gb"), false, &it->ram_gb, err, errlen) ||
            offer_finish(it, table, price_h, price_m, count, err, errlen))
            rc = -1;
    }
    if (rc == 0 && out->count == 0) {
        snprintf(err, errlen, _("%s:2: no offers after the header"), path);
        rc = -1;
    }
    csv_free(&csv);
    return rc;
}

static int json_number_field(json_t *obj, const char *key, const char *where, double *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v)) {
        snprintf(err, errlen, _("%s: %s must be a number"), where, key);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

static char *json_string_field(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? strdup(s) : NULL;
}

static int load_json_offers(const char *path, const struct gpu_table *table, struct offers *out, char *err,
                            size_t errlen)
{
    json_t *doc = json_load_named(path, err, errlen);
    if (!doc)
        return -1;
    json_t *list = json_is_array(doc) ? doc : json_object_get(doc, "offers");
    if (!json_is_array(list) || json_array_size(list) == 0) {
        snprintf(err, errlen, _("%s: expected a non-empty array of offers, or {\"offers\": [...]}"), path);
        json_decref(doc);
        return -1;
    }
    int rc = 0;
    size_t i;
    json_t *o;
    json_array_foreach (list, i, o) {
        struct offer *it = offer_add(out);
        snprintf(it->where, sizeof it->where, "%s: offers[%zu]", path, i);
        if (!json_is_object(o)) {
            snprintf(err, errlen, _("%s: not an object"), it->where);
            rc = -1;
            break;
        }
        it->name = json_string_field(o, "name");
        it->gpu_query = json_string_field(o, "gpu");
        it->currency = json_string_field(o, "currency");
        it->util_given = json_field_given(o, "util");
        it->tflops_given = json_field_given(o, "tflops");
        double count, price_h, price_m;
        if (json_number_field(o, "count", it->where, &count, err, errlen) ||
            json_number_field(o, "price_per_hour", it->where, &price_h, err, errlen) ||
            json_number_field(o, "price_per_month", it->where, &price_m, err, errlen) ||
            json_number_field(o, "util", it->where, &it->util, err, errlen) ||
            json_number_field(o, "tflops", it->where, &it->quoted_tflops, err, errlen) ||
            json_number_field(o, "cpu", it->where, &it->cpu, err, errlen) ||
            json_number_field(o, "ram_gb", it->where, &it->ram_gb, err, errlen) ||
            offer_finish(it, table, price_h, price_m, count, err, errlen)) {
            rc = -1;
            break;
        }
    }
    json_decref(doc);
    return rc;
}

static bool near(double a, double b) { return b > 0 && fabs(a - b) <= QUOTE_TOLERANCE * b; }

static void evaluate(struct offer *it, enum precision prec, double cli_util, double job_flops,
                     const struct fx_rates *fx)
{
    const struct gpu_spec *g = it->gpu;
    /* Prices in different currencies are ranked apart unless --fx converts them to US dollars. */
    it->fx_to_usd = strcasecmp(it->currency, "USD") ? fx_lookup(fx, it->currency) : 0;
    it->ranked_currency = it->fx_to_usd > 0 ? "USD" : it->currency;
    it->price_per_hour_ranked = it->price_per_hour * (it->fx_to_usd > 0 ? it->fx_to_usd : 1);
    it->applied_util = it->util > 0 ? it->util : cli_util > 0 ? cli_util : 1.0;
    it->util_source = it->util > 0 ? "offer" : cli_util > 0 ? "--util or --util-from" : "none given: peak (1.0)";
    double dense = g->dense[prec], sparse = g->sparse[prec];
    it->per_gpu_memory_gb_hour = it->price_per_hour_ranked / (it->count * g->memory_gb);
    if (dense > 0) {
        double tflops = it->count * dense * it->applied_util;
        it->per_dense_tflops_hour = it->price_per_hour_ranked / tflops;
        if (job_flops > 0) {
            it->hours = job_flops / (tflops * 1e12 * 3600);
            it->cost = it->hours * it->price_per_hour_ranked;
        }
    } else {
        offer_flag(it, _("%s has no dense %s figure (no such mode, or the vendor lists none): not ranked; try another "
                       "--precision"),
                   g->id, precision_name(prec));
    }
    if (*it->gpu_note)
        offer_flag(it, "%s", it->gpu_note);
    double q = it->quoted_tflops;
    if (q > 0 && (near(q, sparse) || near(q, sparse * it->count)) && !near(q, dense) && !near(q, dense * it->count))
        offer_flag(it, _("quotes %g TFLOPS: the %s 2:4-sparsity figure; dense is %g per GPU and is what training gets"),
                   q, precision_name(prec), dense);
    else if (q > 0 && !near(q, dense) && !near(q, dense * it->count))
        offer_flag(it, _("quotes %g TFLOPS; the table has %g dense%s per GPU at %s"), q, dense,
                   sparse > 0 ? _(" (and a sparse figure)") : "", precision_name(prec));
    if (it->util <= 0 && cli_util <= 0)
        offer_flag(it, _("no utilisation given: priced at peak; measure it (nvidia-smi dmon -s u) and pass --util-from, "
                       "--util or a util field"));
    /* The price per TFLOPS-hour counts compute only; what the GPUs talk over is said beside it. */
    interconnect_in_node(g, it->count * g->devices, &it->ic);
    if (it->ic.kind == IC_PCIE && it->ic.busbw_bytes_s > 0)
        offer_flag(it, _("%d GPUs over %s: collectives between them at about %.0f GB/s bus bandwidth (%s), not in the "
                         "price per TFLOPS-hour; plan --offers takes them into a training job's hours"),
                   it->count, it->ic.link, it->ic.busbw_bytes_s / 1e9, ic_basis_label(it->ic.basis));
}

static int by_currency_then_price(const void *a, const void *b)
{
    const struct offer *x = a, *y = b;
    int c = strcasecmp(x->ranked_currency, y->ranked_currency);
    if (c)
        return c;
    if ((x->per_dense_tflops_hour > 0) != (y->per_dense_tflops_hour > 0))
        return x->per_dense_tflops_hour > 0 ? -1 : 1;
    return (x->per_dense_tflops_hour > y->per_dense_tflops_hour) -
           (x->per_dense_tflops_hour < y->per_dense_tflops_hour);
}


int offers_load(const char *path, const struct gpu_table *table, struct offers *out, char *err, size_t errlen)
{
    size_t len = strlen(path);
    bool is_json = len > 5 && !strcasecmp(path + len - 5, ".json");
    return (is_json ? load_json_offers : load_csv_offers)(path, table, out, err, errlen);
}

void offers_rank_by_tflops(struct offers *offers, enum precision prec, double cli_util, double job_flops,
                           const struct fx_rates *fx)
{
    for (int i = 0; i < offers->count; i++)
        evaluate(&offers->items[i], prec, cli_util, job_flops, fx);
    qsort(offers->items, (size_t)offers->count, sizeof *offers->items, by_currency_then_price);
}

bool offers_fx_converted_any(const struct offers *offers, const char *ranked_currency)
{
    for (int i = 0; i < offers->count; i++)
        if (offers->items[i].fx_to_usd > 0 && !strcasecmp(offers->items[i].ranked_currency, ranked_currency))
            return true;
    return false;
}

/* ---- plan --offers --------------------------------------------------------------------------- */

/* The offer's own cpu and ram_gb, when it gives them, against what the plan asks per node. */
static void check_offer_host(struct offer *it, const struct offer_plan *plan)
{
    if (it->fits && it->cpu > 0 && plan->cpu_cores_per_node > it->cpu) {
        it->fits = false;
        if (asprintf(&it->why_not, _("the plan asks for %.0f CPU cores per node; the offer has %g"),
                     plan->cpu_cores_per_node, it->cpu) < 0)
            it->why_not = NULL;
    }
    if (it->fits && it->ram_gb > 0 && plan->host_ram_bytes_per_node > it->ram_gb * GB) {
        it->fits = false;
        if (asprintf(&it->why_not, _("the plan asks for %.1f GB of host memory per node; the offer has %g GB"),
                     plan->host_ram_bytes_per_node / GB, it->ram_gb) < 0)
            it->why_not = NULL;
    }
}

/* llm-train: the in-node collectives of data-parallel ZeRO per micro-step (one micro-batch of seq
 * tokens on each GPU; gradient accumulation not counted), against the compute. The step takes the
 * longer of the two: DeepSpeed overlaps them (overlap_comm, stage 3's default) and PyTorch DDP
 * all-reduces gradient buckets during the backward pass; without overlap it is their sum. */
static void add_collectives(struct offer *it, const struct offer_job *job, const struct offer_plan *plan)
{
    /* data-parallel ranks: every device (an MI250X package is two) of every node */
    int gpus = it->count * it->gpu->devices * job->nodes;
    if (gpus <= 1 || it->ic.kind == IC_NONE)
        return;
    if (plan->zero_stage < 0) {
        it->comm_not_counted =
            N_("fine-tuning: only the adapters' gradients are reduced, a small share of the parameters");
        return;
    }
    if (job->tokens <= 0 || plan->seq <= 0 || plan->micro_batch <= 0 || plan->params <= 0) {
        it->comm_not_counted = N_("no token count or model size: the steps are unknown");
        return;
    }
    double steps = job->tokens / ((double)gpus * plan->micro_batch * plan->seq);
    /* 16-bit parameters and gradients: 2 bytes each (DeepSpeed communicates in the model's dtype) */
    double per_step = ic_collective_seconds(&it->ic, gpus, plan->params * 2, zero_comm_passes(plan->zero_stage));
    if (per_step < 0) {
        it->comm_hours = -1;
        offer_flag(it, _("the bandwidth between %s GPUs is unknown: the hours count the compute only"), it->gpu->id);
        return;
    }
    it->comm_hours = steps * per_step / 3600;
    if (plan->offload)
        offer_flag(it, _("offload: the offloaded states' traffic over PCIe to the host is not counted in the hours"));
    if (job->nodes > 1)
        offer_flag(it, _("%d nodes: the collectives are counted at the in-node bus bandwidth; between nodes the "
                         "network is slower (plan --check: the balance's network stage)"),
                   job->nodes);
    if (it->comm_hours > it->compute_hours) {
        it->hours = it->comm_hours;
        offer_flag(it, _("interconnect-bound: ZeRO-%d moves %g x the parameters' %.1f GB per step over %s at about "
                         "%.0f GB/s: %.0f hours of communication against %.0f of compute"),
                   plan->zero_stage, zero_comm_passes(plan->zero_stage), plan->params * 2 / 1e9, it->ic.link,
                   it->ic.busbw_bytes_s / 1e9, it->comm_hours, it->compute_hours);
    }
}

/* llm-infer --rate: the offers (nodes) plan.rate needs, and what they cost. */
static void price_rate(struct offer *it, const struct offer_plan *plan)
{
    if (plan->rate_nodes <= 0 || plan->rate_tokens_s_needed <= 0) {
        offer_flag(it, _("the rate's GPUs are unknown: %s"), *plan->rate_why ? plan->rate_why : _("unknown"));
        return;
    }
    it->offers_needed = plan->rate_nodes;
    it->rate_headroom = plan->rate_headroom;
    it->rate_cost_per_hour = (double)plan->rate_nodes * it->price_per_hour_ranked;
    it->rate_cost_per_million = it->rate_cost_per_hour / (plan->rate_tokens_s_needed * 3600) * 1e6;
}

/* Hours and cost of the job on one offer that fits (none when the job has no size). */
static void price_job(struct offer *it, const struct offer_job *job, const struct offer_plan *plan)
{
    double gpus = (double)it->count * job->nodes;
    it->applied_util = it->util > 0 ? it->util : job->cli_util > 0 ? job->cli_util : 1.0;
    it->util_source = it->util > 0 ? "offer" : job->cli_util > 0 ? "--util" : "none given: peak (1.0)";
    if (job->flops > 0) {
        double dense = it->gpu->dense[PREC_BF16];
        if (dense <= 0) {
            offer_flag(it, _("%s has no dense BF16 figure in the table: the job's hours are unknown"), it->gpu->id);
            return;
        }
        it->hours = it->compute_hours = job->flops / (gpus * dense * 1e12 * it->applied_util * 3600);
        if (it->util <= 0 && job->cli_util <= 0)
            offer_flag(it, _("no utilisation given: hours at peak dense BF16 TFLOPS, which training never reaches; "
                             "pass --util or a util field"));
        add_collectives(it, job, plan);
    } else if (job->inference) {
        /* An estimate from the roofline (plan.throughput); utilisation shares are its own. */
        it->applied_util = 0;
        it->util_source = "not applied: the tokens/s estimate uses its own bandwidth and FLOPS shares";
        it->per_token = true;
        it->per_rate = job->rate > 0;
        if (plan->output_tokens_s <= 0) {
            offer_flag(it, _("no tokens/s estimate: %s"), *plan->throughput_why ? plan->throughput_why : _("unknown"));
            return;
        }
        it->output_tokens_s = plan->output_tokens_s;
        it->cost_per_million_tokens = it->price_per_hour_ranked / (plan->output_tokens_s * 3600) * 1e6;
        if (plan->tensor_parallel > 1 && it->ic.kind == IC_PCIE)
            offer_flag(it, _("tensor parallelism %d over %s: each layer's all-reduces run at about %.0f GB/s bus "
                             "bandwidth (%s), against hundreds of GB/s over NVLink; the tokens/s count them"),
                       plan->tensor_parallel, it->ic.link, it->ic.busbw_bytes_s / 1e9, ic_basis_label(it->ic.basis));
        if (job->rate > 0)
            price_rate(it, plan);
        if (job->tokens <= 0)
            return;
        it->hours = job->tokens / (plan->output_tokens_s * job->nodes * 3600);
    } else if (job->images > 0) {
        if (plan->images_s_per_gpu <= 0) {
            offer_flag(it, _("the plan has no images/s for %s: the job's hours are unknown"), it->gpu->id);
            return;
        }
        /* A training rate is measured throughput: a utilisation does not apply to it. */
        it->applied_util = 0;
        it->util_source = "not applied: images/s are a measured rate";
        it->hours = job->images / (gpus * plan->images_s_per_gpu * 3600);
    } else {
        return;
    }
    it->cost = it->hours * it->price_per_hour_ranked * job->nodes;
}

static int fitting_first_then_currency_then_cost(const void *a, const void *b)
{
    const struct offer *x = a, *y = b;
    if (x->fits != y->fits)
        return x->fits ? -1 : 1;
    if (!x->fits)
        return x->index - y->index; /* as the file lists them */
    int c = strcasecmp(x->ranked_currency, y->ranked_currency);
    if (c)
        return c;
    /* llm-infer --rate: by what serving the rate costs an hour; offers without an estimate after */
    if (x->per_rate || y->per_rate) {
        if ((x->rate_cost_per_hour > 0) != (y->rate_cost_per_hour > 0))
            return x->rate_cost_per_hour > 0 ? -1 : 1;
        if (x->rate_cost_per_hour != y->rate_cost_per_hour)
            return (x->rate_cost_per_hour > y->rate_cost_per_hour) - (x->rate_cost_per_hour < y->rate_cost_per_hour);
        return x->index - y->index;
    }
    /* llm-infer: by cost per million output tokens (a job's cost is that x its tokens: same order);
     * offers without an estimate after, as the file lists them, never by price per hour. */
    if (x->per_token) {
        if ((x->cost_per_million_tokens > 0) != (y->cost_per_million_tokens > 0))
            return x->cost_per_million_tokens > 0 ? -1 : 1;
        if (x->cost_per_million_tokens != y->cost_per_million_tokens)
            return (x->cost_per_million_tokens > y->cost_per_million_tokens) -
                   (x->cost_per_million_tokens < y->cost_per_million_tokens);
        return x->index - y->index;
    }
    if ((x->cost > 0) != (y->cost > 0))
        return x->cost > 0 ? -1 : 1;
    double u = x->cost > 0 ? x->cost : x->price_per_hour_ranked, v = y->cost > 0 ? y->cost : y->price_per_hour_ranked;
    if (u != v)
        return (u > v) - (u < v);
    return x->index - y->index;
}

double offer_training_flops(double active_params, double tokens, bool frozen_weights, bool full_recompute,
                            const char **method)
{
    if (frozen_weights)
        *method = full_recompute
                      ? _("6 x active parameters x tokens: forward 2PT, the activations' gradients 2PT, no gradients "
                          "for the frozen weights (Kaplan et al. 2020's 6PT less 2PT), and the forward again for full "
                          "recompute 2PT (Korthikanti et al. 2022); adapters and QLoRA's dequantization not counted")
                      : _("4 x active parameters x tokens: forward 2PT, the activations' gradients 2PT, no "
                          "gradients for the frozen weights (Kaplan et al. 2020's 6PT less 2PT); adapters and "
                          "QLoRA's dequantization not counted");
    else
        *method = full_recompute ? _("8 x active parameters x tokens: forward 2PT + backward 4PT (Kaplan et al. 2020) + "
                                     "the forward again for full recompute 2PT (Korthikanti et al. 2022)")
                                 : _("6 x active parameters x tokens: forward 2PT + backward 4PT (Kaplan et al. 2020)");
    return training_passes(frozen_weights, full_recompute) * 2.0 * active_params * tokens;
}

int training_passes(bool frozen_weights, bool full_recompute)
{
    return (frozen_weights ? 2 : 3) + (full_recompute ? 1 : 0);
}

static double requirement(json_t *plan, const char *key)
{
    json_t *v = json_object_get(json_object_get(json_object_get(plan, "requirements"), key), "value");
    return json_is_number(v) ? json_number_value(v) : 0;
}

void offer_plan_from_doc(json_t *plan, struct offer_plan *out)
{
    json_t *memory = json_object_get(plan, "gpu_memory"), *tp = json_object_get(plan, "tensor_parallel");
    json_t *fits = json_object_get(memory, "fits");
    *out = (struct offer_plan){.fits = !json_is_false(fits), .fit_unknown = json_is_null(fits)};
    out->cpu_cores_per_node = requirement(plan, "cpu_cores_per_node");
    out->host_ram_bytes_per_node = requirement(plan, "host_ram_bytes_per_node");
    json_t *rate = json_object_get(json_object_get(plan, "pipeline"), "images_s_per_gpu");
    out->images_s_per_gpu = json_is_number(rate) ? json_number_value(rate) : 0;
    json_t *throughput = json_object_get(plan, "throughput");
    json_t *tokens_s = json_object_get(throughput, "output_tokens_s");
    out->output_tokens_s = json_is_number(tokens_s) ? json_number_value(tokens_s) : 0;
    const char *why = json_string_value(json_object_get(throughput, "why_unknown"));
    snprintf(out->throughput_why, sizeof out->throughput_why, "%s", why ? why : "");
    out->tensor_parallel = (int)json_integer_value(json_object_get(throughput, "tensor_parallel"));
    json_t *served = json_object_get(plan, "rate");
    out->rate_nodes = (long)json_integer_value(json_object_get(served, "nodes"));
    out->rate_headroom = json_number_value(json_object_get(served, "headroom"));
    out->rate_tokens_s_needed = json_number_value(json_object_get(served, "output_tokens_s_needed"));
    const char *rate_why = json_string_value(json_object_get(served, "why_unknown"));
    snprintf(out->rate_why, sizeof out->rate_why, "%s", rate_why ? rate_why : why ? why : "");
    out->zero_stage = -1;
    if (json_is_false(json_object_get(tp, "valid"))) {
        out->fits = false;
        snprintf(out->why_not, sizeof out->why_not, _("not runnable with tensor parallelism over %lld GPUs: %s"),
                 json_integer_value(json_object_get(tp, "size")), json_string_value(json_object_get(tp, "why")));
        return;
    }
    if (out->fits)
        return;
    /* Training plans say total/available, inference plans total_per_gpu/available_per_gpu. */
    json_t *total = json_object_get(memory, "total_per_gpu"), *available = json_object_get(memory, "available_per_gpu");
    if (!total)
        total = json_object_get(memory, "total");
    if (!available)
        available = json_object_get(memory, "available");
    const char *advice = NULL;
    size_t i;
    json_t *step;
    json_array_foreach (json_object_get(plan, "steps"), i, step) {
        const char *name = json_string_value(json_object_get(step, "step"));
        if (name && !strcmp(name, "advice"))
            advice = json_string_value(json_object_get(step, "text"));
    }
    double needs = json_number_value(total) / GB, usable = json_number_value(available) / GB;
    int decimals = decimals_apart(needs, usable);
    if (advice)
        snprintf(out->why_not, sizeof out->why_not, _("needs %.*f GB of GPU memory per GPU, %.*f GB usable; %s"),
                 decimals, needs, decimals, usable, advice);
    else
        snprintf(out->why_not, sizeof out->why_not, _("needs %.*f GB of GPU memory per GPU, %.*f GB usable"),
                 decimals, needs, decimals, usable);
}

int offers_rank_for_plan(struct offers *offers, const struct offer_job *job, const struct fx_rates *fx,
                         offer_plan_fn plan, void *ctx, enum offer_basis *basis, int *fitting)
{
    *basis = job->inference ? (job->rate > 0     ? OFFER_BASIS_RATE
                               : job->tokens > 0 ? OFFER_BASIS_JOB_COST
                                                 : OFFER_BASIS_PER_MILLION_TOKENS)
             : job->flops > 0 || job->images > 0 ? OFFER_BASIS_JOB_COST
                                                 : OFFER_BASIS_PRICE_PER_HOUR;
    *fitting = 0;
    for (int i = 0; i < offers->count; i++) {
        struct offer *it = &offers->items[i];
        it->fx_to_usd = strcasecmp(it->currency, "USD") ? fx_lookup(fx, it->currency) : 0;
        it->ranked_currency = it->fx_to_usd > 0 ? "USD" : it->currency;
        it->price_per_hour_ranked = it->price_per_hour * (it->fx_to_usd > 0 ? it->fx_to_usd : 1);
        struct offer_plan result = {0};
        int rc = plan(ctx, it->gpu, it->count, &result);
        if (rc != 0)
            return rc;
        it->fits = result.fits;
        it->tensor_parallel = job->inference ? result.tensor_parallel : 0;
        interconnect_in_node(it->gpu,
                             job->inference && result.tensor_parallel > 0 ? result.tensor_parallel
                                                                          : it->count * it->gpu->devices,
                             &it->ic);
        if (!it->fits)
            it->why_not = strdup(*result.why_not ? result.why_not : _("the plan does not fit these GPUs"));
        check_offer_host(it, &result);
        if (*it->gpu_note)
            offer_flag(it, "%s", it->gpu_note);
        if (it->fits && result.fit_unknown)
            offer_flag(it, _("the model states fit; activations are not counted without the model's shape (--model or "
                           "--model-config), so whether the job fits is unknown"));
        if (it->fits) {
            ++*fitting;
            price_job(it, job, &result);
        }
    }
    qsort(offers->items, (size_t)offers->count, sizeof *offers->items, fitting_first_then_currency_then_cost);
    return 0;
}
