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

#define GPU_DOC(gpus, rest) "{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"gpus\":[" gpus "]" rest "}}}"
#define ONE_GPU(bus, errors)                                                                                      \
    "{\"bus_id\":\"" bus "\",\"memory\":{\"kernel_copy_bytes_s\":4.3e12,\"engine_copy_bytes_s\":2e12},"           \
    "\"memtest\":{\"tested_bytes\":1073741824,\"errors\":" errors "},\"compute\":{\"fp32_flops\":6e13},"          \
    "\"spec\":{\"id\":\"h200-sxm-141gb\",\"mem_bytes_s\":4.8e12,\"fp32_flops\":6.7e13}}"

Test(bench_model, reads_bench_gpu_devices_pairs_and_failed_gpus)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load(GPU_DOC(ONE_GPU("00000000:1B:00.0", "0") ",{\"bus_id\":\"0000:2a:00.0\",\"error\":\"no answer\","
                                                               "\"spec\":null}",
                              ",\"pairs\":[{\"from\":\"0000:1b:00.0\",\"to\":\"0000:2A:00.0\",\"peer_access\":true,"
                              "\"bytes_s\":3.9e11},{\"from\":\"0000:2a:00.0\",\"to\":\"0000:1b:00.0\","
                              "\"peer_access\":false,\"error\":\"failed\"}]"),
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(b.ngpu, 2);
    cr_assert_str_eq(b.gpu[0].bus_id, "0000:1b:00.0");
    cr_assert_str_eq(b.gpu[0].spec_id, "h200-sxm-141gb");
    cr_assert_float_eq(b.gpu[0].mem_bytes_s, 4.3e12, 1);
    cr_assert_float_eq(b.gpu[0].mem_peak_bytes_s, 4.8e12, 1);
    cr_assert_float_eq(b.gpu[0].fp32_flops, 6e13, 1);
    cr_assert_eq(b.gpu[0].memtest_errors, 0);
    cr_assert_eq(b.gpu[0].memtest_bytes, 1073741824);
    cr_assert_null(b.gpu[0].error);
    /* A GPU that was not measured keeps why, and no figure. */
    cr_assert_str_eq(b.gpu[1].error, "no answer");
    cr_assert_eq(b.gpu[1].memtest_errors, -1);
    cr_assert_eq(b.gpu[1].mem_bytes_s, 0);
    cr_assert_eq(b.ngpu_pairs, 2);
    cr_assert_str_eq(b.gpu_pairs[0].to, "0000:2a:00.0");
    cr_assert(b.gpu_pairs[0].peer_access);
    cr_assert_eq(b.gpu_pairs[1].bytes_s, 0, "a failed pair has no rate");
    json_t *model = bench_results_json(&b);
    cr_assert_eq(json_array_size(json_object_get(model, "gpu")), 2);
    cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(model, "gpu"), 1), "memtest_errors")));
    json_decref(model);
    bench_results_free(&b);
}

Test(bench_model, rejects_bench_gpu_figures_that_are_not_measurements)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load(GPU_DOC(ONE_GPU("0000:1b:00.0", "-1"), ""), &b, err, sizeof err), -1);
    cr_assert(strstr(err, "memtest needs errors and tested_bytes"), "%s", err);
    cr_assert_eq(load(GPU_DOC(ONE_GPU("gpu0", "0"), ""), &b, err, sizeof err), -1);
    cr_assert(strstr(err, "benchmarks.gpu.gpus[0].bus_id"), "%s", err);
    cr_assert_eq(load(GPU_DOC("{\"bus_id\":\"0000:1b:00.0\",\"memtest\":{\"tested_bytes\":1,\"errors\":0},"
                              "\"memory\":{\"kernel_copy_bytes_s\":\"fast\"}}",
                              ""),
                      &b, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "kernel_copy_bytes_s is wrong"), "%s", err);
    cr_assert_eq(load(GPU_DOC(ONE_GPU("0000:1b:00.0", "0"), ",\"pairs\":[{\"from\":\"x\",\"to\":\"0000:1b:00.0\"}]"), &b,
                      err, sizeof err),
                 -1);
    cr_assert(strstr(err, "benchmarks.gpu.pairs[0].from"), "%s", err);
    cr_assert(!b.loaded);
}

Test(bench_model, a_skipped_bench_gpu_and_missing_pairs_keep_their_reasons)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"skipped\":\"no NVIDIA GPU on this "
                      "machine\"}}}",
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert_str_eq(b.gpu_unmeasured, "gpu was skipped: no NVIDIA GPU on this machine");
    cr_assert_eq(b.ngpu, 0);
    bench_results_free(&b);
    cr_assert_eq(load(GPU_DOC(ONE_GPU("0000:1b:00.0", "2"), ",\"pairs_skipped\":\"one GPU: no pair to copy between\""),
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(b.gpu[0].memtest_errors, 2);
    cr_assert_str_eq(b.gpu_pairs_unmeasured, "one GPU: no pair to copy between");
    bench_results_free(&b);
}

/* A --burn document's new Xids and FP8 figures: read as they are; a malformed Xid list is refused
 * naming its field; a document without them (an older gpuvet) says the Xids and FP8 are unknown. */
Test(bench_model, reads_a_burns_new_xids_and_fp8_and_refuses_malformed_ones)
{
    struct bench_results b;
    char err[256];
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"burn\":{\"seconds\":60,"
                      "\"xids_watched\":{\"log\":\"/dev/kmsg\"},\"median_fp8_flops\":1.3e15,\"gpus\":[{\"bus_id\":"
                      "\"0000:00:06.0\",\"bf16_flops\":6e14,\"entries_wrong\":0,\"entries_checked\":64,"
                      "\"matches_node\":true,\"spec\":{\"bf16_dense_flops\":9.894e14,\"fp8_dense_flops\":1.979e15},"
                      "\"fp8\":{\"flops\":1.3e15,\"entries_wrong\":0,\"entries_checked\":64,\"matches_node\":true},"
                      "\"xids_new\":[{\"code\":79,\"count\":2,\"class\":\"fault\",\"meaning\":\"GPU has fallen off "
                      "the bus\"}]}]}}}}",
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(b.nburn, 1);
    cr_expect_null(b.burn_xids_unseen);
    cr_assert_eq(b.burn[0].nxids, 1);
    cr_expect_eq(b.burn[0].xids[0].code, 79);
    cr_expect_eq(b.burn[0].xids[0].count, 2);
    cr_expect_str_eq(b.burn[0].xids[0].klass, "fault");
    cr_expect_float_eq(b.burn[0].fp8_flops, 1.3e15, 1);
    cr_expect_float_eq(b.burn[0].fp8_peak_flops, 1.979e15, 1);
    cr_expect_float_eq(b.burn_median_fp8_flops, 1.3e15, 1);
    cr_expect_null(b.burn[0].fp8_unmeasured);
    bench_results_free(&b);

    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"burn\":{\"seconds\":60,\"gpus\":["
                      "{\"bus_id\":\"0000:00:06.0\",\"bf16_flops\":6e14}]}}}}",
                      &b, err, sizeof err),
                 0, "%s", err);
    cr_expect(b.burn_xids_unseen && strstr(b.burn_xids_unseen, "did not watch for Xids"), "%s", b.burn_xids_unseen);
    cr_expect(b.burn[0].fp8_unmeasured && strstr(b.burn[0].fp8_unmeasured, "ran none"), "%s", b.burn[0].fp8_unmeasured);
    bench_results_free(&b);

    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"burn\":{\"seconds\":60,\"gpus\":["
                      "{\"bus_id\":\"0000:00:06.0\",\"bf16_flops\":6e14,\"xids_new\":[{\"code\":\"79\",\"count\":1,"
                      "\"class\":\"fault\"}]}]}}}}",
                      &b, err, sizeof err),
                 -1);
    cr_expect(strstr(err, "xids_new[] needs code and count"), "%s", err);
    cr_assert_eq(load("{\"schema\":\"gpuvet.bench/1\",\"benchmarks\":{\"gpu\":{\"burn\":{\"seconds\":60,\"gpus\":["
                      "{\"bus_id\":\"0000:00:06.0\",\"bf16_flops\":6e14,\"xids_new\":{}}]}}}}",
                      &b, err, sizeof err),
                 -1);
    cr_expect(strstr(err, "xids_new is not a list"), "%s", err);
}
