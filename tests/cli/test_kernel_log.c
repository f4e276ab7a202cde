/* GPU_XID_ERRORS and GPU_LOST as users meet them: `audit --kernel-log FILE` on the real kernel logs
 * of tests/corpus/kernel-log (every file's hand label in its labels.tsv), the boot boundary, the
 * Xid overrides, files that are not kernel logs, `health --expect-gpus` on recorded trees, NVML's
 * "GPU is lost" through the stand-in library, and a snapshot that records the log. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define CORPUS GPUVET_TEST_SOURCE "/corpus/kernel-log/"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"

static json_t *audit_log(const char *file, int expected_status, const char *extra)
{
    struct run_result r = extra ? run_gpuvet("audit", "--kernel-log", file, extra, "--json", NULL)
                                : run_gpuvet("audit", "--kernel-log", file, "--json", NULL);
    cr_assert_eq(r.status, expected_status, "%s: exit %d, stderr: %s", file, r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

/* The severity of the first finding of id on subject (NULL: any), "" when there is none. */
static const char *first_severity(json_t *doc, const char *id, const char *subject)
{
    static char sev[16];
    json_t *f = findings_of(doc, id, subject);
    snprintf(sev, sizeof sev, "%s",
             json_array_size(f) ? json_string_value(json_object_get(json_array_get(f, 0), "severity")) : "");
    json_decref(f);
    return sev;
}

/* "GPU_LOST 0000:91:00.0,GPU_XID_ERRORS 0000:05:00.0": the fails of the log's rules, sorted, unique. */
static char *fails_of(json_t *doc)
{
    json_t *findings = json_object_get(doc, "findings");
    char *items[128];
    int n = 0;
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f) {
        const char *id = json_string_value(json_object_get(f, "id"));
        if (strcmp(json_string_value(json_object_get(f, "severity")), "fail") != 0 ||
            (strcmp(id, "GPU_XID_ERRORS") != 0 && strcmp(id, "GPU_LOST") != 0 && strcmp(id, "PCIE_AER_ERRORS") != 0) ||
            n == 128)
            continue;
        char *s = NULL;
        cr_assert(asprintf(&s, "%s %s", id, json_string_value(json_object_get(f, "subject"))) > 0);
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen |= !strcmp(items[k], s);
        if (seen)
            free(s);
        else
            items[n++] = s;
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && strcmp(items[b - 1], items[b]) > 0; b--) {
            char *t = items[b];
            items[b] = items[b - 1];
            items[b - 1] = t;
        }
    char *out = strdup(n ? "" : "-");
    for (int k = 0; k < n; k++) {
        char *joined = NULL;
        cr_assert(asprintf(&joined, "%s%s%s", out, k ? "," : "", items[k]) > 0);
        free(out);
        free(items[k]);
        out = joined;
    }
    return out;
}

Test(kernel_log, every_corpus_file_meets_its_hand_label)
{
    FILE *f = fopen(CORPUS "labels.tsv", "r");
    cr_assert(f);
    char line[1024];
    int rows = 0, clean = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *file = strtok(line, "\t"), *exit_text = strtok(NULL, "\t"), *fails = strtok(NULL, "\t");
        cr_assert(file && exit_text && fails, "labels.tsv row %d", rows + 1);
        char path[512];
        snprintf(path, sizeof path, CORPUS "%s", file);
        json_t *doc = audit_log(path, atoi(exit_text), NULL);
        char *got = fails_of(doc);
        cr_assert_str_eq(got, fails, "%s", file);
        if (!strcmp(fails, "-")) {
            /* A clean log is judged, not unknown: the rule passes or says what the application did. */
            json_t *xid = findings_of(doc, "GPU_XID_ERRORS", NULL);
            cr_assert_gt(json_array_size(xid), 0, "%s", file);
            json_t *f0 = json_array_get(xid, 0);
            const char *sev = json_string_value(json_object_get(f0, "severity"));
            cr_assert(!strcmp(sev, "pass") || !strcmp(sev, "info"), "%s: %s", file, sev);
            json_decref(xid);
            clean++;
        }
        free(got);
        json_decref(doc);
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 15);
    cr_assert_geq(clean, 6, "clean logs prove there is no false alarm");
}

Test(kernel_log, xid_79_fails_and_names_the_gpu_with_count_times_and_action)
{
    json_t *doc = audit_log(CORPUS "gpud-dmesg-xid79-sxid20034.log", 1, NULL);
    json_t *found = findings_of(doc, "GPU_XID_ERRORS", "0000:91:00.0");
    json_t *xid = NULL;
    size_t i;
    json_t *f;
    json_array_foreach(found, i, f) {
        json_t *code = json_object_get(json_object_get(f, "evidence"), "code");
        if (code && json_integer_value(code) == 79)
            xid = f;
    }
    cr_assert(xid, "no Xid 79 finding for 0000:91:00.0");
    json_t *ev = json_object_get(xid, "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(xid, "severity")), "fail");
    cr_assert_eq(json_integer_value(json_object_get(ev, "count")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "first")), "6781741.548779");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "class")), "fault");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "process")), "pid='<unknown>', name=<unknown>");
    cr_assert(strstr(json_string_value(json_object_get(xid, "fix")), "reboot"), "%s",
              json_string_value(json_object_get(xid, "fix")));
    cr_assert(strstr(json_string_value(json_object_get(xid, "message")), "fallen off the bus"));
    json_decref(found);
    json_decref(doc);
}

/* The evidence of the driver's fallen-off-the-bus message, whose words are on the message's second
 * and third lines. */
static json_t *fallen_off_evidence(json_t *doc)
{
    json_t *found = findings_of(doc, "GPU_XID_ERRORS", "0000:b3:00.0"), *f, *out = NULL;
    size_t i;
    json_array_foreach(found, i, f) {
        json_t *ev = json_object_get(f, "evidence");
        if (!strcmp(json_string_value(json_object_get(ev, "kind")) ? json_string_value(json_object_get(ev, "kind")) : "",
                    "fallen_off_bus"))
            out = json_incref(ev);
    }
    json_decref(found);
    cr_assert_not_null(out, "no fallen_off_bus finding on 0000:b3:00.0");
    return out;
}

/* A message's further lines carry no stamp: they were written at its first line's time, so the
 * finding is dated, not "?". dmesg -H's first stamp ("[Oct25 10:12]", util-linux's "%b%e %H:%M")
 * is a stamp, not text. */
Test(kernel_log, a_message_over_several_lines_takes_its_first_lines_time)
{
    json_t *doc = audit_log(CORPUS "nvsentinel-155-dmesg-fallen-off-bus.log", 1, NULL);
    json_t *ev = fallen_off_evidence(doc);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "first")), "1843.308145");
    json_decref(ev);
    json_decref(doc);
    doc = audit_log(CORPUS "nvsentinel-155-dmesg-H-fallen-off-bus.log", 1, NULL);
    ev = fallen_off_evidence(doc);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "first")), "Oct25 10:12");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "format")), "dmesg --reltime");
    json_decref(ev);
    json_decref(doc);
}

Test(kernel_log, application_xids_alone_do_not_fail)
{
    /* Real Xid 13, 31 and 43 lines of two logs, joined. */
    char *a = file_contents(CORPUS "gpud-dmesg-x-iso-xid13.log", NULL);
    char *b = file_contents(CORPUS "akash-support-244-dmesg-T-xid43-31-94.log", NULL);
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    fputs(a, out);
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n"))
        if (!strstr(line, "): 94,"))
            fprintf(out, "%s\n", line);
    fclose(out);
    json_t *doc = audit_log(path, 0, NULL);
    json_t *xid = findings_of(doc, "GPU_XID_ERRORS", NULL);
    int codes[3] = {0};
    size_t i;
    json_t *f;
    json_array_foreach(xid, i, f) {
        cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), "info");
        json_int_t code = json_integer_value(json_object_get(json_object_get(f, "evidence"), "code"));
        codes[0] += code == 13, codes[1] += code == 31, codes[2] += code == 43;
    }
    cr_assert(codes[0] && codes[1] && codes[2], "13, 31 and 43 each reported as info");
    json_decref(xid);
    json_decref(doc);
    unlink(path);
    free(a);
    free(b);
}

/* A log of two boots: only the last one counts. */
static void two_boots(const char *marker, int expected_status)
{
    char *faulty = file_contents(CORPUS "gpud-dmesg-xid79-sxid20034.log", NULL);
    char *clean = file_contents(CORPUS "gpud-dmesg-r-boot-clean.log", NULL);
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    if (!strcmp(marker, "linux")) {
        /* A dmesg's first line is "Linux version" and /proc/version's text: a recorded tree's. */
        char version[512];
        snprintf(version, sizeof version, "%s/proc/version", fixture(INTEL));
        char *v = file_contents(version, NULL);
        fprintf(out, "%s[    0.000000] %s%s", faulty, v, clean);
        free(v);
    } else if (!strcmp(marker, "journal")) {
        fprintf(out, "%s-- Boot 1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e --\n%s", faulty, clean);
    } else {
        fprintf(out, "%s%s", clean, faulty); /* the faulty boot last: it counts */
    }
    fclose(out);
    json_t *doc = audit_log(path, expected_status, NULL);
    json_t *pass = findings_of(doc, "GPU_XID_ERRORS", "machine");
    if (expected_status == 0) {
        cr_assert_eq(json_array_size(pass), 1, "%s", marker);
        json_t *ev = json_object_get(json_array_get(pass, 0), "evidence");
        cr_assert_geq(json_integer_value(json_object_get(ev, "boots_seen")), 1, "%s", marker);
    }
    json_decref(pass);
    json_decref(doc);
    unlink(path);
    free(faulty);
    free(clean);
}

Test(kernel_log, a_linux_version_line_starts_a_new_boot) { two_boots("linux", 0); }
Test(kernel_log, a_journal_boot_marker_starts_a_new_boot) { two_boots("journal", 0); }
Test(kernel_log, the_last_boot_with_faults_still_fails) { two_boots("none", 1); }

Test(kernel_log, overrides_mark_codes_fatal_or_ignored)
{
    json_t *doc = audit_log(CORPUS "gpud-dmesg-x-iso-xid13.log", 1, "--xid-fatal=13");
    cr_assert_str_eq(first_severity(doc, "GPU_XID_ERRORS", "0000:38:00.0"), "fail");
    json_decref(doc);
    doc = audit_log(CORPUS "akash-support-244-dmesg-T-xid43-31-94.log", 0, "--xid-ignore=94,43");
    json_t *f = findings_of(doc, "GPU_XID_ERRORS", "0000:00:08.0");
    json_t *ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "class_source")), "--xid-ignore");
    json_decref(f);
    json_decref(doc);
    struct run_result r = run_gpuvet("audit", "--kernel-log", CORPUS "gpud-dmesg-x-iso-xid13.log", "--xid-fatal", "13",
                                     "--xid-ignore", "13", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "Xid 13 is in both --xid-fatal and --xid-ignore"), "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("health", "--xid-fatal", "48,x", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "gpuvet health: --xid-fatal 48,x: expected"), "%s", r.err);
    run_result_free(&r);
}

Test(kernel_log, a_file_that_is_not_a_kernel_log_cannot_be_judged)
{
    /* The audit's reference (docs/audit.md) quotes an Xid line in its prose: a text about logs is
     * not a log. */
    const char *not_logs[] = {GPUVET_TEST_SOURCE "/corpus/kernel-log/README.md", "/dev/null",
                              GPUVET_TEST_SOURCE "/../docs/audit.md", GPUVET_TEST_SOURCE "/corpus/kernel-log/labels.tsv"};
    for (size_t i = 0; i < 4; i++) {
        struct run_result r = run_gpuvet("audit", "--kernel-log", not_logs[i], NULL);
        cr_assert_eq(r.status, 2, "%s: %s", not_logs[i], r.err);
        run_result_free(&r);
    }
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    struct run_result r = run_gpuvet("audit", "--kernel-log", path, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "is empty: not a kernel log"), "%s", r.err);
    run_result_free(&r);
    unlink(path);
}

Test(kernel_log, a_recorded_tree_without_a_log_is_unknown_not_clean)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--json", "--sample", "0", NULL);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(first_severity(doc, "GPU_XID_ERRORS", "machine"), "unknown");
    json_decref(doc);
    run_result_free(&r);
}

Test(kernel_log, a_snapshot_records_the_log_and_replays_it)
{
    char *root = fixture_copy(INTEL);
    char *log = file_contents(CORPUS "gpud-dmesg-T-xid119.log", NULL);
    tree_write(root, "kernel-log.txt", log);
    char dir[] = "/tmp/gpuvet-klog-snap-XXXXXX";
    cr_assert(mkdtemp(dir));
    char out[600];
    snprintf(out, sizeof out, "%s/snap", dir);
    struct run_result r = run_gpuvet("snapshot", "--sysroot", root, "--redact", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    /* --redact: the board's serial and UUID are gone from the recorded log, the Xid lines stay. */
    char recorded[700];
    snprintf(recorded, sizeof recorded, "%s/kernel-log.txt", out);
    char *kept = file_contents(recorded, NULL);
    cr_assert(kept && strstr(kept, "NVRM: Xid (PCI:0000:9b:00): 119"), "%s", kept ? kept : "(none)");
    cr_assert(!strstr(kept, "1650124014249") && !strstr(kept, "509665ad"), "%s", kept);
    free(kept);
    r = run_gpuvet("audit", "--sysroot", out, "--json", "--sample", "0", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(first_severity(doc, "GPU_XID_ERRORS", "0000:9b:00.0"), "fail");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(dir);
    tree_remove(root);
    free(root);
    free(log);
}

Test(kernel_log, a_user_under_dmesg_restrict_gets_unknown_with_the_reason)
{
    char *restrict_text = file_contents("/proc/sys/kernel/dmesg_restrict", NULL);
    bool restricted = restrict_text && restrict_text[0] == '1';
    free(restrict_text);
    if (geteuid() != 0 || !restricted || access("/usr/bin/setpriv", X_OK) != 0)
        cr_skip_test("needs root, kernel.dmesg_restrict=1 and setpriv to run as nobody");
    int status;
    char *out = run_shell("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " GPUVET_BIN
                          " audit --json --sample 0 2>/dev/null",
                          &status);
    cr_assert(strstr(out, "the kernel log is readable by root only here (kernel.dmesg_restrict=1)"), "%s", out);
    free(out);
    out = run_shell("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " GPUVET_BIN " health 2>&1", &status);
    cr_assert_eq(status, 0, "unknown does not fail the node: %s", out);
    free(out);
}

/* fleet names the node whose log has faults once, though the rule reports its GPU twice. */
Test(kernel_log, fleet_counts_a_node_once_for_a_gpu_with_several_xids)
{
    char dir[] = "/tmp/gpuvet-klog-fleet-XXXXXX";
    cr_assert(mkdtemp(dir));
    const char *names[] = {"node-a", "node-b"};
    for (int i = 0; i < 2; i++) {
        char *root = fixture_copy(INTEL);
        char host[32];
        snprintf(host, sizeof host, "%s\n", names[i]);
        char *mk = NULL;
        int status;
        cr_assert(asprintf(&mk, "mkdir -p '%s/proc/sys/kernel'", root) > 0);
        free(run_shell(mk, &status));
        free(mk);
        tree_write(root, "proc/sys/kernel/hostname", host);
        if (i == 1) {
            char *log = file_contents(CORPUS "gpud-dmesg-T-xid119.log", NULL);
            tree_write(root, "kernel-log.txt", log);
            free(log);
        }
        char out[600];
        snprintf(out, sizeof out, "%s/%s.json", dir, names[i]);
        struct run_result r = run_gpuvet("audit", "--sysroot", root, "--json", "--sample", "0", "--output", out, NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
        run_result_free(&r);
        tree_remove(root);
        free(root);
    }
    struct run_result r = run_gpuvet("fleet", dir, NULL);
    cr_assert(strstr(r.out, "fail GPU_XID_ERRORS 0000:9b:00.0"), "%s", r.out);
    cr_assert(strstr(r.out, "on node-b (1 of 2)"), "%s", r.out);
    run_result_free(&r);
    tree_remove(dir);
}

/* --- GPU_LOST ------------------------------------------------------------------------------------ */

Test(gpu_lost, health_expect_gpus_fails_a_node_that_shows_fewer)
{
    char *root = fixture_copy(INTEL);
    char link[600];
    snprintf(link, sizeof link, "%s/sys/bus/pci/devices/0000:3d:00.0", root);
    cr_assert_eq(unlink(link), 0); /* the node shows 7 of its 8 accelerators */
    struct run_result r = run_gpuvet("health", "--sysroot", root, "--expect-gpus", "8", NULL);
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(!strncmp(r.out, "gpuvet: FAIL GPU_LOST machine: 7 of the 8 accelerators expected", 63), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", fixture(INTEL), "--expect-gpus", "8", NULL);
    cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
    cr_assert_str_eq(r.out, "gpuvet: OK\n");
    run_result_free(&r);
    r = run_gpuvet("health", "--sysroot", root, NULL); /* no expected count: no verdict on the count */
    cr_assert_eq(r.status, 0, "%s", r.out);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(gpu_lost, audit_counts_against_expect_gpus_and_the_claim)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--expect-gpus", "9", "--json", "--sample", "0", NULL);
    cr_assert_eq(r.status, 1);
    json_t *doc = run_json(&r);
    json_t *f = findings_of(doc, "GPU_LOST", "machine");
    json_t *ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_eq(json_integer_value(json_object_get(ev, "seen")), 8);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "expected_from")), "--expect-gpus");
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
    char claim[] = "/tmp/gpuvet-claim-XXXXXX";
    int fd = mkstemp(claim);
    cr_assert(write(fd, "{\"gpus\": {\"count\": 10}}\n", 24) == 24);
    close(fd);
    r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--claim", claim, "--json", "--sample", "0", NULL);
    doc = run_json(&r);
    cr_assert_str_eq(first_severity(doc, "GPU_LOST", "machine"), "fail");
    f = findings_of(doc, "GPU_LOST", "machine");
    ev = json_object_get(json_array_get(f, 0), "evidence");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "expected_from")), "--claim gpus.count");
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
    unlink(claim);
}

Test(gpu_lost, an_empty_switch_port_beside_gpus_is_a_hint_not_a_verdict)
{
    char *root = fixture_copy(INTEL);
    char *dir = NULL;
    cr_assert(asprintf(&dir, "rm -rf '%s/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0' "
                             "'%s/sys/bus/pci/devices/0000:3d:00.0'", root, root) > 0);
    int status;
    free(run_shell(dir, &status));
    cr_assert_eq(status, 0);
    struct run_result r = run_gpuvet("audit", "--sysroot", root, "--json", "--sample", "0", NULL);
    json_t *doc = run_json(&r);
    json_t *f = findings_of(doc, "GPU_LOST", "0000:3b:00.0");
    cr_assert_eq(json_array_size(f), 1, "%s", r.out);
    json_t *it = json_array_get(f, 0);
    cr_assert_str_eq(json_string_value(json_object_get(it, "severity")), "info");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(it, "evidence"), "empty_port")), "0000:3c:04.0");
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
    /* With the count asked for, the count is the verdict and the hint is not repeated. */
    r = run_gpuvet("audit", "--sysroot", root, "--expect-gpus", "8", "--json", "--sample", "0", NULL);
    cr_assert_eq(r.status, 1);
    doc = run_json(&r);
    f = findings_of(doc, "GPU_LOST", NULL);
    cr_assert_eq(json_array_size(f), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(f, 0), "subject")), "machine");
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
    /* The untouched tree: every port of that switch holds a device, no hint. */
    r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--json", "--sample", "0", NULL);
    doc = run_json(&r);
    f = findings_of(doc, "GPU_LOST", NULL);
    cr_assert_eq(json_array_size(f), 0);
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
    free(dir);
    tree_remove(root);
    free(root);
}

Test(gpu_lost, nvml_gpu_is_lost_fails_that_gpu)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml", 1);
    setenv("GPUVET_MOCK_NVML_LOST", "1", 1);
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", NULL);
    unsetenv("GPUVET_MOCK_NVML_LOST");
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    cr_assert_eq(r.status, 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *f = findings_of(doc, "GPU_LOST", NULL);
    bool lost = false;
    size_t i;
    json_t *it;
    json_array_foreach(f, i, it) {
        json_t *nvml = json_object_get(json_object_get(it, "evidence"), "nvml");
        lost |= nvml && !strcmp(json_string_value(nvml), "GPU is lost") &&
                !strcmp(json_string_value(json_object_get(it, "severity")), "fail");
    }
    cr_assert(lost, "%s", json_dumps(f, 0));
    cr_assert_eq(json_array_size(json_object_get(json_object_get(doc, "machine"), "gpus")), 1);
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
}
