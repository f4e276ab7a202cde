#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "probe/dmi.h"
#include "probe/probe.h"
#include "report/report.h"
#include "util/fsroot.h"

static const char usage[] =
    "usage: gpuvet audit [--sysroot DIR] [--dmidecode FILE | --dmi-table FILE] [--sample SECONDS]\n"
    "                    [--workload W] [--json] [--verbose]\n"
    "       gpuvet audit --list-rules\n"
    "\n"
    "  --sysroot DIR   audit a recorded machine (DIR/sys, DIR/proc; a `gpuvet snapshot` or an\n"
    "                  hwloc-gather-topology tree) instead of this one\n"
    "  --dmidecode FILE  `dmidecode` text output: DIMMs, ECC, slots, power supplies, processors\n"
    "  --dmi-table FILE  a `dmidecode --dump-bin FILE` binary SMBIOS table (same facts)\n"
    "                  Given without --sysroot, the audit is of the machine the file describes.\n"
    "  --sample SECONDS  watch CPU use for this long (default 2; 0 skips): CPU_CONTENTION, CPU_STEAL\n"
    "  --workload W    general (default), cv-train, llm-train, llm-infer, render, hpc\n"
    "  --json          write the gpuvet.audit/1 JSON document (docs/audit-json.md)\n"
    "  --verbose       list passed checks too\n"
    "  --list-rules    list the rule IDs and exit (`gpuvet explain ID` for one)\n"
    "\n"
    "exit status: 0 no fail, 1 at least one fail, 2 could not run\n";

static int list_rules(void)
{
    for (int i = 0; i < rules_count; i++) {
        const struct rule *r = &rules_table[i];
        printf("%-24s %-7s %s\n", r->id, r->area, r->title);
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static bool use_colour(void)
{
    const char *no = getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) && !(no && *no);
}

int cmd_audit(int argc, char **argv)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"workload", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'j'},          {"verbose", no_argument, NULL, 'v'},
        {"list-rules", no_argument, NULL, 'l'},    {"help", no_argument, NULL, 'h'},
        {"dmidecode", required_argument, NULL, 'D'}, {"dmi-table", required_argument, NULL, 'T'},
        {"sample", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    const char *sysroot = NULL;
    enum workload workload = WL_GENERAL;
    const char *dmidecode_file = NULL, *dmi_table_file = NULL;
    double sample_seconds = 2;
    bool json = false, verbose = false;
    int c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:w:jvlh", options, NULL)) != -1) {
        switch (c) {
        case 's': sysroot = optarg; break;
        case 'w':
            if (!workload_parse(optarg, &workload)) {
                fprintf(stderr, "gpuvet audit: unknown workload '%s' (general, cv-train, llm-train, llm-infer, "
                                "render, hpc)\n", optarg);
                return EXIT_CANNOT_RUN;
            }
            break;
        case 'D': dmidecode_file = optarg; break;
        case 'T': dmi_table_file = optarg; break;
        case 'S':
            sample_seconds = strtod(optarg, &end);
            if (end == optarg || *end || sample_seconds < 0 || sample_seconds > 3600) {
                fprintf(stderr, "gpuvet audit: --sample '%s': give seconds between 0 and 3600\n", optarg);
                return EXIT_CANNOT_RUN;
            }
            break;
        case 'j': json = true; break;
        case 'v': verbose = true; break;
        case 'l': return list_rules();
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return EXIT_CANNOT_RUN;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuvet audit: unexpected argument '%s'\n%s", argv[optind], usage);
        return EXIT_CANNOT_RUN;
    }

    if (dmidecode_file && dmi_table_file) {
        fprintf(stderr, "gpuvet audit: give --dmidecode or --dmi-table, not both\n");
        return EXIT_CANNOT_RUN;
    }
    double start = now_ms();
    struct dmi_data dmi = {0};
    char *dmi_error = NULL;
    const char *dmi_file = dmidecode_file ? dmidecode_file : dmi_table_file;
    if (dmi_file && (dmidecode_file ? dmidecode_load(dmi_file, &dmi, &dmi_error)
                                    : smbios_load_dump(dmi_file, &dmi, &dmi_error)) != 0) {
        fprintf(stderr, "gpuvet audit: %s\n", dmi_error ? dmi_error : dmi_file);
        free(dmi_error);
        dmi_data_free(&dmi);
        return EXIT_CANNOT_RUN;
    }
    fsroot_set(sysroot);
    struct machine m;
    machine_init(&m);
    /* SPEC: evidence files alone describe another machine; this one is not read. */
    bool read_system = sysroot || !dmi_file;
    int probed = probe_machine(&m, read_system);
    if (probed == 0 && dmi_file)
        probe_memory(&m, &dmi);
    dmi_data_free(&dmi);
    if (probed == 0)
        probe_contention(&m, sample_seconds);
    if (probed != 0) {
        for (int i = 0; i < m.nproblems; i++)
            fprintf(stderr, "gpuvet audit: %s: %s\n", m.problems[i].path, m.problems[i].message);
        machine_free(&m);
        return EXIT_CANNOT_RUN;
    }
    struct findings findings = {0};
    rules_run(&m, workload, &findings);
    for (int i = 0; i < m.nproblems; i++)
        fprintf(stderr, "gpuvet: warning: %s: %s\n", m.problems[i].path, m.problems[i].message);

    struct audit_report report = {&m, &findings, workload, now_ms() - start};
    int rc = json ? report_json(stdout, &report) : report_text(stdout, &report, use_colour(), verbose);
    int status = rc != 0 ? EXIT_CANNOT_RUN : findings_count(&findings, SEV_FAIL) ? EXIT_VERDICT_FAIL : 0;
    findings_free(&findings);
    machine_free(&m);
    return status;
}
