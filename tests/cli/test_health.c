/* gpuvet health as Slurm's HealthCheckProgram and Node Problem Detector run it: the built binary
 * on recorded machines, its one-line reason and its exit status. The drain through a real Slurm
 * is tests/integration/slurm-health.sh. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "health/health.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define NARROWED_LINK "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width"

/* A copy of the Intel tree whose accelerator 0000:3d:00.0 negotiated x8 of its x16. */
static char *narrowed_tree(void)
{
    char *root = fixture_copy(INTEL);
    tree_write(root, NARROWED_LINK, "8\n");
    return root;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

Test(health, a_clean_tree_is_one_ok_line_and_exit_0)
{
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_str_eq(r.out, "gpuvet: OK\n");
    run_result_free(&r);
}

Test(health, a_narrowed_link_fails_with_its_rule_subject_and_width_in_80_bytes)
{
    char *root = narrowed_tree();
    struct run_result r = run_gpuvet("health", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 1, "stderr: %s", r.err);
    /* Node Problem Detector reports all of stdout cut at 80 bytes: it must be this one line. */
    cr_assert_eq(count_lines(r.out), 1, "stdout: %s", r.out);
    cr_assert_leq(strlen(r.out) - 1, 80, "%zu bytes: %s", strlen(r.out) - 1, r.out);
    cr_assert(!strncmp(r.out, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0", 44), "%s", r.out);
    cr_assert(strstr(r.out, "x8 of x16"), "%s", r.out);
    /* The whole message is on stderr. */
    cr_assert(strstr(r.err, "fail PCIE_LINK_DEGRADED 0000:3d:00.0: accelerator link runs at x8 of x16"), "%s", r.err);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(health, warnings_drain_only_when_asked)
{
    /* The Intel tree's NIC sits behind a Gen1 port: PCIE_SLOT_CAPPED, a warning. */
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--fail-on-warn", NULL);
    cr_assert_eq(r.status, 1, "stderr: %s", r.err);
    cr_assert(!strncmp(r.out, "gpuvet: WARN PCIE_SLOT_CAPPED 0000:60:00.0 +1 more: ", 52), "%s", r.out);
    cr_assert_leq(strlen(r.out) - 1, 80);
    run_result_free(&r);
}

/* slurmd starts HealthCheckProgram with almost no environment: no PATH, no HOME. */
/* CPU seconds used by the children waited for so far. */
static double children_cpu_s(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

Test(health, runs_by_absolute_path_with_an_empty_environment)
{
    if (getenv("LD_LIBRARY_PATH"))
        cr_skip_test("this build finds its libraries through LD_LIBRARY_PATH, which an empty environment drops");
    char *root = narrowed_tree();
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd / && exec /usr/bin/env -i '%s' health --sysroot '%s' 2>/dev/null", GPUVET_BIN, root);
    double cpu0 = children_cpu_s();
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, p));
    int status = pclose(p);
    double cpu = children_cpu_s() - cpu0;
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d, line %s", status, line);
    cr_assert(!strncmp(line, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0", 44), "%s", line);
    /* Slurm kills a HealthCheckProgram after 60 s; a recorded tree takes well under a second of
     * CPU (CPU time, not wall time, which a loaded machine stretches). */
    cr_assert_lt(cpu, 10, "used %.1f CPU s", cpu);
    tree_remove(root);
    free(root);
}

Test(health, a_folder_that_is_no_machine_is_unknown_exit_2)
{
    char root[] = "/tmp/gpuvet-health-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    struct run_result r = run_gpuvet("health", "--sysroot", root, NULL);
    cr_assert_eq(r.status, 2, "stdout: %s stderr: %s", r.out, r.err);
    cr_assert(!strncmp(r.out, "gpuvet: UNKNOWN ", 16), "%s", r.out);
    cr_assert(strstr(r.out, root), "%s", r.out);
    cr_assert_eq(count_lines(r.out), 1);
    cr_assert_leq(strlen(r.out) - 1, 80);
    run_result_free(&r);
    rmdir(root);
}

Test(health, bad_usage_exits_2)
{
    struct run_result r = run_gpuvet("health", "--node", "n1", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--slurm"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("health", "--workload", "crypto-mining", NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
}

Test(health_slurm, a_missing_scontrol_is_named_and_exit_2)
{
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--slurm", "--node", "n1", "--scontrol",
                                     "/nonexistent/scontrol", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.out, "gpuvet: OK\n", "the verdict line comes first all the same");
    cr_assert(strstr(r.err, "/nonexistent/scontrol"), "%s", r.err);
    run_result_free(&r);
}

/* A scheduler that does not answer must not hang the health check: scontrol is stopped at 10 s.
 * The stand-in is a shell script that never answers, not a fake Slurm: the real one is tested in
 * tests/integration/slurm-health.sh. */
/* Runs `gpuvet health --slurm` on the recorded Intel tree with `body` as its scontrol; seconds: how
 * long it took. */
static struct run_result health_with_scontrol(const char *body, double *seconds)
{
    char dir[] = "/tmp/gpuvet-health-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    tree_write(dir, "scontrol", body);
    char script[4096];
    snprintf(script, sizeof script, "%s/scontrol", dir);
    chmod(script, 0755);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--slurm", "--node", "n1", "--scontrol",
                                     script, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    tree_remove(dir);
    return r;
}

Test(health_slurm, an_scontrol_that_hangs_is_stopped)
{
    double seconds;
    struct run_result r = health_with_scontrol("#!/bin/sh\nsleep 30 &\nsleep 30\n", &seconds);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "did not finish within 10 s"), "%s", r.err);
    /* It waited out the budget; how much longer the kill and the report took is the machine's
     * load (Criterion's timeout is the hang guard). */
    cr_assert_gt(seconds, 9, "took %.1f s", seconds);
    run_result_free(&r);
}

/* The read and the update share the 10 s: a controller that answers the read after 3 s and never
 * answers the update costs the check about 10 s in all, not 3 + 10. The node is drained by gpuvet
 * for another reason, so the update is a drain (a problem found) or a resume (none): either way it
 * runs. */
Test(health_slurm, the_read_and_the_update_share_one_budget)
{
    double seconds;
    struct run_result r = health_with_scontrol(
        "#!/bin/sh\nif [ \"$1\" = show ]; then sleep 3; "
        "echo 'NodeName=n1 State=IDLE+DRAIN Reason=gpuvet: OLD_RULE socket 9 [root@2026-01-01T00:00:00]'; "
        "exit 0; fi\nsleep 30 &\nsleep 30\n",
        &seconds);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "scontrol update NodeName=n1"), "%s", r.err);
    const char *within = strstr(r.err, "did not finish within ");
    cr_assert(within, "%s", r.err);
    /* The update got what the read left of the 10 s: at most 7 s after a read of 3 s or more, as
     * gpuvet says; how long the run took in wall time is the machine's load. */
    double budget = strtod(within + strlen("did not finish within "), NULL);
    cr_assert(budget > 0 && budget <= 7.0, "the update's budget: %g s; %s", budget, r.err);
    cr_assert_gt(seconds, 9, "took %.1f s", seconds);
    run_result_free(&r);
}

/* scontrol's error line reaches the user without the CR, tab or blanks that trailed it (a
 * wrapper script or a Windows-edited one writes "\r\n"). */
Test(health_slurm, an_scontrol_error_line_is_trimmed)
{
    char dir[] = "/tmp/gpuvet-health-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    tree_write(dir, "failing-scontrol",
               "#!/bin/sh\nprintf 'slurm_load_node error: Invalid node name specified \\t\\r\\nsecond line\\n'\nexit 1\n");
    char script[4096];
    snprintf(script, sizeof script, "%s/failing-scontrol", dir);
    chmod(script, 0755);
    struct run_result r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--slurm", "--node", "n1", "--scontrol",
                                     script, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    const char *at = strstr(r.err, "Invalid node name specified");
    cr_assert(at, "%s", r.err);
    at += strlen("Invalid node name specified");
    cr_assert(*at == '\n' || *at == '\0', "trailing text after scontrol's message: %s", r.err);
    cr_assert_null(strstr(r.err, "second line"), "%s", r.err);
    run_result_free(&r);
    tree_remove(dir);
}

/* The drain reason leads with what `sinfo -R`'s 20 characters show: "gpuvet:" and the rule, then the
 * device; and a failing scontrol's error names the slurm.conf it read and where that came from. */
Test(health_slurm, the_reason_leads_with_the_rule_and_the_error_names_slurm_conf)
{
    char dir[] = "/tmp/gpuvet-health-XXXXXX", script[4096], calls[4096];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(calls, sizeof calls, "%s/calls", dir);
    char body[8192];
    snprintf(body, sizeof body,
             "#!/bin/sh\necho \"$SLURM_CONF|$*\" >> '%s'\n"
             "[ \"$1\" = show ] && { echo 'NodeName=n1 State=IDLE Reason=(null)'; exit 0; }\nexit 0\n", calls);
    tree_write(dir, "scontrol", body);
    snprintf(script, sizeof script, "%s/scontrol", dir);
    chmod(script, 0755);
    char *tree = narrowed_tree();
    setenv("SLURM_CONF", "/nowhere/slurm.conf", 1);
    struct run_result r = run_gpuvet("health", "--sysroot", tree, "--slurm", "--node", "n1", "--scontrol", script, NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    char *log = file_contents(calls, NULL);
    cr_assert_not_null(log);
    cr_assert_str_eq(log,
                     "/nowhere/slurm.conf|show node n1\n"
                     "/nowhere/slurm.conf|update NodeName=n1 State=DRAIN Reason=gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0\n");
    free(log);
    run_result_free(&r);

    tree_write(dir, "scontrol", "#!/bin/sh\necho 'slurm_load_node error: Unable to contact slurm controller'\nexit 1\n");
    chmod(script, 0755);
    r = run_gpuvet("health", "--sysroot", tree, "--slurm", "--node", "n1", "--scontrol", script, NULL);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "with slurm.conf /nowhere/slurm.conf (from SLURM_CONF): scontrol show node n1: "
                            "slurm_load_node error: Unable to contact slurm controller"),
              "%s", r.err);
    run_result_free(&r);
    unsetenv("SLURM_CONF");
    tree_remove(tree);
    free(tree);
    tree_remove(dir);
}

/* --nvidia-smi reaches health as it reaches audit (one pipeline): the node is still read, and the
 * file's GPUs replace the driver's. The recorded H200 VM with its own nvidia-smi file is clean; the
 * same tree with another machine's file (six GPUs on x1 links) fails on that file's links; a FIFO is
 * refused before a byte is read. */
Test(health, nvidia_smi_files_reach_the_check)
{
    const char *tree = fixture("sysroot/h200-firecracker-vm");
    struct run_result r = run_gpuvet("health", "--sysroot", tree, "--nvidia-smi",
                                     GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/gpuvet-h200-passthrough-drv580.xml", NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_str_eq(r.out, "gpuvet: OK\n");
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", tree, "--nvidia-smi",
                   GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/pai-6x-gtx1070-x1-links.xml", NULL);
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(!strncmp(r.out, "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:01:00.0", 44), "%s", r.out);
    cr_assert(strstr(r.err, "GPU link runs at x1 of x16"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", tree, "--nvidia-smi", "/dev/null", NULL);
    cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_assert(strstr(r.err, "gpuvet health: /dev/null: not a regular file"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    run_result_free(&r);
}

/* A node name is one node: scontrol would read "gpu[01-64],login1" as 65 nodes and drain them all,
 * so such a name is refused before scontrol is asked anything. */
Test(health_slurm, a_hostlist_as_node_name_is_refused_and_nothing_drained)
{
    char dir[] = "/tmp/gpuvet-health-XXXXXX", script[4096], calls[4096];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(calls, sizeof calls, "%s/calls", dir);
    char body[8192];
    snprintf(body, sizeof body,
             "#!/bin/sh\necho \"$*\" >> '%s'\n"
             "[ \"$1\" = show ] && { echo 'NodeName=gpu01 State=IDLE Reason=(null)'; exit 0; }\nexit 0\n", calls);
    tree_write(dir, "scontrol", body);
    snprintf(script, sizeof script, "%s/scontrol", dir);
    chmod(script, 0755);
    char *tree = narrowed_tree();
    const char *names[] = {"gpu[01-64],login1", "gpu01 gpu02", "gpu01,gpu02"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct run_result r =
            run_gpuvet("health", "--sysroot", tree, "--slurm", "--node", names[i], "--scontrol", script, NULL);
        cr_assert_eq(r.status, 2, "%s: %s", names[i], r.err);
        cr_assert(strstr(r.err, "is not one node's name"), "%s", r.err);
        run_result_free(&r);
    }
    setenv("SLURMD_NODENAME", "gpu[01-64]", 1);
    struct run_result r = run_gpuvet("health", "--sysroot", tree, "--slurm", "--scontrol", script, NULL);
    unsetenv("SLURMD_NODENAME");
    cr_assert_eq(r.status, 2, "%s", r.err);
    run_result_free(&r);
    cr_assert_neq(access(calls, F_OK), 0, "scontrol was run: %s", file_contents(calls, NULL));
    tree_remove(tree);
    free(tree);
    tree_remove(dir);
}

/* The areas --area takes are health_areas[], the list the check itself uses: the usage (as the
 * option's choices, --area a|b|c) and the error for an unknown area name each of them, in its
 * order, and no other list. */
Test(health, usage_and_area_error_list_health_areas)
{
    char listed[512] = "", ored[512] = "";
    int count = 0;
    while (health_areas[count])
        count++;
    for (int i = 0; i < count; i++) {
        size_t len = strlen(listed), olen = strlen(ored);
        snprintf(listed + len, sizeof listed - len, "%s%s", i ? "|" : "--area ", health_areas[i]);
        snprintf(ored + olen, sizeof ored - olen, "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ", health_areas[i]);
    }
    struct run_result r = run_gpuvet("health", "--help", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* --help rewraps a long paragraph at COLUMNS: read it as one line */
    for (char *p = r.out; *p; p++)
        if (*p == '\n')
            *p = ' ';
    char *squeezed = r.out;
    for (char *from = r.out, *to = r.out;; from++) {
        if (!(*from == ' ' && to > squeezed && to[-1] == ' '))
            *to++ = *from;
        if (!*from)
            break;
    }
    cr_expect(strstr(r.out, listed), "usage lacks '%s': %s", listed, r.out);
    run_result_free(&r);
    r = run_gpuvet("health", "--area", "gpus", NULL);
    cr_assert_eq(r.status, 2);
    cr_expect(strstr(r.err, ored), "error lacks '%s': %s", ored, r.err);
    run_result_free(&r);
}
