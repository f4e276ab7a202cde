/* CPU contention on the live machine: a CPU hog started during the sampling window is named. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static pid_t start_hog(void)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_NAME, "gpuvet-cpu-hog");
        alarm(60); /* never outlive a broken test */
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    return pid;
}

static void stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

Test(contention_cli, a_cpu_hog_is_named)
{
    pid_t hog = start_hog();
    struct run_result r = run_gpuvet("audit", "--sample", "2", "--json", NULL);
    stop(hog);
    json_t *doc = run_json(&r);
    json_t *f = findings_of(doc, "CPU_CONTENTION", NULL);
    cr_assert_eq(json_array_size(f), 1);
    json_t *finding = json_array_get(f, 0);
    cr_assert_str_eq(json_string_value(json_object_get(finding, "severity")), "warn");
    const char *message = json_string_value(json_object_get(finding, "message"));
    cr_assert(strstr(message, "gpuvet-cpu-hog"), "%s", message);
    bool found = false;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(json_object_get(finding, "evidence"), "processes"), i, p)
        found = found || json_integer_value(json_object_get(p, "pid")) == hog;
    cr_assert(found, "the hog's pid %d is in the evidence", hog);
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
}

Test(contention_cli, steal_is_measured_live_and_sampling_can_be_skipped)
{
    struct run_result r = run_gpuvet("audit", "--sample", "0.5", "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    json_t *steal = json_object_get(cpu, "steal_ratio");
    cr_assert(json_is_real(steal));
    cr_assert(json_real_value(steal) >= 0 && json_real_value(steal) <= 1);
    cr_assert_eq(count_findings(doc, "CPU_STEAL", "unknown"), 0);
    json_decref(doc);
    run_result_free(&r);

    r = run_gpuvet("audit", "--sample", "0", "--json", NULL);
    doc = run_json(&r);
    cr_assert(json_is_null(json_object_get(json_object_get(json_object_get(doc, "machine"), "cpu"), "steal_ratio")));
    cr_assert_eq(count_findings(doc, "CPU_CONTENTION", "unknown"), 1);
    json_decref(doc);
    run_result_free(&r);

    r = run_gpuvet("audit", "--sample", "soon", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "--sample"), "%s", r.err);
    run_result_free(&r);
}

/* The live CI machine (a VM or container here) has no SMBIOS: memory is unknown with the reason. */
Test(contention_cli, live_memory_without_smbios_is_unknown_with_the_reason)
{
    if (access("/sys/firmware/dmi/tables/DMI", R_OK) == 0 || access("/sys/devices/system/edac/mc", F_OK) == 0)
        cr_skip_test("this machine exposes SMBIOS or EDAC memory facts");
    struct run_result r = run_gpuvet("audit", "--sample", "0", "--json", NULL);
    json_t *doc = run_json(&r);
    json_t *mem = json_object_get(json_object_get(doc, "machine"), "memory");
    cr_assert_not_null(json_string_value(json_object_get(mem, "unknown_reason")));
    cr_assert_eq(count_findings(doc, "MEM_CHANNELS_UNDERPOPULATED", "pass"), 0);
    cr_assert_eq(count_findings(doc, "MEM_ECC_DISABLED", "pass") + count_findings(doc, "MEM_ECC_DISABLED", "fail"), 0);
    json_decref(doc);
    run_result_free(&r);
}
