/* bench_pcie_run without a GPU machine: what it says when there is nothing to measure. The
 * measurement itself runs in scripts/gpu-check.sh on a machine with NVIDIA GPUs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bench/pcie.h"
#include "probe/probe.h"
#include "testutil.h"
#include "util/fsroot.h"

static json_t *bench_on(const char *root)
{
    fsroot_set(root);
    struct machine m;
    machine_init(&m);
    cr_assert_eq(probe_machine(&m, true), 0);
    json_t *result = bench_pcie_run(&m, true);
    machine_free(&m);
    fsroot_set(NULL);
    return result;
}

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
