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

static const char usage[] =
     N_("usage: gpuvet audit [--sysroot DIR] [--nvidia-smi FILE] [--dmidecode FILE | --dmi-table FILE]\n"
    "                    [--workload W] [--data-dir DIR] [--nodes N] [--expect LISTING | --claim FILE]\n"
    "                    [--sample SECONDS] [--json] [--html FILE] [--markdown FILE] [--verbose]\n"
    "                    [--load-check] [--redact] [--bench FILE | --bench-quick] [--prom FILE]\n"
    "                    [--output FILE] [--kernel-log FILE] [--expect-gpus N] [--xid-fatal LIST]\n"
    "                    [--xid-ignore LIST]\n"
    "       gpuvet audit --list-rules\n"
    "\n"
    "  --sysroot DIR   audit a recorded machine (DIR/sys, DIR/proc; a `gpuvet snapshot` or an\n"
    "                  hwloc-gather-topology tree) instead of this one\n"
    "  --nvidia-smi FILE  read the GPUs from `nvidia-smi -q -x` output or `nvidia-smi -q` text; again\n"
    "                  for the same machine's `nvidia-smi nvlink -s` and `-e` text (NVLink state,\n"
    "                  error counters), each file known by its content\n"
    "  --dmidecode FILE  `dmidecode` text output: DIMMs, ECC, slots, power supplies, processors\n"
    "  --dmi-table FILE  a `dmidecode --dump-bin FILE` binary SMBIOS table (same facts)\n"
    "                  Evidence files given without --sysroot: the audit is of the machine they\n"
    "                  describe, and this one is not read.\n"
    "  --kernel-log FILE  a saved kernel log (dmesg, dmesg -T, journalctl -k, a syslog file): its GPU\n"
    "                  and PCIe errors since the last boot in it (GPU_XID_ERRORS, GPU_LOST,\n"
    "                  PCIE_AER_ERRORS); without it the live log (/dev/kmsg) or a snapshot's is read\n"
    "  --expect-gpus N  the node should show N accelerators: fewer is GPU_LOST (default: --claim's\n"
    "                  gpus.count)\n"
    "  --xid-fatal LIST, --xid-ignore LIST  Xid codes (48,79) judged as faults, or ignored, whatever\n"
    "                  NVIDIA's catalogue (data/xid-codes.csv) says\n"
    "  --sample SECONDS  watch CPU use for this long (default 2; 0 skips): CPU_CONTENTION, CPU_STEAL\n"
    "  --load-check    NVIDIA GPUs whose link is below its max generation at idle: drive host-to-device\n"
    "                  copies for about a second each and re-read the link under load\n"
    "  --redact        hide host names, serial numbers, UUIDs, MAC and IP addresses and the kernel\n"
    "                  command line in every output\n"
    "  --workload W    general (default), cv-train, llm-train, llm-infer, render, hpc\n"
    "  --data-dir DIR  where the dataset lives: its disk is judged (STORAGE_SLOW_DATA)\n"
    "  --nodes N       the job spans N machines: judge the network for it (NET_MULTINODE)\n"
    "  --expect LISTING  the listing you rented, in the provider's words (\"8x H100 SXM5 80GB, 2x EPYC\n"
    "                  9654, 2TB RAM, 8x 3.84TB NVMe, 8x 400Gb IB\"): GPU count, part, memory, PCIe\n"
    "                  link, NVLinks and NVSwitch fabric against the part's own figures; CPU, memory,\n"
    "                  disks and network where given; \"Listing vs this machine\" comes first and\n"
    "                  words it cannot read are listed (docs/renting.md)\n"
    "  --claim FILE    the provider's claimed spec (JSON, docs/audit-json.md): label vs reality\n"
    "  --json          write the gpuvet.audit/1 JSON document (docs/audit-json.md)\n"
    "  --html FILE     also write one self-contained HTML page (topology picture, DIMMs, findings);\n"
    "                  FILE - writes it to standard output instead of the text report\n"
    "  --markdown FILE  also write the same content as GitHub-flavoured Markdown (- likewise)\n"
    "  --output FILE   write the report to FILE (replaced atomically, only when the audit ran);\n"
    "                  %h in FILE is the audited host's short name (--sysroot: the recorded one):\n"
    "                  --output DIR/%h.json on every node\n"
    "  --verbose       list passed checks too, and the checks evidence files cannot hold\n"
    "  --bench FILE    judge the measurements of a saved `gpuvet bench --json` document\n"
    "  --bench-quick   measure first (`gpuvet bench memory pcie storage --quick` in ., and\n"
    "                  `gpuvet bench gpu --quick` where there is an NVIDIA GPU with CUDA) and judge that\n"
    "  --prom FILE     also write findings and verdict in node_exporter's textfile format, atomically\n"
    "  --list-rules    list the rule IDs and exit (`gpuvet explain ID` for one)\n"
    "\n"
    "verdict per workload: FAIL, WARN, INCONCLUSIVE (a key fact unknown), PASS\n"
    "exit status: 0 no fail (PASS, WARN or INCONCLUSIVE), 1 at least one fail, 2 could not run\n");

/* --output: stdout goes to a temporary file until the audit has run (cmd_audit ends it). */
static struct output_file output = {.saved_stdout = -1};

static int run_audit(int argc, char **argv)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"workload", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'j'},          {"verbose", no_argument, NULL, 'v'},
        {"list-rules", no_argument, NULL, 'l'},    {"help", no_argument, NULL, 'h'},
        {"bench", required_argument, NULL, 'b'},   {"bench-quick", no_argument, NULL, 'B'},
        {"data-dir", required_argument, NULL, 'd'}, {"nodes", required_argument, NULL, 'n'},
        {"claim", required_argument, NULL, 'c'},    {"nvidia-smi", required_argument, NULL, 'N'},
        {"expect", required_argument, NULL, 'X'},
        {"load-check", no_argument, NULL, 'L'},    {"redact", no_argument, NULL, 'R'},
        {"dmidecode", required_argument, NULL, 'D'}, {"dmi-table", required_argument, NULL, 'T'},
        {"sample", required_argument, NULL, 'S'},  {"html", required_argument, NULL, 'H'},
        {"markdown", required_argument, NULL, 'M'}, {"prom", required_argument, NULL, 'P'},
        {"output", required_argument, NULL, 'o'}, GPU_FAULT_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct audit_request req = {.nodes = 1, .sample_seconds = 2, .workload = WL_GENERAL, .depth = AUDIT_EVERY_WORKLOAD};
    const char *html_file = NULL, *markdown_file = NULL, *prom_file = NULL, *output_pattern = NULL;
    bool json = false, verbose = false, redact = false;
    struct gpu_fault_options faults = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:w:jvlhd:n:c:", options, NULL)) != -1) {
        switch (c) {
        case 's': req.sysroot = optarg; break;
        case 'd': req.data_dir = optarg; break;
        case 'c': req.claim_file = optarg; break;
        case 'X': req.expect_listing = optarg; break;
        case 'n':
            if (!option_int("audit", "nodes", optarg, 1, 100000, &req.nodes))
                return EXIT_CANNOT_RUN;
            break;
        case 'w':
            if (!workload_parse(optarg, &req.workload)) {
                option_invalid("audit", "workload", optarg, workload_names_hint);
                return EXIT_CANNOT_RUN;
            }
            break;
        case 'D': req.dmidecode = optarg; break;
        case 'T': req.dmi_table = optarg; break;
        case 'S':
            if (!option_seconds("audit", "sample", optarg, true, 3600, &req.sample_seconds))
                return EXIT_CANNOT_RUN;
            break;
        case 'j': json = true; break;
        case 'v': verbose = true; break;
        case 'b': req.bench_file = optarg; break;
        case 'B': req.bench_quick = true; break;
        case 'l': explain_text_rule_list(stdout); return 0;
        case 'N':
            if (!nvidia_smi_option("audit", optarg, &req))
                return EXIT_CANNOT_RUN;
            break;
        case 'L': req.load_check = true; break;
        case 'R': redact = true; break;
        case 'H': html_file = optarg; break;
        case 'M': markdown_file = optarg; break;
        case 'P': prom_file = optarg; break;
        case 'o': output_pattern = optarg; break;
        case 'h': print_help(stdout, _(usage)); return 0;
        default: {
            int taken = gpu_fault_option("audit", c, optarg, &faults);
            if (taken < 0)
                return EXIT_CANNOT_RUN;
            if (taken == 0)
                return option_error(options, argv);
        }
        }
    }
    if (!gpu_fault_options_apply("audit", &faults))
        return EXIT_CANNOT_RUN;
    if (optind < argc) {
        print_error("audit", _("unexpected argument '%s'"), argv[optind]);
        print_help(stderr, _(usage));
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
