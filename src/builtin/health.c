#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin/builtin.h"
#include "probe/probe.h"
#include "report/report.h"
#include "slurm/slurm.h"
#include "util/fsroot.h"
#include "util/parse.h"
#include "util/i18n.h"

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
                option_invalid("health", "workload", optarg, WORKLOAD_NAMES_HINT);
                return -1;
            }
            break;
        case 'W': o->fail_on_warn = true; break;
        case 'P': o->prom = optarg; break;
        case 'S': o->slurm = true; break;
        case 'n': o->node = optarg; break;
        case 'C': o->scontrol = optarg; break;
        case 'h': fputs(_(usage), stdout); return 1;
        default: fputs(_(usage), stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, _("gpuvet health: unexpected argument '%s'\n%s"), argv[optind], _(usage));
        return -1;
    }
    if ((o->node || o->scontrol) && !o->slurm) {
        fprintf(stderr, _("gpuvet health: --node and --scontrol go with --slurm\n"));
        return -1;
    }
    return 0;
}

/* Drains or resumes this node for the verdict; 0, or -1 after saying why on stderr. */
static int tell_slurm(const struct health_options *o, const struct finding *problem)
{
    char scontrol[4096], node[256], reason[512], what[1024], err[1024];
    if (slurm_find_scontrol(o->scontrol, scontrol, sizeof scontrol, err, sizeof err) != 0) {
        fprintf(stderr, _("gpuvet health: %s\n"), err);
        return -1;
    }
    if (o->node)
        snprintf(node, sizeof node, "%s", o->node);
    else
        slurm_node_name(node, sizeof node);
    if (problem)
        health_drain_reason(reason, sizeof reason, problem);
    enum slurm_outcome outcome;
    if (slurm_apply(scontrol, node, problem ? reason : NULL, &outcome, what, sizeof what, err, sizeof err) != 0) {
        fprintf(stderr, _("gpuvet health: %s\n"), err);
        return -1;
    }
    fprintf(stderr, _("gpuvet health: slurm: %s\n"), what);
    return 0;
}

int cmd_health(int argc, char **argv)
{
    struct health_options o = {.workload = WL_GENERAL};
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : EXIT_CANNOT_RUN;

    double start = now_s();
    fsroot_set(o.sysroot);
    struct machine m;
    machine_init(&m);
    if (probe_machine(&m, true) != 0) {
        /* Unknown, not a fail: the node is neither drained nor resumed on a check that did not run. */
        char line[HEALTH_REASON_MAX + 1];
        snprintf(line, sizeof line, "gpuvet: UNKNOWN %s: %s", m.nproblems ? m.problems[0].path : "probe",
                 m.nproblems ? m.problems[0].message : "the machine could not be read");
        printf("%s\n", line);
        for (int i = 0; i < m.nproblems; i++)
            fprintf(stderr, _("gpuvet health: %s: %s\n"), m.problems[i].path, m.problems[i].message);
        machine_free(&m);
        return EXIT_CANNOT_RUN;
    }
    probe_contention(&m, 0); /* no sample window: the check must stay fast */
    struct findings findings = {0};
    rules_run(&m, o.workload, NULL, &findings);

    enum severity threshold = o.fail_on_warn ? SEV_WARN : SEV_FAIL;
    char line[HEALTH_REASON_MAX + 1];
    health_reason(line, &findings, threshold);
    printf("%s\n", line);
    fflush(stdout);
    for (int i = 0; i < findings.count; i++)
        if (findings.items[i].severity >= SEV_WARN)
            fprintf(stderr, "%s %s %s: %s\n", severity_name(findings.items[i].severity), findings.items[i].rule->id,
                    findings.items[i].subject, finding_message(&findings.items[i]));

    const struct finding *problem = health_worst(&findings, threshold);
    int status = problem ? EXIT_VERDICT_FAIL : 0;
    if (o.slurm && tell_slurm(&o, problem) != 0)
        status = EXIT_CANNOT_RUN;
    if (o.prom) {
        struct workload_verdict verdict;
        verdict_judge(&verdict, &m, o.workload, &findings);
        struct prom_report pr = {"health", &m, &findings, NULL, now_s() - start, time(NULL), &verdict};
        if (report_prom_file(o.prom, &pr) != 0)
            status = EXIT_CANNOT_RUN;
        workload_verdict_free(&verdict);
    }
    findings_free(&findings);
    machine_free(&m);
    return status;
}
