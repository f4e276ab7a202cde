/* Each default the help states is the number the code starts from: the help of health, plan and
 * watch formats the constant in, bench's states it in words; both are held to the constant here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "bench/bench.h"
#include "health/health.h"
#include "sizing/demand.h"
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

static void expect_default(const char *command, const char *format, double value)
{
    char want[128];
    snprintf(want, sizeof want, format, value);
    char *help = help_line(command);
    cr_expect(strstr(help, want), "gpuvet %s --help lacks \"%s\": %s", command, want, help);
    free(help);
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
