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

/* Runs every file of a labels.tsv (file, exit, fails) and asserts its label; the rows and the clean
 * rows counted. */
static void meet_labels(const char *folder, int *rows_out, int *clean_out)
{
    char labels[512];
    snprintf(labels, sizeof labels, "%slabels.tsv", folder);
    FILE *f = fopen(labels, "r");
    cr_assert(f, "%s", labels);
    char line[1024];
    int rows = 0, clean = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *file = strtok(line, "\t"), *exit_text = strtok(NULL, "\t"), *fails = strtok(NULL, "\t"),
             *reasoning = strtok(NULL, "\t");
        cr_assert(file && exit_text && fails, "labels.tsv row %d", rows + 1);
        char path[512];
        snprintf(path, sizeof path, "%s%s", folder, file);
        json_t *doc = audit_log(path, atoi(exit_text), NULL);
        char *got = fails_of(doc);
        cr_assert_str_eq(got, fails, "%s", file);
        if (!strcmp(fails, "-")) {
            /* A clean log is judged, not unknown: the rule passes or says what the application did. */
            json_t *xid = findings_of(doc, "GPU_XID_ERRORS", NULL);
            cr_assert_gt(json_array_size(xid), 0, "%s", file);
            json_t *f0 = json_array_get(xid, 0);
            const char *sev = json_string_value(json_object_get(f0, "severity"));
            /* A label that starts "warn:" expects a warning (the log names a fault it does not hold). */
            bool warn = reasoning && !strncmp(reasoning, "warn:", 5);
            cr_assert(warn ? !strcmp(sev, "warn") : (!strcmp(sev, "pass") || !strcmp(sev, "info")), "%s: %s", file, sev);
            json_decref(xid);
            clean++;
        }
        free(got);
        json_decref(doc);
        rows++;
    }
    fclose(f);
    *rows_out = rows;
    *clean_out = clean;
}

Test(kernel_log, every_corpus_file_meets_its_hand_label)
{
    int rows, clean;
    meet_labels(CORPUS, &rows, &clean);
    cr_assert_geq(rows, 15);
    cr_assert_geq(clean, 6, "clean logs prove there is no false alarm");
}

/* Real logs with one line a user without privileges can make the kernel print: a process's name
 * leading a segfault or OOM line, a mapped file's name in one. Neither starts a boot nor is the
 * driver's line (tests/fixtures/kernel-log/labels.tsv gives each file's verdict and why). */
Test(kernel_log, a_user_cannot_forge_a_boot_or_a_driver_line)
{
    int rows, clean;
    meet_labels(GPUVET_TEST_SOURCE "/fixtures/kernel-log/", &rows, &clean);
    cr_assert_geq(rows, 5);
}

/* 256 distinct application Xids fill the event table; a later Xid 79 is still judged, and the
 * verdict says what it did not keep. Repeated lines are one event with their count. */
Test(kernel_log, faults_are_kept_before_application_events)
{
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    double t = 100.0;
    for (int bus = 1; bus <= 100; bus++)
        for (int c = 0; c < 3; c++)
            for (int again = 0; again < 2; again++)
                fprintf(out, "[%11.6f] NVRM: Xid (PCI:0000:%02x:00): %d, pid=%d, name=python, Ch 00000010\n", t += 0.5,
                        bus, (int[]){13, 31, 43}[c], 1000 + bus);
    fprintf(out, "[%11.6f] NVRM: Xid (PCI:0000:c1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
                 "bus.\n", t + 1);
    fclose(out);
    json_t *doc = audit_log(path, 1, NULL);
    cr_assert_str_eq(first_severity(doc, "GPU_XID_ERRORS", "0000:c1:00.0"), "fail");
    json_t *app = findings_of(doc, "GPU_XID_ERRORS", "0000:01:00.0");
    cr_assert_gt(json_array_size(app), 0);
    json_t *ev = json_object_get(json_array_get(app, 0), "evidence");
    cr_assert_eq(json_integer_value(json_object_get(ev, "count")), 2, "two identical lines, one event");
    json_decref(app);
    json_t *machine = findings_of(doc, "GPU_XID_ERRORS", "machine");
    bool said = false;
    size_t i;
    json_t *f;
    json_array_foreach(machine, i, f) {
        json_t *e = json_object_get(f, "evidence");
        said |= json_integer_value(json_object_get(e, "events_not_kept")) > 0 &&
                !strcmp(json_string_value(json_object_get(f, "severity")), "info");
    }
    cr_assert(said, "the verdict says what was not kept");
    json_decref(machine);
    json_decref(doc);
    unlink(path);
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

/* A corpus file rewritten line by line: each line's first `cut` bytes replaced by `prefix` (cut -1:
 * up to and with the first "] ", a dmesg stamp); the path of the copy (the caller unlinks it). */
static char *rewritten(const char *file, int cut, const char *prefix)
{
    char *text = file_contents(file, NULL);
    cr_assert(text, "%s", file);
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gpuvet-klog-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        const char *rest = line;
        if (cut < 0 && line[0] == '[' && strstr(line, "] "))
            rest = strstr(line, "] ") + 2;
        else if (cut > 0 && strlen(line) > (size_t)cut)
            rest = line + cut;
        fprintf(out, "%s%s\n", rest != line ? prefix : "", rest);
    }
    fclose(out);
    free(text);
    return path;
}

/* journalctl prints the month in the reader's locale (strftime's %b): the lines are read all the
 * same. The RmInitAdapter failures of ogkm-1151 (journal short, "May 27 ...") in German, French,
 * Spanish and Chinese month words still fail their GPU. */
Test(kernel_log, journal_stamps_in_any_locale_are_read)
{
    const char *months[] = {"Mai ", "mai ", "may ", "5\xe6\x9c\x88 ", "Mei "};
    for (size_t i = 0; i < sizeof months / sizeof *months; i++) {
        char *path = rewritten(CORPUS "ogkm-1151-journal-rminit.log", 4, months[i]);
        json_t *doc = audit_log(path, 1, NULL);
        char *fails = fails_of(doc);
        cr_assert_str_eq(fails, "GPU_XID_ERRORS 0000:09:00.0", "%s", months[i]);
        free(fails);
        json_decref(doc);
        unlink(path);
    }
}

/* A paste without stamps: returnn-1500's AER lines (uncorrectable errors on port 00:03.0) with the
 * dmesg stamps cut off are still the kernel's lines, judged as with them. */
Test(kernel_log, unstamped_aer_lines_are_read)
{
    char *path = rewritten(CORPUS "returnn-1500-dmesg-reltime-aer-fatal.log", -1, "");
    json_t *doc = audit_log(path, 1, NULL);
    char *fails = fails_of(doc);
    cr_assert_str_eq(fails, "PCIE_AER_ERRORS 0000:03:00.0");
    free(fails);
    json_decref(doc);
    unlink(path);
}

/* The worst GPU_XID_ERRORS severity of a log holding one line ("pass" when there is none). */
static const char *verdict_of_line(const char *line)
{
    static char sev[16];
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    for (const char *c = line; *c; c++) /* "\\n" in a case joins its lines */
        if (c[0] == '\\' && c[1] == 'n')
            fputc('\n', out), c++;
        else
            fputc(*c, out);
    fputc('\n', out);
    fclose(out);
    struct run_result r = run_gpuvet("audit", "--kernel-log", path, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s: exit %d: %s", line, r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    json_t *found = findings_of(doc, "GPU_XID_ERRORS", NULL);
    const char *order[] = {"pass", "info", "warn", "unknown", "fail"};
    int worst = 0;
    size_t i;
    json_t *f;
    json_array_foreach(found, i, f) {
        const char *s = json_string_value(json_object_get(f, "severity"));
        for (int k = 0; k < 5; k++)
            if (!strcmp(s, order[k]) && k > worst)
                worst = k;
    }
    snprintf(sev, sizeof sev, "%s", order[worst]);
    json_decref(found);
    json_decref(doc);
    unlink(path);
    return sev;
}

/* A peer's labelled lines (tests/corpus/peers/PEER/FILE.tsv: line, the peer's expected result, that
 * result in gpuvet's words, gpuvet's expected severity, why): every line is asserted, and a verdict
 * other than the peer's must say "differs:" with its source. */
static void peer_cases(const char *file, int min_rows)
{
    char path[512];
    snprintf(path, sizeof path, GPUVET_TEST_SOURCE "/corpus/peers/%s", file);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char row[4096];
    int rows = 0, agree = 0;
    while (fgets(row, sizeof row, f)) {
        if (row[0] == '#' || row[0] == '\n')
            continue;
        row[strcspn(row, "\n")] = '\0';
        char *fields[5] = {0}, *save = NULL;
        fields[0] = strtok_r(row, "\t", &save);
        for (int k = 1; k < 5; k++)
            fields[k] = strtok_r(NULL, "\t", &save);
        cr_assert(fields[4], "%s row %d: five fields", file, rows + 1);
        const char *got = verdict_of_line(fields[0]);
        cr_assert_str_eq(got, fields[3], "%s: %s", file, fields[0]);
        if (strcmp(fields[2], fields[3]))
            cr_assert(!strncmp(fields[4], "differs:", 8), "%s: %s differs from the peer without a reason", file, fields[0]);
        else
            agree++;
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, min_rows, "%s", file);
    fprintf(stderr, "%s: %d cases, %d as the peer judges them\n", file, rows, agree);
}

Test(peers, gpud_nvlink_xids_144_to_150_by_the_lines_own_word) { peer_cases("gpud/nvlink-xid-144-150.tsv", 35); }
Test(peers, nvsentinel_sxid_lines) { peer_cases("nvsentinel/sxid-cases.tsv", 10); }
Test(peers, aznhc_xid_codes) { peer_cases("aznhc/xid-codes.tsv", 23); }
Test(peers, sichek_dmesg_rules) { peer_cases("sichek/dmesg-rules.tsv", 7); }
Test(peers, gcm_xid_cases) { peer_cases("gcm/xid-cases.tsv", 2); }

/* Codes past 158 are the catalogue's too; SXids are judged by their severity wherever the excerpt
 * starts. */
Test(kernel_log, newer_codes_and_sxid_severity_lines)
{
    cr_assert_str_eq(verdict_of_line("[ 812.000001] NVRM: Xid (PCI:0000:3b:00): 167, pid='<unknown>', name=<unknown>, "
                                     "PCIE_FATAL_TIMEOUT"),
                     "fail");
    cr_assert_str_eq(verdict_of_line("[ 812.000001] NVRM: Xid (PCI:0000:3b:00): 2, pid=1, name=x, something"), "warn");
    cr_assert_str_eq(verdict_of_line("[ 9.1] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine "
                                     "instance 30 Sub-engine instance 00"),
                     "fail");
    cr_assert_str_eq(verdict_of_line("[ 9.1] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 "
                                     "egress non-posted PRIV error"),
                     "warn");
}

/* A log larger than gpuvet's byte budget is read from its end, where the last boot is: a clean boot
 * then a boot with Xid 79 fails on the Xid 79 (reading from the start would have judged the clean
 * boot), and the verdict says the log was read in part. The budget is made small for the test. */
Test(kernel_log, a_log_over_the_budget_is_read_from_its_end)
{
    char *clean = file_contents(CORPUS "gpud-dmesg-r-boot-clean.log", NULL);
    char *faulty = file_contents(CORPUS "gpud-dmesg-xid79-sxid20034.log", NULL);
    char path[] = "/tmp/gpuvet-klog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *out = fdopen(fd, "w");
    fprintf(out, "%s[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (gcc 13.2.0) #49-Ubuntu\n%s",
            clean, faulty);
    fclose(out);
    char budget[32];
    snprintf(budget, sizeof budget, "%zu", strlen(faulty) + 200);
    setenv("GPUVET_TEST_KLOG_BYTES", budget, 1);
    json_t *doc = audit_log(path, 1, NULL);
    unsetenv("GPUVET_TEST_KLOG_BYTES");
    cr_assert_str_eq(first_severity(doc, "GPU_XID_ERRORS", "0000:91:00.0"), "fail");
    json_t *machine = findings_of(doc, "GPU_XID_ERRORS", "machine");
    bool in_part = false;
    size_t i;
    json_t *f;
    json_array_foreach(machine, i, f) in_part |= !strcmp(json_string_value(json_object_get(f, "severity")), "unknown");
    cr_assert(in_part, "the verdict says the log was read in part");
    json_decref(machine);
    json_decref(doc);
    unlink(path);
    free(clean);
    free(faulty);
}
