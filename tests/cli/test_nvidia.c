/* NVIDIA GPUs as users audit them: `--nvidia-smi FILE` on real `nvidia-smi -q -x` outputs
 * (tests/fixtures/nvidia-smi), the NVML path through a stand-in libnvidia-ml.so.1 that answers
 * from the same files (tests/mock), recorded trees with a stored nvidia-smi.xml, and --redact. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define SMI(name) GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/" name
#define GTX1070 SMI("pai-6x-gtx1070-x1-links.xml")
#define RTX2080 SMI("pai-2x-rtx2080ti-ecc-na.xml")
#define A5000 SMI("telegraf-2x-rtx-a5000-schema-v13-drv590.xml")
#define A100 SMI("telegraf-a100-sxm4-80gb-mig-v12.xml")
#define H200 SMI("gpuvet-h200-passthrough-drv580.xml")
#define V100_PASSTHROUGH SMI("datakit-v100-pcie-32gb-passthrough.xml")

static json_t *audit_file(const char *file, int expected_status)
{
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", file, "--json", NULL);
    cr_assert_eq(r.status, expected_status, "%s: exit %d, stderr: %s", file, r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static json_t *gpus(json_t *doc) { return json_object_get(json_object_get(doc, "machine"), "gpus"); }
static json_t *nvidia(json_t *doc) { return json_object_get(json_object_get(doc, "machine"), "nvidia"); }

static const char *severity_of(json_t *doc, const char *id, const char *subject)
{
    json_t *found = findings_of(doc, id, subject);
    cr_assert_eq(json_array_size(found), 1, "%s on %s: %zu findings", id, subject, json_array_size(found));
    static char sev[16];
    snprintf(sev, sizeof sev, "%s", json_string_value(json_object_get(json_array_get(found, 0), "severity")));
    json_decref(found);
    return sev;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(mem);
    fclose(f);
    return text;
}

static void replace_all(char **text, const char *from, const char *to)
{
    char *p;
    while ((p = strstr(*text, from))) {
        char *out;
        cr_assert(asprintf(&out, "%.*s%s%s", (int)(p - *text), *text, to, p + strlen(from)) > 0);
        free(*text);
        *text = out;
    }
}

/* Six GTX 1070 on x1 risers (two kept in the file): a narrow link is a fail at any P-state. */
Test(nvidia_smi, gtx1070_x1_links_fail_each_gpu)
{
    json_t *doc = audit_file(GTX1070, 1);
    cr_assert_eq(json_array_size(gpus(doc)), 2);
    cr_assert_eq(json_integer_value(json_object_get(nvidia(doc), "attached_gpus")), 6, "attached_gpus kept as the file says");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:01:00.0"), "fail");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:03:00.0"), "fail");
    json_t *pcie = json_object_get(json_array_get(gpus(doc), 0), "pcie");
    cr_assert_eq(json_integer_value(json_object_get(pcie, "current_width")), 1);
    cr_assert_eq(json_integer_value(json_object_get(pcie, "max_width")), 16);
    /* Evidence alone: the local machine is not read. */
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "machine"), "source")), "evidence");
    cr_assert(json_is_null(json_object_get(json_object_get(doc, "machine"), "hostname")));
    json_decref(doc);
}

/* Idle consumer cards at Gen1 of Gen3 in P8: power saving until re-read under load (info). */
Test(nvidia_smi, idle_gen1_in_p8_is_info_not_fail)
{
    json_t *doc = audit_file(RTX2080, 0);
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:02:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:03:00.0"), "info");
    cr_assert_eq(count_findings(doc, "PCIE_LINK_DEGRADED", "fail"), 0);
    /* ECC N/A on GeForce: no ECC, said as info; the second card sits at its software power cap. */
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:02:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "GPU_THROTTLE", "0000:03:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "GPU_THROTTLE", "0000:02:00.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "GPU_PERSISTENCE_OFF", "0000:02:00.0"), "info");
    json_decref(doc);
}

/* Schema v13, driver 590: Gen1 of Gen4 at idle, ECC off on a workstation card. */
Test(nvidia_smi, a5000_schema_v13)
{
    json_t *doc = audit_file(A5000, 0);
    cr_assert_str_eq(json_string_value(json_object_get(nvidia(doc), "driver_version")), "590.44.01");
    cr_assert_str_eq(json_string_value(json_object_get(nvidia(doc), "cuda_version")), "13.1");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:81:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:c1:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:81:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "GPU_RETIRED_PAGES", "0000:81:00.0"), "pass");
    json_t *g = json_array_get(gpus(doc), 0);
    cr_assert_str_eq(json_string_value(json_object_get(g, "name")), "NVIDIA RTX A5000");
    cr_assert_eq(json_integer_value(json_object_get(g, "pstate")), 8);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(g, "clock_events"), 0)), "gpu_idle");
    /* Without a recorded tree nothing says how the two GPUs connect: unknown, not a pass. */
    cr_assert_eq(count_findings(doc, "GPU_P2P_CROSS_SOCKET", "unknown"), 1);
    cr_assert_eq(count_findings(doc, "GPU_DRIVER_CUDA", "unknown"), 1);
    json_decref(doc);
}

/* A real H200 (driver 580, passed through to a Firecracker VM): its XML and the recorded tree of
 * that VM, where the GPU's sysfs link and the stored XML must tell the same story. */
Test(nvidia_smi, h200_passthrough_gen5)
{
    json_t *doc = audit_file(H200, 0);
    json_t *g = json_array_get(gpus(doc), 0);
    cr_assert_eq(json_array_size(gpus(doc)), 1);
    cr_assert_str_eq(json_string_value(json_object_get(g, "name")), "NVIDIA H200");
    cr_assert_eq(json_integer_value(json_object_get(g, "memory_bytes")), 143771LL * 1024 * 1024);
    json_t *pcie = json_object_get(g, "pcie");
    cr_assert_eq(json_integer_value(json_object_get(pcie, "current_gen")), 5);
    cr_assert_eq(json_integer_value(json_object_get(pcie, "current_width")), 16);
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:00:06.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:00:06.0"), "pass");
    cr_assert_str_eq(json_string_value(json_object_get(nvidia(doc), "driver_version")), "580.159.04");
    json_decref(doc);

    struct run_result r = run_gpuvet("audit", "--sysroot", fixture("sysroot/h200-firecracker-vm"), "--json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    doc = run_json(&r);
    run_result_free(&r);
    json_t *machine = json_object_get(doc, "machine");
    cr_assert(json_is_true(json_object_get(json_object_get(machine, "virtualization"), "vm")));
    json_t *acc = json_array_get(json_object_get(machine, "accelerators"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(acc, "bus_id")), "0000:00:06.0");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(acc, "link"), "current_gen")), 5);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(gpus(doc), 0), "name")), "NVIDIA H200");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:00:06.0"), "pass");
    json_decref(doc);
}

/* A100 SXM4 with MIG on (schema v12, clock *event* reasons, sram/dram ECC counters). */
Test(nvidia_smi, a100_mig_on)
{
    json_t *doc = audit_file(A100, 0);
    cr_assert_str_eq(severity_of(doc, "GPU_MIG_ON", "0000:01:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:01:00.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:01:00.0"), "pass");
    cr_assert_str_eq(severity_of(doc, "GPU_NVLINK_DOWN", "0000:01:00.0"), "unknown");
    json_t *g = json_array_get(gpus(doc), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(g, "ecc"), "corrected_aggregate")), 0);
    cr_assert_eq(json_integer_value(json_object_get(g, "memory_bytes")), 81920LL * 1024 * 1024);
    json_decref(doc);
    /* GPU_ECC_OFF weighs more for LLM training, but ECC is on: still a pass. */
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", A100, "--workload", "llm-train", "--json", NULL);
    doc = run_json(&r);
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:01:00.0"), "pass");
    json_decref(doc);
    run_result_free(&r);
}

/* A V100 the driver sees as passed through: the audit runs in a VM whose hypervisor nothing names. */
Test(nvidia_smi, passthrough_gpu_means_a_vm)
{
    json_t *doc = audit_file(V100_PASSTHROUGH, 0);
    json_t *virt = json_object_get(json_object_get(doc, "machine"), "virtualization");
    cr_assert(json_is_true(json_object_get(virt, "vm")), "%s", json_dumps(virt, JSON_COMPACT));
    cr_assert(json_is_null(json_object_get(virt, "hypervisor")), "the hypervisor stays unknown");
    cr_assert_str_eq(json_string_value(json_object_get(virt, "evidence")), "nvidia-smi: Pass-Through");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(gpus(doc), 0), "virtualization_mode")),
                     "Pass-Through");
    /* VIRT_LIMITS lists what a VM cannot verify instead of "cannot tell". */
    json_t *f = findings_of(doc, "VIRT_LIMITS", "machine");
    cr_assert_eq(json_array_size(f), 1);
    cr_assert_str_neq(json_string_value(json_object_get(json_array_get(f, 0), "severity")), "unknown");
    cr_assert(strstr(json_string_value(json_object_get(json_array_get(f, 0), "message")), "running in a VM"));
    json_decref(f);
    /* The memory rules that read the VM fact say so too. */
    f = findings_of(doc, "MEM_ECC_DISABLED", "machine");
    cr_assert(strstr(json_string_value(json_object_get(json_array_get(f, 0), "message")), "virtual machine"));
    json_decref(f);
    json_decref(doc);
    /* Bare-metal files ("None") say nothing either way. */
    doc = audit_file(A5000, 0);
    virt = json_object_get(json_object_get(doc, "machine"), "virtualization");
    cr_assert(json_is_null(json_object_get(virt, "vm")));
    cr_assert_str_eq(severity_of(doc, "VIRT_LIMITS", "machine"), "unknown");
    json_decref(doc);
}

static char *temp_file(const char *text, size_t len)
{
    char *path = strdup("/tmp/gpuvet-smi-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Truncated and malformed XML: an error naming the file, exit 2, no crash. */
Test(nvidia_smi, truncated_or_malformed_is_exit_2_naming_the_file)
{
    char *full = read_text(A100);
    const size_t cuts[] = {strlen(full) / 2, 200, 10};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char *path = temp_file(full, cuts[i]);
        struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, NULL);
        cr_assert_eq(r.status, 2, "cut at %zu: exit %d", cuts[i], r.status);
        cr_assert(strstr(r.err, path), "stderr names the file: %s", r.err);
        cr_assert(strstr(r.err, "malformed"), "%s", r.err);
        run_result_free(&r);
        unlink(path);
        free(path);
    }
    free(full);
    const char other[] = "<?xml version=\"1.0\"?><topology><object/></topology>";
    char *path = temp_file(other, sizeof other - 1);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "nvidia_smi_log"), "%s", r.err);
    run_result_free(&r);
    unlink(path);
    free(path);
    r = run_gpuvet("audit", "--nvidia-smi", "/nonexistent/nvidia-smi.xml", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "/nonexistent/nvidia-smi.xml"));
    run_result_free(&r);
}

Test(nvidia_smi, load_check_needs_the_live_machine)
{
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", A100, "--load-check", NULL);
    cr_assert_eq(r.status, 2);
    run_result_free(&r);
}

static bool contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

Test(nvidia_smi, redact_hides_serials_and_uuids_in_json_and_text)
{
    char *original = read_text(A100);
    cr_assert(contains(original, "1650522003820") && contains(original, "GPU-513536b6-7d19-9063-b049-1e69664bb298"));
    free(original);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", A100, "--json", "--redact", NULL);
    cr_assert(!contains(r.out, "1650522003820") && !contains(r.out, "GPU-513536b6"), "%s", r.out);
    json_t *doc = run_json(&r);
    json_t *g = json_array_get(gpus(doc), 0);
    cr_assert_str_eq(json_string_value(json_object_get(g, "serial")), "[redacted]");
    cr_assert_str_eq(json_string_value(json_object_get(g, "uuid")), "[redacted]");
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("audit", "--nvidia-smi", A100, "--redact", NULL);
    cr_assert(!contains(r.out, "1650522003820") && !contains(r.out, "GPU-513536b6"), "%s", r.out);
    run_result_free(&r);
    /* Without --redact they are there. */
    r = run_gpuvet("audit", "--nvidia-smi", A100, NULL);
    cr_assert(contains(r.out, "1650522003820"));
    run_result_free(&r);
}

Test(nvidia_smi, redact_hides_the_host_name)
{
    char host[256] = "";
    gethostname(host, sizeof host);
    struct run_result r = run_gpuvet("audit", "--json", "--redact", NULL);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "machine"), "hostname")), "[redacted]");
    if (strlen(host) >= 6)
        cr_assert(!contains(r.out, host), "host name %s still in the output", host);
    json_decref(doc);
    run_result_free(&r);
}

/* --- NVML through a stand-in library ------------------------------------------------------------ */

static json_t *audit_with_mock(const char *library, const char *xml)
{
    setenv("GPUVET_NVML_LIBRARY", library, 1);
    setenv("GPUVET_MOCK_NVML_XML", xml, 1);
    struct run_result r = run_gpuvet("audit", "--json", NULL);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static void assert_same(json_t *a, json_t *b, const char *key)
{
    cr_assert(json_equal(json_object_get(a, key), json_object_get(b, key)), "%s differs: %s vs %s", key,
              json_dumps(json_object_get(a, key), JSON_COMPACT), json_dumps(json_object_get(b, key), JSON_COMPACT));
}

/* NVML and nvidia-smi describe the same GPUs the same way. The mock's v1 count hides one GPU (as
 * a real driver's does for GPUs without permission), so finding both proves the _v2 pair. */
Test(nvml, current_driver_matches_nvidia_smi)
{
    const char *files[] = {A5000, RTX2080, GTX1070, A100, V100_PASSTHROUGH};
    for (size_t f = 0; f < 5; f++) {
        json_t *nv = audit_with_mock(GPUVET_MOCK_NVML_CURRENT, files[f]);
        json_t *smi = audit_file(files[f], f == 2 ? 1 : 0);
        cr_assert(!strncmp(json_string_value(json_object_get(nvidia(nv), "source")), "nvml:", 5));
        cr_assert_eq(json_array_size(gpus(nv)), json_array_size(gpus(smi)), "%s", files[f]);
        for (size_t i = 0; i < json_array_size(gpus(nv)); i++) {
            json_t *a = json_array_get(gpus(nv), i), *b = json_array_get(gpus(smi), i);
            const char *keys[] = {"bus_id", "name", "uuid", "memory_bytes", "persistence_mode", "pstate", "pcie",
                                  "clock_events", "power_w", "temperature_c", "utilization_percent",
                                  "virtualization_mode"};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                assert_same(a, b, keys[k]);
            assert_same(json_object_get(a, "ecc"), json_object_get(b, "ecc"), "current");
        }
        assert_same(nvidia(nv), nvidia(smi), "driver_version");
        assert_same(nvidia(nv), nvidia(smi), "cuda_version");
        json_decref(nv);
        json_decref(smi);
    }
    json_t *doc = audit_with_mock(GPUVET_MOCK_NVML_CURRENT, GTX1070);
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:01:00.0"), "fail");
    json_decref(doc);
}

/* nvmlDeviceGetVirtualizationMode says Pass-Through: a VM, on NVML's word, beside what the
 * machine itself showed (this development machine is a KVM guest, so the hypervisor may be known). */
Test(nvml, passthrough_gpu_means_a_vm)
{
    json_t *doc = audit_with_mock(GPUVET_MOCK_NVML_CURRENT, V100_PASSTHROUGH);
    json_t *virt = json_object_get(json_object_get(doc, "machine"), "virtualization");
    cr_assert(json_is_true(json_object_get(virt, "vm")));
    cr_assert(contains(json_string_value(json_object_get(virt, "evidence")), "NVML: Pass-Through"), "%s",
              json_string_value(json_object_get(virt, "evidence")));
    json_decref(doc);
}

/* An old driver: no _v2/_v3 symbols, no clock *event* reasons, no remapped rows, MIG or GPU max
 * link generation. Each missing call loses its one fact; the rest comes through the old names. */
Test(nvml, old_driver_without_v2_symbols_degrades_one_fact_each)
{
    json_t *doc = audit_with_mock(GPUVET_MOCK_NVML_OLD, A5000);
    cr_assert_eq(json_array_size(gpus(doc)), 2);
    json_t *g = json_array_get(gpus(doc), 0);
    json_t *pcie = json_object_get(g, "pcie");
    cr_assert(json_is_null(json_object_get(pcie, "gpu_max_gen")));
    cr_assert_eq(json_integer_value(json_object_get(pcie, "max_gen")), 4);
    cr_assert(json_is_null(json_object_get(json_object_get(g, "remapped_rows"), "failure")));
    cr_assert_eq(json_integer_value(json_object_get(g, "memory_bytes")), 24564LL * 1024 * 1024);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(g, "clock_events"), 0)), "gpu_idle");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:81:00.0"), "info");
    json_decref(doc);
}

/* CPU seconds used by the children waited for so far. */
static double children_cpu_s(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* A driver that reports UINT_MAX GPUs: the audit reads at most GPU_MAX_PER_NODE indices, says so,
 * and ends in seconds rather than trying four billion handles. */
Test(nvml, absurd_device_count_is_capped_with_a_problem)
{
    setenv("GPUVET_MOCK_NVML_COUNT", "4294967295", 1);
    /* CPU time, not wall time: other work on a loaded machine stretches the one, not the other. */
    double start = children_cpu_s();
    json_t *doc = audit_with_mock(GPUVET_MOCK_NVML_CURRENT, A5000);
    double used = children_cpu_s() - start;
    unsetenv("GPUVET_MOCK_NVML_COUNT");
    cr_assert_lt(used, 30, "audit used %.1f CPU s", used);
    cr_assert_eq(json_array_size(gpus(doc)), 2, "the file's two GPUs are still read");
    json_t *problems = json_object_get(json_object_get(doc, "machine"), "problems");
    size_t i;
    json_t *p;
    bool capped = false;
    json_array_foreach(problems, i, p) {
        const char *message = json_string_value(json_object_get(p, "message"));
        capped = capped || (message && contains(message, "NVML reports 4294967295 GPUs, more than the 64 a node holds"));
    }
    cr_assert(capped, "no problem names the cap: %s", json_dumps(problems, JSON_COMPACT));
    json_decref(doc);
}

/* A driver that cannot be loaded: GPU facts unknown with the reason and the fix, not a crash. */
Test(nvml, missing_library_is_unknown_with_reason)
{
    json_t *doc = audit_with_mock("/nonexistent/libnvidia-ml.so.1", A5000);
    cr_assert(contains(json_string_value(json_object_get(nvidia(doc), "unknown_reason")), "cannot load"));
    cr_assert_eq(json_array_size(gpus(doc)), 0);
    json_t *found = findings_of(doc, "GPU_ECC_OFF", NULL);
    cr_assert_eq(json_array_size(found), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(found, 0), "severity")), "unknown");
    cr_assert(json_is_string(json_object_get(json_array_get(found, 0), "fix")));
    json_decref(found);
    json_decref(doc);
}

/* A machine without NVIDIA devices says nothing about NVIDIA. */
Test(nvml, no_nvidia_device_no_nvidia_findings)
{
    if (host_has_nvidia_gpu())
        cr_skip_test("this machine has an NVIDIA GPU");
    json_t *doc = audit_with_mock("", A5000);
    cr_assert(json_is_null(nvidia(doc)));
    cr_assert(json_is_null(gpus(doc)), "no source: GPUs unknown, not an empty list");
    json_t *ecc = findings_of(doc, "GPU_ECC_OFF", NULL);
    cr_assert_eq(json_array_size(ecc), 0);
    json_decref(ecc);
    json_decref(doc);
}

/* gpuvet must not need NVIDIA's libraries to start. */
Test(binary, links_nothing_nvidia)
{
    FILE *p = popen("readelf -d " GPUVET_BIN, "r");
    cr_assert_not_null(p);
    char line[512];
    int needed = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strstr(line, "(NEEDED)"))
            continue;
        needed++;
        cr_assert(!strcasestr(line, "nvidia") && !strcasestr(line, "cuda"), "%s", line);
    }
    cr_assert_eq(pclose(p), 0);
    cr_assert_gt(needed, 0, "readelf listed no NEEDED entries");
}

/* --- recorded trees ------------------------------------------------------------------------------ */

/* A recorded 2-socket tree whose first two accelerators are made NVIDIA (0000:1b and 0000:3d,
 * behind two different PLX switches on node 0), with the A5000 evidence moved to their bus ids. */
static char *tree_with_nvidia(bool with_xml)
{
    char *root = fixture_copy("sysroot/32intel64-2p8co2t+8ve");
    tree_write(root, "sys/bus/pci/devices/0000:1b:00.0/vendor", "0x10de\n");
    tree_write(root, "sys/bus/pci/devices/0000:3d:00.0/vendor", "0x10de\n");
    if (with_xml) {
        char *xml = read_text(A5000);
        replace_all(&xml, "00000000:81:00.0", "00000000:1B:00.0");
        replace_all(&xml, "00000000:C1:00.0", "00000000:3D:00.0");
        tree_write(root, "nvidia-smi.xml", xml);
        free(xml);
    }
    return root;
}

Test(sysroot, nvidia_device_without_evidence_is_unknown)
{
    char *root = tree_with_nvidia(false);
    struct run_result r = run_gpuvet("audit", "--sysroot", root, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert(contains(json_string_value(json_object_get(nvidia(doc), "unknown_reason")), "nvidia-smi.xml"));
    cr_assert_eq(count_findings(doc, "GPU_RETIRED_PAGES", "unknown"), 1);
    /* The sysfs view still judges the link of the device. */
    json_t *link = findings_of(doc, "PCIE_LINK_DEGRADED", "0000:1b:00.0");
    cr_assert_eq(json_array_size(link), 1);
    json_decref(link);
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(sysroot, stored_nvidia_smi_joins_pci_and_numa)
{
    char *root = tree_with_nvidia(true);
    struct run_result r = run_gpuvet("audit", "--sysroot", root, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(json_array_size(gpus(doc)), 2);
    json_t *g = json_array_get(gpus(doc), 0);
    cr_assert(json_is_true(json_object_get(g, "pci_device_found")));
    cr_assert_eq(json_integer_value(json_object_get(g, "numa_node")), 0);
    /* Judged once per GPU, from the NVML/XML view (P8 at Gen1: info), not again from sysfs. */
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:1b:00.0"), "info");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:3d:00.0"), "info");
    /* Two switches on two root ports of one node: NODE, as `nvidia-smi topo -m` says. */
    json_t *matrix = json_object_get(json_object_get(nvidia(doc), "topology"), "matrix");
    cr_assert_str_eq(json_string_value(json_array_get(json_array_get(matrix, 0), 1)), "NODE");
    cr_assert_str_eq(json_string_value(json_array_get(json_array_get(matrix, 1), 1)), "X");
    cr_assert_str_eq(severity_of(doc, "GPU_P2P_CROSS_SOCKET", "machine"), "pass");
    json_decref(doc);
    run_result_free(&r);
    /* An explicit --nvidia-smi combines with the tree and replaces the stored file. */
    r = run_gpuvet("audit", "--sysroot", root, "--nvidia-smi", GTX1070, "--json", NULL);
    doc = run_json(&r);
    cr_assert(contains(json_string_value(json_object_get(nvidia(doc), "source")), "gtx1070"));
    cr_assert(contains(json_string_value(json_object_get(json_object_get(doc, "machine"), "source")), "sysroot:"));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

Test(sysroot, stored_nvidia_smi_malformed_is_an_input_problem)
{
    char *root = tree_with_nvidia(false);
    tree_write(root, "nvidia-smi.xml", "<?xml version=\"1.0\"?><nvidia_smi_log><gpu id=\"0");
    struct run_result r = run_gpuvet("audit", "--sysroot", root, "--json", NULL);
    cr_assert(contains(r.err, "nvidia-smi.xml"), "%s", r.err);
    json_t *doc = run_json(&r);
    cr_assert(contains(json_string_value(json_object_get(nvidia(doc), "unknown_reason")), "malformed"));
    json_decref(doc);
    run_result_free(&r);
    tree_remove(root);
    free(root);
}

/* `gpuvet snapshot` stores `nvidia-smi -q -x` (here a stand-in nvidia-smi on PATH that prints a
 * corpus file) and `audit --sysroot` of the snapshot uses it. */
Test(snapshot, stores_nvidia_smi_output)
{
    char bin[] = "/tmp/gpuvet-bin-XXXXXX";
    cr_assert_not_null(mkdtemp(bin));
    char script[8192];
    snprintf(script, sizeof script, "#!/bin/sh\n[ \"$1 $2\" = \"-q -x\" ] || exit 3\nexec cat '%s'\n", A100);
    tree_write(bin, "nvidia-smi", script);
    char tool[4096];
    snprintf(tool, sizeof tool, "%s/nvidia-smi", bin);
    cr_assert_eq(chmod(tool, 0755), 0);
    char *old_path = strdup(getenv("PATH"));
    char path[8192];
    snprintf(path, sizeof path, "%s:%s", bin, old_path);
    setenv("PATH", path, 1);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/snap", bin);
    struct run_result r = run_gpuvet("snapshot", dir, NULL);
    setenv("PATH", old_path, 1);
    free(old_path);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sysroot", dir, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_eq(json_array_size(gpus(doc)), 1);
    cr_assert_str_eq(severity_of(doc, "GPU_MIG_ON", "0000:01:00.0"), "info");
    json_decref(doc);
    run_result_free(&r);
    /* A snapshot of that snapshot carries the file along (it was read through the tree). */
    char again[4096];
    snprintf(again, sizeof again, "%s/again", bin);
    r = run_gpuvet("snapshot", "--sysroot", dir, again, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_result_free(&r);
    snprintf(path, sizeof path, "%s/nvidia-smi.xml", again);
    cr_assert_eq(access(path, R_OK), 0);
    tree_remove(bin);
}

/* --- --load-check through stand-in NVML + CUDA libraries (one .so: copies keep the GPU busy) ---- */

static json_t *load_check(const char *cuda_library, const char *stuck_gen)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_CUDA_LIBRARY", cuda_library, 1);
    setenv("GPUVET_MOCK_NVML_XML", A5000, 1);
    if (stuck_gen)
        setenv("GPUVET_MOCK_LOAD_GEN", stuck_gen, 1);
    struct run_result r = run_gpuvet("audit", "--load-check", "--json", NULL);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_CUDA_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    unsetenv("GPUVET_MOCK_LOAD_GEN");
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static const char *message_of(json_t *doc, const char *id, const char *subject)
{
    json_t *found = findings_of(doc, id, subject);
    static char text[1024];
    snprintf(text, sizeof text, "%s", json_string_value(json_object_get(json_array_get(found, 0), "message")));
    json_decref(found);
    return text;
}

Test(load_check, idle_gen1_reaching_gen4_under_load_is_power_saving)
{
    json_t *doc = load_check(GPUVET_MOCK_NVML_CURRENT, NULL);
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:81:00.0"), "pass");
    cr_assert(contains(message_of(doc, "PCIE_LINK_DEGRADED", "0000:81:00.0"), "power saving"));
    json_t *load = json_object_get(json_array_get(gpus(doc), 0), "load_check");
    cr_assert_eq(json_integer_value(json_object_get(load, "gen")), 4);
    cr_assert_eq(json_integer_value(json_object_get(load, "pstate")), 0);
    cr_assert_gt(json_real_value(json_object_get(load, "h2d_bytes_s")), 1e9);
    json_decref(doc);
}

Test(load_check, link_stuck_below_max_under_load_is_really_degraded)
{
    json_t *doc = load_check(GPUVET_MOCK_NVML_CURRENT, "2");
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:c1:00.0"), "fail");
    cr_assert(contains(message_of(doc, "PCIE_LINK_DEGRADED", "0000:c1:00.0"), "really degraded"));
    json_decref(doc);
}

Test(load_check, without_cuda_the_idle_verdict_stays_with_the_reason)
{
    json_t *doc = load_check("/nonexistent/libcuda.so.1", NULL);
    cr_assert_eq(count_findings(doc, "PCIE_LINK_DEGRADED", "info"), 2);
    cr_assert_eq(count_findings(doc, "PCIE_LINK_DEGRADED", "unknown") >= 2, 1);
    json_t *load = json_object_get(json_array_get(gpus(doc), 0), "load_check");
    cr_assert(contains(json_string_value(json_object_get(load, "error")), "/nonexistent/libcuda.so.1"));
    json_decref(doc);
}

/* --- rule branches the four files do not reach, on edited copies of them ---------------------- */

static json_t *audit_edited(const char *file, const char *const *edits, int expected_status)
{
    char *xml = read_text(file);
    for (; *edits; edits += 2)
        replace_all(&xml, edits[0], edits[1]);
    char *path = temp_file(xml, strlen(xml));
    json_t *doc = audit_file(path, expected_status);
    unlink(path);
    free(path);
    free(xml);
    return doc;
}

/* Gen1 of Gen4 while busy (P0, not idle) is no power saving. */
Test(rules, busy_gpu_below_max_generation_fails)
{
    const char *edits[] = {"<performance_state>P8</performance_state>", "<performance_state>P0</performance_state>",
                           "<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>",
                           "<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>", NULL};
    json_t *doc = audit_edited(A5000, edits, 1);
    cr_assert_str_eq(severity_of(doc, "PCIE_LINK_DEGRADED", "0000:81:00.0"), "fail");
    json_decref(doc);
}

Test(rules, pending_row_remap_and_hw_slowdown_fail)
{
    const char *edits[] = {"<remapped_row_pending>No</remapped_row_pending>",
                           "<remapped_row_pending>Yes</remapped_row_pending>",
                           "<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>",
                           "<clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>", NULL};
    json_t *doc = audit_edited(A5000, edits, 1);
    cr_assert_str_eq(severity_of(doc, "GPU_RETIRED_PAGES", "0000:81:00.0"), "fail");
    cr_assert_str_eq(severity_of(doc, "GPU_THROTTLE", "0000:81:00.0"), "fail");
    json_decref(doc);
}

/* DCGM's limit: 63 retired pages fail, 62 do not. */
Test(rules, sixty_three_retired_pages_fail)
{
    const char *at_limit[] = {"<retired_count>N/A</retired_count>", "<retired_count>31</retired_count>",
                              "<pending_retirement>N/A</pending_retirement>", "<pending_retirement>No</pending_retirement>",
                              NULL};
    json_t *doc = audit_edited(A5000, at_limit, 0);
    cr_assert_str_eq(severity_of(doc, "GPU_RETIRED_PAGES", "0000:81:00.0"), "pass", "31 + 31 = 62 pages");
    json_decref(doc);
    const char *over[] = {"<multiple_single_bit_retirement>\n\t\t\t\t<retired_count>N/A",
                          "<multiple_single_bit_retirement>\n\t\t\t\t<retired_count>32",
                          "<retired_count>N/A</retired_count>", "<retired_count>31</retired_count>", NULL};
    doc = audit_edited(A5000, over, 1);
    json_t *f = findings_of(doc, "GPU_RETIRED_PAGES", "0000:81:00.0");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(f, 0), "severity")), "fail");
    cr_assert(contains(json_string_value(json_object_get(json_array_get(f, 0), "message")), "63 retired pages"));
    json_decref(f);
    json_decref(doc);
}

/* A Gen4 card in a Gen3 slot, as `nvidia-smi -q` shows it on real machines ("Max 3, Device Max 4,
 * Host Max 3"): PCIE_SLOT_CAPPED, from the XML and from NVML alike. The idle Gen1 link stays info. */
Test(rules, gen4_gpu_in_gen3_slot_is_slot_capped)
{
    const char *edits[] = {"<max_link_gen>4</max_link_gen>", "<max_link_gen>3</max_link_gen>",
                           "<max_host_link_gen>4</max_host_link_gen>", "<max_host_link_gen>3</max_host_link_gen>", NULL};
    char *xml = read_text(A5000);
    for (const char *const *e = edits; *e; e += 2)
        replace_all(&xml, e[0], e[1]);
    char *path = temp_file(xml, strlen(xml));
    json_t *docs[] = {audit_file(path, 0), audit_with_mock(GPUVET_MOCK_NVML_CURRENT, path)};
    for (size_t i = 0; i < 2; i++) {
        json_t *f = findings_of(docs[i], "PCIE_SLOT_CAPPED", "0000:81:00.0");
        cr_assert_eq(json_array_size(f), 1, "%s: one judgement per GPU", i ? "NVML" : "XML");
        json_t *one = json_array_get(f, 0);
        /* NVML runs on this machine: inside a VM the port is the hypervisor's, which is info. */
        bool vm = json_is_true(json_object_get(json_object_get(json_object_get(docs[i], "machine"), "virtualization"), "vm"));
        cr_assert_str_eq(json_string_value(json_object_get(one, "severity")), vm ? "info" : "warn");
        cr_assert(contains(json_string_value(json_object_get(one, "message")), "Gen4 but its slot allows Gen3: capped at 50%"),
                  "%s", json_string_value(json_object_get(one, "message")));
        json_t *ev = json_object_get(one, "evidence");
        cr_assert_eq(json_integer_value(json_object_get(ev, "gpu_max_gen")), 4);
        cr_assert_eq(json_integer_value(json_object_get(ev, "max_gen")), 3);
        cr_assert_str_eq(severity_of(docs[i], "PCIE_LINK_DEGRADED", "0000:81:00.0"), "info");
        json_decref(f);
        json_decref(docs[i]);
    }
    unlink(path);
    free(path);
    free(xml);
    /* Only max_host_link_gen below the device's: the XML's host figure alone caps it. */
    const char *host_only[] = {"<max_host_link_gen>4</max_host_link_gen>", "<max_host_link_gen>3</max_host_link_gen>", NULL};
    json_t *doc = audit_edited(A5000, host_only, 0);
    cr_assert_str_eq(severity_of(doc, "PCIE_SLOT_CAPPED", "0000:c1:00.0"), "warn");
    json_decref(doc);
    /* The unedited file: the slot allows the GPU's Gen4. */
    doc = audit_file(A5000, 0);
    cr_assert_str_eq(severity_of(doc, "PCIE_SLOT_CAPPED", "0000:81:00.0"), "pass");
    json_decref(doc);
}

/* A vGPU slice is a guest's GPU too; a vGPU host (as a Tesla M10 reports it) is no VM for that. */
Test(rules, vgpu_guest_is_a_vm_and_vgpu_host_is_not)
{
    const char *guest[] = {"<virtualization_mode>None</virtualization_mode>", "<virtualization_mode>VGPU</virtualization_mode>",
                           NULL};
    json_t *doc = audit_edited(A5000, guest, 0);
    json_t *virt = json_object_get(json_object_get(doc, "machine"), "virtualization");
    cr_assert(json_is_true(json_object_get(virt, "vm")));
    cr_assert_str_eq(json_string_value(json_object_get(virt, "evidence")), "nvidia-smi: VGPU", "once for both GPUs");
    json_decref(doc);
    const char *host[] = {"<virtualization_mode>None</virtualization_mode>",
                          "<virtualization_mode>Host VGPU</virtualization_mode>", NULL};
    doc = audit_edited(A5000, host, 0);
    virt = json_object_get(json_object_get(doc, "machine"), "virtualization");
    cr_assert(json_is_null(json_object_get(virt, "vm")));
    cr_assert(contains(json_string_value(json_object_get(virt, "evidence")), "nvidia-smi: Host VGPU"));
    json_decref(doc);
}

/* A datacenter GPU with ECC off: warn in general, fail for LLM training. */
Test(rules, datacenter_ecc_off_weighs_by_workload)
{
    const char *edits[] = {"<current_ecc>Enabled</current_ecc>", "<current_ecc>Disabled</current_ecc>",
                           "<pending_ecc>Enabled</pending_ecc>", "<pending_ecc>Disabled</pending_ecc>", NULL};
    json_t *doc = audit_edited(A100, edits, 0);
    cr_assert_str_eq(severity_of(doc, "GPU_ECC_OFF", "0000:01:00.0"), "warn");
    json_decref(doc);
}
