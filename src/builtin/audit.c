#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "pipeline/audit.h"
#include "probe/probe.h"
#include "report/explain_text.h"
#include "report/report.h"
#include "util/fsroot.h"
#include "util/output.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/i18n.h"

static const struct opt_command audit_command_help = {
    .name = "audit",
    .synopsis = true,
    .usage = N_("usage: gpuvet audit %s\n"
                "       gpuvet audit --list-rules\n"
                "\n"),
    .footer = N_("Evidence files given without --sysroot: the audit is of the machine they describe, and this one is "
                 "not read.\n"
                 "verdict per workload: FAIL, WARN, INCONCLUSIVE (a key fact unknown), PASS\n"
                 "exit status: 0 no fail (PASS, WARN or INCONCLUSIVE), 1 at least one fail, 2 could not run\n"),
};

static enum opt_result list_rules(const char *cmd, const struct opt *row, const char *value)
{
    (void)cmd, (void)row, (void)value;
    explain_text_rule_list(stdout);
    return OPT_STOP;
}

/* --output: stdout goes to a temporary file until the audit has run (cmd_audit ends it). */
static struct output_file output = {.saved_stdout = -1};

static int run_audit(int argc, char **argv)
{
    struct audit_request req = {.nodes = 1, .sample_seconds = 2, .workload = WL_GENERAL, .depth = AUDIT_EVERY_WORKLOAD};
    const char *html_file = NULL, *markdown_file = NULL, *prom_file = NULL, *output_pattern = NULL;
    bool json = false, verbose = false, redact = false;
    struct gpu_fault_options faults = {0};
    struct opt table[] = {
        OPT_SYSROOT_ROW(&req.sysroot),
        OPT_NVIDIA_SMI_ROW(&req),
        OPT_FILE("dmidecode", 0, &req.dmidecode, "FILE",
                 N_("`dmidecode` text output: DIMMs, ECC, slots, power supplies, processors")),
        OPT_FILE("dmi-table", 0, &req.dmi_table, "FILE", N_("a `dmidecode --dump-bin FILE` binary SMBIOS table (same facts)")),
        OPT_GPU_FAULT_ROWS(&faults),
        OPT_SECONDS("sample", 0, &req.sample_seconds, 3600, OPT_ZERO_OK, "SECONDS",
                    N_("watch CPU use for this long (default %s; 0 skips): CPU_CONTENTION, CPU_STEAL")),
        OPT_FLAG("load-check", 0, &req.load_check,
                 N_("NVIDIA GPUs whose link is below its max generation at idle: drive host-to-device copies for about "
                    "a second each and re-read the link under load")),
        OPT_FLAG("redact", 0, &redact,
                 N_("hide host names, serial numbers, UUIDs, MAC and IP addresses and the kernel command line in every "
                    "output")),
        OPT_WORKLOAD_ROW(&req.workload),
        OPT_DIR("data-dir", 'd', &req.data_dir, "DIR", N_("where the dataset lives: its disk is judged (STORAGE_SLOW_DATA)")),
        OPT_INT("nodes", 'n', &req.nodes, 1, 100000, "N",
                N_("the job spans N machines: judge the network for it (NET_MULTINODE)")),
        OPT_STRING("expect", 0, &req.expect_listing, "LISTING",
                   N_("the listing you rented, in the provider's words (\"8x H100 SXM5 80GB, 2x EPYC 9654, 2TB RAM, 8x "
                      "3.84TB NVMe, 8x 400Gb IB\"): GPU count, part, memory, PCIe link, NVLinks and NVSwitch fabric "
                      "against the part's own figures; CPU, memory, disks and network where given; \"Listing vs this "
                      "machine\" comes first and words it cannot read are listed (docs/renting.md)")),
        OPT_FILE("claim", 'c', &req.claim_file, "FILE",
                 N_("the provider's claimed spec (JSON, docs/audit-json.md): label vs reality")),
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.audit/1 JSON document (docs/audit-json.md)")),
        OPT_FILE("html", 0, &html_file, "FILE",
                 N_("also write one self-contained HTML page (topology picture, DIMMs, findings); FILE - writes it to "
                    "standard output instead of the text report")),
        OPT_FILE("markdown", 0, &markdown_file, "FILE",
                 N_("also write the same content as GitHub-flavoured Markdown (- likewise)")),
        OPT_FILE("output", 0, &output_pattern, "FILE",
                 N_("write the report to FILE (replaced atomically, only when the audit ran); %h in FILE is the audited "
                    "host's short name (--sysroot: the recorded one): --output DIR/%h.json on every node")),
        OPT_FLAG("verbose", 'v', &verbose, N_("list passed checks too, and the checks evidence files cannot hold")),
        OPT_FILE("bench", 0, &req.bench_file, "FILE",
                 N_("judge the measurements of a saved `gpuvet bench --json` document")),
        OPT_FLAG("bench-quick", 0, &req.bench_quick,
                 N_("measure first (`gpuvet bench memory pcie storage --quick` in ., and `gpuvet bench gpu --quick` "
                    "where there is an NVIDIA GPU with CUDA) and judge that")),
        OPT_PROM_ROW(&prom_file),
        OPT_CALLBACK("list-rules", 'l', NULL, list_rules, OPT_NO_VALUE, NULL,
                     N_("list the rule IDs and exit (`gpuvet explain ID` for one)")),
        OPT_END(),
    };
    int parsed = opt_parse(&audit_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    if (!gpu_fault_options_apply("audit", &faults))
        return EXIT_CANNOT_RUN;
    if (optind < argc) {
        print_error("audit", _("unexpected argument '%s'"), argv[optind]);
        opt_usage(stderr, &audit_command_help, table);
        return EXIT_CANNOT_RUN;
    }

    if (req.claim_file && req.expect_listing) {
        print_error("audit", _("give --expect LISTING or --claim FILE, not both"));
        return EXIT_CANNOT_RUN;
    }
    req.kernel_log = faults.kernel_log;
    req.xid = &faults.xid;
    req.expect_gpus = faults.expect_gpus;
    if (req.bench_quick && (req.sysroot || req.bench_file || req.n_nvidia_smi || req.dmidecode || req.dmi_table ||
                            req.kernel_log)) {
        print_error("audit", _("--bench-quick measures this machine; it goes with neither --sysroot, evidence files "
                               "nor --bench"));
        return EXIT_CANNOT_RUN;
    }
    if (req.load_check && (req.sysroot || req.n_nvidia_smi)) {
        print_error("audit", _("--load-check drives this machine's GPUs: not with --sysroot or --nvidia-smi"));
        return EXIT_CANNOT_RUN;
    }
    if (req.dmidecode && req.dmi_table) {
        print_error("audit", _("give --dmidecode or --dmi-table, not both"));
        return EXIT_CANNOT_RUN;
    }
    if (!evidence_files_check("audit", &req))
        return EXIT_CANNOT_RUN;

    if (prom_file && output_target_check_option("audit", "--prom", prom_file) != 0)
        return EXIT_CANNOT_RUN;
    if (output_pattern) {
        /* --sysroot: %h is the recorded machine's name (the one its document carries), not this host's. */
        char *recorded = NULL;
        if (req.sysroot)
            recorded = audit_recorded_hostname(req.sysroot);
        int begun = output_file_begin_for(&output, output_pattern, "audit", req.sysroot ? (recorded ? recorded : "") : NULL);
        free(recorded);
        if (begun != 0)
            return EXIT_CANNOT_RUN;
    }

    req.bench_progress = isatty(STDERR_FILENO);
    struct audit_result a;
    enum audit_status ran = audit_run(&req, &a);
    if (ran != AUDIT_DONE) {
        if (a.error)
            print_error("audit", "%s", a.error);
        for (int i = 0; ran == AUDIT_UNREADABLE && i < a.machine.nproblems; i++)
            print_error("audit", _("%s: %s"), a.machine.problems[i].path, machine_problem_text(&a.machine.problems[i]));
        audit_result_free(&a);
        return EXIT_CANNOT_RUN;
    }
    const struct machine *m = &a.machine;
    for (int i = 0; i < m->nproblems; i++) {
        char *line = NULL; /* paths and messages quote evidence files: escaped like the report */
        int n = asprintf(&line, _("gpuvet: warning: %s: %s\n"), m->problems[i].path ? m->problems[i].path : "?",
                         machine_problem_text(&m->problems[i]));
        if (n > 0)
            print_note_line(stderr, line, "gpuvet: ");
        free(line);
    }
    if (redact)
        audit_result_scrub(&a, report_redact_audit);
    const struct findings *findings = a.findings;
    struct audit_report report = {m, findings, req.workload, audit_elapsed_ms(&a), a.inputs.claims, redact, &a.verdicts,
                                  time(NULL)};
    int rc = 0;
    if (html_file && report_to_file(html_file, report_html, &report) != 0)
        rc = -1;
    if (markdown_file && report_to_file(markdown_file, report_markdown, &report) != 0)
        rc = -1;
    bool stdout_taken = output_is_stdout(html_file) || output_is_stdout(markdown_file);
    if (rc == 0 && !stdout_taken)
        rc = json ? report_json(stdout, &report) : report_text(stdout, &report, output_use_colour(stdout), verbose);
    /* INCONCLUSIVE without a fail exits 0: the exit status says whether a fail was found. */
    int status = rc != 0 ? EXIT_CANNOT_RUN : findings_count(findings, SEV_FAIL) ? EXIT_VERDICT_FAIL : 0;
    struct prom_report prom = {"audit", m, findings, NULL, audit_elapsed_ms(&a) / 1e3, time(NULL),
                               &a.verdicts.verdicts[req.workload]};
    if (prom_file && report_prom_file(prom_file, &prom) != 0)
        status = EXIT_CANNOT_RUN;
    audit_result_free(&a);
    return status;
}

int cmd_audit(int argc, char **argv)
{
    int status = run_audit(argc, argv);
    if (output_file_end(&output, status != EXIT_CANNOT_RUN, "audit") != 0)
        status = EXIT_CANNOT_RUN;
    return status;
}
