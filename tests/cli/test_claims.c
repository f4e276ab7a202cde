/* `gpuvet audit --claim FILE`: the provider's label against the recorded machines, and bad claim
 * files, as users run it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define DELL "sysroot/32em64t-2n8c+1mic"
#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define CLAIMS GPUVET_TEST_SOURCE "/fixtures/claims/"

/* Writes text to a fresh temporary claim file; returns its malloc'd path. */
static char *claim_file(const char *text)
{
    char path[] = "/tmp/gpuvet-claimXXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return strdup(path);
}

static json_t *claim_entry(json_t *doc, const char *key)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "claims"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "key")), key))
            return c;
    }
    return NULL;
}

static const char *verdict(json_t *doc, const char *key)
{
    json_t *c = claim_entry(doc, key);
    cr_assert_not_null(c, "no claim %s", key);
    return json_string_value(json_object_get(c, "verdict"));
}

static json_t *audit_claim(struct run_result *r, const char *tree, const char *file)
{
    *r = run_gpuvet("audit", "--sysroot", fixture(tree), "--claim", file, "--json", NULL);
    return run_json(r);
}

static json_t *audit_claim_text(struct run_result *r, const char *tree, const char *text)
{
    char *file = claim_file(text);
    json_t *doc = audit_claim(r, tree, file);
    unlink(file);
    free(file);
    return doc;
}

Test(claims, thirty_two_cores_that_are_threads)
{
    struct run_result r;
    json_t *doc = audit_claim(&r, INTEL, CLAIMS "threads-as-cores.json");
    cr_expect_eq(r.status, 1, "a mismatch is a fail");
    cr_expect_eq(count_findings(doc, "CLAIM_MISMATCH", "fail"), 1);
    json_t *c = claim_entry(doc, "cpu.cores");
    cr_assert_not_null(c);
    cr_expect_eq(json_integer_value(json_object_get(c, "claimed")), 32);
    cr_expect_eq(json_integer_value(json_object_get(c, "found")), 16);
    cr_expect_str_eq(json_string_value(json_object_get(c, "verdict")), "mismatch");
    const char *msg = json_string_value(json_object_get(c, "message"));
    cr_expect(strstr(msg, "16 physical cores x 2 threads") && strstr(msg, "counts threads"), "%s", msg);
    json_t *findings = findings_of(doc, "CLAIM_MISMATCH", "cpu.cores");
    json_t *ev = json_object_get(json_array_get(findings, 0), "evidence");
    cr_expect_eq(json_integer_value(json_object_get(ev, "claimed")), 32, "the finding carries both values");
    cr_expect_eq(json_integer_value(json_object_get(ev, "found")), 16);
    json_decref(findings);
    json_decref(doc);
    run_result_free(&r);
}

Test(claims, threads_and_sockets_match)
{
    struct run_result r;
    json_t *doc = audit_claim(&r, INTEL, CLAIMS "threads-and-sockets.json");
    cr_expect_eq(count_findings(doc, "CLAIM_MISMATCH", "fail"), 0);
    cr_expect_eq(count_findings(doc, "CLAIM_MISMATCH", "pass"), 2);
    cr_expect_str_eq(verdict(doc, "cpu.threads"), "pass");
    cr_expect_str_eq(verdict(doc, "cpu.sockets"), "pass");
    cr_expect_eq(json_array_size(json_object_get(doc, "claims")), 2);
    json_decref(doc);
    run_result_free(&r);
}

Test(claims, an_offer_set_against_the_intel_box)
{
    struct run_result r;
    json_t *doc = audit_claim(&r, INTEL, CLAIMS "offer-2x-silver-4108.json");
    cr_expect_str_eq(verdict(doc, "cpu.model"), "pass");
    cr_expect_str_eq(verdict(doc, "memory.gb"), "pass", "MemTotal 92.9 GiB fits 96 GB installed");
    cr_expect_str_eq(verdict(doc, "gpus.count"), "pass", "8 Vector Engines");
    cr_expect_str_eq(verdict(doc, "gpus.pcie_gen"), "mismatch", "Gen3 slots, Gen4 claimed");
    cr_expect_eq(json_integer_value(json_object_get(claim_entry(doc, "gpus.pcie_gen"), "found")), 3);
    cr_expect_str_eq(verdict(doc, "gpus.pcie_width"), "pass");
    /* 1 Gb/s negotiated on the X722, but the ConnectX-4 links are not visible. */
    cr_expect_str_eq(verdict(doc, "network.gbps"), "unknown");
    /* This tree has no SMBIOS table and no NVIDIA evidence: those keys are unknown, never a pass. */
    static const char *const unobserved[] = {"memory.type", "memory.mts", "memory.channels_per_socket", "gpus.model",
                                             "gpus.memory_gb"};
    for (size_t i = 0; i < sizeof unobserved / sizeof *unobserved; i++) {
        json_t *c = claim_entry(doc, unobserved[i]);
        cr_expect_str_eq(json_string_value(json_object_get(c, "verdict")), "unknown", "%s", unobserved[i]);
        cr_expect(strstr(json_string_value(json_object_get(c, "message")), "unknown"), "%s", unobserved[i]);
        cr_expect(json_is_null(json_object_get(c, "found")));
    }
    json_t *first = json_array_get(json_object_get(doc, "claims"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(first, "key")), "cpu.model", "claims in table order");
    json_decref(doc);
    run_result_free(&r);
}

Test(claims, memory_below_the_reservation_is_a_mismatch)
{
    struct run_result r;
    json_t *doc = audit_claim_text(&r, INTEL, "{\"memory\": {\"gb\": 128}}");
    cr_expect_str_eq(verdict(doc, "memory.gb"), "mismatch");
    const char *msg = json_string_value(json_object_get(claim_entry(doc, "memory.gb"), "message"));
    cr_expect(strstr(msg, "MemTotal is 92.9 GiB") != NULL, "%s", msg);
    json_decref(doc);
    run_result_free(&r);
    /* 100 GB would leave >= 96.4 GiB: 92.9 is short by more than page map and firmware. */
    doc = audit_claim_text(&r, INTEL, "{\"memory\": {\"gb\": 100}}");
    cr_expect_str_eq(verdict(doc, "memory.gb"), "mismatch");
    json_decref(doc);
    run_result_free(&r);
    doc = audit_claim_text(&r, DELL, "{\"memory\": {\"gb\": 32}}");
    cr_expect_str_eq(verdict(doc, "memory.gb"), "pass", "31.3 GiB MemTotal of 8 x 4 GiB DIMMs");
    json_decref(doc);
    run_result_free(&r);
}

Test(claims, dell_storage_and_network)
{
    struct run_result r;
    json_t *doc = audit_claim_text(&r, DELL,
                                   "{\"storage\": [{\"type\": \"hdd\", \"gb\": 250}, {\"type\": \"nvme\", \"gb\": 400}],"
                                   " \"network\": {\"gbps\": 56}}");
    cr_expect_str_eq(verdict(doc, "storage[0].type"), "pass");
    cr_expect_str_eq(verdict(doc, "storage[0].gb"), "pass");
    cr_expect_str_eq(verdict(doc, "storage[1].type"), "pass");
    cr_expect_str_eq(verdict(doc, "storage[1].gb"), "pass");
    cr_expect(strstr(json_string_value(json_object_get(claim_entry(doc, "storage[1].gb"), "message")), "nvme0n1"));
    cr_expect_str_eq(verdict(doc, "network.gbps"), "pass", "the FDR port links at 56 Gb/s");
    json_decref(doc);
    run_result_free(&r);

    doc = audit_claim_text(&r, DELL, "{\"storage\": [{\"type\": \"nvme\", \"gb\": 2000}], \"network\": {\"gbps\": 100}}");
    cr_expect_str_eq(verdict(doc, "storage[0].type"), "pass");
    cr_expect_str_eq(verdict(doc, "storage[0].gb"), "mismatch", "a 400 GB drive sold as 2 TB");
    cr_expect_str_eq(verdict(doc, "network.gbps"), "mismatch");
    cr_expect_eq(count_findings(doc, "CLAIM_MISMATCH", "fail"), 2);
    json_decref(doc);
    run_result_free(&r);
}

Test(claims, text_report_prints_label_vs_reality_first)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--claim", CLAIMS "threads-as-cores.json",
                                     NULL);
    cr_expect_eq(r.status, 1);
    const char *table = strstr(r.out, "Label vs reality"), *cpu = strstr(r.out, "\nCPU ");
    cr_assert(table && cpu, "%s", r.out);
    cr_expect(table < cpu, "the table comes before the machine");
    const char *row = strstr(table, "cpu.cores");
    cr_assert_not_null(row);
    cr_expect(strstr(row, "32") && strstr(row, "16") && strstr(row, "MISMATCH"));
    run_result_free(&r);
}

struct bad_claim {
    const char *text;
    const char *expected; /* the "key: what is wrong" part after "FILE: " */
};

Test(claims, bad_claim_files_exit_2_without_a_verdict)
{
    static const struct bad_claim cases[] = {
        {"{\"cpu\": {\"cores\": \"32\"}}", "cpu.cores: must be a whole number above 0, not a string"},
        {"{\"cpu\": {\"cores\": 32.5}}", "cpu.cores: must be a whole number above 0"},
        {"{\"cpu\": {\"speed_ghz\": 3}}", "cpu.speed_ghz: unknown claim key"},
        {"{\"gpu\": {\"count\": 8}}", "gpu: unknown claim key"},
        {"{\"cpu\": {\"cores\": 32}", "not valid JSON: line 1, column 21: the document ends before it is complete"},
        {"{\"cpu\": {\"cores\": 16, \"cores\": 32}}", "not valid JSON: line 1, column 29: a member name appears twice in one object, near '\"cores\"'"},
        {"[{\"cpu\": {\"cores\": 32}}]", "(top level): must be a JSON object"},
        {"{}", "(top level): holds no claims"},
        {"{\"storage\": {\"type\": \"nvme\"}}", "storage: must be an array of objects"},
        {"{\"storage\": [{\"type\": \"floppy\"}]}", "storage[0].type: \"floppy\" is not one of nvme"},
        {"{\"storage\": [{\"type\": \"nvme\", \"rpm\": 0}]}", "storage[0].rpm: unknown claim key"},
        {"{\"memory\": {\"gb\": -512}}", "memory.gb: must be a number above 0"},
        {"{\"cpu\": {\"model\": \"\"}}", "cpu.model: must be a non-empty string"},
        {"{\"cpu\": {\"threads\": 32}, \"network\": {\"gbps\": \"100G\"}}", "network.gbps: must be a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *file = claim_file(cases[i].text);
        struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--claim", file, "--json", NULL);
        cr_expect_eq(r.status, 2, "%s", cases[i].text);
        cr_expect_str_empty(r.out, "no partial verdict for %s", cases[i].text);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s: ", file);
        const char *at = strstr(r.err, prefix);
        cr_expect(at && strstr(at + strlen(prefix), cases[i].expected) == at + strlen(prefix),
                  "%s: got \"%s\", want \"FILE: %s\"", cases[i].text, r.err, cases[i].expected);
        run_result_free(&r);
        unlink(file);
        free(file);
    }
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), "--claim", "/no/such/offer.json", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "/no/such/offer.json: ") != NULL, "%s", r.err);
    run_result_free(&r);
}

/* Memory and GPU claims against a provider's evidence: the HPE DL380 Gen11 dmidecode report
 * (8 x 32 GB DDR5-5200 on 2 sockets) and the nvidia-smi XML of 2 x RTX A5000 (24 GB). */
Test(claims, memory_and_gpu_claims_against_evidence)
{
    const char *dmi = GPUVET_TEST_SOURCE "/fixtures/dmidecode/hpe-dl380-gen11-2p-xeon-ddr5-8of32.dmidecode.txt";
    const char *xml = GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/telegraf-2x-rtx-a5000-schema-v13-drv590.xml";
    char path[] = "/tmp/gpuvet-claim-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{\"memory\": {\"gb\": 256, \"type\": \"DDR5\", \"mts\": 5600, \"channels_per_socket\": 8},"
                       " \"gpus\": {\"model\": \"RTX A5000\", \"count\": 2, \"memory_gb\": 24}}";
    cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    struct run_result r = run_gpuvet("audit", "--json", "--dmidecode", dmi, "--nvidia-smi", xml, "--claim", path, NULL);
    json_t *doc = run_json(&r);
    cr_expect_str_eq(verdict(doc, "memory.gb"), "pass");
    cr_expect_str_eq(verdict(doc, "memory.type"), "pass");
    cr_expect_str_eq(verdict(doc, "memory.mts"), "mismatch", "DDR5-5200 modules, 5600 claimed");
    cr_expect_eq(json_integer_value(json_object_get(claim_entry(doc, "memory.mts"), "found")), 5200);
    /* HPE's type-202 DIMM location records put the 4 DIMMs of each socket on 4 of its 8 channels. */
    cr_expect_str_eq(verdict(doc, "memory.channels_per_socket"), "mismatch");
    cr_expect_eq(json_integer_value(json_object_get(claim_entry(doc, "memory.channels_per_socket"), "found")), 4);
    cr_expect_str_eq(verdict(doc, "gpus.model"), "pass");
    cr_expect_str_eq(verdict(doc, "gpus.count"), "pass");
    cr_expect_str_eq(verdict(doc, "gpus.memory_gb"), "pass");
    cr_expect_eq(r.status, 1, "the mismatch fails the audit");
    json_decref(doc);
    run_result_free(&r);
    unlink(path);
}
