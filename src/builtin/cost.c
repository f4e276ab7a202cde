#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "probe/watch.h"
#include "util/csv.h"
#include "util/gputable.h"
#include "sizing/jsonfile.h"
#include "util/parse.h"
#include "sizing/utilisation.h"
#include "util/jsonval.h"

static const char usage[] =
    "usage: gpuvet cost OFFERS.csv|OFFERS.json [--precision P] [--util U | --util-from DMON.log|WATCH.json]\n"
    "                   [--job-flops F | --params P --tokens T] [--json]\n"
    "\n"
    "Ranks GPU offers by effective price: price per hour / (GPUs x dense TFLOPS x utilisation).\n"
    "Offers: CSV with a header, or JSON (an array, or {\"offers\": [...]}), with the fields\n"
    "  name, gpu, count, and price_per_hour or price_per_month (720 hours, a 30-day month);\n"
    "  optional: currency (USD), util (measured GPU utilisation of that server), tflops (the\n"
    "  per-GPU TFLOPS the offer quotes: a sparse figure is flagged), cpu, ram_gb.\n"
    "\n"
    "  --precision P   bf16 (default), fp16, tf32, fp32, fp64, fp8, int8\n"
    "  --util U        utilisation for offers without a util field (0.68 or 68%); default 1 = peak\n"
    "  --util-from LOG the mean SM utilisation of an `nvidia-smi dmon -s u` log, or of a\n"
    "                  `gpuvet watch --json` timeline (a .json file), used as --util\n"
    "  --fx CUR=RATE   US dollars per unit of CUR (--fx CNY=0.14): convert those offers and rank them\n"
    "                  with the USD ones; without a rate each currency is ranked on its own\n"
    "  --job-flops F   a job's FLOPs (1e21, 3.2e22): hours and cost per offer\n"
    "  --params P --tokens T   the job is LLM training: 6 x P x T FLOPs (7B, 2T)\n"
    "  --json          write the gpuvet.cost/1 JSON document\n"
    "\n"
    "exit status: 0 ok, 2 bad input (the message names FILE:LINE)\n";

/* A monthly price covers 30 days x 24 hours. */
#define HOURS_PER_MONTH 720.0
/* A quoted TFLOPS figure "matches" a table figure within this relative tolerance (rounding). */
#define QUOTE_TOLERANCE 0.02

struct offer {
    char where[512]; /* FILE:LINE (CSV) or FILE: offers[i] (JSON), for messages */
    char *name, *gpu_query, *currency;
    const struct gpu_spec *gpu;
    char gpu_note[512];
    int count;
    double price_per_hour;
    bool monthly;
    double util;          /* 0 = not given in the offer (a given 0 is refused) */
    bool util_given, tflops_given;
    double quoted_tflops; /* 0 = not given */
    double cpu, ram_gb;   /* 0 = not given */
    /* results */
    double applied_util;
    const char *util_source;
    const char *ranked_currency;  /* the offer's currency, or USD when --fx converts it */
    double fx_to_usd;             /* the --fx rate applied; 0 = none */
    double price_per_hour_ranked; /* price per hour in ranked_currency */
    double per_dense_tflops_hour; /* in ranked_currency; 0 when the GPU has no dense figure at the precision */
    double per_gpu_memory_gb_hour;
    double hours, cost;
    json_t *flags;
};

struct offers {
    struct offer *items;
    int count;
};

/* --fx CUR=RATE: US dollars per unit of CUR, as the user gives them (gpuvet knows no rates). */
struct fx_rates {
    char currency[16][8];
    double usd[16];
    int count;
};

static bool fx_add(struct fx_rates *fx, const char *arg)
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

static void offers_free(struct offers *o)
{
    for (int i = 0; i < o->count; i++) {
        free(o->items[i].name);
        free(o->items[i].gpu_query);
        free(o->items[i].currency);
        json_decref(o->items[i].flags);
    }
    free(o->items);
}

static struct offer *offer_add(struct offers *o)
{
    o->items = realloc(o->items, sizeof *o->items * (size_t)(o->count + 1));
    struct offer *it = &o->items[o->count++];
    *it = (struct offer){.flags = json_array()};
    return it;
}

/* Checks the fields common to both formats once they are read; err gets "WHERE: what". */
static int offer_finish(struct offer *it, const struct gpu_table *table, double price_h, double price_m, double count,
                        char *err, size_t errlen)
{
    if (!it->name || !*it->name || !it->gpu_query || !*it->gpu_query) {
        snprintf(err, errlen, "%s: %s is missing", it->where, !it->name || !*it->name ? "name" : "gpu");
        return -1;
    }
    if (count < 1 || count != floor(count) || count > 100000) {
        snprintf(err, errlen, "%s: count must be a whole number of GPUs >= 1", it->where);
        return -1;
    }
    it->count = (int)count;
    if ((price_h > 0) == (price_m > 0)) {
        snprintf(err, errlen, "%s: give one positive price: price_per_hour or price_per_month", it->where);
        return -1;
    }
    it->monthly = price_m > 0;
    it->price_per_hour = it->monthly ? price_m / HOURS_PER_MONTH : price_h;
    if (it->util_given && (it->util <= 0 || it->util > 1)) {
        snprintf(err, errlen, "%s: util must be a fraction in (0, 1]%s", it->where,
                 it->util == 0 ? " (0: the GPUs did no work, so no price per TFLOPS; leave it empty for --util)" : "");
        return -1;
    }
    if (it->tflops_given && it->quoted_tflops <= 0) {
        snprintf(err, errlen, "%s: tflops must be positive (leave it empty when the offer quotes none)", it->where);
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
            snprintf(err, errlen, "%s:1: no '%s' column (name, gpu, count, price_per_hour|price_per_month)", path,
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
        snprintf(err, errlen, "%s:2: no offers after the header", path);
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
        snprintf(err, errlen, "%s: %s must be a number", where, key);
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
        snprintf(err, errlen, "%s: expected a non-empty array of offers, or {\"offers\": [...]}", path);
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
            snprintf(err, errlen, "%s: not an object", it->where);
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
        json_array_append_new(it->flags, json_sprintf("%s has no dense %s figure (no such mode, or the vendor lists "
                                                      "none): not ranked; try another --precision",
                                                      g->id, precision_name(prec)));
    }
    if (*it->gpu_note)
        json_array_append_new(it->flags, json_string(it->gpu_note));
    double q = it->quoted_tflops;
    if (q > 0 && (near(q, sparse) || near(q, sparse * it->count)) && !near(q, dense) && !near(q, dense * it->count))
        json_array_append_new(it->flags,
                              json_sprintf("quotes %g TFLOPS: the %s 2:4-sparsity figure; dense is %g per GPU "
                                           "and is what training gets",
                                           q, precision_name(prec), dense));
    else if (q > 0 && !near(q, dense) && !near(q, dense * it->count))
        json_array_append_new(it->flags,
                              json_sprintf("quotes %g TFLOPS; the table has %g dense%s per GPU at %s", q, dense,
                                           sparse > 0 ? " (and a sparse figure)" : "", precision_name(prec)));
    if (it->util <= 0 && cli_util <= 0)
        json_array_append_new(it->flags,
                              json_string("no utilisation given: priced at peak; measure it "
                                          "(nvidia-smi dmon -s u) and pass --util-from, --util or a util field"));
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

static json_t *positive_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }
/* A positive figure, null when not positive; inf or NaN is null with its reason (never dropped). */
static void set_positive(json_t *o, const char *key, double v)
{
    if (v > 0 || isnan(v))
        json_set_real(o, key, v);
    else
        json_object_set_new(o, key, json_null());
}

static json_t *offer_json(const struct offer *it, enum precision prec, int rank)
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
    json_set_real(o, "utilisation", it->applied_util);
    json_object_set_new(o, "utilisation_source", json_string(it->util_source));
    json_object_set_new(o, "dense_tflops_per_gpu", positive_or_null(it->gpu->dense[prec]));
    json_object_set_new(o, "sparse_tflops_per_gpu", positive_or_null(it->gpu->sparse[prec]));
    json_object_set_new(o, "quoted_tflops", positive_or_null(it->quoted_tflops));
    json_object_set_new(o, "price_currency", json_string(it->ranked_currency));
    set_positive(o, "fx_to_usd", it->fx_to_usd);
    set_positive(o, "price_per_dense_tflops_hour", it->per_dense_tflops_hour);
    json_set_real(o, "per_gpu_memory_gb_hour", it->per_gpu_memory_gb_hour);
    set_positive(o, "hours", it->hours);
    set_positive(o, "cost", it->cost);
    json_object_set_new(o, "cpu", positive_or_null(it->cpu));
    json_object_set_new(o, "ram_gb", positive_or_null(it->ram_gb));
    json_object_set_new(o, "flags", json_incref(it->flags));
    return o;
}

static bool fx_converted_any(const struct offers *offers, const char *ranked_currency)
{
    for (int i = 0; i < offers->count; i++)
        if (offers->items[i].fx_to_usd > 0 && !strcasecmp(offers->items[i].ranked_currency, ranked_currency))
            return true;
    return false;
}

static void print_text(const struct offers *offers, enum precision prec, double job_flops)
{
    printf("Offers ranked by price per dense %s TFLOPS-hour = price per hour / (GPUs x dense TFLOPS x "
           "utilisation)\n\n",
           precision_name(prec));
    printf("%-3s %-24s %-16s %3s %12s %5s %14s %12s", "#", "NAME", "GPU", "N", "PRICE/HOUR", "UTIL", "PER TFLOPS-H",
           "PER GPU-GB-H");
    if (job_flops > 0)
        printf(" %10s %12s", "JOB HOURS", "JOB COST");
    putchar('\n');
    int rank = 0, groups = 0;
    for (int i = 0; i < offers->count; i++) {
        const struct offer *it = &offers->items[i];
        /* Each currency is its own ranking: a price in CNY and one in USD are not comparable. */
        if (i == 0 || strcasecmp(it->ranked_currency, offers->items[i - 1].ranked_currency)) {
            printf("-- prices in %s%s\n", it->ranked_currency,
                   fx_converted_any(offers, it->ranked_currency) ? " (converted with --fx)" : "");
            rank = 0;
            groups++;
        }
        char price[48], per_tflops[32] = "-";
        snprintf(price, sizeof price, "%.3f %s", it->price_per_hour, it->currency);
        if (it->per_dense_tflops_hour > 0)
            snprintf(per_tflops, sizeof per_tflops, "%.6f", it->per_dense_tflops_hour);
        printf("%-3d %-24.24s %-16s %3d %12s %5.2f %14s %12.5f", ++rank, it->name, it->gpu->id, it->count, price,
               it->applied_util, per_tflops, it->per_gpu_memory_gb_hour);
        if (job_flops > 0 && it->hours > 0)
            printf(" %10.1f %12.2f", it->hours, it->cost);
        putchar('\n');
        size_t k;
        json_t *flag;
        json_array_foreach (it->flags, k, flag)
            printf("      ! %s\n", json_string_value(flag));
    }
    if (groups > 1)
        printf("\nOffers in %d currencies are ranked apart; --fx CUR=RATE (US dollars per unit) ranks them "
               "together.\n",
               groups);
    if (job_flops > 0)
        printf("\nJob: %.3g FLOPs; hours = FLOPs / (GPUs x dense TFLOPS x 1e12 x utilisation x 3600).\n", job_flops);
    printf("\nDense figures only: vendors' headline tensor TFLOPS (H100 SXM FP16 \"1979\") are with 2:4\n"
           "sparsity, which training does not use (NVIDIA H100 datasheet, footnote: \"with sparsity\"). Dividing\n"
           "by 1979 halves the H100's price per TFLOPS-hour against an A100 quoted dense (312).\n");
}

/* --util-from: a gpuvet.watch/1 timeline (docs/watch-json.md) when the name ends in .json, else an
 * `nvidia-smi dmon` log. */
static int measured_utilisation(const char *path, double *util, int *samples, char *err, size_t errlen)
{
    size_t len = strlen(path);
    if (len <= 5 || strcasecmp(path + len - 5, ".json"))
        return dmon_mean_sm_utilisation(path, util, samples, err, errlen);
    struct watch_timeline w;
    watch_timeline_init(&w);
    int rc = watch_replay_load(path, &w, err, errlen);
    if (rc == 0) {
        *util = watch_mean_sm(&w, samples);
        if (*samples == 0) {
            snprintf(err, errlen, "%s: the timeline holds no GPU utilisation (%s)", path,
                     w.gpu_unseen ? w.gpu_unseen : "no GPU was sampled");
            rc = -1;
        }
    }
    watch_timeline_free(&w);
    return rc;
}

int cmd_cost(int argc, char **argv)
{
    static const struct option options[] = {
        {"precision", required_argument, NULL, 'p'},
        {"util", required_argument, NULL, 'u'},
        {"job-flops", required_argument, NULL, 'f'},
        {"params", required_argument, NULL, 'P'},
        {"tokens", required_argument, NULL, 'T'},
        {"util-from", required_argument, NULL, 'U'},
        {"fx", required_argument, NULL, 'x'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    enum precision prec = PREC_BF16;
    double util = 0, job_flops = 0, params = 0, tokens = 0;
    const char *util_from = NULL;
    bool json = false;
    int c;
    optind = 1;
    struct fx_rates fx = {0};
    while ((c = getopt_long(argc, argv, "p:u:f:P:T:U:x:jh", options, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'p':
            ok = precision_parse(optarg, &prec);
            break;
        case 'u':
            ok = parse_fraction(optarg, &util);
            break;
        case 'f':
            ok = parse_quantity(optarg, &job_flops);
            break;
        case 'P':
            ok = parse_quantity(optarg, &params);
            break;
        case 'T':
            ok = parse_quantity(optarg, &tokens);
            break;
        case 'U':
            util_from = optarg;
            break;
        case 'x':
            ok = fx_add(&fx, optarg);
            break;
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            return option_error(options, argv);
        }
        if (!ok) {
            fprintf(stderr, "gpuvet cost: bad value '%s' for --%s (gpuvet cost --help)\n", optarg,
                    option_name(options, c));
            return EXIT_CANNOT_RUN;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "gpuvet cost: give one offers file\n%s", usage);
        return EXIT_CANNOT_RUN;
    }
    if ((params > 0) != (tokens > 0) || (job_flops > 0 && params > 0)) {
        fprintf(stderr, "gpuvet cost: give --job-flops, or --params with --tokens\n");
        return EXIT_CANNOT_RUN;
    }
    if (util_from && util > 0) {
        fprintf(stderr, "gpuvet cost: give --util or --util-from, not both\n");
        return EXIT_CANNOT_RUN;
    }
    char err[2048];
    int samples = 0;
    if (util_from && measured_utilisation(util_from, &util, &samples, err, sizeof err) != 0) {
        fprintf(stderr, "gpuvet cost: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    if (util_from && util <= 0) {
        fprintf(stderr, "gpuvet cost: %s: mean SM utilisation is 0: record it while the job runs\n", util_from);
        return EXIT_CANNOT_RUN;
    }
    if (params > 0)
        job_flops = 6 * params * tokens; /* training: forward 2PT + backward 4PT (Kaplan et al.) */
    const char *path = argv[optind];
    struct gpu_table table;
    struct offers offers = {0};
    int status = 0;
    if (gpu_table_load_default(&table, err, sizeof err) != 0) {
        status = EXIT_CANNOT_RUN;
    } else {
        size_t len = strlen(path);
        bool is_json = len > 5 && !strcasecmp(path + len - 5, ".json");
        if ((is_json ? load_json_offers : load_csv_offers)(path, &table, &offers, err, sizeof err) != 0)
            status = EXIT_CANNOT_RUN;
    }
    if (status != 0) {
        fprintf(stderr, "gpuvet cost: %s\n", err);
    } else {
        for (int i = 0; i < offers.count; i++)
            evaluate(&offers.items[i], prec, util, job_flops, &fx);
        qsort(offers.items, (size_t)offers.count, sizeof *offers.items, by_currency_then_price);
        if (json) {
            json_t *list = json_array(), *currencies = json_array();
            for (int i = 0, rank = 0; i < offers.count; i++) {
                bool first = i == 0 || strcasecmp(offers.items[i].ranked_currency, offers.items[i - 1].ranked_currency);
                if (first) {
                    json_array_append_new(currencies, json_string(offers.items[i].ranked_currency));
                    rank = 0;
                }
                json_array_append_new(list, offer_json(&offers.items[i], prec, ++rank));
            }
            json_t *job = job_flops > 0 ? json_pack("{s:f, s:o, s:o}", "flops", job_flops, "params",
                                                    positive_or_null(params), "tokens", positive_or_null(tokens))
                                        : json_null();
            json_t *measured =
                util_from ? json_pack("{s:s, s:f, s:i}", "file", util_from, "mean_sm", util, "samples", samples)
                          : json_null();
            json_t *doc = json_pack("{s:s, s:{s:s, s:s, s:o, s:o, s:o, s:o}}", "schema", "gpuvet.cost/1", "cost",
                                    "precision", precision_name(prec), "offers_file", path, "currencies", currencies,
                                    "utilisation_measured", measured, "job", job, "offers", list);
            json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            fputc('\n', stdout);
            json_decref(doc);
        } else {
            if (util_from)
                printf("Utilisation from %s: mean SM %.1f%% over %d samples\n\n", util_from, util * 100, samples);
            print_text(&offers, prec, job_flops);
        }
    }
    offers_free(&offers);
    gpu_table_free(&table);
    return status;
}
