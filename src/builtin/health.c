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

static const struct opt_command health_command_help = {
    .name = "health",
    .synopsis = true,
    .usage = N_("usage: gpuvet health %s\n"
                "\n"
                "The fast check for Slurm's HealthCheckProgram and Node Problem Detector's custom plugins: the "
                "audit's rules without benchmarks and without the CPU-use sample. stdout is one line of at most "
                "80 bytes (\"gpuvet: OK\" or \"gpuvet: FAIL RULE_ID subject: message\"); every problem is on stderr.\n"
                "\n"),
    .footer = N_("exit status: 0 OK, 1 the node has a problem, 2 could not check (or scontrol failed)\n"),
};

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

struct health_options {
    const char *sysroot, *prom, *node, *scontrol, *area, *nfd;
    double nfd_interval;
    enum workload workload;
    bool fail_on_warn, slurm;
    struct gpu_fault_options faults;
    struct audit_request evidence; /* --nvidia-smi files */
};

static enum opt_result area_row(const char *cmd, const struct opt *row, const char *value)
{
    if (health_area_known(value)) {
        *(const char **)row->value = value;
        return OPT_TAKEN;
    }
    char areas[256];
    area_list(areas, sizeof areas, true);
    option_invalid(cmd, row->name, value, areas);
    return OPT_BAD;
}

/* Parses argv into o; returns -1 to exit EXIT_CANNOT_RUN, 1 to exit 0 (--help), 0 to go on. */
static int parse_options(int argc, char **argv, struct health_options *o)
{
    /* --area's metavar: the areas of health_areas[], the one list */
    char areas[256] = "";
    for (int i = 0; health_areas[i]; i++)
        snprintf(areas + strlen(areas), sizeof areas - strlen(areas), "%s%s", i ? "|" : "", health_areas[i]);
    struct opt table[] = {
        OPT_SYSROOT_ROW(&o->sysroot),
        OPT_WORKLOAD_ROW(&o->workload),
        OPT_FLAG("fail-on-warn", 0, &o->fail_on_warn, N_("warnings fail the node too (default: only the audit's fails do)")),
        OPT_PROM_ROW(&o->prom),
        OPT_CALLBACK("area", 0, &o->area, area_row, 0, areas,
                     N_("only the rules of one area count (one Node Problem Detector condition per area)")),
        OPT_FILE("nfd", 0, &o->nfd, "FILE",
                 N_("also write Node Feature Discovery labels (features.d format) to FILE, atomically: the verdict per "
                    "workload, the narrowest GPU link, GPUs and memory on one NUMA node, memory channels full")),
        OPT_SECONDS("nfd-interval", 0, &o->nfd_interval, 7 * 86400, 0, "SECONDS",
                    N_("how often the check runs (default %s): the labels expire after twice that")),
        OPT_NVIDIA_SMI_ROW(&o->evidence),
        OPT_GPU_FAULT_ROWS(&o->faults),
        OPT_FLAG("slurm", 0, &o->slurm,
                 N_("on a fail, drain this node: scontrol update NodeName=NODE State=DRAIN Reason=\"gpuvet:RULE_ID "
                    "subject\"; when clean again, resume a node gpuvet drained. A node drained or down for any other "
                    "reason is never touched. This is the one thing gpuvet changes, through the scheduler, because you "
                    "ask. slurm.conf: SLURM_CONF, else the one slurmd runs with, else Slurm's defaults; drains, resumes "
                    "and errors also go to syslog (ident gpuvet)")),
        OPT_STRING("node", 0, &o->node, "NAME",
                   N_("with --slurm: the Slurm node name (default: SLURMD_NODENAME, else the short host name)")),
        OPT_FILE("scontrol", 0, &o->scontrol, "PATH",
                 N_("with --slurm: scontrol to run (default: /usr/bin/scontrol, /usr/local/bin/scontrol, then PATH); "
                    "each call is stopped after 10 s")),
        OPT_END(),
    };
    int parsed = opt_parse(&health_command_help, table, argc, argv);
    if (parsed)
        return parsed < 0 ? 1 : -1;
    if (optind < argc) {
        print_error("health", _("unexpected argument '%s'"), argv[optind]);
        opt_usage(stderr, &health_command_help, table);
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
