/* nvidia-smi output as people paste it (tests/fixtures/README.md, "as people paste it"): a `-q`
 * section without its GPU line, nvidia-smi's own failure messages, and `nvidia-smi nvlink` text
 * given alone. Each file is evidence; none is refused; the labels were written before gpuvet ran. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define SMI(name) GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/" name
#define UNNAMED "(GPU not named)"

static json_t *audit_file(const char *path, int expected_status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--nvidia-smi", path, NULL);
    cr_assert_eq(r.status, expected_status, "%s: exit %d, stderr: %s", path, r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

/* No finding of the document passes. */
static void nothing_passes(json_t *doc)
{
    json_t *all = json_object_get(doc, "findings");
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *f = json_array_get(all, i);
        const char *id = json_string_value(json_object_get(f, "id"));
        if (!strncmp(id, "GPU_", 4))
            cr_assert_str_neq(json_string_value(json_object_get(f, "severity")), "pass", "%s passes: %s", id,
                              json_string_value(json_object_get(f, "message")));
    }
}

Test(q_section, remapped_rows_pasted_alone_fail_a_gpu_not_named)
{
    json_t *doc = audit_file(SMI("gpud-80-remapped-rows-pending.txt"), 1);
    expect_finding(doc, "GPU_RETIRED_PAGES", UNNAMED, "fail", "row remap is pending");
    json_decref(doc);
}

Test(q_section, fabric_pasted_alone_with_insufficient_resources_fails)
{
    json_t *doc = audit_file(SMI("azhpc-images-506-fabric-insufficient.txt"), 1);
    expect_finding(doc, "GPU_FABRIC_NOT_READY", UNNAMED, "fail", "Insufficient Resources");
    json_decref(doc);
}

Test(smi_failure, a_device_handle_error_is_a_lost_gpu)
{
    json_t *doc = audit_file(SMI("nvidia-docker-1553-handle-unknown-error.txt"), 1);
    expect_finding(doc, "GPU_LOST", "0000:09:00.0", "fail", "Unknown Error");
    nothing_passes(doc);
    json_decref(doc);
    doc = audit_file(SMI("syno-22-handle-no-space.txt"), 1);
    expect_finding(doc, "GPU_LOST", "0000:07:00.0", "fail", "Unable to determine the device handle");
    json_decref(doc);
}

Test(smi_failure, gpu_is_lost_is_a_lost_gpu)
{
    json_t *doc = audit_file(SMI("owod-81-gpu-is-lost.txt"), 1);
    expect_finding(doc, "GPU_LOST", "0000:02:00.0", "fail", "GPU is lost");
    nothing_passes(doc);
    json_decref(doc);
}

/* nvidia-smi could describe no GPU: every GPU fact unknown, with its words; nothing passes. */
static void unknown_with(const char *file, const char *words)
{
    json_t *doc = audit_file(file, 0);
    expect_finding(doc, "GPU_ECC_OFF", "machine", "unknown", words);
    nothing_passes(doc);
    json_decref(doc);
}

Test(smi_failure, nvml_and_driver_failures_leave_the_gpus_unknown_with_the_reason)
{
    unknown_with(SMI("shine-cluster-30-nvml-mismatch.txt"), "Failed to initialize NVML: Driver/library version mismatch");
    unknown_with(SMI("shine-cluster-50-smi-failed.txt"), "couldn't communicate with the NVIDIA driver");
    unknown_with(SMI("singuconda-6-no-devices.txt"), "No devices were found");
}

/* The labels of tests/fixtures/README.md's nvlink table, each paste given alone. */
Test(nvlink_alone, each_paste_is_judged_by_the_product_it_names)
{
    json_t *doc = audit_file(SMI("azhpc-diagnostics-73-v100-nvlink-s.txt"), 1);
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 3", "fail", "2 of its 6 NVLinks down");
    json_decref(doc);
    doc = audit_file(SMI("bottlerocket-4418-h100-nvlink-s.txt"), 0);
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 0", "pass", "all 18 NVLinks active (the part has 18)");
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 1", "pass", "all 18 NVLinks active (the part has 18)");
    json_decref(doc);
    /* "GPU 2" of a paste: at least three GPUs, so not a lone slice of a board. */
    doc = audit_file(SMI("gpud-1085-b200-all-inactive-nvlink-s.txt"), 1);
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 2", "fail", "18 of its 18 NVLinks down");
    json_decref(doc);
}

/* A paste of 1.5 million lines (the bottlerocket H100 block repeated): read at once, and what it
 * names past NVLink's 18 links is one problem line, not one per line. */
Test(nvlink_alone, a_huge_paste_gives_one_problem_line)
{
    char path[] = "/tmp/gpuvet-nvlink-huge-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053)\n");
    for (int i = 0; i < 1500000; i++)
        fprintf(out, "\t Link %d: 26.562 GB/s\n", i % 40);
    fclose(out);
    struct run_result r = run_gpuvet("audit", "--json", "--nvidia-smi", path, NULL);
    unlink(path);
    json_t *doc = run_json(&r);
    json_t *problems = json_object_get(json_object_get(doc, "machine"), "problems");
    cr_assert_eq(json_array_size(problems), 1, "%zu problems", json_array_size(problems));
    char *said = json_dumps(problems, 0);
    cr_assert(strstr(said, "link lines ignored"), "%s", said);
    free(said);
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 0", "pass", "all 18 NVLinks active");
    json_decref(doc);
    run_result_free(&r);
}

/* Text with nothing of nvidia-smi in it is refused, saying what was looked for. */
Test(refusal, a_file_without_evidence_names_the_kinds_looked_for)
{
    char path[] = "/tmp/gpuvet-not-smi-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "Linux node1 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux\nhello\n");
    fclose(out);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, NULL);
    unlink(path);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert(strstr(r.err, "holds no nvidia-smi evidence"), "%s", r.err);
    cr_assert(strstr(r.err, "Remapped Rows"), "%s", r.err);
    cr_assert(strstr(r.err, "Unable to determine the device handle"), "%s", r.err);
    run_result_free(&r);
}

/* A SYNTHETIC `nvidia-smi nvlink -s` of one card: 18 links listed (as nvidia-smi lists them on
 * Hopper), the ones in `down` (a list ending in -1) inactive, the others at 26.562 GB/s. */
static char *nvlink_paste(const char *product, const int *down)
{
    char path[] = "/tmp/gpuvet-nvlink-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "GPU 0: %s (UUID: GPU-661b464d-c7f8-a7ca-136c-64a234c567a6)\n", product);
    for (int l = 0; l < 18; l++) {
        bool inactive = false;
        for (const int *d = down; *d >= 0; d++)
            inactive |= *d == l;
        fprintf(out, "\t Link %d: %s\n", l, inactive ? "<inactive>" : "26.562 GB/s");
    }
    fclose(out);
    return strdup(path);
}

static void nvlink_case(const char *product, const int *down, int status, const char *severity, const char *words)
{
    char *file = nvlink_paste(product, down);
    json_t *doc = audit_file(file, status);
    expect_finding(doc, "GPU_NVLINK_DOWN", "GPU 0", severity, words);
    json_decref(doc);
    unlink(file);
    free(file);
}

/* An H100 NVL has 12 NVLinks (600 GB/s over its bridges); nvidia-smi lists 18 and the six past
 * its design inactive, by design (Azure/azurehpc-health-checks issue #162 lists links 4, 5, 10,
 * 11, 16 of an H100 NVL inactive; the paste is cut there, 17 is assumed the sixth). */
Test(nvlink_design, h100_nvl_with_its_twelve_links_passes)
{
    static const int by_design[] = {4, 5, 10, 11, 16, 17, -1};
    nvlink_case("NVIDIA H100 NVL", by_design, 0, "pass", "all 12 NVLinks active (the part has 12)");
    static const int four_more[] = {0, 1, 2, 3, 4, 5, 10, 11, 16, 17, -1};
    nvlink_case("NVIDIA H100 NVL", four_more, 1, "fail", "4 of its 12 NVLinks down");
    static const int all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, -1};
    nvlink_case("NVIDIA H100 NVL", all, 0, "info", "no NVLink bridge fitted");
}

/* A100 PCIe: 12 links with its bridges fitted (NVIDIA's NVLink page: "up to twelve"); the SXM
 * board's count, 12 as well, and H100 SXM's 18 for contrast. */
Test(nvlink_design, bridged_a100_pcie_and_sxm_counts)
{
    static const int past_twelve[] = {12, 13, 14, 15, 16, 17, -1};
    nvlink_case("NVIDIA A100 80GB PCIe", past_twelve, 0, "pass", "all 12 NVLinks active (the part has 12)");
    static const int one_bridge_missing[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, -1};
    nvlink_case("NVIDIA A100 80GB PCIe", one_bridge_missing, 1, "fail", "4 of its 12 NVLinks down");
    nvlink_case("NVIDIA H100 80GB HBM3", past_twelve, 1, "fail", "6 of its 18 NVLinks down");
}
