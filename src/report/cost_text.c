/* `gpuvet cost` as text: offers ranked per currency by price per dense TFLOPS-hour; and the
 * offers of `gpuvet plan --offers` ranked by the cost of the planned job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/cost_report.h"
#include "report/wrap.h"
#include "util/output.h"
#include "util/i18n.h"
#include "util/width.h"

/* The columns of an offers table: each as wide as its numbers (the English layout) or its
 * translated header, whichever is wider, so that a Chinese header never runs into the next one. */
struct offer_columns {
    int n, price, util, per_tflops, per_gb, tokens_s, per_million, hours, cost, needed, rate_cost;
};

static int column(const char *header, int numbers)
{
    int w = (int)display_width(header);
    return w > numbers ? w : numbers;
}

static struct offer_columns offer_columns(void)
{
    /* TRANSLATORS: column headers of the offers table, right-aligned above numbers; a header wider
     * than its numbers (N 3, PRICE/HOUR 12, UTIL 5, PER TFLOPS-H 14, PER GPU-GB-H 12, TOKENS/S 10,
     * PER 1M TOK 12, JOB HOURS 10, JOB COST 12, OFFERS 6, COST/HOUR 10 columns) widens its column. */
    return (struct offer_columns){.n = column(_("N"), 3),
                                  .price = column(_("PRICE/HOUR"), 12),
                                  .util = column(_("UTIL"), 5),
                                  .per_tflops = column(_("PER TFLOPS-H"), 14),
                                  .per_gb = column(_("PER GPU-GB-H"), 12),
                                  .tokens_s = column(_("TOKENS/S"), 10),
                                  .per_million = column(_("PER 1M TOK"), 12),
                                  .hours = column(_("JOB HOURS"), 10),
                                  .cost = column(_("JOB COST"), 12),
                                  .needed = column(_("OFFERS"), 6),
                                  .rate_cost = column(_("COST/HOUR"), 10)};
}

/* The header of an offers table: # NAME GPU N PRICE/HOUR UTIL, then the columns of the ranking. */
static void print_offers_header(FILE *out, const struct offer_columns *c, bool per_tflops, bool per_token,
                                bool job_cost, bool per_rate)
{
    fput_padded(out, "#", 4);
    fput_padded(out, _("NAME"), 25);
    fput_padded(out, "GPU", 16);
    fput_right(out, _("N"), (size_t)c->n + 1);
    fput_right(out, _("PRICE/HOUR"), (size_t)c->price + 1);
    if (!per_rate) /* the rate's estimate applies no utilisation: room for its columns */
        fput_right(out, _("UTIL"), (size_t)c->util + 1);
    if (per_tflops) {
        fput_right(out, _("PER TFLOPS-H"), (size_t)c->per_tflops + 1);
        fput_right(out, _("PER GPU-GB-H"), (size_t)c->per_gb + 1);
    }
    if (per_rate) { /* tokens/s of one offer; offers the rate needs, their cost an hour and per 1M at the rate */
        fput_right(out, _("TOKENS/S"), (size_t)c->tokens_s + 1);
        fput_right(out, _("OFFERS"), (size_t)c->needed + 1);
        fput_right(out, _("COST/HOUR"), (size_t)c->rate_cost + 1);
    } else if (per_token) {
        fput_right(out, _("TOKENS/S"), (size_t)c->tokens_s + 1);
        fput_right(out, _("PER 1M TOK"), (size_t)c->per_million + 1);
    }
    if (job_cost) {
        fput_right(out, _("JOB HOURS"), (size_t)c->hours + 1);
        fput_right(out, _("JOB COST"), (size_t)c->cost + 1);
    }
    fputc('\n', out);
}

/* An offer's name in the NAME column: cut to 24 display columns (names may be Chinese), padded. */
static void print_offer_name(FILE *out, const char *name)
{
    char cut[128];
    name = name ? name : "";
    size_t bytes = display_prefix(name, strlen(name), 24);
    snprintf(cut, sizeof cut, "%.*s", (int)(bytes < sizeof cut ? bytes : sizeof cut - 1), name);
    fput_padded(out, cut, 25);
}

/* "-- prices in CNY": each currency is its own ranking. */
static void print_currency_line(FILE *out, const char *currency, bool converted)
{
    fprintf(out, converted ? _("-- prices in %s (converted with --fx)\n") : _("-- prices in %s\n"), currency);
}

/* Why each currency has its own ranking, when there are several. */
static void print_currencies_note(FILE *out, size_t currencies)
{
    if (currencies > 1)
        fprintf(out,
                _("\nOffers in %zu currencies are ranked apart; --fx CUR=RATE (US dollars per unit) ranks them "
                  "together.\n"),
                currencies);
}

/* Whether offer i's flag k is said by another offer too: such a flag is printed once, after the
 * table, with the offers it concerns, rather than under every row. */
static bool flag_shared(const struct offers *offers, int i, int k)
{
    for (int j = 0; j < offers->count; j++)
        for (int l = 0; j != i && l < offers->items[j].nflags; l++)
            if (!strcmp(offers->items[j].flags[l], offers->items[i].flags[k]))
                return true;
    return false;
}

/* The flags several offers share, once each: "! offers 1, 2 and 3 (USD): ...". Ranks restart per
 * currency, so each names its currency. */
static void print_shared_flags(FILE *out, const struct offers *offers, const int *ranks)
{
    bool header = false;
    for (int i = 0; i < offers->count; i++)
        for (int k = 0; k < offers->items[i].nflags; k++) {
            const char *flag = offers->items[i].flags[k];
            bool first = flag_shared(offers, i, k);
            for (int j = 0; first && j < i; j++)
                for (int l = 0; l < offers->items[j].nflags; l++)
                    if (!strcmp(offers->items[j].flags[l], flag))
                        first = false;
            if (!first)
                continue;
            if (!header)
                fputc('\n', out);
            header = true;
            char list[512] = "";
            size_t len = 0;
            int shown = 0;
            for (int j = 0; j < offers->count; j++)
                for (int l = 0; l < offers->items[j].nflags; l++)
                    if (!strcmp(offers->items[j].flags[l], flag) && len < sizeof list - 64) {
                        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d (%s)", shown++ ? ", " : "",
                                                ranks[j], offers->items[j].ranked_currency);
                        break;
                    }
            /* TRANSLATORS: %s: the offers' ranks with their currency, "1 (USD), 2 (USD)"; then the note. */
            fprintf(out, _("! offers %s: %s\n"), list, flag);
        }
}

static int print_cost(FILE *out, const struct cost_report *r, const struct offers *offers)
{
    if (r->util_from)
        fprintf(out, _("Utilisation from %s: mean SM %.1f%% over %d samples\n\n"), r->util_from, r->measured_util * 100,
                r->measured_samples);
    fprintf(out,
            _("Offers ranked by price per dense %s TFLOPS-hour = price per hour / (GPUs x dense TFLOPS x "
              "utilisation)\n"),
            precision_name(r->prec));
    /* The ranking is by price and compute only: say so, since a cheap offer may not hold the model. */
    if (r->params > 0)
        fprintf(out,
                _("Not checked: whether a %.3gB-parameter model and its training states fit each offer's GPU "
                  "memory; `gpuvet plan --workload llm-train --params %.3gB --tokens T --offers FILE` plans the job "
                  "on each offer and names those that do not fit\n"),
                r->params / 1e9, r->params / 1e9);
    else
        fputs(_("Not checked: whether the job fits each offer's GPU memory; `gpuvet plan --offers FILE` plans it on "
                "each offer and names those that do not fit\n"),
              out);
    fputc('\n', out);
    struct offer_columns c = offer_columns();
    print_offers_header(out, &c, true, false, false, false);
    int rank = 0, groups = 0;
    int *ranks = offers->count > 0 ? calloc((size_t)offers->count, sizeof *ranks) : NULL;
    for (int i = 0; i < offers->count; i++) {
        const struct offer *it = &offers->items[i];
        /* Each currency is its own ranking: a price in CNY and one in USD are not comparable. */
        if (i == 0 || strcasecmp(it->ranked_currency, offers->items[i - 1].ranked_currency)) {
            print_currency_line(out, it->ranked_currency, offers_fx_converted_any(offers, it->ranked_currency));
            rank = 0;
            groups++;
        }
        char price[48], per_tflops[32] = "-";
        snprintf(price, sizeof price, "%.3f %s", it->price_per_hour, it->currency);
        if (it->per_dense_tflops_hour > 0)
            snprintf(per_tflops, sizeof per_tflops, "%.6f", it->per_dense_tflops_hour);
        if (ranks)
            ranks[i] = rank + 1;
        fprintf(out, "%-3d ", ++rank);
        print_offer_name(out, it->name);
        fprintf(out, "%-16s %*d %*s %*.2f %*s %*.6f\n", it->gpu->id, c.n, it->count, c.price, price, c.util,
                it->applied_util, c.per_tflops, per_tflops, c.per_gb, it->per_gpu_memory_gb_hour);
        /* The job on its own line: hours and cost start at the same column on every offer, the cost
         * in the currency it is ranked in. */
        if (r->job_flops > 0 && it->hours > 0)
            fprintf(out, _("      job: %.1f hours, %.2f %s\n"), it->hours, it->cost, it->ranked_currency);
        for (int k = 0; k < it->nflags; k++)
            if (!ranks || !flag_shared(offers, i, k))
                fprintf(out, "      ! %s\n", it->flags[k]);
    }
    if (ranks)
        print_shared_flags(out, offers, ranks);
    free(ranks);
    print_currencies_note(out, (size_t)groups);
    if (r->job_flops > 0)
        fprintf(out, _("\nJob: %.3g FLOPs; hours = FLOPs / (GPUs x dense TFLOPS x 1e12 x utilisation x 3600).\n"),
                r->job_flops);
    fputs(_("\nDense figures only: vendors' headline tensor TFLOPS (H100 SXM FP16 \"1979\") are with 2:4\n"
            "sparsity, which training does not use (NVIDIA H100 datasheet, footnote: \"with sparsity\"). Dividing\n"
            "by 1979 halves the H100's price per TFLOPS-hour against an A100 quoted dense (312).\n"),
          out);
    return ferror(out) ? -1 : 0;
}

struct cost_text {
    const struct cost_report *report;
    const struct offers *offers;
};

static int render_cost(FILE *out, const void *ctx)
{
    const struct cost_text *c = ctx;
    return print_cost(out, c->report, c->offers);
}

static int render_cost_wrapped(FILE *out, const void *ctx) { return render_wrapped_table(out, render_cost, ctx); }

/* Offer names come from the user's file: escaped on the way out; long lines wrapped. */
int cost_report_text(FILE *out, const struct cost_report *r, const struct offers *offers)
{
    struct cost_text c = {r, offers};
    return text_render_escaped(out, render_cost_wrapped, &c, NULL);
}

/* ---- plan --offers ------------------------------------------------------------------------- */

static void print_plan_offer(FILE *out, const struct offer_columns *c, json_t *o, bool job_cost, bool per_token,
                             bool per_rate)
{
    json_t *util = json_object_get(o, "utilisation"), *hours = json_object_get(o, "hours");
    char price[48], shown_util[16] = "-";
    snprintf(price, sizeof price, "%.3f %s", json_number_value(json_object_get(o, "price_per_hour")),
             json_string_value(json_object_get(o, "currency")));
    if (json_is_number(util))
        snprintf(shown_util, sizeof shown_util, "%.2f", json_number_value(util));
    fprintf(out, "%-3lld ", json_integer_value(json_object_get(o, "rank")));
    print_offer_name(out, json_string_value(json_object_get(o, "name")));
    fprintf(out, "%-16s %*lld %*s", json_string_value(json_object_get(o, "gpu_id")), c->n,
            json_integer_value(json_object_get(o, "count")), c->price, price);
    if (!per_rate)
        fprintf(out, " %*s", c->util, shown_util);
    json_t *tokens_s = json_object_get(o, "output_tokens_s");
    json_t *per_million = json_object_get(o, "cost_per_million_output_tokens");
    json_t *needed = json_object_get(o, "offers_needed");
    if (per_rate && json_is_number(tokens_s) && json_is_integer(needed))
        fprintf(out, " %*.0f %*lld %*.2f", c->tokens_s, json_number_value(tokens_s), c->needed,
                json_integer_value(needed), c->rate_cost,
                json_number_value(json_object_get(o, "cost_per_hour_at_rate")));
    else if (per_rate)
        fprintf(out, " %*s %*s %*s", c->tokens_s, "-", c->needed, "-", c->rate_cost, "-");
    else if (per_token && json_is_number(tokens_s))
        fprintf(out, " %*.0f %*.3f", c->tokens_s, json_number_value(tokens_s), c->per_million,
                json_number_value(per_million));
    else if (per_token)
        fprintf(out, " %*s %*s", c->tokens_s, "-", c->per_million, "-");
    if (job_cost && json_is_number(hours))
        fprintf(out, " %*.1f %*.2f", c->hours, json_number_value(hours), c->cost,
                json_number_value(json_object_get(o, "cost")));
    else if (job_cost)
        fprintf(out, " %*s %*s", c->hours, "-", c->cost, "-");
    fputc('\n', out);
    if (per_rate && json_is_integer(needed))
        fprintf(out, _("      at the rate: %.3f %s per million output tokens; headroom %.0f%%\n"),
                json_number_value(json_object_get(o, "cost_per_million_output_tokens_at_rate")),
                json_string_value(json_object_get(o, "price_currency")),
                json_number_value(json_object_get(o, "headroom")) * 100);
    json_t *ic = json_object_get(o, "interconnect"), *busbw = json_object_get(ic, "bus_bandwidth_gbs");
    if (json_is_number(busbw))
        /* TRANSLATORS: %s: the link ("NVLink4", "PCIe Gen4 x16"); then "measured" or "estimated". */
        fprintf(out, _("      link: %s, about %.0f GB/s bus bandwidth (%s)\n"),
                json_string_value(json_object_get(ic, "link")), json_number_value(busbw),
                !strcmp(json_string_value(json_object_get(ic, "basis")), "measured") ? _("measured") : _("estimated"));
    json_t *comm = json_object_get(o, "communication_hours");
    if (json_is_number(comm) && json_number_value(comm) > 0)
        fprintf(out, _("      hours: compute %.1f (peak dense BF16 x utilisation), in-node collectives %.1f; the job "
                       "takes the longer\n"),
                json_number_value(json_object_get(o, "compute_hours")), json_number_value(comm));
    const char *not_counted = json_string_value(json_object_get(o, "communication_not_counted"));
    if (not_counted)
        fprintf(out, _("      collectives not counted: %s\n"), _(not_counted));
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
    bool per_rate = json_is_number(json_object_get(job, "rate_requests_s"));
    long long nodes = json_integer_value(json_object_get(plan, "nodes"));
    if (per_rate)
        fprintf(out,
                _("Offers of %s for %s at %g requests/s: ranked by what serving that rate costs an hour (the offers "
                  "it needs x price per hour)\n"),
                json_string_value(json_object_get(offers, "file")), json_string_value(json_object_get(plan, "workload")),
                json_number_value(json_object_get(job, "rate_requests_s")));
    else
        fprintf(out,
                per_token  ? _("Offers of %s for %s, %lld node(s) of each: ranked by the estimated cost per million output "
                               "tokens\n")
                : job_cost ? _("Offers of %s for %s, %lld node(s) of each: ranked by the job's cost\n")
                           : _("Offers of %s for %s, %lld node(s) of each: ranked by price per hour\n"),
                json_string_value(json_object_get(offers, "file")), json_string_value(json_object_get(plan, "workload")),
                nodes);
    if (per_token) {
        fprintf(out,
                _("Estimate, not a measurement: output tokens/s from each offer's plan (decode reads the weights and "
                  "the KV cache every step at %.0f%% of HBM bandwidth; prefill runs at %.0f%% of dense tensor "
                  "FLOPS; tensor parallelism adds its all-reduces at the link's bus bandwidth; "
                  "plan.throughput.formula); cost per million output tokens = price per hour / (tokens/s x "
                  "3600) x 1e6\n"),
                json_number_value(json_object_get(job, "hbm_bandwidth_share")) * 100,
                json_number_value(json_object_get(job, "flops_share")) * 100);
        if (per_rate)
            fputs(_("Each offer is one node; OFFERS: how many the rate needs (plan.rate.nodes of its plan); COST/HOUR: "
                    "those offers' price per hour together\n"),
                  out);
        if (json_is_number(json_object_get(job, "output_tokens")))
            fprintf(out, _("Job: %.3g output tokens; hours = output tokens / (nodes x tokens/s x 3600)\n"),
                    json_number_value(json_object_get(job, "output_tokens")));
    } else if (json_is_number(json_object_get(job, "flops")))
        fprintf(out,
                _("Job: %.3g FLOPs (%s);\n  hours = FLOPs / (GPUs x dense BF16 TFLOPS x 1e12 x utilisation x 3600)\n"
                  "  or the in-node ZeRO collectives when they take longer: per micro-step 2 (DDP, ZeRO-1/2) or 3 "
                  "(ZeRO-3) x (GPUs - 1) / GPUs x parameters x 2 B / bus bandwidth (ZeRO, Rajbhandari et al. 2020, "
                  "section 7)\n"),
                json_number_value(json_object_get(job, "flops")),
                json_string_value(json_object_get(job, "flops_method")));
    else if (json_is_number(json_object_get(job, "images")))
        fprintf(out, _("Job: %.3g images; hours = images / (GPUs x images/s per GPU x 3600)\n"),
                json_number_value(json_object_get(job, "images")));
    else
        fputs(_("No job size (--tokens for llm-train, --images for cv-train): the offers that fit, by price per "
                "hour\n"),
              out);
    fputc('\n', out);
    struct offer_columns c = offer_columns();
    print_offers_header(out, &c, false, per_token, job_cost && !per_rate, per_rate);
    json_t *ranked = json_object_get(offers, "ranked"), *o, *previous = NULL;
    size_t i;
    json_array_foreach (ranked, i, o) {
        const char *currency = json_string_value(json_object_get(o, "price_currency"));
        if (!previous || strcasecmp(currency, json_string_value(json_object_get(previous, "price_currency"))))
            print_currency_line(out, currency, json_is_number(json_object_get(o, "fx_to_usd")));
        print_plan_offer(out, &c, o, job_cost && !per_rate, per_token, per_rate);
        previous = o;
    }
    if (json_array_size(ranked) == 0)
        fputs(_("  none of the offers fits this job\n"), out);
    print_currencies_note(out, json_array_size(json_object_get(offers, "currencies")));
    json_t *not_fitting = json_object_get(offers, "not_fitting");
    if (json_array_size(not_fitting))
        fputs(_("\nDo not fit:\n"), out);
    json_array_foreach (not_fitting, i, o)
        fprintf(out, "  %s (%lld x %s): %s\n", json_string_value(json_object_get(o, "name")),
                json_integer_value(json_object_get(o, "count")), json_string_value(json_object_get(o, "gpu_id")),
                json_string_value(json_object_get(o, "why")));
}
