/* gpuvet audit as users run it: the built binary on recorded machines, checking its JSON. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define DELL "sysroot/32em64t-2n8c+1mic"

static const char *const trees[] = {INTEL, DELL, "sysroot/16amd64-8n2c", "sysroot/32amd64-4s2n4c-cgroup",
                                    "sysroot/nvidia-dgx-gb10"};

static json_t *audit_json(const char *root, const char *workload, int *status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", root, "--workload", workload, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d on %s; stderr: %s", r.status, root, r.err);
    json_t *doc = run_json(&r);
    if (status)
        *status = r.status;
    run_result_free(&r);
    return doc;
}

static const char *severity_of(json_t *doc, const char *id, const char *subject)
{
    json_t *list = findings_of(doc, id, subject);
    cr_assert_eq(json_array_size(list), 1, "%zu findings %s for %s", json_array_size(list), id, subject);
    const char *sev = json_string_value(json_object_get(json_array_get(list, 0), "severity"));
    json_decref(list);
    return sev;
}

Test(audit_sysroot, every_recorded_tree_gives_a_complete_document)
{
    for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {
        json_t *doc = audit_json(fixture(trees[t]), "general", NULL);
        cr_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "gpuvet.audit/1");
        json_t *m = json_object_get(doc, "machine");
        for (const char *const *key = (const char *const[]){"cpu", "numa_nodes", "accelerators", "kernel",
                                                             "virtualization", NULL};
             *key; key++)
            cr_assert_not_null(json_object_get(m, *key), "%s lacks machine.%s", trees[t], *key);
        cr_assert(json_integer_value(json_object_get(json_object_get(m, "cpu"), "threads")) > 0, "%s", trees[t]);
        cr_assert(json_array_size(json_object_get(m, "numa_nodes")) > 0, "%s", trees[t]);
        json_t *f;
        size_t i;
        json_array_foreach(json_object_get(doc, "findings"), i, f)
        {
            for (const char *const *key = (const char *const[]){"id", "severity", "subject", "message", NULL}; *key;
                 key++)
                cr_assert(json_is_string(json_object_get(f, *key)), "%s: finding without %s", trees[t], *key);
            cr_assert(json_is_object(json_object_get(f, "evidence")));
            cr_assert_not_null(json_object_get(f, "fix"));
        }
        json_decref(doc);
    }
}

Test(audit_sysroot, replay_reads_the_recorded_cpu_not_the_host)
{
    json_t *doc = audit_json(fixture(INTEL), "general", NULL);
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    cr_assert_str_eq(json_string_value(json_object_get(cpu, "model")), "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz");
    cr_assert_eq(json_integer_value(json_object_get(cpu, "sockets")), 2);
    cr_assert_eq(json_integer_value(json_object_get(cpu, "cores")), 16);
    cr_assert_eq(json_integer_value(json_object_get(cpu, "threads")), 32);
    cr_assert_eq(json_integer_value(json_object_get(cpu, "family")), 6);
    cr_assert_eq(json_integer_value(json_object_get(cpu, "model_number")), 85);
    json_t *nodes = json_object_get(json_object_get(doc, "machine"), "numa_nodes");
    cr_assert_eq(json_array_size(nodes), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 1), "cpus")), "8-15,24-31");
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(nodes, 0), "memory_bytes")), 47925628LL * 1024);
    json_decref(doc);
}

/* The recorded Dell tree has 4 GiB of swap and no /proc/sys/vm: swappiness is unknown, and its
 * evidence says null, not the -1 the model keeps for unknown. */
Test(audit_sysroot, unknown_swappiness_is_null_in_the_evidence)
{
    json_t *doc = audit_json(fixture(DELL), "general", NULL);
    json_t *found = findings_of(doc, "KERNEL_SWAP", "machine");
    cr_assert_eq(json_array_size(found), 1);
    json_t *f = json_array_get(found, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), "unknown");
    json_t *swappiness = json_object_get(json_object_get(f, "evidence"), "swappiness");
    cr_assert(json_is_null(swappiness), "swappiness evidence: %s", json_dumps(swappiness, JSON_ENCODE_ANY));
    json_decref(found);
    json_decref(doc);
}

Test(audit_sysroot, intel_tree_has_eight_gen3_x16_accelerators_and_shared_uplinks)
{
    int status;
    json_t *doc = audit_json(fixture(INTEL), "general", &status);
    json_t *acc = json_object_get(json_object_get(doc, "machine"), "accelerators"), *a;
    size_t i;
    cr_assert_eq(json_array_size(acc), 8);
    json_array_foreach(acc, i, a)
    {
        cr_assert_str_eq(json_string_value(json_object_get(a, "class")), "0x0b4000");
        json_t *link = json_object_get(a, "link");
        cr_assert_float_eq(json_real_value(json_object_get(link, "current_gt_s")), 8.0, 1e-9);
        cr_assert_eq(json_integer_value(json_object_get(link, "current_width")), 16);
        cr_assert_eq(json_integer_value(json_object_get(link, "max_width")), 16);
        cr_assert_eq(json_array_size(json_object_get(a, "path")), 3, "a switch below a root port");
    }
    json_t *path = json_object_get(json_array_get(acc, 0), "path");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(acc, 0), "bus_id")), "0000:1b:00.0");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(path, 0), "bus_id")), "0000:19:08.0");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(path, 2), "bus_id")), "0000:17:00.0");

    cr_assert_eq(count_findings(doc, "PCIE_LINK_DEGRADED", "fail"), 0);
    cr_assert_str_eq(severity_of(doc, "PCIE_UPLINK_SHARED", "0000:18:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "PCIE_UPLINK_SHARED", "0000:3b:00.0"), "info");
    json_t *shared = findings_of(doc, "PCIE_UPLINK_SHARED", "0000:18:00.0");
    json_t *ev = json_object_get(json_array_get(shared, 0), "evidence");
    cr_assert_eq(json_array_size(json_object_get(ev, "devices")), 5, "4 accelerators and the Mellanox NIC");
    cr_assert_float_eq(json_real_value(json_object_get(ev, "uplink_gb_s")), 15.75, 0.01);
    json_decref(shared);
    /* The Intel NIC runs at 2.5 GT/s because its port is capped there: capped, not degraded. */
    cr_assert_str_eq(severity_of(doc, "PCIE_SLOT_CAPPED", "0000:60:00.0"), "warn");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:60:00.0"), "pass");
    cr_assert_eq(status, 0, "no fail on this tree");
    json_decref(doc);
}

Test(audit_sysroot, workload_changes_uplink_severity)
{
    json_t *doc = audit_json(fixture(INTEL), "cv-train", NULL);
    cr_assert_str_eq(severity_of(doc, "PCIE_UPLINK_SHARED", "0000:18:00.0"), "warn");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "workload")), "cv-train");
    json_decref(doc);
    struct run_result r = run_gpuvet("audit", "--workload", "crypto-mining", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "crypto-mining"));
    run_result_free(&r);
}

Test(audit_mutated, a_narrowed_accelerator_is_the_only_degraded_link)
{
    char *root = fixture_copy(INTEL);
    tree_write(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width",
               "8\n");
    int status;
    json_t *doc = audit_json(root, "general", &status);
    cr_assert_eq(status, 1, "a fail sets exit status 1");
    json_t *fails = json_array(), *f;
    size_t i;
    json_array_foreach(json_object_get(doc, "findings"), i, f)
        if (!strcmp(json_string_value(json_object_get(f, "id")), "PCIE_LINK_DEGRADED") &&
            !strcmp(json_string_value(json_object_get(f, "severity")), "fail"))
            json_array_append(fails, f);
    cr_assert_eq(json_array_size(fails), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(fails, 0), "subject")), "0000:3d:00.0");
    cr_assert(strstr(json_string_value(json_object_get(json_array_get(fails, 0), "message")), "x8 of x16"));
    json_decref(fails);
    json_decref(doc);
    tree_remove(root);
    free(root);
}

Test(audit_mutated, accelerators_on_a_node_without_memory_fail)
{
    char *root = fixture_copy(INTEL);
    tree_write(root, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       0 kB\nNode 1 MemFree: 0 kB\n");
    tree_write(root, "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:08.0/0000:1b:00.0/numa_node", "1\n");
    tree_write(root, "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:0c.0/0000:1c:00.0/numa_node", "1\n");
    int status;
    json_t *doc = audit_json(root, "general", &status);
    cr_assert_eq(status, 1);
    cr_assert_eq(count_findings(doc, "NUMA_GPU_NODE_NO_MEMORY", "fail"), 2);
    cr_assert_str_eq(severity_of(doc, "NUMA_GPU_NODE_NO_MEMORY", "0000:1b:00.0"), "fail");
    cr_assert_str_eq(severity_of(doc, "NUMA_GPU_NODE_NO_MEMORY", "0000:1c:00.0"), "fail");
    cr_assert_str_eq(severity_of(doc, "NUMA_GPU_NODE_NO_MEMORY", "0000:1d:00.0"), "pass");
    /* Node 1 still has its CPUs; the binding advice drops --membind for a node without memory. */
    cr_assert_str_eq(severity_of(doc, "NUMA_GPU_NODE_NO_CPUS", "0000:1b:00.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "NUMA_MEMORY_IMBALANCE", "machine"), "warn");
    json_decref(doc);
    tree_remove(root);
    free(root);
}

Test(audit_mutated, unknown_numa_node_on_a_two_node_host)
{
    char *root = fixture_copy(INTEL);
    const char *dev = "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:08.0/0000:1b:00.0";
    char path[512];
    snprintf(path, sizeof path, "%s/numa_node", dev);
    tree_write(root, path, "-1\n");
    snprintf(path, sizeof path, "%s/local_cpulist", dev);
    tree_write(root, path, "0-31\n");
    snprintf(path, sizeof path, "%s/local_cpus", dev);
    tree_write(root, path, "ffffffff\n");
    json_t *doc = audit_json(root, "general", NULL);
    cr_assert_str_eq(severity_of(doc, "NUMA_AFFINITY_UNKNOWN", "0000:1b:00.0"), "warn");
    cr_assert_str_eq(severity_of(doc, "NUMA_AFFINITY_UNKNOWN", "0000:1c:00.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "NUMA_GPU_NODE_NO_MEMORY", "0000:1b:00.0"), "unknown");
    json_decref(doc);
    tree_remove(root);
    free(root);
}

Test(audit_bad_input, garbage_and_missing_files_are_named_and_unknown)
{
    char *root = fixture_copy(INTEL);
    const char *dev = "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:08.0/0000:1b:00.0";
    char path[512];
    snprintf(path, sizeof path, "%s/current_link_speed", dev);
    tree_write(root, path, "banana\n");
    tree_write(root, "sys/devices/system/node/node0/cpulist", "x-y\n");
    tree_write(root, "sys/devices/system/node/node1/meminfo", "");
    tree_write(root, "sys/devices/system/node/node1/distance", "21 ten\n");
    snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
    cr_assert_eq(unlink(path), 0);

    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", root, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "0000:1b:00.0/current_link_speed"), "stderr: %s", r.err);
    cr_assert(strstr(r.err, "node0/cpulist"));
    cr_assert(strstr(r.err, "node1/meminfo"));
    cr_assert(strstr(r.err, "/proc/cpuinfo"));
    json_t *doc = run_json(&r);
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:1b:00.0"), "unknown");
    cr_assert_str_eq(severity_of(doc, "NUMA_MEMORY_IMBALANCE", "machine"), "unknown");
    json_t *problems = json_object_get(json_object_get(doc, "machine"), "problems");
    cr_assert(json_array_size(problems) >= 4);
    json_t *nodes = json_object_get(json_object_get(doc, "machine"), "numa_nodes");
    cr_assert(json_is_null(json_object_get(json_array_get(nodes, 1), "memory_bytes")));
    cr_assert(json_is_null(json_object_get(json_array_get(nodes, 1), "distances")));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(audit_bad_input, not_a_machine_root_cannot_run)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", "/nonexistent/gpuvet-tree", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "/nonexistent/gpuvet-tree"), "stderr: %s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--no-such-option", NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
}

static bool host_has_hypervisor_flag(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
    if (f)
        fclose(f);
    return found;
}

Test(audit_live, runs_and_reports_virtualization)
{
    struct run_result r = run_gpuvet("audit", "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "machine"), "source")), "live");
    json_t *virt = findings_of(doc, "VIRT_LIMITS", "machine");
    cr_assert_eq(json_array_size(virt), 1);
    if (host_has_hypervisor_flag()) {
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(virt, 0), "severity")), "info");
        json_t *v = json_object_get(json_object_get(doc, "machine"), "virtualization");
        cr_assert(json_is_true(json_object_get(v, "vm")));
    }
    json_decref(virt);
    json_decref(doc);
    run_result_free(&r);
}

Test(audit_text, verdict_line_and_no_colour_when_piped)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "\nVerdict: WARN"), "%s", r.out);
    cr_assert_null(strchr(r.out, '\033'), "colour codes in piped output");
    /* Worst first: the WARN area (PCIE) comes before areas with only passes. */
    cr_assert(strstr(r.out, "PCIE_SLOT_CAPPED") < strstr(r.out, "NUMA_BINDING"));
    run_result_free(&r);
}

Test(rules, list_and_explain)
{
    struct run_result r = run_gpuvet("audit", "--list-rules", NULL);
    cr_assert_eq(r.status, 0);
    for (const char *const *id = (const char *const[]){"PCIE_LINK_DEGRADED", "PCIE_SLOT_CAPPED", "PCIE_UPLINK_SHARED",
                                                        "NUMA_GPU_NODE_NO_MEMORY", "NUMA_GPU_NODE_NO_CPUS",
                                                        "NUMA_AFFINITY_UNKNOWN", "NUMA_MEMORY_IMBALANCE",
                                                        "NUMA_BINDING", "KERNEL_THP", "KERNEL_SWAP",
                                                        "KERNEL_NUMA_BALANCING", "KERNEL_ISOLCPUS", "CPU_GOVERNOR",
                                                        "VIRT_LIMITS", NULL};
         *id; id++)
        cr_assert(strstr(r.out, *id), "--list-rules lacks %s", *id);
    run_result_free(&r);
    r = run_gpuvet("explain", "PCIE_UPLINK_SHARED", NULL);
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "cv-train=warn"));
    cr_assert(strstr(r.out, "uplink"));
    run_result_free(&r);
    r = run_gpuvet("explain", "NO_SUCH_RULE", NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
}

/* Every rule's explanation keeps to the report's 100 columns (the severity line of six workloads
 * once ran to 103). */
Test(rules, explanations_fit_100_columns)
{
    struct run_result list = run_gpuvet("audit", "--list-rules", NULL);
    cr_assert_eq(list.status, 0);
    int explained = 0;
    for (char *line = list.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char id[64];
        if (sscanf(line, "%63[A-Z0-9_]", id) != 1 || strlen(id) < 4)
            continue;
        struct run_result r = run_gpuvet("explain", id, NULL);
        cr_assert_eq(r.status, 0, "explain %s: %s", id, r.err);
        for (char *l = r.out; l && *l;) {
            char *end = strchr(l, '\n');
            size_t len = end ? (size_t)(end - l) : strlen(l);
            cr_expect(len <= 100, "explain %s: a line of %zu columns: %.*s", id, len, (int)len, l);
            l = end ? end + 1 : NULL;
        }
        run_result_free(&r);
        explained++;
    }
    cr_assert_geq(explained, 40, "%d rules explained", explained);
    run_result_free(&list);
}

/* `snapshot` records exactly what audit reads: replaying the snapshot gives the same audit. */
Test(snapshot, replay_equals_the_original_audit)
{
    for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {
        char dir[] = "/tmp/gpuvet-snap-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        char snap[600];
        snprintf(snap, sizeof snap, "%s/snap", dir);
        struct run_result r = run_gpuvet("snapshot", "--sysroot", fixture(trees[t]), snap, NULL);
        cr_assert_eq(r.status, 0, "%s: %s", trees[t], r.err);
        run_result_free(&r);
        json_t *orig = audit_json(fixture(trees[t]), "general", NULL);
        json_t *replay = audit_json(snap, "general", NULL);
        json_object_del(json_object_get(orig, "machine"), "source");
        json_object_del(json_object_get(replay, "machine"), "source");
        json_object_del(orig, "generated_at"); /* when each ran */
        json_object_del(replay, "generated_at");
        char *a = json_dumps(orig, JSON_SORT_KEYS), *b = json_dumps(replay, JSON_SORT_KEYS);
        cr_assert_str_eq(a, b, "%s: the snapshot audits differently", trees[t]);
        free(a);
        free(b);
        json_decref(orig);
        json_decref(replay);
        tree_remove(dir);
    }
}

/* Removes the named keys at any depth. */
static void drop_keys(json_t *v, const char *const *keys)
{
    if (json_is_object(v)) {
        for (const char *const *k = keys; *k; k++)
            json_object_del(v, *k);
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child)
            drop_keys(child, keys);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child)
            drop_keys(child, keys);
    }
}

/* On a GPU machine the live audit reads NVML and the replay the stored `nvidia-smi -q -x`, which
 * holds fewer facts (no CPU affinity, no NVLink state, no CUDA runtimes of the machine) and
 * moving ones (clocks, power, temperature): the GPUs' identity and configuration must agree,
 * then both GPU parts leave the comparison of the rest. */
static void same_stable_gpu_facts(json_t *live, json_t *replay)
{
    static const char *const stable[] = {"bus_id", "name", "uuid", "serial", "memory_bytes", "persistence_mode",
                                         "mig", NULL};
    json_t *a = json_object_get(live, "gpus"), *b = json_object_get(replay, "gpus");
    cr_assert_eq(json_array_size(a), json_array_size(b));
    for (size_t i = 0; i < json_array_size(a); i++) {
        for (const char *const *k = stable; *k; k++) {
            char *x = json_dumps(json_object_get(json_array_get(a, i), *k), JSON_SORT_KEYS | JSON_ENCODE_ANY);
            char *y = json_dumps(json_object_get(json_array_get(b, i), *k), JSON_SORT_KEYS | JSON_ENCODE_ANY);
            cr_expect_str_eq(x, y, "GPU %zu %s", i, *k);
            free(x);
            free(y);
        }
    }
    json_object_del(live, "gpus");
    json_object_del(replay, "gpus");
    json_object_del(live, "nvidia");
    json_object_del(replay, "nvidia");
    /* A GPU passed through names its source in the VM evidence: "NVML: ..." or "nvidia-smi: ...". */
    json_object_del(json_object_get(live, "virtualization"), "evidence");
    json_object_del(json_object_get(replay, "virtualization"), "evidence");
}

Test(snapshot, live_machine_replays_to_the_same_audit)
{
    char dir[] = "/tmp/gpuvet-snap-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char snap[600];
    snprintf(snap, sizeof snap, "%s/live", dir);
    struct run_result r = run_gpuvet("snapshot", snap, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--json", NULL);
    json_t *live = run_json(&r);
    run_result_free(&r);
    r = run_gpuvet("audit", "--json", "--sysroot", snap, NULL);
    json_t *replay = run_json(&r);
    run_result_free(&r);
    /* What differs by nature: where the facts came from, the words for why something is unknown
     * ("this system" vs "the recorded tree"), free disk space (it moves between the runs) and the
     * CPU-use sample and steal ratio (a recording has no activity to sample). The facts must not differ. */
    static const char *const volatile_keys[] = {"source", "unknown_reason", "free_bytes", "contention", "steal_ratio", NULL};
    drop_keys(live, volatile_keys);
    drop_keys(replay, volatile_keys);
    if (host_has_nvidia_gpu())
        same_stable_gpu_facts(json_object_get(live, "machine"), json_object_get(replay, "machine"));
    char *a = json_dumps(json_object_get(live, "machine"), JSON_SORT_KEYS);
    char *b = json_dumps(json_object_get(replay, "machine"), JSON_SORT_KEYS);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    json_decref(live);
    json_decref(replay);
    r = run_gpuvet("snapshot", snap, NULL);
    cr_assert_eq(r.status, 2, "an existing folder is refused");
    run_result_free(&r);
    tree_remove(dir);
}

/* Everything works as non-root: run the live audit as nobody when the tests run as root. */
Test(audit_live, works_without_root)
{
    if (geteuid() != 0 || system("command -v setpriv >/dev/null") != 0)
        cr_skip_test("needs root to drop to nobody (and util-linux's setpriv)");
    char out[] = "/tmp/gpuvet-nonroot-XXXXXX";
    int fd = mkstemp(out);
    cr_assert(fd >= 0);
    close(fd);
    chmod(out, 0666);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "setpriv --reuid=65534 --regid=65534 --clear-groups %s audit --json > %s", GPUVET_BIN, out);
    int status = system(cmd);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "status %d", status);
    json_error_t error;
    json_t *doc = json_load_file(out, 0, &error);
    cr_assert_not_null(doc, "%s", error.text);
    cr_assert(json_array_size(json_object_get(doc, "findings")) > 0);
    json_decref(doc);
    unlink(out);
}

/* hwloc's 2pa-pcidomain32bits tree is sparse: no kernel release, THP, cmdline or governor, no CPU
 * clocks, no container. Strings the model holds as NULL come out as null under their key: none is
 * dropped (json_string(NULL) and json_pack "s" with NULL give NULL, which jansson drops silently). */
Test(audit, sparse_tree_keeps_every_key_with_null)
{
    json_t *doc = audit_json(fixture("sysroot/2pa-pcidomain32bits"), "general", NULL);
    json_t *machine = json_object_get(doc, "machine");
    const struct {
        const char *object, *keys[12];
    } expected[] = {
        {"kernel", {"release", "thp_enabled", "thp_defrag", "swappiness", "numa_balancing", "nohz_full",
                    "cpufreq_governor", "cmdline", NULL}},
        {"cpu", {"model", "vendor", "arch", "usable_cpus", "base_mhz", "max_mhz", NULL}},
        {"virtualization", {"hypervisor", "container_kind", "evidence", NULL}},
    };
    int nulls = 0;
    for (size_t o = 0; o < sizeof expected / sizeof expected[0]; o++) {
        json_t *obj = json_object_get(machine, expected[o].object);
        cr_assert(json_is_object(obj), "no machine.%s", expected[o].object);
        for (int k = 0; expected[o].keys[k]; k++) {
            json_t *v = json_object_get(obj, expected[o].keys[k]);
            cr_expect_not_null(v, "machine.%s.%s is missing", expected[o].object, expected[o].keys[k]);
            nulls += json_is_null(v);
        }
    }
    cr_expect_geq(nulls, 8, "the tree is sparse: its unknowns must show as null, %d did", nulls);
    /* Every finding keeps its seven keys, fix included when a rule has none to give. */
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(doc, "findings"), i, f) {
        const char *keys[] = {"id", "area", "severity", "subject", "message", "evidence", "fix"};
        for (size_t k = 0; k < 7; k++)
            cr_expect_not_null(json_object_get(f, keys[k]), "finding %zu has no %s", i, keys[k]);
    }
    json_decref(doc);
}
