/* --prom FILE on audit, bench and health: node_exporter's textfile format, checked line by line
 * here; tests/integration/prom-node-exporter.sh runs promtool and a real node_exporter on it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define H200 "sysroot/h200-firecracker-vm"

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s was not written", path);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The value of the sample whose line starts with `prefix` (name and labels); fails when absent. */
static double sample(const char *text, const char *prefix)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, prefix, strlen(prefix)))
            return strtod(strchr(line, '}') + 1, NULL);
    cr_assert_fail("no sample %s in:\n%s", prefix, text);
    return 0;
}

static bool has_line(const char *text, const char *line)
{
    for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
        if ((p == text || p[-1] == '\n') && (p[strlen(line)] == '\n' || p[strlen(line)] == '\0'))
            return true;
    return false;
}

/* Only the final name in the folder: the temporary file was renamed, not left behind. */
static void assert_only_file(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
            cr_assert_str_eq(e->d_name, name);
    closedir(d);
}

/* A fresh folder for one --prom file, removed with it by prom_out_done. */
struct prom_out {
    char dir[32], path[64];
};

static void prom_out_init(struct prom_out *o, const char *name)
{
    snprintf(o->dir, sizeof o->dir, "/tmp/gpuvet-prom-XXXXXX");
    cr_assert_not_null(mkdtemp(o->dir));
    snprintf(o->path, sizeof o->path, "%s/%s", o->dir, name);
}

static void prom_out_done(struct prom_out *o)
{
    unlink(o->path);
    rmdir(o->dir);
}

Test(prom, audit_of_a_narrowed_link_writes_findings_verdict_and_time)
{
    char *root = fixture_copy(INTEL);
    tree_write(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width",
               "8\n");
    struct prom_out out;
    prom_out_init(&out, "gpuvet.prom");
    struct run_result r = run_gpuvet("audit", "--sysroot", root, "--sample", "0", "--prom", out.path, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    char *text = read_all(out.path);
    cr_assert(has_line(text, "# TYPE gpuvet_finding gauge"));
    cr_assert(has_line(text, "# HELP gpuvet_verdict 1 for the run's verdict (pass, inconclusive, warn or fail), 0 for the others."));
    cr_assert(has_line(text, "gpuvet_finding{command=\"audit\",rule=\"PCIE_LINK_DEGRADED\",severity=\"fail\","
                             "subject=\"0000:3d:00.0\"} 1"), "%s", text);
    cr_assert(has_line(text, "gpuvet_verdict{command=\"audit\",verdict=\"fail\"} 1"));
    cr_assert(has_line(text, "gpuvet_verdict{command=\"audit\",verdict=\"pass\"} 0"));
    cr_assert(!strstr(text, "severity=\"pass\""), "passed checks are not findings");
    double when = sample(text, "gpuvet_last_run_timestamp_seconds{command=\"audit\"}");
    cr_assert(when > 1.7e9 && when < 4e9, "%f", when);
    assert_only_file(out.dir, "gpuvet.prom");
    free(text);
    run_result_free(&r);
    prom_out_done(&out);
    tree_remove(root);
    free(root);
}

Test(prom, label_values_are_escaped)
{
    struct prom_out out;
    prom_out_init(&out, "audit.prom");
    /* The data directory is STORAGE_SLOW_DATA's subject: a quote and a backslash in it. */
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--workload", "cv-train", "--data-dir",
                                     "/data/a\"b\\c", "--prom", out.path, NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    char *text = read_all(out.path);
    cr_assert(strstr(text, "subject=\"/data/a\\\"b\\\\c\"}"), "%s", text);
    free(text);
    run_result_free(&r);
    prom_out_done(&out);
}

Test(prom, a_gpu_subject_carries_dcgm_exporter_labels)
{
    struct prom_out out;
    prom_out_init(&out, "health.prom");
    /* The H200's recorded tree has its nvidia-smi -q -x; NVLink state is unknown there. */
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", out.path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *text = read_all(out.path);
    const char *labels = "gpu=\"0\",UUID=\"GPU-73c875d3-52f8-d69d-d97f-d85545bd5967\",pci_bus_id=\"00000000:00:06.0\"";
    char line[512];
    snprintf(line, sizeof line, "gpuvet_gpu_info{command=\"health\",model_name=\"NVIDIA H200\",%s} 1", labels);
    cr_assert(has_line(text, line), "%s", text);
    snprintf(line, sizeof line,
             "gpuvet_finding{command=\"health\",rule=\"GPU_NVLINK_DOWN\",severity=\"unknown\",subject=\"0000:00:06.0\",%s} 1",
             labels);
    cr_assert(has_line(text, line), "%s", text);
    free(text);
    run_result_free(&r);
    prom_out_done(&out);
}

Test(prom, bench_figures_are_in_seconds)
{
    struct prom_out out;
    prom_out_init(&out, "bench.prom");
    struct run_result r = run_gpuvet("bench", "jitter", "--seconds", "0.3", "--cpu", "0", "--json", "--prom", out.path,
                                     NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *jitter = json_object_get(json_object_get(doc, "benchmarks"), "jitter");
    char *text = read_all(out.path);
    double p99 = sample(text, "gpuvet_bench_wakeup_lateness_seconds{command=\"bench\",cpu=\"0\",stat=\"p99\"}");
    /* The JSON keeps 6 significant digits. */
    double p99_us = json_number_value(json_object_get(jitter, "p99_us"));
    cr_assert(p99_us > 0 && fabs(p99 * 1e6 - p99_us) <= p99_us * 1e-5, "%g s against %g us", p99, p99_us);
    cr_assert(!strstr(text, "gpuvet_verdict"), "a bench has no verdict");
    free(text);
    json_decref(doc);
    run_result_free(&r);
    prom_out_done(&out);
}

Test(prom, an_unwritable_folder_is_named_and_exit_2)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--prom", "/nonexistent/dir/g.prom", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--prom /nonexistent/dir/g.prom"), "%s", r.err);
    run_result_free(&r);
}

/* ---- --prom never replaces what is not a regular file (issue 25) ---- */

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

Test(prom, a_device_is_written_through_and_stays_a_device)
{
    struct prom_out out;
    prom_out_init(&out, "null");
    /* Our own null device (1, 3) in a fresh folder, never the real /dev/null: needs root. */
    if (mknod(out.path, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        prom_out_done(&out);
        cr_skip_test("mknod needs root");
    }
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", out.path, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    cr_assert_eq(lstat(out.path, &st), 0);
    cr_expect(S_ISCHR(st.st_mode), "health --prom replaced the device with a file (mode %o)", (unsigned)st.st_mode);
    assert_only_file(out.dir, "null");
    run_result_free(&r);
    prom_out_done(&out);
}

Test(prom, a_symlink_is_followed_and_a_fifo_is_not_replaced)
{
    struct prom_out out;
    prom_out_init(&out, "gpuvet.prom");
    char real[96], fifo[96];
    snprintf(real, sizeof real, "%s/real.prom", out.dir);
    snprintf(fifo, sizeof fifo, "%s/pipe", out.dir);
    /* A link to a file that exists (a dangling link is refused: util/output_file.h). */
    FILE *old = fopen(real, "w");
    cr_assert_not_null(old);
    fclose(old);
    cr_assert_eq(symlink("real.prom", out.path), 0);
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", out.path, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    cr_assert_eq(lstat(out.path, &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced by a file");
    char *text = read_all(real);
    cr_expect(strstr(text, "gpuvet_verdict{command=\"health\""), "%s", text);
    free(text);
    run_result_free(&r);
    /* A FIFO nobody reads: refused at once, left a FIFO. */
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", fifo, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "a FIFO that nobody reads"), "%s", r.err);
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    run_result_free(&r);
    unlink(fifo);
    unlink(real);
    prom_out_done(&out);
}

Test(prom, a_missing_folder_fails_before_the_verdict_is_printed)
{
    struct prom_out out;
    prom_out_init(&out, "missing/gpuvet.prom");
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", out.path, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect_str_eq(r.out, "", "a verdict was printed before --prom failed");
    cr_expect(strstr(r.err, "--prom") && strstr(r.err, "missing: No such file or directory"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", fixture(H200), "--prom", out.dir, NULL);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "Is a directory"), "%s", r.err);
    run_result_free(&r);
    prom_out_done(&out);
}
