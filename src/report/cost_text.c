/* `gpuvet cost` as text: offers ranked per currency by price per dense TFLOPS-hour; and the
 * offers of `gpuvet plan --offers` ranked by the cost of the planned job. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "report/cost_report.h"
#include "util/i18n.h"

int cost_report_text(FILE *out, const struct cost_report *r, const struct offers *offers)
{
    if (r->util_from)
        fprintf(out, "Utilisation from %s: mean SM %.1f%% over %d samples\n\n", r->util_from, r->measured_util * 100,
                r->measured_samples);
    fprintf(out,
            "Offers ranked by price per dense %s TFLOPS-hour = price per hour / (GPUs x dense TFLOPS x "
            "utilisation)\n\n",
            precision_name(r->prec));
    fprintf(out, "%-3s %-24s %-16s %3s %12s %5s %14s %12s", "#", "NAME", "GPU", "N", "PRICE/HOUR", "UTIL",
            "PER TFLOPS-H", "PER GPU-GB-H");
    if (r->job_flops > 0)
        fprintf(out, " %10s %12s", "JOB HOURS", "JOB COST");
    fputc('\n', out);
    int rank = 0, groups = 0;
    for (int i = 0; i < offers->count; i++) {
        const struct offer *it = &offers->items[i];
        /* Each currency is its own ranking: a price in CNY and one in USD are not comparable. */
        if (i == 0 || strcasecmp(it->ranked_currency, offers->items[i - 1].ranked_currency)) {
            fprintf(out, "-- prices in %s%s\n", it->ranked_currency,
                    offers_fx_converted_any(offers, it->ranked_currency) ? " (converted with --fx)" : "");
            rank = 0;
            groups++;
        }
        char price[48], per_tflops[32] = "-";
        snprintf(price, sizeof price, "%.3f %s", it->price_per_hour, it->currency);
        if (it->per_dense_tflops_hour > 0)
            snprintf(per_tflops, sizeof per_tflops, "%.6f", it->per_dense_tflops_hour);
        fprintf(out, "%-3d %-24.24s %-16s %3d %12s %5.2f %14s %12.5f", ++rank, it->name, it->gpu->id, it->count, price,
                it->applied_util, per_tflops, it->per_gpu_memory_gb_hour);
        if (r->job_flops > 0 && it->hours > 0)
            fprintf(out, " %10.1f %12.2f", it->hours, it->cost);
        fputc('\n', out);
        for (int k = 0; k < it->nflags; k++)
            fprintf(out, "      ! %s\n", it->flags[k]);
    }
    if (groups > 1)
        fprintf(out,
                "\nOffers in %d currencies are ranked apart; --fx CUR=RATE (US dollars per unit) ranks them "
                "together.\n",
                groups);
    if (r->job_flops > 0)
        fprintf(out, "\nJob: %.3g FLOPs; hours = FLOPs / (GPUs x dense TFLOPS x 1e12 x utilisation x 3600).\n",
                r->job_flops);
    fprintf(out,
            "\nDense figures only: vendors' headline tensor TFLOPS (H100 SXM FP16 \"1979\") are with 2:4\n"
            "sparsity, which training does not use (NVIDIA H100 datasheet, footnote: \"with sparsity\"). Dividing\n"
            "by 1979 halves the H100's price per TFLOPS-hour against an A100 quoted dense (312).\n");
    return ferror(out) ? -1 : 0;
}

/* ---- plan --offers ------------------------------------------------------------------------- */

static void print_plan_offer(FILE *out, json_t *o, bool job_cost, bool per_token)
{
    json_t *util = json_object_get(o, "utilisation"), *hours = json_object_get(o, "hours");
    char price[48], shown_util[16] = "-";
    snprintf(price, sizeof price, "%.3f %s", json_number_value(json_object_get(o, "price_per_hour")),
             json_string_value(json_object_get(o, "currency")));
    if (json_is_number(util))
        snprintf(shown_util, sizeof shown_util, "%.2f", json_number_value(util));
    fprintf(out, "%-3lld %-24.24s %-16s %3lld %12s %5s", json_integer_value(json_object_get(o, "rank")),
            json_string_value(json_object_get(o, "name")), json_string_value(json_object_get(o, "gpu_id")),
            json_integer_value(json_object_get(o, "count")), price, shown_util);
    json_t *tokens_s = json_object_get(o, "output_tokens_s"), *per_million = json_object_get(o, "cost_per_million_output_tokens");
    if (per_token && json_is_number(tokens_s))
        fprintf(out, " %10.0f %12.3f", json_number_value(tokens_s), json_number_value(per_million));
    else if (per_token)
        fprintf(out, " %10s %12s", "-", "-");
    if (job_cost && json_is_number(hours))
        fprintf(out, " %10.1f %12.2f", json_number_value(hours), json_number_value(json_object_get(o, "cost")));
    else if (job_cost)
        fprintf(out, " %10s %12s", "-", "-");
    fputc('\n', out);
    size_t k;
    json_t *flag;
    json_array_foreach (json_object_get(o, "flags"), k, flag)
        fprintf(out, "      ! %s\n", json_string_value(flag));
}

void plan_offers_text(FILE *out, json_t *plan)
{
    json_t *offers = json_object_get(plan, "offers"), *job = json_object_get(offers, "job");
    bool job_cost = !strcmp(json_string_value(json_object_get(offers, "basis")), "job_cost");
    bool per_token = json_is_string(json_object_get(job, "output_tokens_method"));
    long long nodes = json_integer_value(json_object_get(plan, "nodes"));
    fprintf(out, "Offers of %s for %s, %lld node(s) of each: ranked by %s\n",
            json_string_value(json_object_get(offers, "file")), json_string_value(json_object_get(plan, "workload")),
            nodes,
            per_token  ? _("the estimated cost per million output tokens")
            : job_cost ? "the job's cost"
                       : "price per hour");
    if (per_token) {
        fprintf(out,
                _("Estimate, not a measurement: output tokens/s from each offer's plan (decode reads the weights and "
                  "the KV cache every step at %.0f%% of HBM bandwidth; prefill runs at %.0f%% of dense tensor "
                  "FLOPS; plan.throughput.formula); cost per million output tokens = price per hour / (tokens/s x "
                  "3600) x 1e6\n"),
                json_number_value(json_object_get(job, "hbm_bandwidth_share")) * 100,
                json_number_value(json_object_get(job, "flops_share")) * 100);
        if (json_is_number(json_object_get(job, "output_tokens")))
            fprintf(out, _("Job: %.3g output tokens; hours = output tokens / (nodes x tokens/s x 3600)\n"),
                    json_number_value(json_object_get(job, "output_tokens")));
    } else if (json_is_number(json_object_get(job, "flops")))
        fprintf(out,
                "Job: %.3g FLOPs (%s);\n  hours = FLOPs / (GPUs x dense BF16 TFLOPS x 1e12 x utilisation x 3600)\n",
                json_number_value(json_object_get(job, "flops")),
                json_string_value(json_object_get(job, "flops_method")));
    else if (json_is_number(json_object_get(job, "images")))
        fprintf(out, "Job: %.3g images; hours = images / (GPUs x images/s per GPU x 3600)\n",
                json_number_value(json_object_get(job, "images")));
    else
        fprintf(out, "No job size (--tokens for llm-train, --images for cv-train): the offers that fit, by price "
                     "per hour\n");
    fprintf(out, "\n%-3s %-24s %-16s %3s %12s %5s", "#", "NAME", "GPU", "N", "PRICE/HOUR", "UTIL");
    if (per_token)
        fprintf(out, " %10s %12s", "TOKENS/S", "PER 1M TOK");
    if (job_cost)
        fprintf(out, " %10s %12s", "JOB HOURS", "JOB COST");
    fputc('\n', out);
    json_t *ranked = json_object_get(offers, "ranked"), *o, *previous = NULL;
    size_t i;
    json_array_foreach (ranked, i, o) {
        const char *currency = json_string_value(json_object_get(o, "price_currency"));
        if (!previous || strcasecmp(currency, json_string_value(json_object_get(previous, "price_currency"))))
            fprintf(out, "-- prices in %s%s\n", currency,
                    json_is_number(json_object_get(o, "fx_to_usd")) ? " (converted with --fx)" : "");
        print_plan_offer(out, o, job_cost, per_token);
        previous = o;
    }
    if (json_array_size(ranked) == 0)
        fprintf(out, "  none of the offers fits this job\n");
    if (json_array_size(json_object_get(offers, "currencies")) > 1)
        fprintf(out, "\nOffers in %zu currencies are ranked apart; --fx CUR=RATE (US dollars per unit) ranks them "
                     "together.\n",
                json_array_size(json_object_get(offers, "currencies")));
    json_t *not_fitting = json_object_get(offers, "not_fitting");
    if (json_array_size(not_fitting))
        fprintf(out, "\nDo not fit:\n");
    json_array_foreach (not_fitting, i, o)
        fprintf(out, "  %s (%lld x %s): %s\n", json_string_value(json_object_get(o, "name")),
                json_integer_value(json_object_get(o, "count")), json_string_value(json_object_get(o, "gpu_id")),
                json_string_value(json_object_get(o, "why")));
}
