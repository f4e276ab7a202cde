/* `gpuvet bench gpu`'s NCCL all-reduce on the stand-in NVML + CUDA + NCCL library (tests/mock:
 * nccl_mock.c takes each all-reduce's time on the simulated GPU clock at $GPUVET_MOCK_NCCL_BUSBW,
 * so the bus bandwidth is exact whatever the host's load), and its judgement GPU_NCCL_LOW by
 * `audit --bench`. Each case's expected verdict is written beside it, from the link figures of
 * model/link_busbw.h, before it was run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sizing/interconnect.h"
#include "testutil.h"
#include "util/gputable.h"

#define A5000 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml"
#define ONE_A100 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml"
#define H200 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/gpuvet-h200-passthrough-drv580.xml"
#define FIRST "0000:81:00.0"
#define SECOND "0000:c1:00.0"

/* Two RTX A5000 (PCIe Gen4 x16; NVLink3 bridges possible, but `nvidia-smi -q -x` reports no NVLink
 * state, so the rule judges them as PCIe, the slower path): 28 GB/s of Gen5 x16's 63.0 GB/s line
 * rate (NVIDIA/nccl issue 1639) applied to Gen4 x16's 31.5 is 14.0 GB/s. */
#define A5000_EXPECTED_GBS (28.0 / 2)

static const char *const knobs[] = {"GPUVET_MOCK_NCCL_BUSBW", "GPUVET_MOCK_NCCL_HANG", "GPUVET_MOCK_NCCL_ERROR",
                                    "GPUVET_MOCK_NCCL_NOOP", "GPUVET_MOCK_GPU_HIDDEN", "GPUVET_DEADLINE_NCCL_S",
                                    "GPUVET_MOCK_GPU_FREE_MIB"};

static void stand_in(const char *xml)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU: its sysfs would add targets the stand-in does not know");
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_CUDA_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_NCCL_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", xml, 1);
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        unsetenv(knobs[i]);
}

/* `bench gpu --quick --json`'s benchmarks.gpu.nccl, and the document saved in *saved (freed by the caller). */
static json_t *bench_nccl(char **saved, json_t **doc)
{
    struct run_result r = run_gpuvet("bench", "gpu", "--quick", "--json", NULL);
    cr_assert_eq(r.status, 0, "exit %d; stderr: %s; out: %s", r.status, r.err, r.out);
    *doc = run_json(&r);
    run_result_free(&r);
    char tmpl[] = "/tmp/gpuvet-bench-nccl-XXXXXX";
    int fd = mkstemp(tmpl);
    cr_assert(fd >= 0);
    cr_assert_eq(json_dumpfd(*doc, fd, 0), 0);
    close(fd);
    *saved = strdup(tmpl);
    json_t *nccl = json_object_get(json_object_get(json_object_get(*doc, "benchmarks"), "gpu"), "nccl");
    cr_assert(json_is_object(nccl), "%s", json_dumps(*doc, 0));
    return nccl;
}

/* GPU_NCCL_LOW's one finding in the audit of `bench` beside the nvidia-smi file: "severity: message". */
static const char *verdict(const char *bench, const char *xml, json_t **finding)
{
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", xml, "--bench", bench, "--json", NULL);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    json_t *found = findings_of(doc, "GPU_NCCL_LOW", "machine");
    cr_assert_eq(json_array_size(found), 1, "%zu GPU_NCCL_LOW findings", json_array_size(found));
    json_t *f = json_array_get(found, 0);
    static char out[1024];
    snprintf(out, sizeof out, "%s: %s", json_string_value(json_object_get(f, "severity")),
             json_string_value(json_object_get(f, "message")));
    if (finding)
        *finding = json_incref(f);
    json_decref(found);
    json_decref(doc);
    return out;
}

static void expect_verdict(const char *got, const char *severity)
{
    size_t n = strlen(severity);
    cr_expect(!strncmp(got, severity, n) && got[n] == ':', "%s, not %s", got, severity);
}

static void done(char *saved, json_t *doc)
{
    unlink(saved);
    free(saved);
    json_decref(doc);
}

/* Label: PASS. 20 GB/s (the stand-in's default) is 143 % of the 14.0 GB/s PCIe Gen4 x16 figure. */
Test(bench_nccl, a_healthy_pair_reports_nccl_tests_busbw_and_passes)
{
    stand_in(A5000);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    cr_assert_float_eq(json_number_value(json_object_get(nccl, "busbw_bytes_s")), 20e9, 20e9 * 1e-3, "%s",
                       json_dumps(nccl, 0));
    cr_expect_eq(json_integer_value(json_object_get(nccl, "ranks")), 2);
    cr_expect_str_eq(json_string_value(json_object_get(nccl, "library")), GPUVET_MOCK_NVML_CURRENT);
    cr_expect_str_eq(json_string_value(json_object_get(nccl, "version")), "2.28.9");
    /* A quarter of the 64 MiB the stand-in says is free: 16 MiB, then 2 MiB and 256 KiB. */
    cr_expect_eq(json_integer_value(json_object_get(nccl, "bytes")), 16 << 20);
    json_t *sizes = json_object_get(nccl, "sizes");
    cr_assert_eq(json_array_size(sizes), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *s = json_array_get(sizes, i);
        double algbw = json_number_value(json_object_get(s, "algbw_bytes_s"));
        /* nccl-tests: busbw = algbw x 2(n-1)/n, n = 2. */
        cr_expect_float_eq(json_number_value(json_object_get(s, "busbw_bytes_s")), algbw * 2 * (2 - 1) / 2.0, 1);
        cr_expect_eq(json_integer_value(json_object_get(s, "bytes")), (16 << 20) >> (3 * (2 - i)));
    }
    json_t *f;
    const char *got = verdict(saved, A5000, &f);
    expect_verdict(got, "pass");
    cr_expect(strstr(got, "over PCIe Gen4 x16"), "%s", got);
    json_t *e = json_object_get(f, "evidence");
    cr_expect_float_eq(json_number_value(json_object_get(e, "expected_busbw_bytes_s")), A5000_EXPECTED_GBS * 1e9, 1e8,
                       "%s", json_dumps(e, 0));
    json_decref(f);
    done(saved, doc);
}

/* Label: WARN. 8 GB/s is 57 % of 14.0: below 70 %, above 40 %. */
Test(bench_nccl, a_slow_link_warns)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_NCCL_BUSBW", "8e9", 1);
    char *saved;
    json_t *doc;
    bench_nccl(&saved, &doc);
    const char *got = verdict(saved, A5000, NULL);
    expect_verdict(got, "warn");
    cr_expect(strstr(got, "57%"), "%s", got);
    done(saved, doc);
}

/* Label: FAIL. 4 GB/s is 29 % of 14.0: below 40 %. */
Test(bench_nccl, a_far_slower_link_fails)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_NCCL_BUSBW", "4e9", 1);
    char *saved;
    json_t *doc;
    bench_nccl(&saved, &doc);
    expect_verdict(verdict(saved, A5000, NULL), "fail");
    done(saved, doc);
}

/* Label: UNKNOWN, the loader's reason. No libnccl.so.2: not measured, never a pass. */
Test(bench_nccl, without_libnccl_it_is_unknown_with_the_reason)
{
    stand_in(A5000);
    setenv("GPUVET_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    const char *skipped = json_string_value(json_object_get(nccl, "skipped"));
    cr_assert(skipped && strstr(skipped, "cannot load NCCL (libnccl.so.2)"), "%s", json_dumps(nccl, 0));
    const char *got = verdict(saved, A5000, NULL);
    expect_verdict(got, "unknown");
    cr_expect(strstr(got, "cannot load NCCL"), "%s", got);
    done(saved, doc);
}

/* Label: UNKNOWN. One GPU: no all-reduce between GPUs. */
Test(bench_nccl, one_gpu_is_unknown_not_a_pass)
{
    stand_in(ONE_A100);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    cr_expect_str_eq(json_string_value(json_object_get(nccl, "skipped")), "one GPU: no all-reduce between GPUs");
    const char *got = verdict(saved, ONE_A100, NULL);
    expect_verdict(got, "unknown");
    cr_expect(strstr(got, "one GPU"), "%s", got);
    done(saved, doc);
}

/* Label: UNKNOWN. Two GPUs on the bus, one hidden from CUDA (CUDA_VISIBLE_DEVICES, a cgroup): one
 * rank is no all-reduce, and the hidden GPU is named. */
Test(bench_nccl, a_gpu_hidden_from_cuda_leaves_one_rank_and_is_named)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_GPU_HIDDEN", SECOND, 1);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    const char *skipped = json_string_value(json_object_get(nccl, "skipped"));
    cr_assert(skipped && strstr(skipped, "fewer than two GPUs CUDA can open (1 of 2)"), "%s", json_dumps(nccl, 0));
    json_t *left = json_array_get(json_object_get(nccl, "gpus_left_out"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(left, "bus_id")), SECOND);
    expect_verdict(verdict(saved, A5000, NULL), "unknown");
    done(saved, doc);
}

/* Label: UNKNOWN, naming the call. An all-reduce that never ends costs its budget (2 s + its
 * traffic at 1 GB/s), and the bench still ends with every other figure. */
Test(bench_nccl, an_all_reduce_that_never_ends_costs_its_budget_and_is_named)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_NCCL_HANG", "ncclAllReduce", 1);
    setenv("GPUVET_DEADLINE_NCCL_S", "2", 1);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    const char *error = json_string_value(json_object_get(nccl, "error"));
    cr_assert(error && strstr(error, "no answer from ncclAllReduce in "), "%s", json_dumps(nccl, 0));
    json_t *gpus = json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "gpu"), "gpus");
    cr_expect_eq(json_array_size(gpus), 2);
    cr_expect_null(json_object_get(json_array_get(gpus, 0), "error"));
    const char *got = verdict(saved, A5000, NULL);
    expect_verdict(got, "unknown");
    cr_expect(strstr(got, "no answer from ncclAllReduce"), "%s", got);
    done(saved, doc);
}

/* Label: UNKNOWN, with NCCL's own words. A communicator that cannot form. */
Test(bench_nccl, an_nccl_error_is_unknown_with_nccl_s_words)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_NCCL_ERROR", "ncclCommInitAll", 1);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    const char *error = json_string_value(json_object_get(nccl, "error"));
    cr_assert(error && strstr(error, "ncclCommInitAll: unhandled cuda error"), "%s", json_dumps(nccl, 0));
    expect_verdict(verdict(saved, A5000, NULL), "unknown");
    done(saved, doc);
}

/* Label: UNKNOWN. A library whose all-reduces take no time measured nothing. */
Test(bench_nccl, all_reduces_that_take_no_time_are_not_a_measurement)
{
    stand_in(A5000);
    setenv("GPUVET_MOCK_NCCL_NOOP", "1", 1);
    char *saved;
    json_t *doc, *nccl = bench_nccl(&saved, &doc);
    const char *error = json_string_value(json_object_get(nccl, "error"));
    cr_assert(error && strstr(error, "not a measurement"), "%s", json_dumps(nccl, 0));
    expect_verdict(verdict(saved, A5000, NULL), "unknown");
    done(saved, doc);
}

/* A bench document of 8x H200 SXM with the given bus bandwidth (bytes/s), written to a new file. */
static char *h200_document(double busbw)
{
    json_t *gpus = json_array(), *ids = json_array();
    for (int i = 0; i < 8; i++) {
        char bus[32];
        snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x18 + i * 0x10);
        json_array_append_new(gpus, json_pack("{s:s, s:{s:s}, s:s}", "bus_id", bus, "spec", "id", "h200-sxm-141gb",
                                              "error", "not measured in this document"));
        json_array_append_new(ids, json_string(bus));
    }
    json_t *doc = json_pack("{s:s, s:{s:{s:o, s:{s:o, s:i, s:f, s:I}}}}", "schema", "gpuvet.bench/1", "benchmarks",
                            "gpu", "gpus", gpus, "nccl", "gpus", ids, "ranks", 8, "busbw_bytes_s", busbw, "bytes",
                            (json_int_t)1 << 30);
    char tmpl[] = "/tmp/gpuvet-bench-h200-XXXXXX";
    int fd = mkstemp(tmpl);
    cr_assert(fd >= 0);
    cr_assert_eq(json_dumpfd(doc, fd, 0), 0);
    close(fd);
    json_decref(doc);
    return strdup(tmpl);
}

/* One number: the figure GPU_NCCL_LOW judges 8x H200 SXM by is the one plan and cost use for the
 * same GPUs (sizing/interconnect: NVLink4, 370 GB/s, NVIDIA/nccl-tests issue 212). Labels: AzNHC's
 * 431 GB/s floor for 8x H200 (Azure/azurehpc-health-checks) PASS (116 %); NVSentinel's 150 GB/s
 * preflight floor WARN (41 %, above the 40 % fail line); 140 GB/s FAIL (38 %). */
Test(bench_nccl, nvlink_nodes_are_judged_by_the_figure_plan_uses)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU");
    struct gpu_table table;
    char err[512];
    cr_assert_eq(gpu_table_load_default(&table, err, sizeof err), 0, "%s", err);
    struct interconnect ic;
    interconnect_in_node(gpu_lookup(&table, "h200-sxm-141gb", NULL, 0, err, sizeof err), 8, &ic);
    gpu_table_free(&table);
    const struct {
        double busbw;
        const char *severity;
    } cases[] = {{431e9, "pass"}, {150e9, "warn"}, {140e9, "fail"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *file = h200_document(cases[i].busbw);
        json_t *f;
        const char *got = verdict(file, H200, &f);
        expect_verdict(got, cases[i].severity);
        json_t *e = json_object_get(f, "evidence");
        cr_expect_float_eq(json_number_value(json_object_get(e, "expected_busbw_bytes_s")), ic.busbw_bytes_s, 1,
                           "%s", json_dumps(e, 0));
        cr_expect_str_eq(json_string_value(json_object_get(e, "link")), ic.link);
        json_decref(f);
        unlink(file);
        free(file);
    }
}

/* `gpuvet explain GPU_NCCL_LOW`: the rule is in the table, with its sources. */
Test(bench_nccl, explain_names_the_formula_and_the_sources)
{
    struct run_result r = run_gpuvet("explain", "GPU_NCCL_LOW", NULL);
    cr_assert_eq(r.status, 0, "exit %d; stderr: %s", r.status, r.err);
    cr_expect(strstr(r.out, "2(n-1)/n") && strstr(r.out, "NVIDIA/nccl-tests issue 212") &&
                  strstr(r.out, "NVSentinel"),
              "%s", r.out);
    run_result_free(&r);
}
