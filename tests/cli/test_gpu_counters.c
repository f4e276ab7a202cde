/* Counters nvidia-smi already reports, judged: uncorrected ECC (volatile and aggregate, SRAM and
 * DRAM) fails GPU_RETIRED_PAGES, corrected ECC past Meta GCM's threshold warns, counters ECC-on
 * GPUs report as "[Unknown Error]" are unknown; the GPU's own PCIe replay counter is judged by
 * PCIE_AER_ERRORS against DCGM's replay rate. The files are SYNTHETIC edits of one real file (our
 * H200's `nvidia-smi -q -x`, tests/fixtures/README.md): the counts are chosen for each verdict. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define H200 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/gpuvet-h200-passthrough-drv580.xml"
#define GPU "0000:00:06.0"

/* A copy of the H200 file with every `old` replaced (within the first `section` found, when given). */
static char *edited(const char *section, const char *old, const char *replacement)
{
    char *text = file_contents(H200, NULL);
    cr_assert_not_null(text);
    char *from = section ? strstr(text, section) : text;
    cr_assert_not_null(from, "%s", section);
    char path[] = "/tmp/gpuvet-h200-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fwrite(text, 1, (size_t)(from - text), out);
    char *at = from, *hit;
    /* Within the section: up to its closing tag. */
    char close[64] = "";
    if (section)
        snprintf(close, sizeof close, "</%s", section + 1);
    char *end = section ? strstr(from, close) : NULL;
    while ((hit = strstr(at, old)) && (!end || hit < end)) {
        fwrite(at, 1, (size_t)(hit - at), out);
        fputs(replacement, out);
        at = hit + strlen(old);
    }
    fputs(at, out);
    fclose(out);
    free(text);
    return strdup(path);
}

static json_t *audit(const char *file, const char *root)
{
    struct run_result r = root ? run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", root, "--nvidia-smi", file, NULL)
                               : run_gpuvet("audit", "--json", "--nvidia-smi", file, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

static void expect(json_t *doc, const char *id, const char *severity, const char *words)
{
    json_t *found = findings_of(doc, id, GPU);
    cr_assert_eq(json_array_size(found), 1, "%s: %zu findings", id, json_array_size(found));
    json_t *f = json_array_get(found, 0);
    const char *msg = json_string_value(json_object_get(f, "message"));
    cr_assert_str_eq(json_string_value(json_object_get(f, "severity")), severity, "%s: %s", id, msg);
    if (words)
        cr_assert(msg && strstr(msg, words), "%s: %s", id, msg);
    json_decref(found);
}

static void case_of(const char *section, const char *old, const char *replacement, const char *id,
                    const char *severity, const char *words)
{
    char *file = edited(section, old, replacement);
    json_t *doc = audit(file, NULL);
    expect(doc, id, severity, words);
    json_decref(doc);
    unlink(file);
    free(file);
}

Test(ecc, the_real_file_is_clean)
{
    json_t *doc = audit(H200, NULL);
    expect(doc, "GPU_RETIRED_PAGES", "pass", NULL);
    expect(doc, "PCIE_AER_ERRORS", "pass", "no PCIe replays counted by the GPU");
    json_decref(doc);
}

Test(ecc, twelve_uncorrected_dram_errors_since_the_driver_loaded_fail)
{
    case_of("<volatile>", "<dram_uncorrectable>0<", "<dram_uncorrectable>12<", "GPU_RETIRED_PAGES", "fail",
            "12 uncorrected ECC errors since the driver loaded");
}

Test(ecc, uncorrected_sram_errors_in_the_lifetime_fail)
{
    case_of("<aggregate>", "<sram_uncorrectable_secded>0<", "<sram_uncorrectable_secded>3<", "GPU_RETIRED_PAGES",
            "fail", "3 uncorrected ECC errors in the GPU's lifetime");
}

Test(ecc, corrected_errors_past_gcm_threshold_warn_below_pass)
{
    case_of("<volatile>", "<dram_correctable>0<", "<dram_correctable>60000000<", "GPU_RETIRED_PAGES", "warn",
            "60000000 corrected ECC errors since the driver loaded");
    case_of("<volatile>", "<dram_correctable>0<", "<dram_correctable>5000<", "GPU_RETIRED_PAGES", "pass", NULL);
}

Test(ecc, counters_that_cannot_be_read_are_unknown)
{
    case_of("<ecc_errors>", ">0<", ">[Unknown Error]<", "GPU_RETIRED_PAGES", "unknown",
            "ECC is on but its error counters were not reported");
    case_of("<ecc_errors>", ">0<", ">N/A<", "GPU_RETIRED_PAGES", "unknown", NULL);
}

/* 5,000 replays: over an unknown time (a file alone) unknown; in 10 minutes (500 a minute) warn;
 * in 30 days (0.1 a minute) info. */
Test(replays, the_gpu_replay_counter_is_judged_against_dcgm_rate)
{
    char *file = edited("<pci>", "<replay_counter>0<", "<replay_counter>5000<");
    json_t *doc = audit(file, NULL);
    expect(doc, "PCIE_AER_ERRORS", "unknown", "5000 PCIe replays counted by the GPU, over a time");
    json_decref(doc);
    char *root = fixture_copy("sysroot/32intel64-2p8co2t+8ve");
    tree_write(root, "proc/uptime", "600.00 9000.00\n");
    doc = audit(file, root);
    expect(doc, "PCIE_AER_ERRORS", "warn", "500.0 per minute");
    json_decref(doc);
    tree_write(root, "proc/uptime", "2592000.00 9000.00\n");
    doc = audit(file, root);
    expect(doc, "PCIE_AER_ERRORS", "info", "below DCGM's 8 per minute");
    json_decref(doc);
    tree_remove(root);
    free(root);
    unlink(file);
    free(file);
}
