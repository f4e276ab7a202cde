/* Counters of faults around the accelerators on a recorded machine: PCIe AER of the accelerators
 * and their switch ports, InfiniBand port errors, NVSwitch functions and the fabric manager's
 * process. Each test copies hwloc's recorded Xeon with eight NEC Vector Engines behind PLX
 * switches (tests/fixtures/README.md) and writes the files the kernel would have.
 *
 * The files' formats are the kernel's (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats:
 * "Name count" lines and a TOTAL_ERR_* line; the InfiniBand PortCounters one number per file;
 * /proc/PID/stat); the counts are SYNTHETIC, chosen for each verdict. The error names in them
 * (Timeout, BadTLP, BadDLLP, Rollover on a root port above an NVIDIA GPU) follow a real kernel log
 * pasted in pop-os/pop#3363. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"

static json_t *audit(const char *root, int expected_status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, NULL);
    if (expected_status >= 0)
        cr_assert_eq(r.status, expected_status, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static const char CLEAN_COR[] = "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
                                "HeaderOF 0\nTOTAL_ERR_COR 0\n";
static const char CLEAN_NONFATAL[] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\n"
                                     "RxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\n"
                                     "AtomicOpBlocked 0\nTLPBlockedErr 0\nTOTAL_ERR_NONFATAL 0\n";

static void write_aer(const char *root, const char *bus_id, const char *cor, const char *nonfatal, const char *fatal)
{
    char rel[256];
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/aer_dev_correctable", bus_id);
    tree_write(root, rel, cor);
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/aer_dev_nonfatal", bus_id);
    tree_write(root, rel, nonfatal);
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/aer_dev_fatal", bus_id);
    tree_write(root, rel, fatal);
}

static const char CLEAN_FATAL[] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nTOTAL_ERR_FATAL 0\n";

Test(aer, uncorrectable_on_a_port_fails_its_accelerator_correctable_rates_warn_or_inform)
{
    char *root = fixture_copy(TREE);
    tree_write(root, "proc/uptime", "3600.00 50000.00\n"); /* one hour up */
    /* 1b and its three ports: clean. */
    const char *ports_1b[] = {"0000:1b:00.0", "0000:19:08.0", "0000:18:00.0", "0000:17:00.0"};
    for (int i = 0; i < 4; i++)
        write_aer(root, ports_1b[i], CLEAN_COR, CLEAN_NONFATAL, CLEAN_FATAL);
    /* 1c's switch port lost a completion: a non-fatal, uncorrectable error. */
    write_aer(root, "0000:1c:00.0", CLEAN_COR, CLEAN_NONFATAL, CLEAN_FATAL);
    write_aer(root, "0000:19:0c.0", CLEAN_COR,
              "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 1\nCmpltAbrt 0\nTOTAL_ERR_NONFATAL 1\n",
              CLEAN_FATAL);
    /* 3d corrects 600 errors an hour (10 a minute, above DCGM's 8), 3f only 5. */
    write_aer(root, "0000:3d:00.0", "RxErr 0\nBadTLP 200\nBadDLLP 150\nRollover 0\nTimeout 250\nTOTAL_ERR_COR 600\n",
              CLEAN_NONFATAL, CLEAN_FATAL);
    write_aer(root, "0000:3f:00.0", "RxErr 0\nBadTLP 0\nTimeout 5\nTOTAL_ERR_COR 5\n", CLEAN_NONFATAL,
              CLEAN_FATAL);
    /* 40: the fatal file is not the kernel's format. */
    write_aer(root, "0000:40:00.0", CLEAN_COR, CLEAN_NONFATAL, "garbage without counts\n");
    json_t *doc = audit(root, 1);
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:1b:00.0", "pass", "no PCIe errors counted on the device or the 3 port(s)");
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "fail", "1 uncorrectable PCIe errors (0 fatal, 1 non-fatal) on port 0000:19:0c.0");
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:3d:00.0", "warn", "10.0 per minute");
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:3f:00.0", "info", "5 correctable PCIe errors on the GPU");
    json_t *f = one_finding(doc, "PCIE_AER_ERRORS", "0000:3d:00.0");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "evidence"), "correctable_named")),
                     "BadTLP 200, BadDLLP 150, Timeout 250");
    json_decref(f);
    /* The malformed file is named among the input problems; the other two files still count. */
    char *dump = json_dumps(json_object_get(json_object_get(doc, "machine"), "problems"), 0);
    cr_assert(strstr(dump, "0000:40:00.0/aer_dev_fatal"), "%s", dump);
    free(dump);
    /* ... but a counter not read is unknown, never clean. */
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:40:00.0", "unknown", "1 counter file(s)");
    json_decref(doc);
    tree_remove(root);
    free(root);
}

/* The tree as hwloc recorded it has no AER files: unknown, never pass. */
Test(aer, no_counters_is_unknown)
{
    json_t *doc = audit(fixture(TREE), -1);
    expect_finding(doc, "PCIE_AER_ERRORS", "machine", "unknown", "no AER counters in sysfs");
    json_decref(doc);
}

/* --- AER lines in the kernel log ------------------------------------------------------------------ */

#define KLOG GPUVET_TEST_SOURCE "/corpus/kernel-log/"

/* A real log (tests/corpus/kernel-log) with one bus id replaced by another of this tree: a
 * synthetic pairing, so that the log's port is one on an accelerator's path. */
static char *log_on_tree(const char *file, const char *from, const char *to)
{
    char *text = file_contents(file, NULL);
    cr_assert_not_null(text, "%s", file);
    char path[] = "/tmp/gpuvet-aer-log-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    for (const char *s = text; *s;) {
        const char *at = strstr(s, from);
        if (!at) {
            fputs(s, out);
            break;
        }
        fprintf(out, "%.*s%s", (int)(at - s), s, to);
        s = at + strlen(from);
    }
    fclose(out);
    free(text);
    return strdup(path);
}

/* Some finding of id on subject has this severity and these words. */
static void expect_any(json_t *doc, const char *id, const char *subject, const char *severity, const char *words)
{
    json_t *list = findings_of(doc, id, subject);
    bool found = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *f = json_array_get(list, i);
        const char *msg = json_string_value(json_object_get(f, "message"));
        found |= !strcmp(json_string_value(json_object_get(f, "severity")), severity) && msg && strstr(msg, words);
    }
    char *dump = json_dumps(list, 0);
    cr_assert(found, "%s %s: no %s \"%s\" in %s", id, subject, severity, words, dump);
    free(dump);
    json_decref(list);
}

static json_t *audit_with_log(const char *root, const char *log, int expected_status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, "--kernel-log", log, NULL);
    cr_assert_eq(r.status, expected_status, "exit %d; stderr: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

/* gpu-burn#1's fatal Surprise Down on the root port above its Tesla, put on switch port 19:0c.0
 * above the accelerator at 1c:00.0: the PCI path names the accelerator, not the log's own GPU. */
Test(aer_log, a_fatal_line_on_a_port_fails_the_accelerator_below)
{
    char *log = log_on_tree(KLOG "gpu-burn-1-dmesg-aer-fatal-xid79.log", "0000:00:02.0", "0000:19:0c.0");
    json_t *doc = audit_with_log(fixture(TREE), log, 1);
    expect_any(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "fail", "1 fatal PCIe error(s) on port 0000:19:0c.0 above it");
    expect_any(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "info", "1 correctable PCIe error(s) on port 0000:19:0c.0");
    json_t *list = findings_of(doc, "PCIE_AER_ERRORS", "0000:1c:00.0");
    bool from_bus = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *ev = json_object_get(json_array_get(list, i), "evidence");
        const char *errors = json_string_value(json_object_get(ev, "errors"));
        from_bus |= !strcmp(json_string_value(json_object_get(ev, "gpu_from")), "PCI bus") && errors &&
                    !strcmp(errors, "Surprise Down Error");
    }
    cr_assert(from_bus);
    json_decref(list);
    json_decref(doc);
    /* With the port's own sysfs counters read, they count the same errors: the line is not judged twice. */
    char *root = fixture_copy(TREE);
    write_aer(root, "0000:19:0c.0", CLEAN_COR, CLEAN_NONFATAL, CLEAN_FATAL);
    doc = audit_with_log(root, log, 1); /* the log's Xid 79 still fails */
    list = findings_of(doc, "PCIE_AER_ERRORS", "0000:1c:00.0");
    for (size_t i = 0; i < json_array_size(list); i++)
        cr_assert_str_neq(json_string_value(json_object_get(json_array_get(list, i), "severity")), "fail");
    json_decref(list);
    json_decref(doc);
    tree_remove(root);
    free(root);
    unlink(log);
    free(log);
}

/* pop-os#3363's three correctable errors, on the port above 1c:00.0: fewer than DCGM's 8 a minute
 * over the 68183 s the log's timestamps give: info; a port on no accelerator's path: nothing. */
Test(aer_log, correctable_lines_inform_on_a_gpu_path_only)
{
    char *log = log_on_tree(KLOG "pop-3363-syslog-aer-correctable.log", "0000:00:03.1", "0000:19:0c.0");
    json_t *doc = audit_with_log(fixture(TREE), log, 0);
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "info", "3 correctable PCIe error(s) on port 0000:19:0c.0");
    json_decref(doc);
    unlink(log);
    free(log);
    /* nvidia-docker#1553's 5.x words ("AER: PCIe Bus Error: severity=Corrected"), on the same port. */
    log = log_on_tree(KLOG "nvidia-docker-1553-dmesg-xid79-aer-corrected.log", "0000:00:01.1", "0000:19:0c.0");
    doc = audit_with_log(fixture(TREE), log, 1); /* its Xid 79 fails */
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "info", "1 correctable PCIe error(s) on port 0000:19:0c.0");
    json_decref(doc);
    unlink(log);
    free(log);
    doc = audit_with_log(fixture(TREE), KLOG "pop-3363-syslog-aer-correctable.log", 0);
    json_t *list = findings_of(doc, "PCIE_AER_ERRORS", "0000:00:03.1");
    cr_assert_eq(json_array_size(list), 0, "not on an accelerator's path in this tree");
    json_decref(list);
    json_decref(doc);
}

/* Another function of an accelerator's device shares its link: a SYNTHETIC line in the kernel's
 * 6.x words ("Uncorrectable (Non-Fatal)"), for function 1 of the accelerator at 1c:00.0. */
Test(aer_log, another_function_of_the_device_fails_the_accelerator)
{
    char path[] = "/tmp/gpuvet-aer-fn-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("[  100.000001] snd_hda_intel 0000:1c:00.1: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), "
          "type=Transaction Layer, (Requester ID)\n",
          f);
    fclose(f);
    json_t *doc = audit_with_log(fixture(TREE), path, 1);
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:1c:00.0", "fail",
           "1 non-fatal PCIe error(s) on function 0000:1c:00.1 of the GPU in the kernel log since boot, first at "
           "100.000001, last at 100.000001 (the error bits are not in the log)");
    json_decref(doc);
    unlink(path);
}

/* Without a tree, a fatal error on a port the log ties to no GPU is unknown, not passed. */
Test(aer_log, a_port_of_unknown_place_is_unknown_offline)
{
    char *log = log_on_tree(KLOG "gpu-burn-1-dmesg-aer-fatal-xid79.log", "nvidia 0000:02:00.0: device has no AER-aware driver",
                            "nvidia 0000:02:00.0: the line changed");
    struct run_result r = run_gpuvet("audit", "--json", "--kernel-log", log, NULL);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    expect_finding(doc, "PCIE_AER_ERRORS", "0000:00:02.0", "unknown", "whether a GPU sits below it is unknown");
    json_decref(doc);
    unlink(log);
    free(log);
}

/* --- InfiniBand -------------------------------------------------------------------------------- */

static void write_counters(const char *root, const char *port, const long values[8])
{
    static const char *const names[] = {"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
                                        "port_rcv_remote_physical_errors", "local_link_integrity_errors",
                                        "excessive_buffer_overrun_errors", "port_xmit_discards"};
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sys/class/infiniband/mlx5_0/ports/%s/counters", root, port);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    for (int i = 0; i < 8; i++) {
        char rel[256], text[32];
        snprintf(rel, sizeof rel, "sys/class/infiniband/mlx5_0/ports/%s/counters/%s", port, names[i]);
        snprintf(text, sizeof text, "%ld\n", values[i]);
        tree_write(root, rel, text);
    }
}

Test(infiniband, a_port_that_went_down_warns_a_clean_port_passes)
{
    char *root = fixture_copy(TREE);
    write_counters(root, "1", (const long[8]){0, 0, 0, 0, 0, 0, 0, 0});
    write_counters(root, "2", (const long[8]){12, 1, 1, 0, 0, 0, 0, 3});
    json_t *doc = audit(root, -1);
    expect_finding(doc, "NET_IB_ERRORS", "mlx5_0/1", "pass", NULL);
    expect_finding(doc, "NET_IB_ERRORS", "mlx5_0/2", "warn",
           "symbol_error 12, link_error_recovery 1, link_downed 1, port_xmit_discards 3");
    json_decref(doc);
    tree_remove(root);
    free(root);
}

/* --- NVSwitch and the fabric manager ------------------------------------------------------------ */

static void add_nvswitch(const char *root, const char *bus_id)
{
    char cmd[4200], rel[256];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/bus/pci/devices/%s'", root, bus_id);
    cr_assert_eq(system(cmd), 0);
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/vendor", bus_id);
    tree_write(root, rel, "0x10de\n");
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/class", bus_id);
    tree_write(root, rel, "0x068000\n");
}

static void add_process(const char *root, int pid, const char *comm)
{
    char cmd[4200], rel[256], stat[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/proc/%d'", root, pid);
    cr_assert_eq(system(cmd), 0);
    snprintf(rel, sizeof rel, "proc/%d/stat", pid);
    snprintf(stat, sizeof stat,
             "%d (%s) S 1 %d %d 0 -1 1077936192 3520 0 0 0 152 97 0 0 20 0 18 0 2254 1481637888 3265 "
             "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, comm, pid, pid);
    tree_write(root, rel, stat);
}

/* The process's executable link and its owner, as /proc shows them. */
static void add_exe(const char *root, int pid, const char *exe, int uid)
{
    char cmd[4400], rel[256], status[256];
    snprintf(cmd, sizeof cmd, "ln -s '%s' '%s/proc/%d/exe'", exe, root, pid);
    cr_assert_eq(system(cmd), 0);
    snprintf(rel, sizeof rel, "proc/%d/status", pid);
    snprintf(status, sizeof status, "Name:\tnv-fabricmanage\nState:\tS (sleeping)\nPid:\t%d\nUid:\t%d\t%d\t%d\t%d\n", pid,
             uid, uid, uid, uid);
    tree_write(root, rel, status);
}

static void fabric_case_exe(const char *comm, const char *exe, int uid, const char *severity, const char *words)
{
    char *root = fixture_copy(TREE);
    for (int i = 0; i < 4; i++) {
        char bus[32];
        snprintf(bus, sizeof bus, "0000:b%d:00.0", i);
        add_nvswitch(root, bus);
    }
    if (comm) {
        add_process(root, 4242, "systemd-journal");
        add_process(root, 4343, comm);
        if (exe)
            add_exe(root, 4343, exe, uid);
    }
    json_t *doc = audit(root, -1);
    expect_finding(doc, "GPU_FABRIC_NOT_READY", "machine", severity, words);
    json_decref(doc);
    tree_remove(root);
    free(root);
}

static void fabric_case(const char *comm, const char *severity, const char *words)
{
    fabric_case_exe(comm, NULL, 0, severity, words);
}

/* Its executable and owner unreadable (a tree without the link, or gpuvet not root): running, and
 * the finding says it judged by the name. */
Test(fabric_manager, nvswitches_with_the_daemon_running_pass)
{
    fabric_case("nv-fabricmanage", "pass", "a process named nv-fabricmanager running (judged by its name");
}

/* The name is anyone's to take (prctl PR_SET_NAME): only NVIDIA's executable run by root counts. */
Test(fabric_manager, only_the_real_executable_run_by_root_counts)
{
    fabric_case_exe("nv-fabricmanage", "/usr/bin/nv-fabricmanager", 0, "pass",
                    "fabric manager running (nv-fabricmanager, as root)");
    fabric_case_exe("nv-fabricmanage", "/usr/bin/nv-fabricmanager (deleted)", 0, "pass", "as root");
    fabric_case_exe("nv-fabricmanage", "/usr/bin/python3.11", 1000, "fail",
                    "not NVIDIA's daemon run by root (pid 4343 runs /usr/bin/python3.11 as uid 1000)");
    fabric_case_exe("nv-fabricmanage", "/home/eve/nv-fabricmanager", 1000, "fail", "as uid 1000");
}

Test(fabric_manager, nvswitches_without_the_daemon_fail)
{
    fabric_case("nvidia-persiste", "fail", "no nv-fabricmanager process");
}

Test(fabric_manager, nvswitches_in_a_tree_without_processes_are_unknown)
{
    fabric_case(NULL, "unknown", "the recorded tree holds no process list");
}

/* The tree as recorded: no NVIDIA bridge, so no fabric to judge and no finding at all (no GPUs). */
Test(fabric_manager, no_nvswitch_no_finding)
{
    json_t *doc = audit(fixture(TREE), -1);
    json_t *found = findings_of(doc, "GPU_FABRIC_NOT_READY", NULL);
    cr_assert_eq(json_array_size(found), 0);
    json_decref(found);
    json_decref(doc);
}
