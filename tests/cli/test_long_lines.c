/* Line readers given a line longer than they take: each refuses it by FILE:LINE (or reads it
 * whole), never cuts it and reads its tail as the next line. Each case is a real recording with
 * one line widened. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define DMON_PUCVMET GPUVET_TEST_SOURCE "/fixtures/watch/dmon-pucvmet-1080ti.log"
#define DMON_SM GPUVET_TEST_SOURCE "/fixtures/plan/dmon-sm.log"
#define OFFERS GPUVET_TEST_SOURCE "/fixtures/plan/offers-no-util.csv"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"

/* A copy of the dmon log `from` in dir whose line 4 (a sample) has 5000 blanks after its first
 * column: still a valid dmon line to a reader of whole lines, but over the 4096-byte cap. */
static void widened_copy(const char *dir, const char *from, char *copy, size_t len)
{
    snprintf(copy, len, "%s/dmon.log", dir);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sys; l = open(sys.argv[1]).read().split('\\n'); "
             "l[3] = l[3][:5] + ' ' * 5000 + l[3][5:]; open(sys.argv[2], 'w').write('\\n'.join(l))\" '%s' '%s'",
             from, copy);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Runs gpuvet with `args` around a widened copy of the dmon log `from` (DMON stands for the copy):
 * it must stop naming the copy's line 4. */
static void widened_dmon_refused(const char *from, const char *a0, const char *a1, const char *a2, const char *a3)
{
    char dir[] = "/tmp/gpuvet-long-XXXXXX", copy[512], want[600];
    cr_assert_not_null(mkdtemp(dir));
    widened_copy(dir, from, copy, sizeof copy);
    const char *args[4] = {a0, a1, a2, a3};
    for (int i = 0; i < 4; i++)
        if (args[i] && !strcmp(args[i], "DMON"))
            args[i] = copy;
    struct run_result r = run_gpuvet(args[0], args[1], args[2], args[3], NULL);
    snprintf(want, sizeof want, "%s:4: line longer than 4096 bytes", copy);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, want), "want '%s', got: %s", want, r.err);
    run_result_free(&r);
    tree_remove(dir);
}

Test(long_lines, watch_replay_refuses_an_over_long_dmon_line)
{
    widened_dmon_refused(DMON_PUCVMET, "watch", "--replay", "DMON", NULL);
}

Test(long_lines, cost_util_from_refuses_an_over_long_dmon_line)
{
    widened_dmon_refused(DMON_SM, "cost", OFFERS, "--util-from", "DMON");
}

/* scontrol's Reason= longer than gpuvet keeps (an older gpuvet's): read cut, it cannot equal a
 * reason gpuvet sets now, and it starts "gpuvet:", so a clean check resumes the node. Refusing it
 * (as before) left the node drained for good: every later run failed on the length. The stand-in
 * is a script printing scontrol's line format; the real scontrol is tested in
 * tests/integration/slurm-health.sh. */
Test(long_lines, slurm_reason_longer_than_kept_is_read_cut_and_resumed)
{
    char dir[] = "/tmp/gpuvet-long-XXXXXX", script[512];
    cr_assert_not_null(mkdtemp(dir));
    tree_write(dir, "scontrol",
               "#!/bin/sh\nprintf 'NodeName=n1 State=IDLE+DRAIN Reason=gpuvet: %0600d [root@2026-01-01T00:00:00]\\n' 0\n");
    snprintf(script, sizeof script, "%s/scontrol", dir);
    chmod(script, 0755);
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--slurm", "--node", "n1", "--scontrol",
                                     script, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "node n1 resumed (was drained by gpuvet: \"gpuvet: 0000"), "%s", r.err);
    run_result_free(&r);
    tree_remove(dir);
}
