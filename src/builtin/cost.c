#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "probe/watch.h"
#include "report/cost_report.h"
#include "sizing/offers.h"
#include "sizing/utilisation.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/parse.h"

static const struct opt_command cost_command_help = {
    .name = "cost",
    .usage = N_("usage: gpuvet cost [--precision P] [--util U | --util-from DMON.log|WATCH.json]\n"
                "                   [--job-flops F | --params P --tokens T] [--json] OFFERS.csv|OFFERS.json\n"
                "\n"
                "Ranks GPU offers by effective price: price per hour / (GPUs x dense TFLOPS x utilisation). "
                "Offers: CSV with a header, or JSON (an array, or {\"offers\": [...]}), with the fields:\n"
                "  name, gpu, count, and price_per_hour or price_per_month (720 hours, a 30-day month);\n"
                "  optional: currency (USD), util (measured GPU utilisation of that server), tflops (the "
                "per-GPU TFLOPS the offer quotes: a sparse figure is flagged), cpu, ram_gb.\n"
                "\n"),
    .footer = N_("exit status: 0 ok, 2 bad input (the message names FILE:LINE)\n"),
};

static enum opt_result take_precision(const char *cmd, const struct opt *row, const char *value)
{
    return precision_parse(value, row->value) ||
                   option_invalid(cmd, row->name, value, N_("bf16, fp16, tf32, fp32, fp64, fp8 or int8"))
               ? OPT_TAKEN
               : OPT_BAD;
}

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
    enum precision prec = PREC_BF16;
    double util = 0, job_flops = 0, params = 0, tokens = 0;
    const char *util_from = NULL;
    bool json = false;
    struct fx_rates fx = {0};
    struct opt options[] = {
        {.kind = OPT_KIND_CALLBACK, .name = "precision", .short_name = 'p', .value = &prec, .callback = take_precision,
         .metavar = "P", .default_name = precision_name(prec),
         .help = N_("the precision whose dense TFLOPS count: bf16, fp16, tf32, fp32, fp64, fp8 or int8 (default %s)")},
        OPT_FRACTION("util", 'u', &util, "U",
                     N_("utilisation for offers without a util field (0.68 or 68%); default 1 = peak")),
        OPT_FILE("util-from", 'U', &util_from, "LOG",
                 N_("the mean SM utilisation of an `nvidia-smi dmon -s u` log, or of a `gpuvet watch --json` "
                    "timeline (a .json file), used as --util")),
        OPT_CALLBACK("fx", 'x', &fx, fx_row, 0, "CUR=RATE",
                     N_("US dollars per unit of CUR (--fx CNY=0.14): convert those offers and rank them with the USD "
                        "ones; without a rate each currency is ranked on its own")),
        OPT_REAL("job-flops", 'f', &job_flops, "F", N_("a job's FLOPs (1e21, 3.2e22): hours and cost per offer")),
        OPT_REAL("params", 'P', &params, "P", N_("with --tokens, the job is LLM training: 6 x P x T FLOPs (7B)")),
        OPT_REAL("tokens", 'T', &tokens, "T", N_("with --params: the tokens trained on (2T)")),
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.cost/1 JSON document")),
        OPT_END(),
    };
    int parsed = opt_parse(&cost_command_help, options, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (optind + 1 != argc) {
        print_error("cost", _("give one offers file"));
        opt_usage(stderr, &cost_command_help, options);
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
