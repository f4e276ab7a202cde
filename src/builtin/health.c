/* gpuvet health: the options, then health/health.c checks (and tells Slurm) and report/ prints. */
#include <getopt.h>
#include <stdio.h>

#include "builtin/builtin.h"
#include "health/health.h"
#include "report/health_report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/parse.h"

static const char usage[] =
     N_("usage: gpuvet health [--sysroot DIR] [--workload W] [--fail-on-warn] [--prom FILE]\n"
    "                     [--slurm [--node NAME] [--scontrol PATH]]\n"
    "\n"
    "The fast check for Slurm's HealthCheckProgram and Node Problem Detector's custom plugins: the\n"
    "audit's rules without benchmarks and without the CPU-use sample. stdout is one line of at most\n"
    "80 bytes (\"gpuvet: OK\" or \"gpuvet: FAIL RULE_ID subject: message\"); every problem is on stderr.\n"
    "\n"
    "  --sysroot DIR   check a recorded machine (as gpuvet audit --sysroot)\n"
    "  --workload W    general (default), cv-train, llm-train, llm-infer, render, hpc\n"
    "  --fail-on-warn  warnings fail the node too (default: only the audit's fails do)\n"
    "  --prom FILE     also write node_exporter's textfile format to FILE, atomically\n"
    "  --slurm         on a fail, drain this node: scontrol update NodeName=NODE State=DRAIN\n"
    "                  Reason=\"gpuvet: RULE_ID subject\"; when clean again, resume a node gpuvet\n"
    "                  drained. A node drained or down for any other reason is never touched.\n"
    "                  This is the one thing gpuvet changes, through the scheduler, because you ask.\n"
    "  --node NAME     the Slurm node name (default: SLURMD_NODENAME, else the short host name)\n"
    "  --scontrol PATH scontrol to run (default: /usr/bin/scontrol, /usr/local/bin/scontrol, then\n"
    "                  PATH); each call is stopped after 10 s\n"
    "\n"
    "exit status: 0 OK, 1 the node has a problem, 2 could not check (or scontrol failed)\n");

struct health_options {
    const char *sysroot, *prom, *node, *scontrol;
    enum workload workload;
    bool fail_on_warn, slurm;
};

/* Parses argv into o; returns -1 to exit EXIT_CANNOT_RUN, 1 to exit 0 (--help), 0 to go on. */
static int parse_options(int argc, char **argv, struct health_options *o)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"workload", required_argument, NULL, 'w'},
        {"fail-on-warn", no_argument, NULL, 'W'},  {"prom", required_argument, NULL, 'P'},
        {"slurm", no_argument, NULL, 'S'},         {"node", required_argument, NULL, 'n'},
        {"scontrol", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
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
        case 'h': fputs(_(usage), stdout); return 1;
        default: option_error(options, argv); return -1;
        }
    }
    if (optind < argc) {
        print_error("health", _("unexpected argument '%s'"), argv[optind]);
        fputs(_(usage), stderr);
        return -1;
    }
    if ((o->node || o->scontrol) && !o->slurm) {
        print_error("health", _("--node and --scontrol go with --slurm"));
        return -1;
    }
    return 0;
}

int cmd_health(int argc, char **argv)
{
    struct health_options o = {.workload = WL_GENERAL};
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : EXIT_CANNOT_RUN;

    struct health_request req = {.sysroot = o.sysroot, .workload = o.workload, .fail_on_warn = o.fail_on_warn,
                                 .verdict = o.prom != NULL};
    struct health_check h;
    int rc = health_check_run(&req, &h);
    /* --prom first: a file that cannot be written is an error (exit 2), and then no "OK" is
     * printed above it; a problem found is still printed. */
    bool prom_failed = rc == 0 && o.prom && health_report_prom(o.prom, &h) != 0;
    if (!prom_failed || h.problem)
        health_report_text(stdout, stderr, &h);
    int status = rc != 0 ? EXIT_CANNOT_RUN : h.problem ? EXIT_VERDICT_FAIL : 0;
    if (rc == 0 && o.slurm) {
        char what[1024], why[1024];
        int told = health_tell_slurm(o.scontrol, o.node, h.problem, what, sizeof what, why, sizeof why);
        health_report_slurm(stderr, told, what, why);
        if (told != 0)
            status = EXIT_CANNOT_RUN;
    }
    if (prom_failed)
        status = EXIT_CANNOT_RUN;
    health_check_free(&h);
    return status;
}
