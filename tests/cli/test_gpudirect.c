/* NET_GPUDIRECT on a recorded machine made into a GPU box with an RDMA NIC below one switch.
 *
 * hwloc's recorded Xeon with eight NEC Vector Engines behind PLX switches (tests/fixtures/README.md)
 * has a Mellanox InfiniBand function (0000:1a:00.0) and a Vector Engine (0000:1b:00.0) on two ports
 * (0000:19:04.0, 0000:19:08.0) of one PLX switch. Each test turns the Vector Engine into an NVIDIA
 * H100 (vendor 0x10de, class 0x030200, a 3D controller), gives the NIC its RDMA device the way the
 * kernel lays it out (/sys/class/infiniband/mlx5_0 a link into the PCI function's folder, with a
 * `device` link and ports/1), and writes what the case needs: /proc/modules lines (the kernel's
 * format: name, size, users, users' names, state, address; the sizes are illustrative),
 * /proc/driver/nvidia/version first lines quoted from real machines (tests/fixtures/README.md),
 * /proc/sys/kernel/osrelease, and the switch ports' 4096-byte configuration space with an ACS
 * extended capability laid out as the PCI Express Base Specification does (and Linux's
 * include/uapi/linux/pci_regs.h names it): an extended capability header at 0x100 (ID in bits 15:0,
 * version 19:16, next capability's offset 31:20), ACS ID 0x000d, its capability register at +4 and
 * control register at +6 (bit 2 P2P request redirect, bit 3 completion redirect, bit 5 egress
 * control). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define TREE "sysroot/32intel64-2p8co2t+8ve"
#define SWITCH "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0"
#define NIC_DIR SWITCH "/0000:19:04.0/0000:1a:00.0"
#define GPU_DIR SWITCH "/0000:19:08.0/0000:1b:00.0"

/* Real first lines of /proc/driver/nvidia/version (sources in tests/fixtures/README.md). */
static const char OPEN_MODULE[] = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58.02  Release Build  "
                                  "(dvs-builder@U16-I3-B03-4-3)  Tue Jun 25 01:26:03 UTC 2024\n"
                                  "GCC version:  gcc version 14.2.1 20240801 (Red Hat 14.2.1-1) (GCC) \n";
static const char PROPRIETARY_MODULE[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.76  Mon Sep 12 19:21:56 UTC "
                                         "2022\nGCC version:  gcc version 7.5.0 (Ubuntu 7.5.0-3ubuntu1~18.04)\n";

static const char MODULES_WITH_PEERMEM[] =
    "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)\n"
    "nvidia_uvm 1630208 0 - Live 0x0000000000000000 (POE)\n"
    "mlx5_ib 483328 0 - Live 0x0000000000000000\n"
    "ib_core 442368 2 nvidia_peermem,mlx5_ib, Live 0x0000000000000000\n"
    "nvidia 54591488 3 nvidia_peermem,nvidia_uvm, Live 0x0000000000000000 (POE)\n";
static const char MODULES_WITHOUT_PEERMEM[] = "nvidia_uvm 1630208 0 - Live 0x0000000000000000 (POE)\n"
                                              "mlx5_ib 483328 0 - Live 0x0000000000000000\n"
                                              "ib_core 442368 1 mlx5_ib, Live 0x0000000000000000\n"
                                              "nvidia 54591488 1 nvidia_uvm, Live 0x0000000000000000 (POE)\n";

static void run_checked(const char *cmd)
{
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static char *gpu_box(void)
{
    char *root = fixture_copy(TREE);
    tree_write(root, GPU_DIR "/vendor", "0x10de\n");
    tree_write(root, GPU_DIR "/device", "0x2330\n");
    tree_write(root, GPU_DIR "/class", "0x030200\n");
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/" NIC_DIR "/infiniband/mlx5_0/ports/1' '%s/sys/class/infiniband' && "
             "ln -s ../../../0000:1a:00.0 '%s/" NIC_DIR "/infiniband/mlx5_0/device' && "
             "ln -s ../../devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/0000:1a:00.0/infiniband/mlx5_0 "
             "'%s/sys/class/infiniband/mlx5_0' && mkdir -p '%s/proc/sys/kernel' '%s/proc/driver/nvidia'",
             root, root, root, root, root, root);
    run_checked(cmd);
    tree_write(root, NIC_DIR "/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    tree_write(root, NIC_DIR "/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
    tree_write(root, NIC_DIR "/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
    tree_write(root, "proc/sys/kernel/osrelease", "6.8.0-136-generic\n");
    return root;
}

/* A switch port's configuration space: the recorded first 64 bytes, then an AER capability at
 * 0x100 pointing to ACS at 0x148 with the given control register. */
static void write_acs(const char *root, const char *port, unsigned control)
{
    char path[4096];
    unsigned char config[4096] = {0};
    snprintf(path, sizeof path, "%s/" SWITCH "/%s/config", root, port);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fread(config, 1, 64, f), 64);
    fclose(f);
    unsigned aer = 0x0001u | 1u << 16 | 0x148u << 20, acs = 0x000du | 1u << 16;
    for (int i = 0; i < 4; i++) {
        config[0x100 + i] = (unsigned char)(aer >> (8 * i));
        config[0x148 + i] = (unsigned char)(acs >> (8 * i));
    }
    config[0x148 + 4] = 0x5f; /* capability: SV, TB, RR, CR, UF, EC */
    config[0x148 + 6] = (unsigned char)control;
    config[0x148 + 7] = (unsigned char)(control >> 8);
    unlink(path);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(config, 1, sizeof config, f), sizeof config);
    fclose(f);
}

static json_t *audit(const char *root, const char *nodes)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--nodes", nodes, "--sysroot", root, NULL);
    json_t *doc = run_json(&r);
    cr_assert_not_null(doc, "exit %d; stderr: %s", r.status, r.err);
    run_result_free(&r);
    return doc;
}

/* The one NET_GPUDIRECT finding on subject, its severity and words checked; returns it. */
static json_t *expect(json_t *doc, const char *subject, const char *severity, const char *words)
{
    json_t *found = findings_of(doc, "NET_GPUDIRECT", subject);
    cr_assert_eq(json_array_size(found), 1, "NET_GPUDIRECT on %s: %zu findings", subject, json_array_size(found));
    json_t *f = json_array_get(found, 0);
    const char *sev = json_string_value(json_object_get(f, "severity"));
    const char *msg = json_string_value(json_object_get(f, "message"));
    cr_assert_str_eq(sev, severity, "%s: %s", subject, msg);
    cr_assert(msg && strstr(msg, words), "%s: %s", subject, msg);
    json_incref(f);
    json_decref(found);
    return f;
}

static void finish(json_t *doc, char *root)
{
    json_decref(doc);
    tree_remove(root);
    free(root);
}

Test(gpudirect, peer_memory_loaded_passes)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITH_PEERMEM);
    json_t *doc = audit(root, "2");
    json_t *f = expect(doc, "machine", "pass", "nvidia_peermem loaded");
    cr_assert(json_is_true(json_object_get(json_object_get(f, "evidence"), "peermem_loaded")));
    json_decref(f);
    finish(doc, root);
}

Test(gpudirect, not_loaded_with_the_version_file_missing_warns_and_names_dma_buf)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    json_t *doc = audit(root, "2");
    json_t *f = expect(doc, "machine", "warn", "unless NCCL uses DMA-BUF (open GPU kernel modules, Linux 5.12+)");
    json_t *ev = json_object_get(f, "evidence");
    cr_assert(json_is_false(json_object_get(ev, "peermem_loaded")));
    cr_assert(json_is_null(json_object_get(ev, "open_kernel_module")));
    cr_assert(json_is_null(json_object_get(ev, "dma_buf")));
    json_decref(f);
    finish(doc, root);
}

Test(gpudirect, not_loaded_with_the_open_module_on_a_new_kernel_passes_through_dma_buf)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    tree_write(root, "proc/driver/nvidia/version", OPEN_MODULE);
    json_t *doc = audit(root, "2");
    json_t *f = expect(doc, "machine", "pass", "NICs can reach GPU memory through DMA-BUF");
    cr_assert(json_is_true(json_object_get(json_object_get(f, "evidence"), "dma_buf")));
    json_decref(f);
    json_decref(expect(doc, "machine", "pass", "Linux 6.8.0-136-generic"));
    finish(doc, root);
}

Test(gpudirect, not_loaded_with_the_proprietary_module_warns)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    tree_write(root, "proc/driver/nvidia/version", PROPRIETARY_MODULE);
    json_t *doc = audit(root, "2");
    json_t *f = expect(doc, "machine", "warn", "the proprietary NVIDIA kernel module has no DMA-BUF");
    json_t *ev = json_object_get(f, "evidence");
    cr_assert(json_is_false(json_object_get(ev, "open_kernel_module")));
    cr_assert(json_is_false(json_object_get(ev, "dma_buf")));
    json_decref(f);
    finish(doc, root);
}

Test(gpudirect, not_loaded_with_the_open_module_on_an_old_kernel_warns)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    tree_write(root, "proc/driver/nvidia/version", OPEN_MODULE);
    tree_write(root, "proc/sys/kernel/osrelease", "5.4.0-146-generic\n");
    json_t *doc = audit(root, "2");
    json_decref(expect(doc, "machine", "warn", "Linux 5.4.0-146-generic is older than 5.12"));
    finish(doc, root);
}

Test(gpudirect, a_single_node_job_gets_no_finding)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    json_t *doc = audit(root, "1");
    json_t *found = findings_of(doc, "NET_GPUDIRECT", NULL);
    cr_assert_eq(json_array_size(found), 0);
    json_decref(found);
    finish(doc, root);
}

Test(gpudirect, no_module_list_is_unknown_with_the_reason)
{
    char *root = gpu_box();
    json_t *doc = audit(root, "2");
    json_decref(expect(doc, "machine", "unknown", "/proc/modules not in the recorded tree"));
    finish(doc, root);
}

Test(gpudirect, an_unreadable_module_list_is_unknown_naming_the_file)
{
    char *root = gpu_box();
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkfifo '%s/proc/modules'", root); /* read, it would block: refused */
    run_checked(cmd);
    json_t *doc = audit(root, "2");
    json_decref(expect(doc, "machine", "unknown", "unknown: /proc/modules is not a regular file"));
    finish(doc, root);
}

/* The switch ports between the GPU and the NIC: 0000:19:08.0 above the GPU, 0000:19:04.0 above
 * the NIC; they meet at 0000:18:00.0. */
Test(gpudirect, acs_redirect_warns_clear_passes)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITH_PEERMEM);
    write_acs(root, "0000:19:08.0", 0x001d); /* SV, RR, CR, UF: what Linux sets when it enables ACS */
    write_acs(root, "0000:19:04.0", 0x0000);
    json_t *doc = audit(root, "2");
    json_decref(expect(doc, "0000:19:08.0", "warn",
                       "ACS redirects peer traffic at switch port 0000:19:08.0 between GPU 0000:1b:00.0 and NIC "
                       "0000:1a:00.0"));
    json_decref(expect(doc, "0000:19:04.0", "pass", "no ACS redirect between GPU 0000:1b:00.0 and NIC 0000:1a:00.0"));
    json_t *shared = findings_of(doc, "NET_GPUDIRECT", "0000:18:00.0"); /* where they meet: not between */
    cr_assert_eq(json_array_size(shared), 0);
    json_decref(shared);
    finish(doc, root);
}

Test(gpudirect, acs_as_a_non_root_user_is_unknown)
{
    /* The recorded tree's config files hold the first 64 bytes only, what a non-root user reads. */
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITH_PEERMEM);
    json_t *doc = audit(root, "2");
    json_decref(expect(doc, "0000:19:08.0", "unknown", "readable by root only"));
    json_decref(expect(doc, "0000:19:04.0", "unknown", "readable by root only"));
    finish(doc, root);
}

/* The text report (--verbose lists passes) in Chinese says the same (po/zh_CN.po); the JSON stays English. */
Test(gpudirect, the_dma_buf_pass_reads_in_chinese)
{
    char *root = gpu_box();
    tree_write(root, "proc/modules", MODULES_WITHOUT_PEERMEM);
    tree_write(root, "proc/driver/nvidia/version", OPEN_MODULE);
    struct run_result r =
        run_gpuvet("--lang", "zh", "audit", "--verbose", "--sample", "0", "--nodes", "2", "--sysroot", root, NULL);
    cr_assert(r.out && strstr(r.out, "nvidia_peermem 未加载，但网卡可通过 DMA-BUF 访问显存"), "%s", r.out);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}
