#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "builtin/builtin.h"
#include "probe/probe.h"
#include "report/report.h"
#include "util/fsroot.h"

static const char usage[] =
    "usage: gpuvet audit [--sysroot DIR] [--workload W] [--json] [--verbose]\n"
    "                    [--bench FILE | --bench-quick]\n"
    "       gpuvet audit --list-rules\n"
    "\n"
    "  --sysroot DIR   audit a recorded machine (DIR/sys, DIR/proc; a `gpuvet snapshot` or an\n"
    "                  hwloc-gather-topology tree) instead of this one\n"
    "  --workload W    general (default), cv-train, llm-train, llm-infer, render, hpc\n"
    "  --json          write the gpuvet.audit/1 JSON document (docs/audit-json.md)\n"
    "  --verbose       list passed checks too\n"
    "  --bench FILE    judge the measurements of a saved `gpuvet bench --json` document\n"
    "  --bench-quick   measure first (`gpuvet bench memory pcie storage --quick` in .) and judge that\n"
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

/* Fills m->bench from a saved document, or (file NULL) from a quick run of the benchmarks that
 * rules judge. */
static int load_bench(struct machine *m, const char *file)
{
    json_t *doc;
    json_error_t error;
    if (file) {
        doc = json_load_file(file, 0, &error);
        if (!doc) {
            fprintf(stderr, "gpuvet audit: %s: not a JSON document (%s, line %d)\n", file, error.text, error.line);
            return -1;
        }
    } else {
        static const char *const judged[] = {"memory", "pcie", "storage"};
        struct bench_opts opts = {.quick = true, .dir = ".", .cpu = -1};
        doc = bench_run_document(m, &opts, judged, 3, isatty(STDERR_FILENO));
    }
    char why[512];
    int rc = bench_results_from_json(&m->bench, doc, file ? file : "bench-quick", why, sizeof why);
    if (rc != 0)
        fprintf(stderr, "gpuvet audit: %s: %s\n", file ? file : "bench-quick", why);
    json_decref(doc);
    return rc;
}

int cmd_audit(int argc, char **argv)
{
    static const struct option options[] = {
        {"sysroot", required_argument, NULL, 's'}, {"workload", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'j'},          {"verbose", no_argument, NULL, 'v'},
        {"list-rules", no_argument, NULL, 'l'},    {"help", no_argument, NULL, 'h'},
        {"bench", required_argument, NULL, 'b'},   {"bench-quick", no_argument, NULL, 'B'},
        {NULL, 0, NULL, 0},
    };
    const char *sysroot = NULL, *bench_file = NULL;
    bool bench_quick = false;
    enum workload workload = WL_GENERAL;
    bool json = false, verbose = false;
    int c;
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
        case 'j': json = true; break;
        case 'v': verbose = true; break;
        case 'b': bench_file = optarg; break;
        case 'B': bench_quick = true; break;
        case 'l': return list_rules();
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return EXIT_CANNOT_RUN;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuvet audit: unexpected argument '%s'\n%s", argv[optind], usage);
        return EXIT_CANNOT_RUN;
    }

    if (bench_quick && (sysroot || bench_file)) {
        fprintf(stderr, "gpuvet audit: --bench-quick measures this machine; it goes with neither --sysroot nor "
                        "--bench\n");
        return EXIT_CANNOT_RUN;
    }

    double start = now_ms();
    fsroot_set(sysroot);
    struct machine m;
    machine_init(&m);
    if (probe_machine(&m, true) != 0) {
        for (int i = 0; i < m.nproblems; i++)
            fprintf(stderr, "gpuvet audit: %s: %s\n", m.problems[i].path, m.problems[i].message);
        machine_free(&m);
        return EXIT_CANNOT_RUN;
    }
    if ((bench_file || bench_quick) && load_bench(&m, bench_file) != 0) {
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
