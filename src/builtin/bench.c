#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/wrap.h"
#include "bench/bench.h"
#include "bench/gpu_burn.h"
#include "builtin/builtin.h"
#include "builtin/parse_options.h"
#include "probe/probe.h"
#include "report/bench_text.h"
#include "report/report.h"
#include "rules/workload.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"
#include "util/parse.h"
#include "util/suggest.h"

static const struct opt_command bench_command_help = {
    .name = "bench",
    .usage = N_("usage: gpuvet bench [%s|all]... [options]\n\n"),
    .footer = N_("A saved --json file feeds `gpuvet audit --bench FILE`.\n"
                 "exit status: 0 measured, 2 could not run (bad usage, or nothing selected could be measured)\n"),
};

/* 0 when at least one benchmark measured and none failed, EXIT_CANNOT_RUN otherwise (*why says
 * which, for stderr: the report itself may have gone to a file). */
static int document_status(json_t *doc, const char **why)
{
    const char *name;
    json_t *r;
    int measured = 0, failed = 0;
    json_object_foreach(json_object_get(doc, "benchmarks"), name, r) {
        if (json_object_get(r, "error"))
            failed++;
        else if (!json_object_get(r, "skipped"))
            measured++;
    }
    *why = failed ? N_("a benchmark failed (the report says which and why)")
                  : N_("nothing selected could be measured (the report says why)");
    return measured > 0 && failed == 0 ? 0 : EXIT_CANNOT_RUN;
}

/* --output: stdout goes to a temporary file until the benchmarks have run (cmd_bench ends it). */
static struct output_file output = {.saved_stdout = -1};

static int run_bench(int argc, char **argv)
{
    struct bench_opts opts = {.dir = ".", .cpu = -1, .a100_resnet50_img_s = thresholds_for(WL_CV_TRAIN)->cv_reference_img_s};
    bool json = false;
    const char *prom_file = NULL;
    const char *output_pattern = NULL;
    struct opt table[] = {
        OPT_FLAG("quick", 'q', &opts.quick, N_("shorter runs, same methods (all of them in under 30 s on 2 cores)")),
        OPT_FLAG("json", 'j', &json, N_("write the gpuvet.bench/1 JSON document (docs/bench-json.md)")),
        OPT_DIR("dir", 'd', &opts.dir, "DIR",
                N_("where storage writes its test file (default: %s); it is removed at the end and on Ctrl-C")),
        OPT_FILE("file", 'f', &opts.file, "FILE",
                 N_("storage reads this existing file instead (a shard of your dataset, at least 64 MiB); it is only "
                    "read, never written or removed")),
        {.kind = OPT_KIND_SECONDS, .name = "seconds", .short_name = 's', .value = &opts.seconds, .max = 3600,
         .metavar = "S", .flags = OPT_SHOWN_DEFAULT, .shown_default = JITTER_SECONDS_DEFAULT,
         .shown_next = JITTER_SECONDS_QUICK, .help = N_("how long jitter runs (default %s, %s with --quick)")},
        OPT_DIR("images", 'i', &opts.images, "DIR",
                N_("JPEGs of your own dataset for decode (default: ImageNet-sized photographs made once from the "
                   "mate-backgrounds package, cached in ~/.cache/gpuvet)")),
        OPT_INT("cpu", 'c', &opts.cpu, 0, 1 << 20, "N", N_("the CPU jitter runs on (default: the last usable one)")),
        OPT_FLAG("burn", 0, &opts.burn,
                 N_("gpu: instead of the per-GPU measurements, a BF16 tensor-core GEMM (cuBLAS) on every GPU at once, "
                    "results compared, NVML watched every second")),
        {.kind = OPT_KIND_SECONDS, .name = "duration", .value = &opts.burn_seconds, .max = 86400, .metavar = "S",
         .flags = OPT_SHOWN_DEFAULT, .shown_default = GPU_BURN_DEFAULT_SECONDS,
         .help = N_("how long --burn runs (default %s)")},
        OPT_FILE("prom", 0, &prom_file, "FILE",
                 N_("also write the figures in node_exporter's textfile format (bytes per second, seconds), "
                    "atomically")),
        OPT_FILE("output", 0, &output_pattern, "FILE",
                 N_("write the report to FILE (replaced atomically, only when the run exits 0); %h in FILE is this "
                    "host's short name: --output DIR/%h-bench.json on every node")),
        OPT_END(),
    };
    /* The benchmarks bench knows, from its registry: the usage line and the completion read them. */
    char operands[256] = "";
    for (int k = 0; k < bench_count; k++)
        snprintf(operands + strlen(operands), sizeof operands - strlen(operands), "%s%s", k ? "|" : "",
                 bench_table[k]->name);
    struct opt_command help = bench_command_help;
    help.operands = operands;
    int rc = opt_parse(&help, table, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    const char **names = NULL;
    int nnames = 0;
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], "all")) {
            nnames = 0;
            break;
        }
        if (!bench_find(argv[i])) {
            const char *known[32];
            size_t nknown = 0;
            for (int k = 0; k < bench_count && nknown < 31; k++)
                known[nknown++] = bench_table[k]->name;
            known[nknown++] = "all";
            const char *closest = closest_name(argv[i], known, nknown);
            if (closest)
                print_error("bench", _("unknown benchmark '%s'; did you mean %s?"), argv[i], closest);
            else {
                print_error("bench", _("unknown benchmark '%s'"), argv[i]);
                opt_usage(stderr, &help, table);
            }
            free(names);
            return EXIT_CANNOT_RUN;
        }
        names = realloc(names, (size_t)(nnames + 1) * sizeof *names);
        names[nnames++] = argv[i];
    }

    if (prom_file && output_target_check_option("bench", "--prom", prom_file) != 0) {
        free(names);
        return EXIT_CANNOT_RUN;
    }
    if (output_pattern && output_file_begin(&output, output_pattern, "bench") != 0) {
        free(names);
        return EXIT_CANNOT_RUN;
    }
    time_t started = time(NULL);
    /* This machine, through the one door: no evidence files, no rules (pipeline/audit.h). The
     * result's machine is bench's from here on. */
    struct audit_request machine_only = {
        .depth = AUDIT_MACHINE, .no_sample_why = N_("bench takes no CPU-use sample (gpuvet audit does)")};
    struct audit_result audit;
    enum audit_status probed = audit_run(&machine_only, &audit);
    struct machine m = audit.machine;
    free(audit.error);
    if (probed != AUDIT_DONE) {
        for (int i = 0; i < m.nproblems; i++)
            print_error("bench", _("%s: %s"), m.problems[i].path, m.problems[i].message);
        machine_free(&m);
        free(names);
        return EXIT_CANNOT_RUN;
    }
    /* One benchmark named on the command line that cannot run here says so instead of writing a
     * document that measured nothing. */
    const char *why = NULL;
    if (nnames == 1 && bench_find(names[0])->unavailable_reason)
        why = bench_find(names[0])->unavailable_reason(&m);
    if (why) {
        print_error("bench", _("%s: %s"), names[0], _(why));
        machine_free(&m);
        free(names);
        return EXIT_CANNOT_RUN;
    }
    /* The burn reads the kernel log for new Xids through the pipeline's reader (bench reads no log). */
    opts.read_kernel_log = audit_read_kernel_log;
    /* The JSON is English: its texts (and strerror's) are made in an English scope. */
    if (json)
        i18n_english_begin();
    json_t *doc = bench_run_document(&m, &opts, nnames ? names : NULL, nnames, isatty(STDERR_FILENO));
    if (json)
        i18n_english_end();
    free(names);
    if (json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        fputc('\n', stdout);
    } else {
        bench_report_text(stdout, doc);
    }
    const char *failure;
    int status = document_status(doc, &failure);
    if (status != 0)
        print_error("bench", "%s", _(failure));
    struct prom_report prom = {"bench", &m, NULL, doc, difftime(time(NULL), started), time(NULL), NULL};
    if (prom_file && report_prom_file(prom_file, &prom) != 0)
        status = EXIT_CANNOT_RUN;
    json_decref(doc);
    machine_free(&m);
    return status;
}

int cmd_bench(int argc, char **argv)
{
    int status = run_bench(argc, argv);
    if (output_file_end(&output, status != EXIT_CANNOT_RUN, "bench") != 0)
        status = EXIT_CANNOT_RUN;
    return status;
}
