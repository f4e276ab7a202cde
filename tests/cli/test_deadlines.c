/* Probes that can block run under a deadline: NVML that stops answering (the stand-in library made
 * to hang), statvfs/realpath on a hung FUSE mount (a real one: a FUSE connection nobody answers),
 * a hung nvidia-smi during snapshot, a CUDA driver that stops answering in `bench pcie` (the
 * stand-in library made to hang in one call). The audit goes on and says "no answer from ... in N s", N
 * the deadline it was given: that text is the assertion. No test times gpuvet (how long a run takes
 * depends on the machine's load); a deadline that stopped working leaves gpuvet hanging, which
 * Criterion's per-test timeout fails. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/health.h"
#include "testutil.h"

#define A5000 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml"

static void audit_with_hung_nvml(const char *call)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", A5000, 1);
    setenv("GPUVET_MOCK_NVML_HANG", call, 1);
    setenv("GPUVET_DEADLINE_NVML_S", "1", 1);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    json_t *nvidia = json_object_get(json_object_get(doc, "machine"), "nvidia");
    const char *why = json_string_value(json_object_get(nvidia, "unknown_reason"));
    cr_assert(why && strstr(why, "no answer from NVML (libnvidia-ml) in 1 s"), "hang in %s: reason %s", call,
              why ? why : "(none)");
    cr_assert_eq(json_array_size(json_object_get(json_object_get(doc, "machine"), "gpus")), 0);
    json_decref(doc);
    run_result_free(&r);
}

Test(deadlines, nvml_that_never_counts_gpus_is_unknown_after_its_deadline)
{
    audit_with_hung_nvml("count");
}

Test(deadlines, a_gpu_that_stops_answering_mid_probe_is_unknown_after_the_deadline)
{
    audit_with_hung_nvml("power");
}

/* gpuvet health caps every budget at DEADLINE_HEALTH_CAP_S (10 s), where the audit gives NVML 20 s:
 * with no override in the environment, a hung NVML costs the health check 10 s, not 20. health
 * prints one line, so the check runs in this process (health_check_run, what `gpuvet health`
 * calls) and reads the budget from the reason the probe recorded. */
Test(deadlines, health_caps_a_hung_nvml_at_its_own_budget)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", A5000, 1);
    setenv("GPUVET_MOCK_NVML_HANG", "count", 1);
    unsetenv("GPUVET_DEADLINE_NVML_S");
    struct health_request req = {.workload = WL_GENERAL};
    struct health_check h;
    cr_assert_eq(health_check_run(&req, &h), 0);
    const char *why = h.audit.machine.gpus.unknown_reason;
    cr_assert(why && strstr(why, "no answer from NVML (libnvidia-ml) in 10 s"),
              "the cap is 10 s, the audit's NVML budget 20 s: %s", why ? why : "(no reason)");
    health_check_free(&h);
}

Test(deadlines, a_hung_mount_under_data_dir_costs_its_deadline_not_the_audit)
{
    char dir[] = "/tmp/gpuvet-hungXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    /* A FUSE mount whose daemon (this test) never answers: every lookup or statfs below it waits.
     * It lives in a mount namespace of this test's own, so no other process on the machine can
     * trip over it, and it goes away with the test whatever happens. */
    int fuse = -1;
    bool own_namespace = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
    if (own_namespace)
        fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
    if (fuse < 0 || mount("gpuvet-hung", dir, "fuse.gpuvet-hung", MS_NOSUID | MS_NODEV, opts) != 0) {
        if (fuse >= 0)
            close(fuse);
        rmdir(dir);
        cr_skip_test("cannot mount a FUSE filesystem here (needs /dev/fuse and CAP_SYS_ADMIN)");
    }
    char data[96];
    snprintf(data, sizeof data, "%s/imagenet", dir);
    setenv("GPUVET_DEADLINE_STATFS_S", "1", 1);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--workload", "cv-train", "--data-dir", data,
                                     NULL);
    umount2(dir, MNT_DETACH);
    close(fuse);
    rmdir(dir);
    cr_assert(r.status == 0 || r.status == 1, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    cr_assert(strstr(r.err, "no answer from its filesystem (realpath) in 1 s"), "stderr: %s", r.err);
    cr_assert(strstr(r.err, "no answer from statvfs in 1 s"), "stderr: %s", r.err);
    json_t *loc = json_object_get(json_object_get(json_object_get(doc, "machine"), "storage_paths"), "data");
    /* The mount is still known from the mount table, which does not touch the mount. */
    cr_assert_str_eq(json_string_value(json_object_get(loc, "fstype")), "fuse.gpuvet-hung");
    cr_assert(json_is_null(json_object_get(loc, "free_bytes")));
    json_decref(doc);
    run_result_free(&r);
}

Test(deadlines, a_hung_nvidia_smi_does_not_hang_snapshot)
{
    char bin[] = "/tmp/gpuvet-binXXXXXX";
    cr_assert_not_null(mkdtemp(bin));
    char tool[96], cmd[256];
    snprintf(tool, sizeof tool, "%s/nvidia-smi", bin);
    FILE *f = fopen(tool, "w");
    cr_assert_not_null(f);
    fputs("#!/bin/sh\nexec sleep 300\n", f); /* a driver that stopped answering */
    fclose(f);
    chmod(tool, 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    setenv("GPUVET_DEADLINE_CHILD_S", "1", 1);
    char out[] = "/tmp/gpuvet-snapXXXXXX";
    cr_assert_not_null(mkdtemp(out));
    char dst[96];
    snprintf(dst, sizeof dst, "%s/copy", out);
    struct run_result r = run_gpuvet("snapshot", dst, NULL);
    cr_assert_eq(r.status, 2, "exit %d; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, "no answer from") && strstr(r.err, " in 1 s"), "stderr: %s", r.err);
    run_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", bin, out);
    cr_assert_eq(system(cmd), 0);
}

/* `bench pcie` on the stand-in NVML + CUDA library (two RTX A5000s of a real nvidia-smi file):
 * `call` never returns (on device `device` only, or on all when NULL); DEADLINE_CUDA_S is `budget`. */
static json_t *bench_pcie_with_hung_cuda(const char *call, const char *device, const char *budget,
                                         struct run_result *r)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU: its sysfs would add targets the stand-in does not know");
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_CUDA_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", A5000, 1);
    setenv("GPUVET_MOCK_CUDA_HANG", call, 1);
    if (device)
        setenv("GPUVET_MOCK_CUDA_HANG_DEVICE", device, 1);
    setenv("GPUVET_DEADLINE_CUDA_S", budget, 1);
    *r = run_gpuvet("bench", "pcie", "--quick", "--json", NULL);
    unsetenv("GPUVET_MOCK_CUDA_HANG_DEVICE");
    /* 0 when a GPU was measured, 2 when nothing could be: the document is written either way. */
    cr_assert(r->status == 0 || r->status == 2, "exit %d; stderr: %s", r->status, r->err);
    json_t *doc = run_json(r);
    cr_assert_not_null(json_object_get(json_object_get(doc, "benchmarks"), "pcie"), "%s", r->out);
    return doc;
}

Test(deadlines, a_gpu_that_stops_answering_ends_bench_pcie_with_the_results_it_has)
{
    struct run_result r;
    /* The budget is what the second GPU's hang costs. The first GPU's work in it is a second or
     * two of real 256 MiB memcpys and memsets (pageable copies; the pinned ones run on the
     * stand-in's simulated clock), so 15 s leaves it room on a machine many times slower. */
    const char *budget = "15";
    json_t *doc = bench_pcie_with_hung_cuda("cuEventSynchronize", "1", budget, &r);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *pcie = json_object_get(json_object_get(doc, "benchmarks"), "pcie");
    cr_assert_eq(json_array_size(pcie), 2, "%s", r.out);
    /* The first GPU answered: its copies on the simulated 10 GB/s link are kept. */
    json_t *first = json_array_get(pcie, 0);
    cr_assert_float_eq(json_real_value(json_object_get(first, "h2d_pinned_bytes_s")), 10e9, 1e6, "%s", r.out);
    json_t *second = json_array_get(pcie, 1);
    const char *error = json_string_value(json_object_get(second, "error"));
    cr_assert(error && strstr(error, "no answer from cuEventSynchronize in "), "%s", r.out);
    cr_assert_null(json_object_get(second, "h2d_pinned_bytes_s"), "a failed GPU has {bus_id, error} only");
    /* The GPU's budget: DEADLINE_CUDA_S plus the quick copies (16 x 256 MiB) at a quarter of
     * Gen4 x16's 31.5 GB/s (16 GT/s x 16 lanes x 128/130 / 8). */
    double limit = atof(budget) + 16 * 268435456.0 / (16 * 16 * 128.0 / 130 / 8 * 1e9 / 4);
    char expected[48];
    snprintf(expected, sizeof expected, "in %.3g s", limit);
    cr_assert(strstr(error, expected), "%s, not %s", error, expected);
    json_decref(doc);
    run_result_free(&r);
}

Test(deadlines, a_driver_that_never_initialises_skips_bench_pcie_with_the_call)
{
    struct run_result r;
    json_t *doc = bench_pcie_with_hung_cuda("cuInit", NULL, "3", &r);
    json_t *pcie = json_object_get(json_object_get(doc, "benchmarks"), "pcie");
    const char *skipped = json_string_value(json_object_get(pcie, "skipped"));
    cr_assert(skipped && strstr(skipped, "no answer from cuInit in 3 s"), "%s", r.out);
    json_decref(doc);
    run_result_free(&r);
}
