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
#include "rules/workload.h"
#include "util/fsroot.h"
#include "util/output_file.h"

static const char usage[] =
    "usage: gpuvet bench [memory|latency|pcie|storage|jitter|decode|all]... [options]\n"
    "\n"
    "  --quick         shorter runs, same methods (all of them in under 30 s on 2 cores)\n"
    "  --json          write the gpuvet.bench/1 JSON document (docs/bench-json.md)\n"
    "  --dir DIR       where storage writes its test file (default: .); it is removed at the end\n"
    "                  and on Ctrl-C\n"
    "  --file FILE     storage reads this existing file instead (a shard of your dataset, at least\n"
    "                  64 MiB); it is only read, never written or removed\n"
    "  --seconds S     how long jitter runs (default 20, 3 with --quick)\n"
    "  --images DIR    JPEGs of your own dataset for decode (default: ImageNet-sized photographs\n"
    "                  made once from the mate-backgrounds package, cached in ~/.cache/gpuvet)\n"
    "  --cpu N         the CPU jitter runs on (default: the last usable one)\n"
    "  --prom FILE     also write the figures in node_exporter's textfile format (bytes per second,\n"
    "                  seconds), atomically\n"
    "  --output FILE   write the report to FILE (replaced atomically, only when the run exits 0);\n"
    "                  %h in FILE is this host's short name: --output DIR/%h-bench.json on every node\n"
    "\n"
    "A saved --json file feeds `gpuvet audit --bench FILE`.\n"
    "exit status: 0 measured, 2 could not run (bad usage, or nothing selected could be measured)\n";

static void print_gb(const char *label, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        printf("  %-8s %8.2f GB/s\n", label, json_number_value(v) / 1e9);
}

static void print_memory(json_t *r)
{
    json_t *bits = json_object_get(r, "vector_bits");
    printf("  kernel   %s (%s%s), %lld threads, arrays of %lld MiB\n", json_string_value(json_object_get(r, "kernel")),
           json_is_integer(bits) ? "" : "compiler's vector width",
           json_is_true(json_object_get(r, "nontemporal_stores")) ? "non-temporal stores" : "regular stores",
           json_integer_value(json_object_get(r, "threads")),
           json_integer_value(json_object_get(r, "array_bytes")) >> 20);
    if (json_is_integer(bits))
        printf("           %lld-bit vectors\n", json_integer_value(bits));
    print_gb("copy", r, "copy_bytes_s");
    print_gb("scale", r, "scale_bytes_s");
    print_gb("add", r, "add_bytes_s");
    print_gb("triad", r, "triad_bytes_s");
    json_t *fraction = json_object_get(r, "fraction_of_theoretical");
    if (json_is_number(fraction))
        printf("  triad is %.0f%% of the theoretical %.1f GB/s\n", json_number_value(fraction) * 100,
               json_number_value(json_object_get(r, "theoretical_bytes_s")) / 1e9);
    else
        printf("  theoretical bandwidth unknown: %s\n", json_string_value(json_object_get(r, "theoretical_unknown")));
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(r, "per_node"), i, node)
        printf("  node %lld (CPUs %s): triad %.2f GB/s\n", json_integer_value(json_object_get(node, "node")),
               json_string_value(json_object_get(node, "cpus")),
               json_number_value(json_object_get(node, "triad_bytes_s")) / 1e9);
}

static void print_latency(json_t *r)
{
    json_t *mem = json_object_get(r, "memory_nodes"), *cpus = json_object_get(r, "cpu_nodes");
    printf("  ns, CPU node (rows) reading memory node (columns); kernel distance in brackets\n  %8s", "");
    size_t i, k;
    json_t *v;
    json_array_foreach(mem, k, v) printf(" %12lld", json_integer_value(v));
    printf("\n");
    json_array_foreach(cpus, i, v) {
        printf("  %8lld", json_integer_value(v));
        json_t *row = json_array_get(json_object_get(r, "matrix_ns"), i);
        json_t *dist = json_array_get(json_object_get(r, "kernel_distances"), i);
        for (k = 0; k < json_array_size(mem); k++) {
            json_t *ns = json_array_get(row, k), *d = json_array_get(dist, k);
            char cell[32];
            if (json_is_number(ns))
                snprintf(cell, sizeof cell, "%.1f [%lld]", json_number_value(ns), json_integer_value(d));
            else
                snprintf(cell, sizeof cell, "-");
            printf(" %12s", cell);
        }
        printf("\n");
    }
}

static void print_storage(json_t *r)
{
    printf("  sequential read  %8.2f GB/s  (1 MiB, O_DIRECT, QD %lld, %s)\n",
           json_number_value(json_object_get(r, "seq_read_bytes_s")) / 1e9,
           json_integer_value(json_object_get(r, "queue_depth")), json_string_value(json_object_get(r, "engine")));
    printf("  random read      %8.0f IOPS  (4 KiB)\n", json_number_value(json_object_get(r, "rand_read_iops")));
    const char *file = json_string_value(json_object_get(r, "file"));
    if (file)
        printf("  from %s, %lld MiB (only read)\n", file,
               json_integer_value(json_object_get(r, "file_bytes")) >> 20);
    else
        printf("  in %s, a %lld MiB file written for the test (removed)\n", json_string_value(json_object_get(r, "dir")),
               json_integer_value(json_object_get(r, "file_bytes")) >> 20);
}

static void print_jitter(json_t *r)
{
    printf("  CPU %lld, %lld wake-ups: p50 %.1f us, p99 %.1f us, max %.1f us\n",
           json_integer_value(json_object_get(r, "cpu")), json_integer_value(json_object_get(r, "samples")),
           json_number_value(json_object_get(r, "p50_us")), json_number_value(json_object_get(r, "p99_us")),
           json_number_value(json_object_get(r, "max_us")));
    json_t *steal = json_object_get(r, "steal_percent");
    if (json_is_number(steal))
        printf("  steal %.2f%%, preempted %lld times\n", json_number_value(steal),
               json_integer_value(json_object_get(r, "involuntary_switches")));
    const char *why = json_string_value(json_object_get(r, "explanation"));
    if (why)
        printf("  %s\n", why);
}

static void print_decode(json_t *r)
{
    json_t *feeds = json_object_get(r, "feeds_gpus");
    printf("  one core:   %7.0f images/s (decode+crop+flip), decode alone %6.1f Mpix/s\n",
           json_number_value(json_object_get(r, "images_s_per_core")),
           json_number_value(json_object_get(r, "decode_only_mpix_s_per_core")));
    printf("  %3lld cores:  %7.0f images/s, decode alone %6.1f Mpix/s\n", json_integer_value(json_object_get(r, "cores")),
           json_number_value(json_object_get(r, "images_s_all_cores")),
           json_number_value(json_object_get(r, "decode_only_mpix_s_all_cores")));
    printf("  this CPU feeds %.2f A100s or %.2f H100s (estimated rate) at ResNet-50 training rates\n",
           json_number_value(json_object_get(feeds, "a100")), json_number_value(json_object_get(feeds, "h100")));
    json_t *set = json_object_get(r, "images");
    printf("  images: %lld from %s\n", json_integer_value(json_object_get(set, "count")),
           json_string_value(json_object_get(set, "dir")));
}

static void print_pcie(json_t *r)
{
    size_t i;
    json_t *gpu;
    json_array_foreach(r, i, gpu)
        printf("  %s  H2D %.2f GB/s  D2H %.2f GB/s (pinned, NUMA node %lld)\n",
               json_string_value(json_object_get(gpu, "bus_id")),
               json_number_value(json_object_get(gpu, "h2d_pinned_bytes_s")) / 1e9,
               json_number_value(json_object_get(gpu, "d2h_pinned_bytes_s")) / 1e9,
               json_integer_value(json_object_get(gpu, "near_node")));
}

static void print_text(json_t *doc)
{
    static const struct {
        const char *name;
        void (*print)(json_t *result);
    } printers[] = {{"memory", print_memory}, {"latency", print_latency}, {"pcie", print_pcie},
                    {"storage", print_storage}, {"jitter", print_jitter}, {"decode", print_decode}};
    json_t *benchmarks = json_object_get(doc, "benchmarks");
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++) {
        json_t *r = json_object_get(benchmarks, printers[i].name);
        if (!r)
            continue;
        printf("%s\n", printers[i].name);
        const char *skipped = json_string_value(json_object_get(r, "skipped"));
        const char *error = json_string_value(json_object_get(r, "error"));
        if (skipped)
            printf("  skipped: %s\n", skipped);
        else if (error)
            printf("  error: %s\n", error);
        else
            printers[i].print(r);
        const char *note = json_string_value(json_object_get(r, "note"));
        if (note)
            printf("  note: %s\n", note);
    }
}

/* 0 when at least one benchmark measured and none failed, EXIT_CANNOT_RUN otherwise. */
static int document_status(json_t *doc)
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
    return measured > 0 && failed == 0 ? 0 : EXIT_CANNOT_RUN;
}

/* --output: stdout goes to a temporary file until the benchmarks have run (cmd_bench ends it). */
static struct output_file output = {.saved_stdout = -1};

static int run_bench(int argc, char **argv)
{
    static const struct option options[] = {
        {"quick", no_argument, NULL, 'q'},        {"json", no_argument, NULL, 'j'},
        {"dir", required_argument, NULL, 'd'},    {"seconds", required_argument, NULL, 's'},
        {"images", required_argument, NULL, 'i'}, {"cpu", required_argument, NULL, 'c'},
        {"file", required_argument, NULL, 'f'},   {"help", no_argument, NULL, 'h'},
        {"prom", required_argument, NULL, 'P'},
        {"output", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0},
    };
    struct bench_opts opts = {.dir = ".", .cpu = -1, .a100_resnet50_img_s = thresholds_for(WL_CV_TRAIN)->cv_reference_img_s};
    bool json = false;
    const char *prom_file = NULL;
    const char *output_pattern = NULL;
    char *end;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qjd:f:s:i:c:h", options, NULL)) != -1) {
        switch (c) {
        case 'q': opts.quick = true; break;
        case 'j': json = true; break;
        case 'd': opts.dir = optarg; break;
        case 'f': opts.file = optarg; break;
        case 'i': opts.images = optarg; break;
        case 's':
            opts.seconds = strtod(optarg, &end);
            if (*end || !(opts.seconds > 0 && opts.seconds <= 3600)) {
                fprintf(stderr, "gpuvet bench: --seconds wants a number of seconds in (0, 3600], not '%s'\n", optarg);
                return EXIT_CANNOT_RUN;
            }
            break;
        case 'c': {
            long cpu = strtol(optarg, &end, 10);
            if (*end || *optarg == '\0' || cpu < 0 || cpu > 1 << 20) {
                fprintf(stderr, "gpuvet bench: --cpu wants a CPU number, not '%s'\n", optarg);
                return EXIT_CANNOT_RUN;
            }
            opts.cpu = (int)cpu;
            break;
        }
        case 'P': prom_file = optarg; break;
        case 'o': output_pattern = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return option_error(options, argv);
        }
    }
    const char **names = NULL;
    int nnames = 0;
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], "all")) {
            nnames = 0;
            break;
        }
        if (!bench_find(argv[i])) {
            fprintf(stderr, "gpuvet bench: unknown benchmark '%s'\n%s", argv[i], usage);
            free(names);
            return EXIT_CANNOT_RUN;
        }
        names = realloc(names, (size_t)(nnames + 1) * sizeof *names);
        names[nnames++] = argv[i];
    }

    if (output_pattern && output_file_begin(&output, output_pattern, "bench") != 0) {
        free(names);
        return EXIT_CANNOT_RUN;
    }
    fsroot_set(NULL);
    time_t started = time(NULL);
    struct machine m;
    machine_init(&m);
    if (probe_machine(&m, true) != 0) {
        for (int i = 0; i < m.nproblems; i++)
            fprintf(stderr, "gpuvet bench: %s: %s\n", m.problems[i].path, m.problems[i].message);
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
        fprintf(stderr, "gpuvet bench: %s: %s\n", names[0], why);
        machine_free(&m);
        free(names);
        return EXIT_CANNOT_RUN;
    }
    json_t *doc = bench_run_document(&m, &opts, nnames ? names : NULL, nnames, isatty(STDERR_FILENO));
    free(names);
    if (json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        fputc('\n', stdout);
    } else {
        print_text(doc);
    }
    int status = document_status(doc);
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
