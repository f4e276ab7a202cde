/* Words that mislead on the screens a new user reads first (issue 30): each says what gpuvet saw,
 * and what it could not see as unknown. The built binary on recorded machines and fixtures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* `health --prom` into a folder that does not exist: the error, exit 2, and no "OK" above it. */
Test(screens, health_prom_unwritable_prints_no_ok)
{
    struct run_result r = run_gpuvet("health", "--sysroot", fixture("sysroot/h200-firecracker-vm"), "--prom",
                                     "/nonexistent-gpuvet-dir/missing/x.prom", NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(!strstr(r.out, "OK"), "stdout: %s", r.out);
    cr_expect(strstr(r.err, "/nonexistent-gpuvet-dir/missing/x.prom"), "%s", r.err);
    run_result_free(&r);
}

/* A --sysroot that does not exist is named as such, not as "not a machine root". */
Test(screens, sysroot_that_does_not_exist)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", "/nonexistent-gpuvet-root", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "no such folder"), "%s", r.err);
    cr_expect(!strstr(r.err, "not a machine root"), "%s", r.err);
    run_result_free(&r);
}

/* AVX2, AVX-512 and AMX are x86 extensions: not listed (as "no") for the GB10's ARM cores, still
 * listed for an x86 CPU. */
Test(screens, x86_flags_only_on_x86)
{
    struct run_result r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/nvidia-dgx-gb10"), NULL);
    cr_expect(strstr(r.out, "Cortex"), "%s", r.out);
    cr_expect(!strstr(r.out, "avx2"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/h200-firecracker-vm"), NULL);
    cr_expect(strstr(r.out, "avx2 yes"), "%s", r.out);
    run_result_free(&r);
}

/* A replayed dmon log with no bottleneck still gives the mean SM utilisation it holds. */
Test(screens, replayed_dmon_gives_mean_sm)
{
    struct run_result r = run_gpuvet("watch", "--replay", GPUVET_TEST_SOURCE "/fixtures/plan/dmon-sm.log", NULL);
    cr_expect(strstr(r.out, "mean SM utilisation"), "%s", r.out);
    run_result_free(&r);
}

/* A command of several lines (`watch -- python3 -c "..."`) stays on the diagnosis header's line. */
Test(screens, multi_line_command_on_one_header_line)
{
    char dir[] = "/tmp/gpuvet-screens-XXXXXX", path[256];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/w.json", dir);
    json_error_t e;
    json_t *doc = json_load_file(GPUVET_TEST_SOURCE "/fixtures/watch/h200-gpu-bound.watch.json", 0, &e);
    cr_assert(doc, "%s", e.text);
    json_object_set_new(doc, "target", json_string("command: python3 -c \nimport time\ntime.sleep(1)"));
    cr_assert_eq(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    struct run_result r = run_gpuvet("watch", "--replay", path, NULL);
    const char *header = strstr(r.out, "Diagnosis");
    cr_assert(header, "%s", r.out);
    const char *eol = strchr(header, '\n');
    cr_expect(strstr(header, "python3 -c \\nimport time\\ntime.sleep(1)") &&
                  strstr(header, "python3 -c \\nimport time\\ntime.sleep(1)") < eol,
              "%s", r.out);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
}

/* plan: a virtio disk's rotational flag is not a spinning disk; an estimate at another batch than
 * --batch says so. */
Test(screens, plan_virtio_not_spinning_and_batch_said)
{
    struct run_result r = run_gpuvet("plan", "--workload", "cv-train", "--gpus", "8xh100-sxm5-80gb", "--check",
                                     "--sysroot", fixture("sysroot/2pa-pcidomain32bits"), NULL);
    cr_expect(strstr(r.out, "vda"), "%s", r.out);
    cr_expect(!strstr(r.out, "spinning"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/2pa-pcidomain32bits"), NULL);
    cr_expect(!strstr(r.out, "rotational"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("plan", "--workload", "llm-infer", "--model", "llama-3-8b", "--gpus", "1xh100-sxm5-80gb", "--batch",
                   "32", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "not at the --batch 32"), "%s", r.out);
    run_result_free(&r);
}

/* Label (before running): the Firecracker VM's tree with its one GPU taken off the bus (as a VM
 * started without its passthrough looks), `--expect-gpus 8`: the 8 are missing from this VM, so
 * GPU_LOST fails (health must drain such a node), but the cause is the provider's passthrough, not
 * a card: the text says so and never "reseat or replace" or "return it for service". */
Test(screens, vm_without_passthrough_is_the_providers_not_a_card_to_reseat)
{
    char *tree = fixture_copy("sysroot/h200-firecracker-vm"), path[4096];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:00:06.0", tree);
    cr_assert_eq(unlink(path), 0, "%s", path);
    snprintf(path, sizeof path, "%s/sys/devices/pci0000:00/0000:00:06.0", tree);
    tree_remove(path);
    snprintf(path, sizeof path, "%s/nvidia-smi.xml", tree);
    cr_assert_eq(unlink(path), 0, "%s", path);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", tree, "--expect-gpus", "8", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *lost = findings_of(doc, "GPU_LOST", "machine");
    cr_assert_eq(json_array_size(lost), 1, "%s", r.out);
    json_t *f = json_array_get(lost, 0);
    const char *message = json_string_value(json_object_get(f, "message")), *fix = json_string_value(json_object_get(f, "fix"));
    cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), "fail");
    cr_assert(strstr(message, "not passed through") && strstr(message, "not a lost GPU"), "%s", message);
    cr_assert(fix && strstr(fix, "ask the provider to pass the missing GPUs through"), "%s", fix ? fix : "(none)");
    cr_assert(!strstr(r.out, "reseat") || strstr(r.out, "nothing inside it can be reseated"), "%s", r.out);
    cr_assert(!strstr(r.out, "return it for service"), "%s", r.out);
    json_decref(lost);
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", tree, "--expect-gpus", "8", NULL);
    cr_assert_eq(r.status, 1, "health drains a node without its GPUs: %s%s", r.out, r.err);
    run_result_free(&r);
    tree_remove(tree);
    free(tree);
}
