/* Every file a command writes follows one rule (util/output_file.h, issue 25): --output, --html,
 * --markdown and watch --json replace a regular file by rename, write through a device and never
 * replace it, and refuse a FIFO that nobody reads at once instead of waiting for a reader. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define H200 "sysroot/h200-firecracker-vm"
#define TIMELINE GPUVET_TEST_SOURCE "/fixtures/watch/h200-gpu-bound.watch.json"

static char dir[] = "/tmp/gpuvet-outputs-XXXXXX";
static char device[64], fifo[64];

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    snprintf(device, sizeof device, "%s/null", dir);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
}

static void teardown(void) { tree_remove(dir); }

TestSuite(output_targets, .init = setup, .fini = teardown);

static bool is_device(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

static bool is_fifo(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

Test(output_targets, a_device_is_written_through_by_every_writer)
{
    /* Our own null device (1, 3), never the real /dev/null: needs root. */
    if (mknod(device, S_IFCHR | 0666, makedev(1, 3)) != 0)
        cr_skip_test("mknod needs root");
    char *audit = saved_audit(H200);
    const char *const runs[][8] = {
        {"audit", "--sysroot", fixture(H200), "--sample", "0", "--json", "--output", device},
        {"compare", "--html", device, audit, audit, NULL},
        {"compare", "--markdown", device, audit, audit, NULL},
        {"fleet", "--html", device, audit, NULL},
        {"watch", "--replay", TIMELINE, "--json", "--output", device},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        const char *const *a = runs[i];
        struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
        cr_expect(r.status == 0 || r.status == 1, "%s %s: %s", a[0], a[1], r.err);
        cr_expect(is_device(device), "gpuvet %s %s replaced the device", a[0], a[1]);
        run_result_free(&r);
    }
    unlink(audit);
    free(audit);
}

Test(output_targets, a_fifo_nobody_reads_is_refused_at_once)
{
    char *audit = saved_audit(H200);
    const char *const runs[][8] = {
        {"audit", "--sysroot", fixture(H200), "--sample", "0", "--json", "--output", fifo},
        {"compare", "--html", fifo, audit, audit, NULL},
        {"fleet", "--markdown", fifo, audit, NULL},
        {"watch", "--replay", TIMELINE, "--json", "--output", fifo},
    };
    time_t start = time(NULL);
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        const char *const *a = runs[i];
        struct run_result r = run_gpuvet(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
        cr_expect_eq(r.status, 2, "%s %s: %s", a[0], a[1], r.err);
        cr_expect(strstr(r.err, fifo) && strstr(r.err, "a FIFO that nobody reads"), "%s %s: %s", a[0], a[1], r.err);
        cr_expect(is_fifo(fifo), "gpuvet %s %s replaced the FIFO", a[0], a[1]);
        run_result_free(&r);
    }
    cr_expect_leq(time(NULL) - start, 60, "a FIFO was waited on");
    unlink(audit);
    free(audit);
}

Test(output_targets, a_page_replaces_a_regular_file_whole)
{
    char *audit = saved_audit(H200);
    char page[96];
    snprintf(page, sizeof page, "%s/page.md", dir);
    tree_write(dir, "page.md", "an old page, much longer than nothing at all\n");
    struct stat before, after;
    cr_assert_eq(stat(page, &before), 0);
    struct run_result r = run_gpuvet("compare", "--markdown", page, audit, audit, NULL);
    cr_expect(r.status == 0 || r.status == 1, "%s", r.err);
    cr_assert_eq(stat(page, &after), 0);
    cr_expect_neq(before.st_ino, after.st_ino, "the page was rewritten in place, not replaced");
    char *text = file_contents(page, NULL);
    cr_expect(!strstr(text, "an old page"), "%s", text);
    free(text);
    run_result_free(&r);
    unlink(audit);
    free(audit);
}
