/* The bench model's loader and the PCIe expectation the rule judges by, against SPEC's figures. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/bench.h"
#include "rules/checks.h"

/* SPEC: x16 per direction 15.75 (Gen3), 31.5 (Gen4), 63 (Gen5) GB/s; pinned copies reach ~79%,
 * ~83%, ~88% of it. */
Test(pcie_expectation, follows_the_spec_figures)
{
    cr_assert_float_eq(pcie_achievable_bytes_s(8.0, 16), 15.75e9 * 0.79, 0.01e9);
    cr_assert_float_eq(pcie_achievable_bytes_s(16.0, 16), 31.5e9 * 0.83, 0.02e9);
    cr_assert_float_eq(pcie_achievable_bytes_s(32.0, 16), 63.0e9 * 0.88, 0.04e9);
    cr_assert_float_eq(pcie_achievable_bytes_s(16.0, 8), 31.5e9 * 0.83 / 2, 0.01e9);
    cr_assert_eq(pcie_achievable_bytes_s(0, 16), 0);
    cr_assert_eq(pcie_achievable_bytes_s(16.0, 0), 0);
}

static int load(const char *text, struct bench_results *b, char *err, size_t len)
{
    json_error_t error;
    json_t *doc = json_loads(text, 0, &error);
    cr_assert_not_null(doc, "%s", error.text);
    memset(b, 0, sizeof *b);
    int rc = bench_results_from_json(b, doc, "test.json", err, len);
    json_decref(doc);
    return rc;
}

Test(bench_model, reads_gpu_copies_and_normalises_bus_ids)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"pcie\":[{\"bus_id\":\"00000000:3B:00.0\","
                      "\"h2d_pinned_bytes_s\":2.5e10,\"d2h_pinned_bytes_s\":2.6e10,\"near_node\":0,\"far_node\":1}]}}",
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert(b.loaded);
    cr_assert_eq(b.npcie, 1);
    cr_assert_str_eq(b.pcie[0].bus_id, "0000:3b:00.0");
    cr_assert_eq(b.pcie[0].far_node, 1);
    cr_assert_eq(b.mem_triad_bytes_s, 0);
    cr_assert_str_eq(b.mem_unmeasured, "the bench did not run memory");
    bench_results_free(&b);
}

Test(bench_model, rejects_what_is_not_a_measurement)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"pcie\":[{\"bus_id\":\"gpu0\","
                      "\"h2d_pinned_bytes_s\":1,\"d2h_pinned_bytes_s\":1}]}}",
                      &b, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "benchmarks.pcie[0].bus_id"), "%s", err);
    cr_assert(!b.loaded);
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"storage\":{\"seq_read_bytes_s\":-5,"
                      "\"rand_read_iops\":100}}}",
                      &b, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "benchmarks.storage.seq_read_bytes_s"), "%s", err);
    cr_assert_eq(load("{\"schema\":\"gpuvet.audit/1\"}", &b, err, sizeof err), -1);
    cr_assert(strstr(err, "gpuvet.audit/1"), "%s", err);
}

Test(bench_model, a_skipped_benchmark_keeps_its_reason)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"pcie\":{\"skipped\":\"no NVIDIA driver\"},"
                      "\"storage\":{\"error\":\"Input/output error\"}}}",
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert_str_eq(b.pcie_unmeasured, "pcie was skipped: no NVIDIA driver");
    cr_assert_str_eq(b.storage_unmeasured, "storage failed: Input/output error");
    bench_results_free(&b);
}
