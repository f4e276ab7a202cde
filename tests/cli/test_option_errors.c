/* Every command refuses a bad option value the same way: "gpuvet CMD: --OPT VALUE: expected ...",
 * exit status 2, before it reads or measures anything. */
#include <criterion/criterion.h>
#include <string.h>

#include "testutil.h"

static void expect_refused(struct run_result r, const char *line)
{
    cr_expect_eq(r.status, 2, "%s: status %d", line, r.status);
    cr_expect(!strncmp(r.err, line, strlen(line)), "want '%s', got '%s'", line, r.err);
    cr_expect_str_empty(r.out, "%s", r.out);
    run_result_free(&r);
}

Test(option_errors, one_style_in_every_command)
{
    expect_refused(run_gpuvet("audit", "--nodes", "0", NULL), "gpuvet audit: --nodes 0: expected a whole number");
    expect_refused(run_gpuvet("audit", "--sample", "soon", NULL), "gpuvet audit: --sample soon: expected seconds in [0, 3600]");
    expect_refused(run_gpuvet("audit", "--workload", "gaming", NULL), "gpuvet audit: --workload gaming: expected general, cv-train");
    expect_refused(run_gpuvet("health", "--workload", "gaming", NULL), "gpuvet health: --workload gaming: expected general");
    expect_refused(run_gpuvet("bench", "jitter", "--seconds", "-1", NULL), "gpuvet bench: --seconds -1: expected seconds in (0, 3600]");
    expect_refused(run_gpuvet("bench", "jitter", "--cpu", "two", NULL), "gpuvet bench: --cpu two: expected a whole number from 0");
    expect_refused(run_gpuvet("fleet", "--tolerance", "100", ".", NULL), "gpuvet fleet: --tolerance 100: expected a percentage");
    expect_refused(run_gpuvet("watch", "--interval", "0", "true", NULL), "gpuvet watch: --interval 0: expected seconds in (0, ");
    expect_refused(run_gpuvet("watch", "--pid", "-3", NULL), "gpuvet watch: --pid -3: expected a whole number from 1");
    expect_refused(run_gpuvet("cost", "x.csv", "--util", "1.5", NULL), "gpuvet cost: --util 1.5: expected a fraction in (0, 1]");
    expect_refused(run_gpuvet("cost", "x.csv", "--precision", "fp4", NULL), "gpuvet cost: --precision fp4: expected bf16");
    expect_refused(run_gpuvet("cost", "x.csv", "--fx", "CNY", NULL), "gpuvet cost: --fx CNY: expected CUR=RATE");
    expect_refused(run_gpuvet("cost", "x.csv", "--tokens", "-2T", NULL), "gpuvet cost: --tokens -2T: expected a positive number");
    expect_refused(run_gpuvet("plan", "--workload", "llm-train", "--params", "3", NULL),
                   "gpuvet plan: --params 3: expected a parameter count from 1M to 100T");
    expect_refused(run_gpuvet("plan", "--workload", "llm-train", "--zero", "5", NULL),
                   "gpuvet plan: --zero 5: expected a whole number from 0 to 3");
    expect_refused(run_gpuvet("plan", "--workload", "llm-infer", "--context", "8q", NULL),
                   "gpuvet plan: --context 8q: expected a token count");
    expect_refused(run_gpuvet("plan", "--workload", "llm-infer", "--kv", "int4", NULL),
                   "gpuvet plan: --kv int4: expected bf16, fp16 or fp8");
    expect_refused(run_gpuvet("plan", "--workload", "cv-train", "--dataset-bytes", "lots", NULL),
                   "gpuvet plan: --dataset-bytes lots: expected a size");
    expect_refused(run_gpuvet("plan", "--workload", "gaming", NULL), "gpuvet plan: --workload gaming: expected llm-train");
}

/* The value is quoted in the error: a terminal's control sequence in it is shown escaped, never sent
 * to the terminal (the one error path, util/output.h's print_error). */
Test(option_errors, a_control_sequence_in_the_value_is_escaped)
{
    struct run_result r = run_gpuvet("audit", "--nodes", "\x1b]2;owned\x07", NULL);
    cr_expect_eq(r.status, 2, "status %d", r.status);
    cr_expect(strstr(r.err, "gpuvet audit: --nodes \\x1b]2;owned\\x07: expected a whole number"), "%s", r.err);
    cr_expect_null(strchr(r.err, '\x1b'), "a raw ESC reached stderr: %s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sample", "\x1b[2J", NULL);
    cr_expect(strstr(r.err, "gpuvet audit: --sample \\x1b[2J: expected seconds"), "%s", r.err);
    cr_expect_null(strchr(r.err, '\x1b'), "a raw ESC reached stderr: %s", r.err);
    run_result_free(&r);
}

Test(option_errors, durations_take_units)
{
    /* 300ms is 0.3 s: jitter runs that long and says so in its document. */
    struct run_result r = run_gpuvet("bench", "jitter", "--seconds", "300ms", "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *seconds = json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "jitter"), "seconds");
    cr_expect(json_is_number(seconds), "%s", r.out);
    cr_expect_float_eq(json_number_value(seconds), 0.3, 1e-9);
    json_decref(doc);
    run_result_free(&r);
}
