/* Silence is not health: a tree gpuvet reads nothing from is unknown, a FAIL on one node (or on
 * every node) is an exit status, and a snapshot says what it left out and keeps what the CUDA
 * check reads, so that its replay gives the machine's verdict. Copies of real recorded trees. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define H200 "sysroot/h200-firecracker-vm"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"

static char *temp_dir(void)
{
    char tmpl[] = "/tmp/gpuvet-silence-XXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

Test(silence, health_on_a_tree_with_nothing_to_read_is_unknown_not_ok)
{
    char *root = temp_dir(), path[4096];
    snprintf(path, sizeof path, "%s/proc", root);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/sys", root);
    cr_assert_eq(mkdir(path, 0755), 0);
    struct run_result r = run_gpuvet("health", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 2, "exit %d: %s%s", r.status, r.out, r.err);
    cr_assert(!strncmp(r.out, "gpuvet: UNKNOWN nothing checked: /proc/cpuinfo", 46), "%s", r.out);
    cr_assert_eq(count_of(r.out, "\n"), 1);
    cr_assert_leq(strlen(r.out), 81);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

/* The H200 VM with a libcudart newer than its driver: GPU_DRIVER_CUDA fails. */
static char *failing_h200(void)
{
    char *root = fixture_copy(H200), path[4096];
    snprintf(path, sizeof path, "%s/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.99.1.0", root);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs("not a library: the check reads the name", f);
    fclose(f);
    return root;
}

static char *audit_file(const char *root, const char *dir, const char *name)
{
    char *out = NULL;
    cr_assert(asprintf(&out, "%s/%s", dir, name) > 0);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, "--output", out, NULL);
    cr_assert_eq(r.status, 1, "the audit should fail: exit %d: %s", r.status, r.err);
    run_result_free(&r);
    return out;
}

Test(silence, a_fail_on_a_lone_node_or_on_both_sides_is_exit_1)
{
    char *root = failing_h200(), *dir = temp_dir();
    char *a = audit_file(root, dir, "a.json"), *b = audit_file(root, dir, "b.json");
    /* One node: no odd node, no split, but the node fails. */
    struct run_result r = run_gpuvet("fleet", a, NULL);
    cr_assert_eq(r.status, 1, "fleet exit %d: %s", r.status, r.out);
    run_result_free(&r);
    /* Two identical machines that both fail: no difference, still not in order. */
    r = run_gpuvet("compare", a, b, NULL);
    cr_assert_eq(r.status, 1, "compare exit %d: %s", r.status, r.out);
    run_result_free(&r);
    /* Without the fail, the same two are alike: exit 0. */
    struct run_result clean = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(H200), NULL);
    FILE *f = fopen(a, "w");
    fputs(clean.out, f);
    fclose(f);
    f = fopen(b, "w");
    fputs(clean.out, f);
    fclose(f);
    run_result_free(&clean);
    r = run_gpuvet("compare", a, b, NULL);
    cr_assert_eq(r.status, 0, "compare exit %d: %s", r.status, r.out);
    run_result_free(&r);
    free(a);
    free(b);
    tree_remove(dir);
    free(dir);
    tree_remove(root);
    free(root);
}

Test(silence, a_snapshot_replays_to_the_cuda_verdict_of_its_machine)
{
    char *root = failing_h200(), *dir = temp_dir(), copy[4096];
    snprintf(copy, sizeof copy, "%s/copy", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", root, copy, NULL);
    cr_assert_eq(r.status, 0, "snapshot exit %d: %s", r.status, r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--json", "--sysroot", copy, NULL);
    cr_assert_eq(r.status, 1, "the replay does not fail: exit %d", r.status);
    json_t *doc = run_json(&r);
    cr_assert_eq(count_findings(doc, "GPU_DRIVER_CUDA", "fail"), 1);
    json_decref(doc);
    run_result_free(&r);
    /* By name only: the copy is an empty file, not the library. */
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.99.1.0", copy);
    struct stat st;
    cr_assert_eq(stat(lib, &st), 0, "%s not recorded", lib);
    cr_assert_eq(st.st_size, 0);
    tree_remove(dir);
    free(dir);
    tree_remove(root);
    free(root);
}

Test(silence, a_snapshot_names_the_oversized_file_and_the_fifo_it_left_out)
{
    char *root = fixture_copy(INTEL), *dir = temp_dir(), path[4096], copy[4096];
    snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
    tree_own(root, "proc/cpuinfo");
    cr_assert_eq(truncate(path, 17 << 20), 0); /* sparse: over the 16 MiB read cap */
    snprintf(path, sizeof path, "%s/proc/meminfo", root);
    unlink(path);
    cr_assert_eq(mkfifo(path, 0644), 0);
    snprintf(copy, sizeof copy, "%s/copy", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", root, copy, NULL);
    cr_assert_eq(r.status, 2, "snapshot exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "/proc/cpuinfo: left out: larger than 16 MiB"), "%s", r.err);
    cr_assert(strstr(r.err, "/proc/meminfo: left out: not a regular file (a FIFO, device or socket)"), "%s", r.err);
    run_result_free(&r);
    tree_remove(dir);
    free(dir);
    tree_remove(root);
    free(root);
}
