/* The probes' reasons in Chinese: a reason built around a file, mount, driver name or errno text
 * (and the input problems the probes record) is shown in Chinese in the text, Markdown and stderr
 * of `--lang zh`, while the JSON keeps the English text, byte for byte the English run's. Real
 * recorded trees, and one with a FIFO where a file should be. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"     /* mlx5 ports without netdev, / on /dev/sda2 */
#define POWER9 "sysroot/nvidiagpunumanodes"        /* GPUs without vendor/device files, no DMI */
#define CGROUP2 "sysroot/32amd64-4s2n4c-cgroup"  /* / on an LVM volume not in /sys/block */

static void expect_zh_without_english(const char *tree, const char *const *chinese, const char *const *english)
{
    struct run_result r =
        run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(tree), "--sample", "0", "--verbose", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    char *text = text_unwrapped(r.out, ""), *words = text_unwrapped(r.out, " ");
    for (int i = 0; chinese[i]; i++)
        cr_expect(strstr(text, chinese[i]) || strstr(r.err, chinese[i]), "%s: no \"%s\" in:\n%s\n%s", tree,
                  chinese[i], r.out, r.err);
    for (int i = 0; english[i]; i++)
        cr_expect(!strstr(words, english[i]) && !strstr(r.err, english[i]), "%s: English \"%s\" left in:\n%s\n%s",
                  tree, english[i], r.out, r.err);
    free(text);
    free(words);
    run_result_free(&r);
}

Test(i18n_probes, driver_and_mount_reasons_are_chinese)
{
    const char *const chinese[] = {
        "已绑定驱动", /* the driver's name may start the next line */
        "mlx5_core，但录制的目录树中没有它的网络接口",
        "磁盘未知（/dev/sda2（挂载于 /）不在 /sys/block 中：录制的目录树中没有）",
        "系统 /：", /* a full-width colon after Chinese (issue 38) */
        NULL,
    };
    const char *const english[] = {"is bound but its netdev", "is not in /sys/block", "not in the recorded tree",
                                   NULL};
    expect_zh_without_english(INTEL, chinese, english);
    const char *const lvm[] = {"/dev/mapper/rootvg-rootlv（挂载于 /）不在 /sys/block 中", NULL};
    expect_zh_without_english(CGROUP2, lvm, english);
}

Test(i18n_probes, input_problems_and_virtualization_evidence_are_chinese)
{
    const char *const chinese[] = {
        /* the PCI problem, with the listed-as phrase and the display note in Chinese */
        "0004:05:00.0: 类别为 0x030000，但这些 ID 文件缺失或不可读：vendor, device；按厂商未知的加速卡列出"
        "（没有 ID，无法排除它是 BMC 或虚拟显示设备）",
        "[缺少 vendor, device 文件]",
        "/proc/cpuinfo: 没有 flags 或 Features 行：CPU 标志未知",
        "无法判断是否为虚拟机：DMI 和 /sys/hypervisor 都没有指出虚拟化层",
        NULL,
    };
    const char *const english[] = {"ID files are missing", "listed as an accelerator", "cannot be ruled out",
                                   "[no vendor", "has no flags or Features line", "no hypervisor named by DMI",
                                   NULL};
    expect_zh_without_english(POWER9, chinese, english);
}

Test(i18n_probes, markdown_input_problems_are_chinese)
{
    struct run_result r =
        run_gpuvet("--lang", "zh", "audit", "--sysroot", fixture(POWER9), "--sample", "0", "--markdown", "-", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.out, "没有 flags 或 Features 行：CPU 标志未知"), "%s", r.out);
    cr_expect(strstr(r.out, "按厂商未知的加速卡列出"), "%s", r.out);
    cr_expect_null(strstr(r.out, "listed as an accelerator"), "%s", r.out);
    run_result_free(&r);
}

/* JSON of `audit --json` with the arguments, in English and with --lang zh: identical; returns the
 * English one. */
static char *json_same_in_both_languages(const char *option, const char *value)
{
    struct run_result en = run_gpuvet("audit", "--json", "--sample", "0", option, value, NULL);
    struct run_result zh = run_gpuvet("--lang", "zh", "audit", "--json", "--sample", "0", option, value, NULL);
    cr_assert(en.status == 0 || en.status == 1, "exit %d: %s", en.status, en.err);
    cr_expect_eq(en.status, zh.status);
    char *a = run_json_without_timing(&en), *b = run_json_without_timing(&zh);
    cr_expect_str_eq(a, b, "%s %s", option, value);
    free(b);
    run_result_free(&en);
    run_result_free(&zh);
    return a;
}

Test(i18n_probes, json_keeps_the_english_reasons)
{
    char *doc = json_same_in_both_languages("--sysroot", fixture(INTEL));
    cr_expect(strstr(doc, "driver mlx5_core is bound but its netdev is not in the recorded tree"), "%s", doc);
    cr_expect(strstr(doc, "/dev/sda2 (/) is not in /sys/block (not in the recorded tree)"), "%s", doc);
    free(doc);
    doc = json_same_in_both_languages("--sysroot", fixture(POWER9));
    cr_expect(strstr(doc, "listed as an accelerator of unknown vendor (without IDs"), "%s", doc);
    cr_expect(strstr(doc, "no hypervisor named by DMI or /sys/hypervisor"), "%s", doc);
    free(doc);
    free(json_same_in_both_languages("--sysroot", fixture(CGROUP2)));
    free(json_same_in_both_languages("--nvidia-smi",
                                     GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/datakit-v100-pcie-32gb-passthrough.xml"));
}

/* A reason built from a failed read (util/fsroot.c): Chinese where printed, English in the JSON. */
Test(i18n_probes, a_fifo_in_a_recorded_tree_is_named_in_chinese)
{
    char *root = fixture_copy(INTEL);
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/proc/cpuinfo", root) > 0);
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0644), 0);
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--sysroot", root, "--sample", "0", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    /* The failed read (probe_missing_reason) and the tree check that keeps hwloc out. */
    cr_expect(strstr(r.err, "/proc/cpuinfo: /proc/cpuinfo 不是普通文件（而是 FIFO、设备或套接字）：CPU 型号和"), "%s",
              r.err);
    cr_expect(strstr(r.err, "/proc/cpuinfo 不是普通文件（而是 FIFO、设备或套接字）：不把这个目录树交给 hwloc"), "%s",
              r.err);
    cr_expect_null(strstr(r.err, "is not a regular file"), "%s", r.err);
    cr_expect_null(strstr(r.err, "hwloc is not given"), "%s", r.err);
    run_result_free(&r);
    char *doc = json_same_in_both_languages("--sysroot", root);
    cr_expect(strstr(doc, "/proc/cpuinfo is not a regular file (a FIFO, device or socket)"), "%s", doc);
    free(doc);
    free(p);
    tree_remove(root);
    free(root);
}

/* NVML's reasons, on this machine through the stand-in library (tests/mock): a library that cannot
 * be loaded, and one that never answers within the deadline. The loader's own words stay as they are. */
Test(i18n_probes, nvml_reasons_are_chinese)
{
    setenv("GPUVET_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    struct run_result r = run_gpuvet("--lang", "zh", "audit", "--sample", "0", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    char *text = text_unwrapped(r.out, "");
    cr_expect(strstr(text, "GPU 信息未知：NVIDIA 驱动不可用："), "%s", r.out);
    cr_expect_null(strstr(r.out, "driver not usable"), "%s", r.out);
    free(text);
    run_result_free(&r);

    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml", 1);
    setenv("GPUVET_MOCK_NVML_HANG", "count", 1);
    setenv("GPUVET_DEADLINE_NVML_S", "1", 1);
    r = run_gpuvet("--lang", "zh", "audit", "--sample", "0", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    text = text_unwrapped(r.out, "");
    cr_expect(strstr(text, "NVML（libnvidia-ml）在 1 s 内没有响应：驱动或某块 GPU 已挂死（用 `dmesg` 查看 Xid 错误）"),
              "%s", r.out);
    cr_expect(strstr(r.err, "nvml: NVML 在 1 s 内没有响应：GPU 信息未知"), "%s", r.err);
    cr_expect_null(strstr(r.out, "no answer from"), "%s", r.out);
    cr_expect_null(strstr(r.err, "no answer from"), "%s", r.err);
    free(text);
    run_result_free(&r);
    unsetenv("GPUVET_MOCK_NVML_HANG");
    unsetenv("GPUVET_DEADLINE_NVML_S");
    unsetenv("GPUVET_MOCK_NVML_XML");
    unsetenv("GPUVET_NVML_LIBRARY");
}
