/* Storage, network and the CPU-for-the-GPUs rules, run as users run gpuvet: the built binary on
 * the recorded trees (hwloc's gathered machines), some of them mutated. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define DELL "sysroot/32em64t-2n8c+1mic"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"

static json_t *entry_named(json_t *arr, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return e;
    }
    return NULL;
}

static json_t *machine_key(json_t *doc, const char *key)
{
    return json_object_get(json_object_get(doc, "machine"), key);
}

static json_t *audit(struct run_result *r, const char *root, const char *workload, const char *extra1,
                     const char *extra2)
{
    *r = run_gpuvet("audit", "--sysroot", root, "--json", "--workload", workload, extra1, extra2, NULL);
    return run_json(r);
}

/* The first finding of id (and subject); borrowed from doc. */
static json_t *first_finding(json_t *doc, const char *id, const char *subject)
{
    json_t *all = findings_of(doc, id, subject);
    json_t *f = json_array_get(all, 0);
    json_decref(all);
    cr_assert_not_null(f, "no %s finding for %s", id, subject ? subject : "any subject");
    return f;
}

static const char *str(json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }

/* Removes the ConnectX-3 HCA (its PCI function and every link to it) from a copy of the Dell tree. */
static char *dell_without_hca(void)
{
    char *root = fixture_copy(DELL);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && rm -rf sys/devices/pci0000:80/0000:80:02.2/0000:82:00.0 sys/class/net/ib0 "
             "sys/class/infiniband/mlx4_0 sys/bus/pci/devices/0000:82:00.0",
             root);
    cr_assert_eq(system(cmd), 0);
    return root;
}

Test(storage, dell_disks_and_the_root_disk)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "general", NULL, NULL);
    json_t *disks = machine_key(doc, "storage");
    json_t *nvme = entry_named(disks, "nvme0n1"), *sda = entry_named(disks, "sda");
    cr_assert_not_null(nvme);
    cr_assert_not_null(sda);
    cr_expect_str_eq(str(nvme, "transport"), "nvme");
    cr_expect(json_is_false(json_object_get(nvme, "rotational")));
    cr_expect_str_eq(str(nvme, "pci_bus_id"), "0000:00:02.0");
    cr_expect_eq(json_integer_value(json_object_get(nvme, "size_bytes")), 781422768LL * 512);
    cr_expect_str_eq(str(sda, "transport"), "sata", "libata drives carry the SCSI vendor ATA");
    cr_expect(json_is_true(json_object_get(sda, "rotational")));
    cr_expect_str_eq(str(sda, "model"), "ST9250610NS");
    cr_expect(json_is_true(json_object_get(sda, "holds_root")));
    cr_expect(json_is_false(json_object_get(nvme, "holds_root")));
    cr_expect_null(entry_named(disks, "sda1"), "partitions are not disks");
    cr_expect_null(entry_named(disks, "loop0"), "virtual block devices are not disks");
    json_t *root = json_object_get(machine_key(doc, "storage_paths"), "root");
    cr_expect_str_eq(str(root, "source"), "/dev/sda1");
    cr_expect_str_eq(json_string_value(json_array_get(json_object_get(root, "disks"), 0)), "sda");
    cr_expect(json_is_null(json_object_get(root, "free_bytes")), "a recorded tree has no free space");
    cr_expect(json_is_null(json_object_get(machine_key(doc, "storage_paths"), "data")));
    json_decref(doc);
    run_result_free(&r);
}

Test(storage, dataset_on_the_sata_system_disk_warns_for_cv_train)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "cv-train", "--data-dir", "/tacc/imagenet");
    json_t *f = findings_of(doc, "STORAGE_SLOW_DATA", "/tacc/imagenet");
    cr_assert_eq(json_array_size(f), 2, "%s", r.out);
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "warn"), 1);
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "info"), 1, "the data shares sda with the system");
    json_t *warn = json_array_get(f, 0);
    cr_expect(strstr(str(warn, "message"), "sda (sata, rotational") != NULL, "%s", str(warn, "message"));
    cr_expect_str_eq(str(json_object_get(warn, "evidence"), "mountpoint"), "/tacc");
    cr_expect(json_is_true(json_object_get(entry_named(machine_key(doc, "storage"), "sda"), "holds_data")));
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);

    doc = audit(&r, fixture(DELL), "llm-train", "--data-dir", "/tacc/imagenet");
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "warn"), 0, "small-data workloads only hear about it");
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "info"), 2);
    json_decref(doc);
    run_result_free(&r);
}

Test(storage, dataset_on_its_own_nvme_passes)
{
    char *root = fixture_copy(DELL);
    char *mounts = NULL;
    FILE *f = fopen(fixture(DELL "/proc/mounts"), "r");
    cr_assert_not_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cr_assert(asprintf(&mounts, "%s/dev/nvme0n1p1 /data xfs rw,relatime 0 0\n", buf) > 0);
    tree_write(root, "proc/mounts", mounts);
    struct run_result r;
    json_t *doc = audit(&r, root, "cv-train", "--data-dir", "/data/imagenet");
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "pass"), 1, "%s", r.out);
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "info"), 0, "not the system disk");
    cr_expect(json_is_true(json_object_get(entry_named(machine_key(doc, "storage"), "nvme0n1"), "holds_data")));
    json_decref(doc);
    run_result_free(&r);
    free(mounts);
    tree_remove(root);
    free(root);
}

Test(storage, dataset_on_lustre_is_unknown_not_judged)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "cv-train", "--data-dir", "/scratch/imagenet");
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "unknown"), 1);
    json_t *data = json_object_get(machine_key(doc, "storage_paths"), "data");
    cr_expect(json_is_true(json_object_get(data, "network_fs")));
    cr_expect_str_eq(str(data, "fstype"), "lustre");
    json_decref(doc);
    run_result_free(&r);
}

Test(storage, root_disk_missing_from_the_tree_is_unknown)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(INTEL), "cv-train", "--data-dir", "/scratch");
    json_t *f = findings_of(doc, "STORAGE_SLOW_DATA", "/scratch");
    cr_assert_eq(json_array_size(f), 1);
    cr_expect_str_eq(str(json_array_get(f, 0), "severity"), "unknown");
    cr_expect(strstr(str(json_array_get(f, 0), "message"), "/dev/sda5") != NULL);
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
}

Test(storage, no_data_dir_is_unknown_for_cv_train_only)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "cv-train", NULL, NULL);
    cr_expect_eq(count_findings(doc, "STORAGE_SLOW_DATA", "unknown"), 1);
    json_decref(doc);
    run_result_free(&r);
    doc = audit(&r, fixture(DELL), "general", NULL, NULL);
    json_t *f = findings_of(doc, "STORAGE_SLOW_DATA", NULL);
    cr_expect_eq(json_array_size(f), 0);
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
}

Test(storage, bad_data_dir_and_nodes_options_exit_2)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(DELL), "--data-dir", "relative/dir", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "absolute") != NULL, "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--data-dir", "/no/such/gpuvet/dir", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "/no/such/gpuvet/dir") != NULL, "%s", r.err);
    run_result_free(&r);
    static const char *const bad[] = {"0", "-3", "four", "4x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = run_gpuvet("audit", "--sysroot", fixture(DELL), "--nodes", bad[i], NULL);
        cr_expect_eq(r.status, 2, "--nodes %s", bad[i]);
        cr_expect_str_empty(r.out);
        run_result_free(&r);
    }
}

Test(network, dell_nics_and_the_fdr_hca)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "general", NULL, NULL);
    json_t *net = machine_key(doc, "network");
    cr_expect_eq(json_array_size(net), 3, "eth0, eth1, ib0; lo, br0, VLANs and mic0 are virtual");
    json_t *eth0 = entry_named(net, "eth0"), *eth1 = entry_named(net, "eth1"), *ib0 = entry_named(net, "ib0");
    cr_assert(eth0 && eth1 && ib0);
    cr_expect_eq(json_integer_value(json_object_get(eth0, "speed_mbps")), 1000);
    cr_expect_str_eq(str(eth0, "state"), "up");
    cr_expect_str_eq(str(eth0, "driver"), "igb");
    cr_expect_eq(json_integer_value(json_object_get(eth0, "numa_node")), 0);
    cr_expect(json_is_false(json_object_get(eth0, "rdma")));
    cr_expect_str_eq(str(eth1, "state"), "down");
    cr_expect(json_is_null(json_object_get(eth1, "speed_mbps")));
    cr_expect_eq(json_integer_value(json_object_get(ib0, "speed_mbps")), 56000, "the port's 56 Gb/sec (4X FDR)");
    cr_expect_str_eq(str(ib0, "speed_source"), "rdma_rate");
    cr_expect(json_is_true(json_object_get(ib0, "rdma")));
    cr_expect_str_eq(str(ib0, "link_layer"), "InfiniBand");
    cr_expect_eq(json_integer_value(json_object_get(ib0, "numa_node")), 1, "the other socket");
    json_t *port = json_object_get(ib0, "rdma_port");
    cr_expect_str_eq(str(port, "device"), "mlx4_0");
    cr_expect_str_eq(str(port, "state"), "ACTIVE");
    json_t *f = findings_of(doc, "NET_MULTINODE", NULL);
    cr_expect_eq(json_array_size(f), 0, "a single-node audit does not judge the network");
    json_decref(f);
    json_decref(doc);
    run_result_free(&r);
}

Test(network, dell_four_node_llm_training_warns_below_100_gbps)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(DELL), "llm-train", "--nodes", "4");
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "fail"), 0);
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "warn"), 1, "%s", r.out);
    json_t *warn = first_finding(doc, "NET_MULTINODE", "network");
    cr_expect(strstr(str(warn, "message"), "ib0 at 56 Gb/s") != NULL, "%s", str(warn, "message"));
    /* The HCA (node 1) and the Xeon Phi (node 1) hang off different root ports. */
    json_t *placement = findings_of(doc, "NET_MULTINODE", "ib0");
    cr_expect_eq(json_array_size(placement), 1);
    cr_expect_str_eq(str(json_array_get(placement, 0), "severity"), "info");
    cr_expect(strstr(str(json_array_get(placement, 0), "message"), "no PCIe switch") != NULL);
    json_decref(placement);
    json_decref(doc);
    run_result_free(&r);

    doc = audit(&r, fixture(DELL), "general", "--nodes", "4");
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "pass"), 1, "56 Gb/s with RDMA is enough for general");
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "warn"), 0);
    json_decref(doc);
    run_result_free(&r);
}

Test(network, without_the_hca_a_four_node_llm_training_fails)
{
    char *root = dell_without_hca();
    struct run_result r;
    json_t *doc = audit(&r, root, "llm-train", "--nodes", "4");
    cr_expect_eq(r.status, 1);
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "fail"), 1, "%s", r.out);
    json_t *fail = first_finding(doc, "NET_MULTINODE", "network");
    cr_expect(strstr(str(fail, "message"), "eth0 at 1 Gb/s") != NULL, "%s", str(fail, "message"));
    cr_expect_not_null(json_object_get(fail, "fix"));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(network, intel_mellanox_without_netdev_makes_the_verdict_unknown)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(INTEL), "llm-train", "--nodes", "4");
    json_t *net = machine_key(doc, "network");
    json_t *mlx = entry_named(net, "0000:1a:00.0");
    cr_assert_not_null(mlx, "a PCI NIC without netdev is still listed");
    cr_expect_str_eq(str(mlx, "driver"), "mlx5_core");
    cr_expect(json_is_null(json_object_get(mlx, "speed_mbps")));
    cr_expect_not_null(str(mlx, "unknown_reason"));
    cr_expect_eq(json_integer_value(json_object_get(entry_named(net, "enp96s0f0"), "speed_mbps")), 1000);
    cr_expect_str_eq(str(entry_named(net, "enp96s0f1"), "state"), "down");
    /* 1 Gb/s is all that is visible, but the two ConnectX-4 could be 100 Gb/s: no false fail. */
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "fail"), 0);
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "unknown"), 1);
    json_decref(doc);
    run_result_free(&r);
}

Test(network, fast_ethernet_without_rdma_warns)
{
    char *root = fixture_copy(INTEL);
    tree_write(root, "sys/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0/net/enp96s0f0/speed",
               "40000\n");
    struct run_result r;
    json_t *doc = audit(&r, root, "general", "--nodes", "2");
    cr_expect_eq(count_findings(doc, "NET_MULTINODE", "fail"), 0);
    json_t *warn = first_finding(doc, "NET_MULTINODE", "network");
    cr_expect_str_eq(str(warn, "severity"), "warn");
    cr_expect(strstr(str(warn, "message"), "has an active RDMA port") != NULL, "%s", str(warn, "message"));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(network, garbage_speed_is_a_problem_not_a_crash)
{
    char *root = fixture_copy(DELL);
    tree_write(root, "sys/devices/pci0000:00/0000:00:01.1/0000:02:00.0/net/eth0/speed", "fast\n");
    struct run_result r;
    json_t *doc = audit(&r, root, "general", NULL, NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(json_is_null(json_object_get(entry_named(machine_key(doc, "network"), "eth0"), "speed_mbps")));
    cr_expect(strstr(r.err, "eth0/speed") != NULL, "%s", r.err);
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(cpu_for_gpus, eight_vector_engines_on_sixteen_cores)
{
    struct run_result r;
    json_t *doc = audit(&r, fixture(INTEL), "cv-train", NULL, NULL);
    json_t *f = first_finding(doc, "CPU_CORES_PER_GPU", NULL);
    cr_assert_not_null(f);
    cr_expect_str_eq(str(f, "severity"), "warn");
    json_t *ev = json_object_get(f, "evidence");
    cr_expect_eq(json_integer_value(json_object_get(ev, "accelerators")), 8);
    cr_expect_eq(json_integer_value(json_object_get(ev, "need_per_accelerator")), 7);
    cr_expect_float_eq(json_real_value(json_object_get(ev, "cores_per_accelerator")), 2.0, 1e-9);
    cr_expect(strstr(str(ev, "basis"), "2470 ResNet-50 img/s") != NULL, "the evidence says where 7 comes from");
    json_decref(doc);
    run_result_free(&r);

    doc = audit(&r, fixture(INTEL), "llm-train", NULL, NULL);
    cr_expect_eq(count_findings(doc, "CPU_CORES_PER_GPU", "warn"), 1, "2 < 4");
    json_decref(doc);
    run_result_free(&r);
    doc = audit(&r, fixture(INTEL), "llm-infer", NULL, NULL);
    cr_expect_eq(count_findings(doc, "CPU_CORES_PER_GPU", "pass"), 1, "2 >= 2");
    json_decref(doc);
    run_result_free(&r);
}

Test(cpu_for_gpus, clock_thresholds_per_workload)
{
    struct run_result r;
    /* acpi-cpufreq shows 2701 MHz (base + 1: turbo on, top unknown); the 2.7 GHz base meets 2.6. */
    json_t *doc = audit(&r, fixture(DELL), "llm-train", NULL, NULL);
    cr_expect_eq(count_findings(doc, "CPU_FREQ_LOW", "pass"), 1);
    json_decref(doc);
    run_result_free(&r);
    doc = audit(&r, fixture(DELL), "cv-train", NULL, NULL);
    cr_expect_eq(count_findings(doc, "CPU_FREQ_LOW", "unknown"), 1, "2.7 GHz base, boost hidden, need 3.0");
    json_decref(doc);
    run_result_free(&r);
    doc = audit(&r, fixture(DELL), "llm-infer", NULL, NULL);
    json_t *f = first_finding(doc, "CPU_FREQ_LOW", NULL);
    cr_expect_str_eq(str(f, "severity"), "info");
    cr_expect_str_eq(str(f, "fix"), "gpuvet bench jitter");
    json_decref(doc);
    run_result_free(&r);

    char *root = fixture_copy(DELL);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for f in sys/devices/system/cpu/cpu*/cpufreq/cpuinfo_max_freq; do rm -f $f; "
             "echo 2900000 > $f; done", root);
    cr_assert_eq(system(cmd), 0);
    doc = audit(&r, root, "cv-train", NULL, NULL);
    cr_expect_eq(count_findings(doc, "CPU_FREQ_LOW", "warn"), 1, "2.9 GHz boost < 3.0");
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(storage, virtio_disk_is_not_judged_by_its_rotational_flag)
{
    /* A virtio-blk disk laid out as the kernel does (/sys/devices/pci.../virtioN/block/vdX), with
     * the rotational flag QEMU sets by default, added to a copy of the Dell tree. */
    char *root = fixture_copy(DELL);
    const char *dir = "sys/devices/pci0000:00/0000:00:05.0/virtio9/block/vda";
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p %s/queue && ln -s ../../%s sys/class/block/vda", root, dir,
             dir + strlen("sys/"));
    cr_assert_eq(system(cmd), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/size", dir);
    tree_write(root, path, "209715200\n");
    snprintf(path, sizeof path, "%s/dev", dir);
    tree_write(root, path, "253:0\n");
    snprintf(path, sizeof path, "%s/queue/rotational", dir);
    tree_write(root, path, "1\n");
    tree_write(root, "proc/mounts", "/dev/sda1 / ext3 rw 0 0\n/dev/vda /data ext4 rw 0 0\n");
    struct run_result r;
    json_t *doc = audit(&r, root, "cv-train", "--data-dir", "/data");
    json_t *vda = entry_named(machine_key(doc, "storage"), "vda");
    cr_assert_not_null(vda, "%s", r.err);
    cr_expect_str_eq(str(vda, "transport"), "virtio");
    cr_expect_str_eq(str(vda, "pci_bus_id"), "0000:00:05.0");
    cr_expect(json_is_true(json_object_get(vda, "holds_data")));
    json_t *f = first_finding(doc, "STORAGE_SLOW_DATA", "/data");
    cr_expect_str_eq(str(f, "severity"), "unknown", "the hypervisor chose the flag");
    cr_expect(strstr(str(f, "message"), "virtual disk") != NULL, "%s", str(f, "message"));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

/* What the storage and network probes read is what `gpuvet snapshot` records: a replay of this
 * machine's snapshot shows the same disks and NICs (free space is live-only). */
Test(storage, snapshot_replays_storage_and_network)
{
    char tmpl[] = "/tmp/gpuvet-snapXXXXXX";
    cr_assert_not_null(mkdtemp(tmpl));
    char snap[600];
    snprintf(snap, sizeof snap, "%s/snap", tmpl);
    struct run_result r = run_gpuvet("snapshot", snap, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    json_t *live = (r = run_gpuvet("audit", "--json", NULL), run_json(&r));
    run_result_free(&r);
    json_t *replay = (r = run_gpuvet("audit", "--sysroot", snap, "--json", NULL), run_json(&r));
    run_result_free(&r);
    cr_expect(json_equal(machine_key(live, "storage"), machine_key(replay, "storage")));
    cr_expect(json_equal(machine_key(live, "network"), machine_key(replay, "network")));
    json_t *live_root = json_object_get(machine_key(live, "storage_paths"), "root");
    json_t *replay_root = json_object_get(machine_key(replay, "storage_paths"), "root");
    cr_expect(json_equal(json_object_get(live_root, "disks"), json_object_get(replay_root, "disks")));
    /* The snapshot keeps statvfs's answer (free space moves between the two runs, so no equality). */
    cr_expect(json_is_integer(json_object_get(replay_root, "free_bytes")));
    json_decref(live);
    json_decref(replay);
    tree_remove(tmpl);
}
