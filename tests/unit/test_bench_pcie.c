/* bench_pcie_run without a GPU machine: what it says when there is nothing to measure. The
 * measurement itself runs in scripts/gpu-check.sh on a machine with NVIDIA GPUs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/pcie.h"
#include "probe/probe.h"
#include "testutil.h"
#include "util/fsroot.h"

static json_t *bench_on_reporting(const char *root, const struct bench_ctx *ctx)
{
    fsroot_set(root);
    struct machine m;
    machine_init(&m);
    cr_assert_eq(probe_machine(&m, &(struct probe_request){.read_system = true}), 0);
    json_t *result = bench_pcie_run(&m, true, ctx);
    machine_free(&m);
    fsroot_set(NULL);
    return result;
}

static json_t *bench_on(const char *root) { return bench_on_reporting(root, NULL); }

Test(bench_pcie, no_nvidia_gpu_is_skipped)
{
    json_t *r = bench_on(fixture("sysroot/32intel64-2p8co2t+8ve"));
    cr_assert(strstr(json_string_value(json_object_get(r, "skipped")), "no NVIDIA GPU"));
    json_decref(r);
}

Test(bench_pcie, nvidia_gpu_without_driver_is_skipped_with_the_reason)
{
    char *root = fixture_copy("sysroot/32intel64-2p8co2t+8ve");
    tree_write(root, "sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
    setenv("GPUVET_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
    json_t *r = bench_on(root);
    unsetenv("GPUVET_CUDA_LIBRARY");
    const char *why = json_string_value(json_object_get(r, "skipped"));
    cr_assert(why && strstr(why, "CUDA driver not usable") && strstr(why, "/nonexistent/libcuda.so.1"), "%s", why);
    json_decref(r);
    tree_remove(root);
    free(root);
}

/* The measurement path through the stand-in NVML + CUDA library (a simulated 10 GB/s link whose
 * clock the host's load does not move, so the event-timed rates are exact): one A100 at Gen4 x16,
 * whose ceiling is 31.5 GB/s per direction. */
Test(bench_pcie, measures_each_gpu_through_the_cuda_driver_api)
{
    /* The live machine's sysfs joins NVML's list: a real GPU there would be a second target. */
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU: scripts/gpu-check.sh measures it for real");
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_CUDA_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml", 1);
    json_t *r = bench_on(NULL);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_CUDA_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    cr_assert(json_is_array(r), "%s", json_dumps(r, 0));
    cr_assert_eq(json_array_size(r), 1);
    json_t *g = json_array_get(r, 0);
    cr_assert_str_eq(json_string_value(json_object_get(g, "bus_id")), "0000:01:00.0");
    double h2d = json_real_value(json_object_get(g, "h2d_pinned_bytes_s"));
    double link = json_real_value(json_object_get(g, "link_theoretical_bytes_s"));
    cr_assert_float_eq(h2d, 10e9, 1e6);
    cr_assert_float_eq(json_real_value(json_object_get(g, "d2h_pinned_bytes_s")), 10e9, 1e6);
    cr_assert_float_eq(link, 16 * 16 * 128.0 / 130 / 8 * 1e9, 1e6);
    cr_assert_float_eq(json_real_value(json_object_get(g, "fraction")), h2d / link, 1e-9);
    cr_assert_gt(json_real_value(json_object_get(g, "d2h_pageable_bytes_s")), 0);
    json_decref(r);
}

/* The bar moved at 0 % for the whole of `bench pcie` (17 s on an 8-GPU box): it reports the steps of
 * each GPU's measurement now. Through the stand-in, one GPU: more than one report between 0 and 1,
 * never going back, the last 1. */
struct progress_seen {
    int count;
    double last, first;
    bool backwards;
};

static void note_progress(const struct bench_ctx *ctx, double fraction)
{
    struct progress_seen *seen = ctx->progress_state;
    if (!seen->count)
        seen->first = fraction;
    if (seen->count && fraction < seen->last)
        seen->backwards = true;
    seen->last = fraction;
    seen->count++;
}

Test(bench_pcie, reports_progress_while_it_measures)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU: scripts/gpu-check.sh measures it for real");
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_CUDA_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-a100-sxm4-80gb-mig-v12.xml", 1);
    struct progress_seen seen = {0};
    struct bench_ctx ctx = {NULL, NULL, note_progress, &seen};
    json_t *r = bench_on_reporting(NULL, &ctx);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_CUDA_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    cr_assert(json_is_array(r), "%s", json_dumps(r, 0));
    cr_expect_gt(seen.count, 2, "progress reported %d time(s)", seen.count);
    cr_expect_lt(seen.first, 1.0, "the first report is before the end: %g", seen.first);
    cr_expect(!seen.backwards);
    cr_expect_float_eq(seen.last, 1.0, 1e-9);
    json_decref(r);
}
