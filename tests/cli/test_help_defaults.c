/* Each default the help states is the value the code starts from: the help formats it in from the
 * option table (parse_options.h), and each is held here to the constant or default it comes from. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "bench/bench.h"
#include "health/health.h"
#include "rules/workload.h"
#include "sizing/demand.h"
#include "sizing/plan.h"
#include "util/gputable.h"
#include "watch/session.h"

/* --help as one line: a long paragraph is rewrapped at COLUMNS, so newlines and runs of spaces
 * count as one space. */
static char *help_line(const char *command)
{
    struct run_result r = run_gpuvet(command, "--help", NULL);
    cr_assert_eq(r.status, 0, "%s --help: %s", command, r.err);
    char *text = strdup(r.out), *to = text;
    for (const char *from = r.out; *from; from++) {
        char c = *from == '\n' ? ' ' : *from;
        if (!(c == ' ' && to > text && to[-1] == ' '))
            *to++ = c;
    }
    *to = '\0';
    run_result_free(&r);
    return text;
}

static void expect_text(const char *command, const char *want)
{
    char *help = help_line(command);
    cr_expect(strstr(help, want), "gpuvet %s --help lacks \"%s\": %s", command, want, help);
    free(help);
}

static void expect_default(const char *command, const char *format, double value)
{
    char want[128];
    snprintf(want, sizeof want, format, value);
    expect_text(command, want);
}

/* The precision --weights and --kv name for bytes per element (the first of that size). */
static const char *element_type(double bytes)
{
    return bytes == 4 ? "fp32" : bytes == 2 ? "bf16" : bytes == 1 ? "fp8" : bytes == 0.5 ? "int4" : "?";
}

Test(help_defaults, health_nfd_interval) { expect_default("health", "how often the check runs (default %g)", HEALTH_NFD_INTERVAL_DEFAULT); }

Test(help_defaults, plan_gpu_memory_utilization)
{
    expect_default("plan", "(vLLM's option; default %g)", INFER_GPU_MEMORY_SHARE);
}

Test(help_defaults, watch_interval) { expect_default("watch", "seconds between samples (default %g)", WATCH_INTERVAL_DEFAULT); }

Test(help_defaults, bench_jitter_seconds)
{
    char format[128];
    snprintf(format, sizeof format, "how long jitter runs (default %%g, %g with --quick)", JITTER_SECONDS_QUICK);
    expect_default("bench", format, JITTER_SECONDS_DEFAULT);
}

Test(help_defaults, plan_kv_and_weights)
{
    struct plan_options o;
    plan_options_default(&o);
    char want[128];
    snprintf(want, sizeof want, "KV cache precision (default %s)", element_type(o.kv_bytes));
    expect_text("plan", want);
    snprintf(want, sizeof want, "(default: as the checkpoint ships, else %s;", element_type(o.weight_bytes));
    expect_text("plan", want);
}

/* cost prices BF16 unless told (cmd_cost starts at PREC_BF16). */
Test(help_defaults, cost_precision)
{
    char want[128];
    snprintf(want, sizeof want, "fp8 or int8 (default %s)", precision_name(PREC_BF16));
    expect_text("cost", want);
}

/* audit and health judge for general unless told (their requests start at WL_GENERAL). */
Test(help_defaults, workload)
{
    char want[128];
    snprintf(want, sizeof want, "render or hpc (default %s)", workload_name(WL_GENERAL));
    expect_text("audit", want);
    expect_text("health", want);
}
