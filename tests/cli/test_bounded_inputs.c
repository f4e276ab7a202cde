/* Every file a command reads is bounded (issue 25): fleet, compare, watch --replay and cost
 * --util-from refuse a FIFO at once (they used to wait for a writer for ever) and a file over 64 MiB
 * unread (they used to read 1.5 GB whole), naming the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define OFFERS GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.csv"

struct inputs {
    char dir[40], fifo_json[80], fifo_log[80], big_json[80], big_log[80];
};

static void inputs_make(struct inputs *in)
{
    snprintf(in->dir, sizeof in->dir, "/tmp/gpuvet-inputs-XXXXXX");
    cr_assert_not_null(mkdtemp(in->dir));
    snprintf(in->fifo_json, sizeof in->fifo_json, "%s/pipe.json", in->dir);
    snprintf(in->fifo_log, sizeof in->fifo_log, "%s/pipe.log", in->dir);
    snprintf(in->big_json, sizeof in->big_json, "%s/big.json", in->dir);
    snprintf(in->big_log, sizeof in->big_log, "%s/big.log", in->dir);
    cr_assert_eq(mkfifo(in->fifo_json, 0600), 0);
    cr_assert_eq(mkfifo(in->fifo_log, 0600), 0);
    /* 1.5 GB that take no disk: sparse files. */
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(i ? in->big_log : in->big_json, "w");
        cr_assert_not_null(f);
        cr_assert_eq(ftruncate(fileno(f), 1536LL << 20), 0);
        fclose(f);
    }
}

static void inputs_remove(struct inputs *in)
{
    unlink(in->fifo_json);
    unlink(in->fifo_log);
    unlink(in->big_json);
    unlink(in->big_log);
    rmdir(in->dir);
}

/* The command fails (status 2) within seconds, naming the file and why. */
static void expect_refused(struct run_result r, const char *file, const char *why)
{
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, file) && strstr(r.err, why), "expected '%s: ...%s' in: %s", file, why, r.err);
    run_result_free(&r);
}

#define FIFO_WHY "not a regular file (a FIFO, device or socket)"
#define BIG_WHY "larger than 64 MiB"

Test(bounded_inputs, a_fifo_is_refused_at_once)
{
    struct inputs in;
    inputs_make(&in);
    time_t start = time(NULL);
    expect_refused(run_gpuvet("fleet", in.fifo_json, NULL), in.fifo_json, FIFO_WHY);
    expect_refused(run_gpuvet("compare", in.fifo_json, in.fifo_json, NULL), in.fifo_json, FIFO_WHY);
    expect_refused(run_gpuvet("watch", "--replay", in.fifo_json, NULL), in.fifo_json, FIFO_WHY);
    expect_refused(run_gpuvet("watch", "--replay", in.fifo_log, NULL), in.fifo_log, FIFO_WHY);
    expect_refused(run_gpuvet("cost", OFFERS, "--util-from", in.fifo_json, NULL), in.fifo_json, FIFO_WHY);
    expect_refused(run_gpuvet("cost", OFFERS, "--util-from", in.fifo_log, NULL), in.fifo_log, FIFO_WHY);
    cr_expect_leq(time(NULL) - start, 30, "a FIFO was waited on");
    inputs_remove(&in);
}

Test(bounded_inputs, an_oversized_file_is_refused_unread)
{
    struct inputs in;
    inputs_make(&in);
    expect_refused(run_gpuvet("fleet", in.big_json, NULL), in.big_json, BIG_WHY);
    expect_refused(run_gpuvet("compare", in.big_json, in.big_json, NULL), in.big_json, BIG_WHY);
    expect_refused(run_gpuvet("watch", "--replay", in.big_json, NULL), in.big_json, BIG_WHY);
    expect_refused(run_gpuvet("watch", "--replay", in.big_log, NULL), in.big_log, BIG_WHY);
    expect_refused(run_gpuvet("cost", OFFERS, "--util-from", in.big_json, NULL), in.big_json, BIG_WHY);
    expect_refused(run_gpuvet("cost", OFFERS, "--util-from", in.big_log, NULL), in.big_log, BIG_WHY);
    inputs_remove(&in);
}

/* Every option that names a file goes through one gate (util/inputfile.h). /proc/kmsg is a regular
 * file whose read waits for the next kernel message (and takes it from syslog): each of these options
 * hung on it for ever. Where this test cannot open /proc/kmsg (not root) the gate refuses it all the
 * same, for another reason; a FIFO named by GPUVET_PCI_IDS was opened blocking and waited too. */
Test(bounded_inputs, a_file_whose_read_waits_is_refused_by_every_option)
{
    const char *kmsg = "/proc/kmsg";
    const char *audit_options[] = {"--kernel-log", "--dmidecode", "--bench", "--claim", "--nvidia-smi"};
    for (size_t i = 0; i < sizeof audit_options / sizeof audit_options[0]; i++)
        expect_refused(run_gpuvet("audit", audit_options[i], kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("health", "--kernel-log", kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("cost", kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("cost", OFFERS, "--util-from", kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("plan", "--workload", "llm-infer", "--model-config", kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("watch", "--replay", kmsg, NULL), kmsg, "");
    expect_refused(run_gpuvet("fleet", kmsg, NULL), kmsg, "");
    if (access(kmsg, R_OK) == 0) {
        struct run_result r = run_gpuvet("cost", kmsg, NULL);
        cr_expect(strstr(r.err, FIFO_WHY), "/proc/kmsg is refused as no saved file: %s", r.err);
        run_result_free(&r);
    }

    struct inputs in;
    inputs_make(&in);
    setenv("GPUVET_PCI_IDS", in.fifo_log, 1);
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", fixture("sysroot/32intel64-2p8co2t+8ve"), NULL);
    cr_expect(strstr(r.out, in.fifo_log) && strstr(r.out, FIFO_WHY), "the pci.ids problem is said: %s", r.out);
    run_result_free(&r);
    unsetenv("GPUVET_PCI_IDS");
    inputs_remove(&in);
}
