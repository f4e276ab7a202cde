/* The verdict people read first: PASS only when the key facts were seen, per workload, on the
 * first screen, within 100 columns, with fixes that fit where the audit looked from. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

#define INTEL "sysroot/32intel64-2p8co2t+8ve"
#define SMI GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/"
#define DMI GPUVET_TEST_SOURCE "/fixtures/dmidecode/"

static const char *const trees[] = {INTEL, "sysroot/32em64t-2n8c+1mic", "sysroot/16amd64-8n2c",
                                    "sysroot/32amd64-4s2n4c-cgroup", "sysroot/nvidia-dgx-gb10"};
static const char *const smi_files[] = {"pai-2x-rtx2080ti-ecc-na.xml", "pai-6x-gtx1070-x1-links.xml",
                                        "telegraf-2x-rtx-a5000-schema-v13-drv590.xml",
                                        "telegraf-a100-sxm4-80gb-mig-v12.xml"};
static const char *const dmi_files[] = {
    "amd-ethanolx-2p-epyc-ddr4-16of32-p0-channel-a.dmidecode.txt",
    "gigabyte-g482-z54-2p-epyc-ddr4-16of32.dmidecode.txt",
    "hpe-dl380-gen11-2p-xeon-ddr5-8of32.dmidecode.txt",
    "huawei-taishan200-2p-kunpeng-ddr4-16of32.dmidecode.txt",
    "qemu-standard-pc-vm.dmidecode.txt",
    "supermicro-as4124gs-tnr-2p-epyc-ddr4-16of32.dmidecode.txt",
    "supermicro-sys4028gr-tr2-2p-xeon-ddr4-8of24-nodimm-locators.dmidecode.txt",
    "supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt",
};

/* One fixture machine as the audit's arguments: the option and the path. */
struct machine_args {
    const char *option, *path;
};

static int all_fixture_machines(struct machine_args *out, char paths[][512])
{
    int n = 0;
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++, n++) {
        snprintf(paths[n], 512, "%s", fixture(trees[i]));
        out[n] = (struct machine_args){"--sysroot", paths[n]};
    }
    for (size_t i = 0; i < sizeof smi_files / sizeof smi_files[0]; i++, n++) {
        snprintf(paths[n], 512, SMI "%s", smi_files[i]);
        out[n] = (struct machine_args){"--nvidia-smi", paths[n]};
    }
    for (size_t i = 0; i < sizeof dmi_files / sizeof dmi_files[0]; i++, n++) {
        snprintf(paths[n], 512, DMI "%s", dmi_files[i]);
        out[n] = (struct machine_args){"--dmidecode", paths[n]};
    }
    return n;
}

static json_t *summary_of(json_t *doc) { return json_object_get(doc, "summary"); }

static const char *verdict_of(json_t *doc)
{
    return json_string_value(json_object_get(summary_of(doc), "verdict"));
}

/* The coverage gap of fact in a summary's coverage, or NULL. */
static json_t *gap_of(json_t *coverage, const char *fact)
{
    return array_entry(json_object_get(coverage, "unknown"), "fact", fact);
}

static json_t *workload_of(json_t *doc, const char *workload)
{
    json_t *w = array_entry(json_object_get(summary_of(doc), "workloads"), "workload", workload);
    cr_assert_not_null(w, "no verdict for workload %s", workload);
    return w;
}

static json_t *audit_json(const char *option, const char *path, int *status)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", option, path, NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d on %s; stderr: %s", r.status, path, r.err);
    json_t *doc = run_json(&r);
    if (status)
        *status = r.status;
    run_result_free(&r);
    return doc;
}

/* Visible columns of a line (UTF-8 characters, no escape sequences in piped output). */
static size_t columns(const char *s, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0; i < len; i++)
        cols += ((unsigned char)s[i] & 0xC0) != 0x80;
    return cols;
}

/* This VM has no accelerator; where a test machine does, the live claims below do not apply. */
Test(verdict, live_machine_without_accelerator_is_not_a_pass)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", NULL);
    cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
    json_t *doc = run_json(&r);
    json_t *m = json_object_get(doc, "machine");
    json_t *gpus = json_object_get(m, "gpus");
    if (json_array_size(json_object_get(m, "accelerators")) > 0 || json_array_size(gpus) > 0) {
        json_decref(doc);
        run_result_free(&r);
        cr_skip_test("this machine has an accelerator");
    }
    cr_assert_str_neq(verdict_of(doc), "pass");
    json_t *coverage = json_object_get(summary_of(doc), "coverage");
    json_t *gap = gap_of(coverage, "accelerators");
    cr_assert_not_null(gap, "no accelerators gap");
    cr_assert(json_is_true(json_object_get(gap, "key")));
    cr_assert(json_string_length(json_object_get(gap, "reason")) > 0);
    json_t *counts = json_object_get(summary_of(doc), "counts");
    if (json_integer_value(json_object_get(counts, "fail")) == 0 && json_integer_value(json_object_get(counts, "warn")) == 0)
        cr_assert_str_eq(verdict_of(doc), "inconclusive");
    /* INCONCLUSIVE without a fail exits 0. */
    cr_assert_eq(r.status, json_integer_value(json_object_get(counts, "fail")) ? 1 : 0);
    json_int_t checked = json_integer_value(json_object_get(coverage, "checked")),
               applicable = json_integer_value(json_object_get(coverage, "applicable"));
    cr_assert(checked > 0 && checked < applicable, "checked %lld of %lld", (long long)checked, (long long)applicable);
    json_decref(doc);
    run_result_free(&r);
}

/* One nvidia-smi file holds the GPUs and nothing else: never a PASS, and the CPU is named as a key
 * fact the files cannot hold. */
Test(verdict, nvidia_smi_only_audit_is_inconclusive)
{
    for (size_t i = 0; i < sizeof smi_files / sizeof smi_files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, SMI "%s", smi_files[i]);
        int status;
        json_t *doc = audit_json("--nvidia-smi", path, &status);
        json_t *counts = json_object_get(summary_of(doc), "counts");
        bool problems = json_integer_value(json_object_get(counts, "fail")) + json_integer_value(json_object_get(counts, "warn"));
        if (!problems)
            cr_expect_str_eq(verdict_of(doc), "inconclusive", "%s", path);
        cr_expect_str_neq(verdict_of(doc), "pass", "%s", path);
        json_t *coverage = json_object_get(summary_of(doc), "coverage");
        json_t *cpu = gap_of(coverage, "CPU");
        cr_assert_not_null(cpu, "%s", path);
        cr_expect(json_is_true(json_object_get(cpu, "key")) && json_is_true(json_object_get(cpu, "outside_evidence")));
        cr_expect_null(gap_of(coverage, "accelerators"), "%s: GPUs are listed, so they were seen", path);
        cr_expect(json_integer_value(json_object_get(coverage, "outside_evidence")) > 0);
        json_decref(doc);
    }
}

/* The GTX 1070 box at x1 stays FAIL (exit 1); the verdicts of recorded machines that found
 * problems stay what they were, and the clean ones are no longer a PASS. */
Test(verdict, warn_and_fail_verdicts_unchanged)
{
    int status;
    json_t *doc = audit_json("--nvidia-smi", SMI "pai-6x-gtx1070-x1-links.xml", &status);
    cr_expect_str_eq(verdict_of(doc), "fail");
    cr_expect_eq(status, 1);
    json_decref(doc);
    doc = audit_json("--sysroot", fixture(INTEL), &status);
    cr_expect_str_eq(verdict_of(doc), "warn");
    cr_expect_eq(status, 0);
    json_decref(doc);
    for (const char *const *f = (const char *const[]){"hpe-dl380-gen11-2p-xeon-ddr5-8of32.dmidecode.txt",
                                                      "supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt", NULL};
         *f; f++) {
        char path[512];
        snprintf(path, sizeof path, DMI "%s", *f);
        doc = audit_json("--dmidecode", path, NULL);
        cr_expect_str_eq(verdict_of(doc), "warn", "%s", *f);
        json_decref(doc);
    }
    for (size_t i = 1; i < sizeof trees / sizeof trees[0]; i++) {
        doc = audit_json("--sysroot", fixture(trees[i]), NULL);
        cr_expect_str_eq(verdict_of(doc), "inconclusive", "%s", trees[i]);
        json_decref(doc);
    }
}

/* A problem that matters to CV training only shows under cv-train whatever workload was asked. */
Test(verdict, per_workload_verdicts)
{
    json_t *doc = audit_json("--sysroot", fixture(INTEL), NULL);
    json_t *general = workload_of(doc, "general"), *cv = workload_of(doc, "cv-train");
    cr_expect_str_eq(json_string_value(json_object_get(general, "verdict")), "warn");
    cr_expect_gt(json_integer_value(json_object_get(cv, "warn")), json_integer_value(json_object_get(general, "warn")));
    cr_expect_eq(json_array_size(json_object_get(summary_of(doc), "workloads")), 6);
    json_decref(doc);
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), NULL);
    const char *line = strstr(r.out, "\n  cv-train ");
    cr_assert_not_null(line, "%s", r.out);
    const char *end = strchr(line + 1, '\n');
    cr_expect(strstr(line, "PCIE_UPLINK_SHARED") && strstr(line, "PCIE_UPLINK_SHARED") < end,
              "cv-train's line names its own warning: %.*s", (int)(end - line), line);
    run_result_free(&r);
}

/* Every fixture machine: the verdict of each workload on the first 25 lines, no line over 100
 * columns anywhere in the default report. */
Test(verdict, first_screen_and_width_of_every_fixture_machine)
{
    struct machine_args machines[32];
    char paths[32][512];
    int n = all_fixture_machines(machines, paths);
    for (int i = 0; i < n; i++) {
        json_t *doc = audit_json(machines[i].option, machines[i].path, NULL);
        char verdict[32];
        snprintf(verdict, sizeof verdict, "%s", verdict_of(doc));
        for (char *p = verdict; *p; p++)
            *p = (char)(*p - 32 * (*p >= 'a' && *p <= 'z'));
        json_decref(doc);
        struct run_result r = run_gpuvet("audit", machines[i].option, machines[i].path, NULL);
        cr_assert(r.status == 0 || r.status == 1, "%s", r.err);
        int lineno = 0;
        bool general_seen = false;
        for (const char *line = r.out; *line;) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            lineno++;
            /* Over 100 only where the line is one unbreakable path (the evidence file named in the
             * header: the wrap never splits a word, and a checkout's path has any length). */
            size_t lead = strspn(line, " ");
            bool one_path = lead < len && memchr(line + lead, ' ', len - lead) == NULL && memchr(line, '/', len);
            cr_expect(columns(line, len) <= 100 || one_path, "%s line %d: %.*s", machines[i].path, lineno, (int)len,
                      line);
            if (lineno <= 25 && len > 12 && !strncmp(line, "  general    ", 13)) {
                general_seen = true;
                cr_expect(strstr(line, verdict) && (size_t)(strstr(line, verdict) - line) < len, "%s: %.*s",
                          machines[i].path, (int)len, line);
            }
            if (!nl)
                break;
            line = nl + 1;
        }
        cr_expect(general_seen, "%s: no general verdict in the first 25 lines:\n%s", machines[i].path, r.out);
        for (const char *const *w = (const char *const[]){"\n  cv-train ", "\n  llm-train ", "\n  llm-infer ", NULL};
             *w; w++) {
            const char *at = strstr(r.out, *w);
            int before = 0;
            for (const char *p = r.out; at && p < at; p++)
                before += *p == '\n';
            cr_expect(at && before < 25, "%s: %s not on the first screen", machines[i].path, *w + 1);
        }
        run_result_free(&r);
    }
}

/* An evidence-file audit says once what the files cannot hold; --verbose lists those checks, and
 * the machine description does not contradict the GPU list. */
Test(verdict, evidence_audit_says_once_what_it_cannot_hold)
{
    struct run_result r = run_gpuvet("audit", "--nvidia-smi", SMI "telegraf-a100-sxm4-80gb-mig-v12.xml", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_null(strstr(r.out, "KERNEL_THP"), "checks outside the evidence are not listed one by one");
    cr_expect_not_null(strstr(r.out, "NOT IN THE EVIDENCE"), "%s", r.out);
    cr_expect_null(strstr(r.out, "0 sockets"));
    cr_expect_null(strstr(r.out, "accelerators: 0"));
    cr_expect_null(strstr(r.out, "sudo gpuvet audit"), "no live-machine fix for a provider's file");
    cr_expect_null(strstr(r.out, "--bench-quick"), "--bench-quick cannot measure a provider's file");
    run_result_free(&r);
    r = run_gpuvet("audit", "--verbose", "--nvidia-smi", SMI "telegraf-a100-sxm4-80gb-mig-v12.xml", NULL);
    cr_expect_not_null(strstr(r.out, "KERNEL_THP"), "--verbose lists them");
    run_result_free(&r);
    r = run_gpuvet("audit", "--dmidecode", DMI "hpe-dl380-gen11-2p-xeon-ddr5-8of32.dmidecode.txt", NULL);
    cr_expect_null(strstr(r.out, "sudo gpuvet audit"));
    cr_expect_null(strstr(r.out, "socket 0: 0 DIMMs"));
    run_result_free(&r);
    /* A recorded tree without an SMBIOS table: DIMMs unknown, and no "socket N: 0 DIMMs" below it. */
    r = run_gpuvet("audit", "--sysroot", fixture(INTEL), NULL);
    cr_expect_not_null(strstr(r.out, "DIMMs unknown"));
    cr_expect_null(strstr(r.out, ": 0 DIMMs"), "%s", r.out);
    cr_expect_null(strstr(r.out, "sudo gpuvet audit"), "a recorded tree is re-recorded, not re-audited live");
    run_result_free(&r);
}

/* Repeated findings of one rule print once: eight NUMA_BINDING infos for node 0 are one line. */
Test(verdict, repeated_findings_are_grouped)
{
    struct run_result r = run_gpuvet("audit", "--sysroot", fixture(INTEL), NULL);
    int lines = 0;
    for (const char *p = r.out; (p = strstr(p, "NUMA_BINDING ")); p++)
        lines++;
    cr_expect_eq(lines, 1, "%s", r.out);
    /* The line wraps at 100 columns: the subjects, then the shared message. */
    const char *grouped = strstr(r.out, "0000:1b:00.0, 0000:1c:00.0, 0000:1d:00.0 and 5 more: bind its feeding");
    cr_expect_not_null(grouped, "%s", r.out);
    cr_expect(grouped && strstr(grouped, "process to NUMA node 0 (CPUs 0-7,16-23)"), "%s", r.out);
    run_result_free(&r);
}

/* The EDAC driver named is the platform's: skx_edac on a Xeon Silver 4108 (Skylake-SP), sb_edac on
 * a Xeon E5-2680 (Sandy Bridge-EP), amd64_edac on an Opteron, none on ARM. */
Test(verdict, edac_hint_fits_the_platform)
{
    static const struct {
        const char *tree, *module;
    } cases[] = {{INTEL, "modprobe skx_edac"},
                 {"sysroot/32em64t-2n8c+1mic", "modprobe sb_edac"},
                 {"sysroot/32amd64-4s2n4c-cgroup", "modprobe amd64_edac"},
                 {"sysroot/nvidia-dgx-gb10", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = audit_json("--sysroot", fixture(cases[i].tree), NULL);
        json_t *list = findings_of(doc, "MEM_ECC_ERRORS", NULL);
        cr_assert_eq(json_array_size(list), 1, "%s", cases[i].tree);
        json_t *fix = json_object_get(json_array_get(list, 0), "fix");
        if (cases[i].module)
            cr_expect(json_is_string(fix) && strstr(json_string_value(fix), cases[i].module), "%s: %s", cases[i].tree,
                      json_string_value(fix));
        else
            cr_expect(json_is_null(fix), "%s: %s", cases[i].tree, json_string_value(fix));
        json_decref(list);
        json_decref(doc);
    }
}

/* Colour on a terminal only: a pseudo-terminal from script(1) gets it, TERM=dumb does not. */
static char *on_a_terminal(const char *term)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "env -u NO_COLOR TERM=%s script -qec '%s audit --sample 0 --sysroot %s' /dev/null", term,
             GPUVET_BIN, fixture(INTEL));
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + len, 1, cap - len - 1, p)) > 0)
        len += got;
    out[len] = '\0';
    int rc = pclose(p);
    if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) > 1) {
        free(out);
        return NULL;
    }
    return out;
}

Test(verdict, no_colour_for_dumb_terminals)
{
    if (system("script -qec true /dev/null >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) cannot open a pseudo-terminal here");
    char *colour = on_a_terminal("xterm"), *dumb = on_a_terminal("dumb");
    cr_assert(colour && dumb);
    cr_expect_not_null(strchr(colour, '\033'), "a terminal gets colour");
    cr_expect_null(strchr(dumb, '\033'), "TERM=dumb gets none");
    free(colour);
    free(dumb);
}

Test(verdict, explain_names_the_key_facts_of_a_workload)
{
    struct run_result r = run_gpuvet("explain", "llm-train", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_not_null(strstr(r.out, "INCONCLUSIVE"));
    cr_expect_not_null(strstr(r.out, "memory ECC (MEM_ECC_DISABLED)"), "%s", r.out);
    run_result_free(&r);
    r = run_gpuvet("explain", "hpc", NULL);
    cr_expect_null(strstr(r.out, "accelerators"), "hpc runs without GPUs: %s", r.out);
    run_result_free(&r);
}
