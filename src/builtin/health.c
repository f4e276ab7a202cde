/* gpuvet health: the options, then health/health.c checks (and tells Slurm) and report/ prints. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "report/wrap.h"
#include "builtin/builtin.h"
#include "health/health.h"
#include "report/health_report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"
#include "util/parse.h"

static const char usage[] =
     N_("usage: gpuvet health [--sysroot DIR] [--workload W] [--fail-on-warn] [--prom FILE]\n"
    "                     [--area AREA] [--nfd FILE [--nfd-interval SECONDS]] [--nvidia-smi FILE]\n"
    "                     [--slurm [--node NAME] [--scontrol PATH]]\n"
    "                     [--expect-gpus N] [--kernel-log FILE] [--xid-fatal LIST] [--xid-ignore LIST]\n"
    "\n"
    "The fast check for Slurm's HealthCheckProgram and Node Problem Detector's custom plugins: the\n"
    "audit's rules without benchmarks and without the CPU-use sample. stdout is one line of at most\n"
    "80 bytes (\"gpuvet: OK\" or \"gpuvet: FAIL RULE_ID subject: message\"); every problem is on stderr.\n"
    "\n"
    "  --sysroot DIR   check a recorded machine (as gpuvet audit --sysroot)\n"
    "  --workload W    general (default), cv-train, llm-train, llm-infer, render, hpc\n"
    "  --fail-on-warn  warnings fail the node too (default: only the audit's fails do)\n"
    "  --prom FILE     also write node_exporter's textfile format to FILE, atomically\n"
    "  --area AREA     only the rules of one area count: %s\n"
    "                  (one Node Problem Detector condition per area)\n"
    "  --nfd FILE      also write Node Feature Discovery labels (features.d format) to FILE,\n"
    "                  atomically: the verdict per workload, the narrowest GPU link, GPUs and\n"
    "                  memory on one NUMA node, memory channels full\n"
    "  --nfd-interval SECONDS  how often the check runs (default %g): the labels expire after\n"
    "                  twice that\n"
    "  --expect-gpus N  the node should show N accelerators: fewer fails it (GPU_LOST)\n"
    "  --kernel-log FILE  judge this saved kernel log instead of the live one (GPU_XID_ERRORS,\n"
    "                  PCIE_AER_ERRORS)\n"
    "  --xid-fatal LIST, --xid-ignore LIST  Xid codes (48,79) judged as faults, or ignored\n"
    "  --nvidia-smi FILE  the GPUs as these nvidia-smi files describe them, not as NVML sees them\n"
    "                  (as gpuvet audit --nvidia-smi; again for more files of the same node)\n"
    "  --slurm         on a fail, drain this node: scontrol update NodeName=NODE State=DRAIN\n"
    "                  Reason=\"gpuvet:RULE_ID subject\"; when clean again, resume a node gpuvet\n"
    "                  drained. A node drained or down for any other reason is never touched.\n"
    "                  This is the one thing gpuvet changes, through the scheduler, because you ask.\n"
    "                  slurm.conf: SLURM_CONF, else the one slurmd runs with, else Slurm's defaults;\n"
    "                  drains, resumes and errors also go to syslog (ident gpuvet)\n"
    "  --node NAME     the Slurm node name (default: SLURMD_NODENAME, else the short host name)\n"
    "  --scontrol PATH scontrol to run (default: /usr/bin/scontrol, /usr/local/bin/scontrol, then\n"
    "                  PATH); each call is stopped after 10 s\n"
    "\n"
    "exit status: 0 OK, 1 the node has a problem, 2 could not check (or scontrol failed)\n");

/* health_areas[] joined with the reader's ", ", and with "or" before the last when or_last. */
static void area_list(char *buf, size_t n, bool or_last)
{
    size_t len = 0;
    int count = 0;
    while (health_areas[count])
        count++;
    buf[0] = '\0';
    for (int i = 0; i < count && len < n; i++) {
        if (or_last && i == count - 1 && i > 0) {
            char head[256];
            snprintf(head, sizeof head, "%s", buf);
            snprintf(buf, n, _("%s or %s"), head, health_areas[i]);
            return;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? _(", ") : "", health_areas[i]);
    }
}

/* The usage with the areas of health_areas[], the one list, and the default NFD interval. */
static void print_usage(FILE *o)
{
    char areas[256];
    area_list(areas, sizeof areas, false);
    char *text = NULL;
    if (asprintf(&text, _(usage), areas, HEALTH_NFD_INTERVAL_DEFAULT) < 0)
        abort();
    print_help(o, text);
    free(text);
}

struct health_options {
    const char *sysroot, *prom, *node, *scontrol, *area, *nfd;
    double nfd_interval;
    enum workload workload;
    bool fail_on_warn, slurm;
    struct gpu_fault_options faults;
    struct audit_request evidence; /* --nvidia-smi files */
};

/* Parses argv into o; returns -1 to exit EXIT_CANNOT_RUN, 1 to exit 0 (--help), 0 to go on. */
static int parse_options(int argc, char **argv, struct health_options *o)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"workload", required_argument, NULL, 'w'},
        {"fail-on-warn", no_argument, NULL, 'W'},  {"prom", required_argument, NULL, 'P'},
        {"slurm", no_argument, NULL, 'S'},         {"node", required_argument, NULL, 'n'},
        {"scontrol", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
        {"area", required_argument, NULL, 'a'},    {"nfd", required_argument, NULL, 'D'},
        {"nfd-interval", required_argument, NULL, 'T'}, {"nvidia-smi", required_argument, NULL, 'N'},
        GPU_FAULT_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:w:h", options, NULL)) != -1) {
        switch (c) {
        case 's': o->sysroot = optarg; break;
        case 'w':
            if (!workload_parse(optarg, &o->workload)) {
                option_invalid("health", "workload", optarg, workload_names_hint);
                return -1;
            }
            break;
        case 'W': o->fail_on_warn = true; break;
        case 'P': o->prom = optarg; break;
        case 'S': o->slurm = true; break;
        case 'n': o->node = optarg; break;
        case 'C': o->scontrol = optarg; break;
        case 'a':
            if (!health_area_known(optarg)) {
                char areas[256];
                area_list(areas, sizeof areas, true);
                option_invalid("health", "area", optarg, areas);
                return -1;
            }
            o->area = optarg;
            break;
        case 'D': o->nfd = optarg; break;
        case 'T':
            if (!option_seconds("health", "nfd-interval", optarg, false, 7 * 86400, &o->nfd_interval))
                return -1;
            break;
        case 'N':
            if (!nvidia_smi_option("health", optarg, &o->evidence))
                return -1;
            break;
        case 'h': print_usage(stdout); return 1;
        default: {
            int taken = gpu_fault_option("health", c, optarg, &o->faults);
            if (taken < 0)
                return -1;
            if (taken == 0) {
                option_error(options, argv);
                return -1;
            }
        }
        }
    }
    if (optind < argc) {
        print_error("health", _("unexpected argument '%s'"), argv[optind]);
        print_usage(stderr);
        return -1;
    }
    if ((o->node || o->scontrol) && !o->slurm) {
        print_error("health", _("--node and --scontrol go with --slurm"));
        return -1;
    }
    return gpu_fault_options_apply("health", &o->faults) && evidence_files_check("health", &o->evidence) ? 0 : -1;
}

int cmd_health(int argc, char **argv)
{
    struct health_options o = {.workload = WL_GENERAL, .nfd_interval = HEALTH_NFD_INTERVAL_DEFAULT};
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : EXIT_CANNOT_RUN;
    /* A --prom or --nfd FILE that cannot be written fails before any verdict is printed. */
    if (o.prom && output_target_check_option("health", "--prom", o.prom) != 0)
        return EXIT_CANNOT_RUN;
    if (o.nfd && !output_is_stdout(o.nfd) && output_target_check_option("health", "--nfd", o.nfd) != 0)
        return EXIT_CANNOT_RUN;

    struct health_request req = {.sysroot = o.sysroot, .workload = o.workload, .fail_on_warn = o.fail_on_warn,
                                 .verdict = o.prom != NULL, .area = o.area, .every_workload = o.nfd != NULL,
                                 .kernel_log = o.faults.kernel_log, .expect_gpus = o.faults.expect_gpus,
                                 .xid = &o.faults.xid,
                                 .nvidia_smi = o.evidence.nvidia_smi, .n_nvidia_smi = o.evidence.n_nvidia_smi};
    struct health_check h;
    int rc = health_check_run(&req, &h);
    /* --prom first: a file that cannot be written is an error (exit 2), and then no "OK" is
     * printed above it; a problem found is still printed. */
    bool prom_failed = rc == 0 && o.prom && health_report_prom(o.prom, &h) != 0;
    if (!prom_failed || h.problem)
        health_report_text(stdout, stderr, &h);
    int status = rc != 0 ? EXIT_CANNOT_RUN : h.problem ? EXIT_VERDICT_FAIL : 0;
    if (rc != 0 && o.slurm)
        health_report_syslog_unchecked(&h); /* slurmd does not log the program's stderr */
    if (rc == 0 && o.slurm) {
        char what[1024], why[4096];
        bool changed;
        int told = health_tell_slurm(o.scontrol, o.node, h.problem, &changed, what, sizeof what, why, sizeof why);
        health_report_slurm(stderr, told, what, why);
        health_report_syslog_slurm(told, changed, what, why);
        if (told != 0)
            status = EXIT_CANNOT_RUN;
    }
    if (prom_failed)
        status = EXIT_CANNOT_RUN;
    if (rc == 0 && o.nfd && health_report_nfd(o.nfd, &h, o.nfd_interval, time(NULL)) != 0)
        status = EXIT_CANNOT_RUN;
    health_check_free(&h);
    return status;
}
