#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "probe/watch.h"
#include "report/cost_report.h"
#include "sizing/offers.h"
#include "sizing/utilisation.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/parse.h"

static const char usage[] =
    N_("usage: gpuvet cost OFFERS.csv|OFFERS.json [--precision P] [--util U | --util-from DMON.log|WATCH.json]\n"
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
    "exit status: 0 ok, 2 bad input (the message names FILE:LINE)\n");

/* The offers' flags are written in the language of the output: English for --json (like every
 * machine writer), the user's for the text. A file that fails to load in English is read again in
 * the user's language, for the error a person reads. */
static int offers_in_output_language(const char *path, const struct gpu_table *table, bool json, struct offers *offers,
                                     char *err, size_t errlen)
{
    if (!json)
        return offers_load(path, table, offers, err, errlen);
    i18n_english_begin();
    int rc = offers_load(path, table, offers, err, errlen);
    i18n_english_end();
    if (rc != 0 && i18n_translating()) {
        offers_free(offers);
        *offers = (struct offers){0};
        rc = offers_load(path, table, offers, err, errlen);
    }
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
            ok = precision_parse(optarg, &prec) ||
                 option_invalid("cost", "precision", optarg, N_("bf16, fp16, tf32, fp32, fp64, fp8 or int8"));
            break;
        case 'u':
            ok = option_fraction("cost", "util", optarg, &util);
            break;
        case 'f':
            ok = option_positive("cost", "job-flops", optarg, &job_flops);
            break;
        case 'P':
            ok = option_positive("cost", "params", optarg, &params);
            break;
        case 'T':
            ok = option_positive("cost", "tokens", optarg, &tokens);
            break;
        case 'U':
            util_from = optarg;
            break;
        case 'x':
            ok = fx_add(&fx, optarg) || option_invalid("cost", "fx", optarg, fx_hint);
            break;
        case 'j':
            json = true;
            break;
        case 'h':
            print_help(stdout, _(usage));
            return 0;
        default:
            return option_error(options, argv);
        }
        if (!ok)
            return EXIT_CANNOT_RUN;
    }
    if (optind + 1 != argc) {
        print_error("cost", _("give one offers file"));
        print_help(stderr, _(usage));
        return EXIT_CANNOT_RUN;
    }
    if ((params > 0) != (tokens > 0) || (job_flops > 0 && params > 0)) {
        print_error("cost", _("give --job-flops, or --params with --tokens"));
        return EXIT_CANNOT_RUN;
    }
    if (util_from && util > 0) {
        print_error("cost", _("give --util or --util-from, not both"));
        return EXIT_CANNOT_RUN;
    }
    char err[2048];
    int samples = 0;
    /* --util-from: a gpuvet.watch/1 timeline (docs/watch-json.md) when the name ends in .json, else an
     * `nvidia-smi dmon` log. */
    size_t from_len = util_from ? strlen(util_from) : 0;
    int measured = 0;
    if (from_len > 5 && !strcasecmp(util_from + from_len - 5, ".json"))
        measured = watch_replay_mean_sm(util_from, &util, &samples, err, sizeof err);
    else if (util_from)
        measured = dmon_mean_sm_utilisation(util_from, &util, &samples, err, sizeof err);
    if (measured != 0) {
        print_error("cost", "%s", err);
        return EXIT_CANNOT_RUN;
    }
    if (util_from && util <= 0) {
        print_error("cost", _("%s: mean SM utilisation is 0: record it while the job runs"), util_from);
        return EXIT_CANNOT_RUN;
    }
    const char *flops_method;
    if (params > 0)
        job_flops = offer_training_flops(params, tokens, false, false, &flops_method);
    const char *path = argv[optind];
    struct gpu_table table;
    struct offers offers = {0};
    int status = 0;
    if (gpu_table_load_default(&table, err, sizeof err) != 0 ||
        offers_in_output_language(path, &table, json, &offers, err, sizeof err) != 0) {
        print_error("cost", "%s", err);
        status = EXIT_CANNOT_RUN;
    } else {
        if (json)
            i18n_english_begin();
        offers_rank_by_tflops(&offers, prec, util, job_flops, &fx);
        if (json)
            i18n_english_end();
        struct cost_report report = {path, prec, job_flops, params, tokens, util_from, util, samples};
        if ((json ? cost_report_json : cost_report_text)(stdout, &report, &offers) != 0)
            status = EXIT_CANNOT_RUN;
    }
    offers_free(&offers);
    gpu_table_free(&table);
    return status;
}
