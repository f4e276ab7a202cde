/* NVLink state and error counters, and the NVSwitch fabric, on the live path: the stand-in
 * libnvidia-ml.so.1 (tests/mock/nvml_mock.c) answers from a real `nvidia-smi -q -x` file (an H200
 * SXM, whose part has 18 NVLinks; two RTX A5000 cards, whose bridge is optional) with its NVLinks
 * described by $GPUVET_MOCK_NVLINK and its <fabric> section set per test. The same fabric words
 * are read from the file by `--nvidia-smi`. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define SMI(name) GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/" name
#define H200 SMI("gpuvet-h200-passthrough-drv580.xml")
#define A5000 SMI("telegraf-2x-rtx-a5000-schema-v13-drv590.xml")

static json_t *audit_mock(const char *library, const char *xml, const char *nvlink, int expected_status)
{
    setenv("GPUVET_NVML_LIBRARY", library, 1);
    setenv("GPUVET_MOCK_NVML_XML", xml, 1);
    if (nvlink)
        setenv("GPUVET_MOCK_NVLINK", nvlink, 1);
    struct run_result r = run_gpuvet("audit", "--json", NULL);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    unsetenv("GPUVET_MOCK_NVLINK");
    if (expected_status >= 0)
        cr_assert_eq(r.status, expected_status, "%s (%s): exit %d, stderr: %s", xml, nvlink ? nvlink : "-", r.status,
                     r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

/* The one finding of a rule on a subject. */
static json_t *the_finding(json_t *doc, const char *id, const char *subject)
{
    json_t *found = findings_of(doc, id, subject);
    cr_assert_eq(json_array_size(found), 1, "%s on %s: %zu findings", id, subject, json_array_size(found));
    json_t *f = json_incref(json_array_get(found, 0));
    json_decref(found);
    return f;
}

static const char *severity(json_t *doc, const char *id, const char *subject)
{
    static char sev[16];
    json_t *f = the_finding(doc, id, subject);
    snprintf(sev, sizeof sev, "%s", json_string_value(json_object_get(f, "severity")));
    json_decref(f);
    return sev;
}

static bool message_has(json_t *doc, const char *id, const char *subject, const char *words)
{
    json_t *f = the_finding(doc, id, subject);
    const char *m = json_string_value(json_object_get(f, "message"));
    bool has = m && strstr(m, words);
    json_decref(f);
    return has;
}

#define GPU "0000:00:06.0"

Test(nvlink, all_eighteen_links_of_an_h200_up_pass)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18", -1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", GPU), "pass");
    cr_assert(message_has(doc, "GPU_NVLINK_DOWN", GPU, "all 18 NVLinks active (the part has 18)"));
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", GPU), "pass");
    json_decref(doc);
}

/* The links' common speed (NVML's field value 90), where the library has nvmlDeviceGetFieldValues. */
Test(nvlink, the_common_link_speed_is_reported_where_nvml_gives_it)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18 speed=26562", -1);
    json_t *g = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 0);
    cr_assert_eq(json_integer_value(json_object_get(g, "nvlink_speed_mbps")), 26562);
    json_t *f = the_finding(doc, "GPU_NVLINK_DOWN", GPU);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f, "evidence"), "speed_mbps")), 26562);
    json_decref(f);
    json_decref(doc);
    doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18", -1);
    g = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 0);
    cr_assert(json_is_null(json_object_get(g, "nvlink_speed_mbps")), "the field not supported: unknown");
    json_decref(doc);
    doc = audit_mock(GPUVET_MOCK_NVML_OLD, H200, "18 speed=26562", -1);
    g = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 0);
    cr_assert(json_is_null(json_object_get(g, "nvlink_speed_mbps")), "no nvmlDeviceGetFieldValues: unknown");
    json_decref(doc);
}

Test(nvlink, one_link_down_fails_the_gpu)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18 down=0:3", 1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", GPU), "fail");
    cr_assert(message_has(doc, "GPU_NVLINK_DOWN", GPU, "1 of its 18 NVLinks down"));
    json_t *f = the_finding(doc, "GPU_NVLINK_DOWN", GPU);
    json_t *links = json_object_get(json_object_get(f, "evidence"), "links");
    cr_assert_eq(json_array_size(links), 18);
    cr_assert(json_is_false(json_object_get(json_array_get(links, 3), "active")));
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(links, 0), "version")), 4);
    json_decref(f);
    json_decref(doc);
}

/* The driver lists 12 links where the part has 18: six are missing, not fine. */
Test(nvlink, fewer_links_than_the_part_has_fail)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "12", 1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", GPU), "fail");
    cr_assert(message_has(doc, "GPU_NVLINK_DOWN", GPU, "6 of its 18 NVLinks down"));
    json_decref(doc);
}

/* One GPU of a board, alone in its VM, with no link up: nothing to talk to (info), not a fail. */
Test(nvlink, a_lone_sxm_gpu_with_no_link_up_is_info)
{
    char spec[256] = "18";
    for (int l = 0; l < 18; l++)
        snprintf(spec + strlen(spec), sizeof spec - strlen(spec), " down=0:%d", l);
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, spec, -1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", GPU), "info");
    json_decref(doc);
}

Test(nvlink, replay_errors_warn_crc_errors_alone_do_not)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18 replay=0:2:5", -1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", GPU), "warn");
    cr_assert(message_has(doc, "GPU_NVLINK_ERRORS", GPU, "5 replay and 0 recovery errors"));
    json_decref(doc);
    /* A few CRC errors since boot are far below DCGM's 100 per second. */
    doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18 crc_flit=0:1:40 crc_data=0:1:2", -1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", GPU), "info");
    cr_assert(message_has(doc, "GPU_NVLINK_ERRORS", GPU, "42 NVLink CRC errors"));
    json_decref(doc);
}

/* A CRC count whose mean since boot passes 100/s: more errors than seconds since boot times 100. */
Test(nvlink, crc_rate_past_dcgm_limit_warns)
{
    FILE *f = fopen("/proc/uptime", "r");
    double up = 0;
    cr_assert(f && fscanf(f, "%lf", &up) == 1);
    fclose(f);
    char spec[128];
    snprintf(spec, sizeof spec, "18 crc_flit=0:0:%.0f", up * 200 + 1e6);
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, spec, -1);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", GPU), "warn");
    cr_assert(message_has(doc, "GPU_NVLINK_ERRORS", GPU, "per second on average since boot"));
    json_decref(doc);
}

/* PCIe cards link through an optional bridge: none up is "no bridge", one of two bridged links down fails. */
Test(nvlink, bridged_cards_are_judged_by_what_is_up)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, A5000, "4 down=0:0 down=0:1 down=0:2 down=0:3 down=1:0 "
                                                              "down=1:1 down=1:2 down=1:3", -1);
    json_t *list = findings_of(doc, "GPU_NVLINK_DOWN", NULL);
    cr_assert_gt(json_array_size(list), 0);
    for (size_t i = 0; i < json_array_size(list); i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, i), "severity")), "info");
    json_decref(list);
    json_decref(doc);
    doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, A5000, "4 down=0:1", -1);
    list = findings_of(doc, "GPU_NVLINK_DOWN", NULL);
    int fails = 0;
    for (size_t i = 0; i < json_array_size(list); i++)
        fails += !strcmp(json_string_value(json_object_get(json_array_get(list, i), "severity")), "fail");
    cr_assert_eq(fails, 1, "the card with one of its four links down fails, the other passes");
    json_decref(list);
    json_decref(doc);
}

/* --- fabric ------------------------------------------------------------------------------------ */

/* A copy of the H200 file with its <fabric> state and status set. */
static char *fabric_file(const char *state, const char *status)
{
    FILE *in = fopen(H200, "rb");
    cr_assert_not_null(in);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(mem);
    fclose(in);
    char *s = strstr(text, "<fabric>");
    cr_assert_not_null(s);
    char *st = strstr(s, "<state>N/A</state>"), *ss = strstr(s, "<status>N/A</status>");
    cr_assert(st && ss && st < ss);
    char path[] = "/tmp/gpuvet-fabric-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "%.*s<state>%s</state>%.*s<status>%s</status>%s", (int)(st - text), text, state,
            (int)(ss - (st + strlen("<state>N/A</state>"))), st + strlen("<state>N/A</state>"), status,
            ss + strlen("<status>N/A</status>"));
    fclose(out);
    free(text);
    return strdup(path);
}

static void fabric_case(const char *state, const char *status, const char *want, const char *words)
{
    char *file = fabric_file(state, status);
    const char *libraries[] = {GPUVET_MOCK_NVML_CURRENT, GPUVET_MOCK_NVML_OLD};
    for (int i = 0; i < 2; i++) {
        json_t *doc = audit_mock(libraries[i], file, "18", -1);
        cr_assert_str_eq(severity(doc, "GPU_FABRIC_NOT_READY", GPU), want, "%s %s via %s", state, status, libraries[i]);
        cr_assert(message_has(doc, "GPU_FABRIC_NOT_READY", GPU, words), "%s %s via %s", state, status, libraries[i]);
        json_decref(doc);
    }
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", file, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(severity(doc, "GPU_FABRIC_NOT_READY", GPU), want, "%s %s from the file", state, status);
    cr_assert(message_has(doc, "GPU_FABRIC_NOT_READY", GPU, words));
    if (!strcmp(want, "fail"))
        cr_assert_eq(r.status, 1, "a fabric that is not up fails the audit");
    json_decref(doc);
    run_result_free(&r);
    unlink(file);
    free(file);
}

Test(fabric, in_progress_fails)
{
    fabric_case("In Progress", "N/A", "fail", "has not joined the NVSwitch fabric (In Progress)");
}

Test(fabric, not_started_fails) { fabric_case("Not Started", "N/A", "fail", "error 802"); }

/* Azure's HPC images saw this one: Completed, but with an error. */
Test(fabric, completed_with_insufficient_resources_fails)
{
    fabric_case("Completed", "Insufficient Resources", "fail", "completed with an error (Insufficient Resources)");
}

Test(fabric, completed_success_passes) { fabric_case("Completed", "Success", "pass", "joined the NVSwitch fabric"); }

/* "N/A" (a GPU outside any fabric, and the original file): no per-GPU finding; no NVSwitch on this
 * host's PCI bus gives the machine a pass on the live path. */
Test(fabric, not_applicable_gives_no_gpu_finding)
{
    json_t *doc = audit_mock(GPUVET_MOCK_NVML_CURRENT, H200, "18", -1);
    json_t *list = findings_of(doc, "GPU_FABRIC_NOT_READY", GPU);
    cr_assert_eq(json_array_size(list), 0);
    json_decref(list);
    json_decref(doc);
}

/* --- health's fast tier and its Prometheus file ------------------------------------------------- */

static struct run_result health_mock(const char *xml, const char *nvlink, const char *prom)
{
    setenv("GPUVET_NVML_LIBRARY", GPUVET_MOCK_NVML_CURRENT, 1);
    setenv("GPUVET_MOCK_NVML_XML", xml, 1);
    setenv("GPUVET_MOCK_NVLINK", nvlink, 1);
    struct run_result r = prom ? run_gpuvet("health", "--prom", prom, NULL) : run_gpuvet("health", NULL);
    unsetenv("GPUVET_NVML_LIBRARY");
    unsetenv("GPUVET_MOCK_NVML_XML");
    unsetenv("GPUVET_MOCK_NVLINK");
    return r;
}

Test(health, an_nvlink_down_fails_health_with_dcgm_labels_in_prom)
{
    struct run_result r = health_mock(H200, "18", NULL);
    cr_assert_eq(r.status, 0, "all links up: %s %s", r.out, r.err);
    run_result_free(&r);
    char prom[] = "/tmp/gpuvet-links-XXXXXX";
    int fd = mkstemp(prom);
    cr_assert_geq(fd, 0);
    close(fd);
    r = health_mock(H200, "18 down=0:3", prom);
    cr_assert_eq(r.status, 1, "%s %s", r.out, r.err);
    cr_assert(strstr(r.out, "GPU_NVLINK_DOWN 0000:00:06.0"), "%s", r.out);
    run_result_free(&r);
    FILE *f = fopen(prom, "r");
    cr_assert_not_null(f);
    char line[1024];
    bool found = false;
    while (fgets(line, sizeof line, f))
        found |= strstr(line, "gpuvet_finding{command=\"health\",rule=\"GPU_NVLINK_DOWN\",severity=\"fail\","
                              "subject=\"0000:00:06.0\",gpu=\"0\",UUID=\"GPU-73c875d3-52f8-d69d-d97f-d85545bd5967\","
                              "pci_bus_id=\"00000000:00:06.0\"} 1") != NULL;
    fclose(f);
    unlink(prom);
    cr_assert(found, "the finding carries dcgm-exporter's GPU labels");
}

Test(health, a_fabric_in_progress_fails_health)
{
    char *file = fabric_file("In Progress", "N/A");
    struct run_result r = health_mock(file, "18", NULL);
    cr_assert_eq(r.status, 1, "%s %s", r.out, r.err);
    cr_assert(strstr(r.out, "GPU_FABRIC_NOT_READY 0000:00:06.0"), "%s", r.out);
    run_result_free(&r);
    unlink(file);
    free(file);
}

/* --- `nvidia-smi nvlink -s` text beside the -q -x file (--nvidia-smi twice) ------------------- */

#define NVLINK_TEXT(name) SMI(name "-nvlink-s.txt")

/* A temporary copy of the file at src with the first `old` replaced (a synthetic edit of a real
 * file); the caller unlinks and frees the path. */
static char *copy_replacing(const char *src, const char *old, const char *replacement)
{
    char *text = file_contents(src, NULL);
    cr_assert_not_null(text, "%s", src);
    char *at = strstr(text, old);
    cr_assert_not_null(at, "%s: %s", src, old);
    char path[] = "/tmp/gpuvet-copy-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "%.*s%s%s", (int)(at - text), text, replacement, at + strlen(old));
    fclose(out);
    free(text);
    return strdup(path);
}

/* The H200 file with its UUID replaced by the first GPU's of bottlerocket's H100 paste: a synthetic
 * pairing of two real files, so that the text joins by UUID. */
static char *h200_with_uuid(const char *uuid)
{
    return copy_replacing(H200, "GPU-73c875d3-52f8-d69d-d97f-d85545bd5967", uuid);
}

Test(nvlink_text, the_text_completes_the_xml_by_uuid)
{
    char *xml = h200_with_uuid("GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053");
    /* Either order: the XML is read first. */
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", NVLINK_TEXT("bottlerocket-4418-h100"), "--nvidia-smi",
                                     xml, "--json", NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d: %s", r.status, r.err);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", GPU), "pass");
    cr_assert(message_has(doc, "GPU_NVLINK_DOWN", GPU, "all 18 NVLinks active (the part has 18)"));
    /* The paste's second GPU is not in the XML: said, not guessed. */
    char *problems = json_dumps(json_object_get(json_object_get(doc, "machine"), "problems"), 0);
    cr_assert(strstr(problems, "GPU-dd3b269a-8f3a-d2d5-1518-2713ba03fcf7"), "%s", problems);
    free(problems);
    json_decref(doc);
    run_result_free(&r);
    unlink(xml);
    free(xml);
}

/* Alone, a paste describes the GPUs it names (tests/cli/test_smi_pastes.c); beside another file,
 * a paste none of whose GPUs that file describes cannot run. */
Test(nvlink_text, unmatched_it_cannot_run)
{
    /* gpud's B200 paste names GPU 2 with its UUID elided; the H200 file has one GPU. */
    struct run_result r =
        run_gpuvet("audit", "--nvidia-smi", H200, "--nvidia-smi", NVLINK_TEXT("gpud-1085-b200-all-inactive"), NULL);
    cr_assert_eq(r.status, 2, "%s", r.out);
    cr_assert(strstr(r.err, "no GPU of this `nvidia-smi nvlink` output matched"), "%s", r.err);
    run_result_free(&r);
}

/* Two A100 SXM4 described by a file alone (its one <gpu> twice, the second at another bus id: a
 * synthetic copy): A100s report no fabric state and the bus is not read, so the fabric is unknown,
 * not passed. */
Test(fabric, sxm_gpus_from_a_file_alone_leave_the_fabric_unknown)
{
    FILE *in = fopen(SMI("telegraf-a100-sxm4-80gb-mig-v12.xml"), "rb");
    cr_assert_not_null(in);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    char *open_gpu = strstr(text, "<gpu "), *close_gpu = strstr(text, "</gpu>");
    cr_assert(open_gpu && close_gpu);
    close_gpu += strlen("</gpu>");
    char *second = strndup(open_gpu, (size_t)(close_gpu - open_gpu)), *bus;
    while ((bus = strstr(second, "00000000:")))
        memcpy(bus, "00000001:", 9); /* another domain: another GPU */
    char path[] = "/tmp/gpuvet-a100x2-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *out = fdopen(fd, "wb");
    fprintf(out, "%.*s%s%s", (int)(close_gpu - text), text, second, close_gpu);
    fclose(out);
    free(second);
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", path, "--json", NULL);
    json_t *doc = run_json(&r);
    cr_assert_str_eq(severity(doc, "GPU_FABRIC_NOT_READY", "machine"), "unknown");
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
}

/* --- `nvidia-smi -q` and `nvidia-smi nvlink -e` text (tests/fixtures/README.md) ---------------- */

#define TREE "sysroot/32intel64-2p8co2t+8ve"

/* audit --sysroot of a recorded machine with the given --nvidia-smi files. */
static json_t *audit_text(const char *a, const char *b, int expected_status)
{
    struct run_result r = b ? run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(TREE), "--nvidia-smi",
                                         a, "--nvidia-smi", b, NULL)
                            : run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(TREE), "--nvidia-smi",
                                         a, NULL);
    cr_assert_eq(r.status, expected_status, "%s %s: exit %d, stderr: %s", a, b ? b : "", r.status, r.err);
    json_t *doc = run_json(&r);
    run_result_free(&r);
    return doc;
}

Test(q_text, h800_paste_with_its_nvlink_status)
{
    json_t *doc = audit_text(SMI("llm-action-h800-q-i0-drv525.txt"), SMI("llm-action-h800-nvlink-s.txt"), 0);
    const char *h800 = "0000:18:00.0";
    cr_assert_str_eq(severity(doc, "GPU_ECC_OFF", h800), "warn");
    cr_assert_str_eq(severity(doc, "GPU_FABRIC_NOT_READY", h800), "pass");
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_DOWN", h800), "pass");
    cr_assert(message_has(doc, "GPU_NVLINK_DOWN", h800, "all 8 NVLinks active (the part has 8)"));
    json_t *gpus = json_object_get(json_object_get(doc, "machine"), "gpus");
    cr_assert_eq(json_array_size(gpus), 1);
    /* Every active link at "26.562 GB/s": NVML's common speed, 26562 MB/s. */
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(gpus, 0), "nvlink_speed_mbps")), 26562);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(gpus, 0), "name")), "NVIDIA H800");
    /* GPUs 1 and 7 of the status paste are not in the -q file: said (in one line), not guessed. */
    char *problems = json_dumps(json_object_get(json_object_get(doc, "machine"), "problems"), 0);
    cr_assert(strstr(problems, "2 GPU lines name GPUs the other nvidia-smi file does not describe, the first GPU 1 "
                               "(GPU-f5046fa5-3db4-45e8-870a-dc1376becaa5)"),
              "%s", problems);
    free(problems);
    json_decref(doc);
}

Test(q_text, a100_row_remap_pending_fails)
{
    json_t *doc = audit_text(SMI("ml-engineering-a100-sxm4-q-remap-pending.txt"), NULL, 1);
    cr_assert_str_eq(severity(doc, "GPU_RETIRED_PAGES", "0000:10:1c.0"), "fail");
    cr_assert(message_has(doc, "GPU_RETIRED_PAGES", "0000:10:1c.0", "row remap is pending"));
    json_decref(doc);
}

Test(nvlink_errors_text, the_real_paste_passes_a_replay_count_warns)
{
    json_t *doc = audit_text(SMI("brev-8x-a100-sxm4-q-d-ecc.txt"), SMI("brev-8x-a100-sxm4-nvlink-e.txt"), 0);
    json_t *list = findings_of(doc, "GPU_NVLINK_ERRORS", NULL);
    cr_assert_eq(json_array_size(list), 8);
    for (size_t i = 0; i < 8; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(list, i), "severity")), "pass");
    json_decref(list);
    /* -e alone lists the links with their counters, their state unknown. */
    json_t *g1 = json_array_get(json_object_get(json_object_get(doc, "machine"), "gpus"), 1);
    json_t *links = json_object_get(g1, "nvlinks");
    cr_assert_eq(json_array_size(links), 12);
    cr_assert(json_is_null(json_object_get(json_array_get(links, 0), "active")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(links, 0), "errors"), "replay")), 0);
    /* -d ECC names no product: MIG is unknown, not "not MIG-capable". */
    cr_assert_str_eq(severity(doc, "GPU_MIG_ON", "0000:0b:00.0"), "unknown");
    json_decref(doc);
    /* GPU 3 (0000:0d:00.0, the fourth in bus order) with 9 replays on link 0: it warns (exit 0: a warn). */
    char *edited = copy_replacing(SMI("brev-8x-a100-sxm4-nvlink-e.txt"),
                                  "GPU-46a33459-81fa-9dcf-9ed9-9a9425a4abf5)\n\t Link 0: Replay Errors: 0",
                                  "GPU-46a33459-81fa-9dcf-9ed9-9a9425a4abf5)\n\t Link 0: Replay Errors: 9");
    doc = audit_text(SMI("brev-8x-a100-sxm4-q-d-ecc.txt"), edited, 0);
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", "0000:0d:00.0"), "warn");
    cr_assert(message_has(doc, "GPU_NVLINK_ERRORS", "0000:0d:00.0", "9 replay and 0 recovery errors"));
    cr_assert_str_eq(severity(doc, "GPU_NVLINK_ERRORS", "0000:0c:00.0"), "pass");
    json_decref(doc);
    unlink(edited);
    free(edited);
}
