/* `gpuvet bench` as text, from the gpuvet.bench/1 document (docs/bench-json.md): one block per
 * benchmark that ran, skipped or failed. */
#include <stdio.h>
#include <string.h>

#include "report/bench_text.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/units.h"

/* A text people read: the copy in their language (KEY_local, which bench/registry.c adds when
 * gpuvet speaks another language; `gpuvet bench --json` runs without), else the English through _()
 * (a sentence made with i18n_asprintf, such as a CUDA error, has its translation kept). */
static const char *bench_text(json_t *obj, const char *key)
{
    char local_key[64];
    snprintf(local_key, sizeof local_key, "%s_local", key);
    const char *local = json_string_value(json_object_get(obj, local_key));
    return local ? local : _(json_string_value(json_object_get(obj, key)));
}

static void print_gb(FILE *out, const char *label, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        fprintf(out, "  %-8s %8.2f GB/s\n", label, json_number_value(v) / GB);
}

static void print_memory(FILE *out, json_t *r)
{
    json_t *bits = json_object_get(r, "vector_bits");
    bool nontemporal = json_is_true(json_object_get(r, "nontemporal_stores"));
    const char *kernel = json_string_value(json_object_get(r, "kernel"));
    long long threads = json_integer_value(json_object_get(r, "threads"));
    long long mib = json_integer_value(json_object_get(r, "array_bytes")) >> 20;
    if (json_is_integer(bits))
        fprintf(out, nontemporal ? _("  kernel   %s (non-temporal stores), %lld threads, arrays of %lld MiB\n")
                                 : _("  kernel   %s (regular stores), %lld threads, arrays of %lld MiB\n"),
                kernel, threads, mib);
    else
        fprintf(out,
                nontemporal
                    ? _("  kernel   %s (compiler's vector width, non-temporal stores), %lld threads, arrays of %lld MiB\n")
                    : _("  kernel   %s (compiler's vector width, regular stores), %lld threads, arrays of %lld MiB\n"),
                kernel, threads, mib);
    if (json_is_integer(bits))
        fprintf(out, _("           %lld-bit vectors\n"), json_integer_value(bits));
    print_gb(out, "copy", r, "copy_bytes_s");
    print_gb(out, "scale", r, "scale_bytes_s");
    print_gb(out, "add", r, "add_bytes_s");
    print_gb(out, "triad", r, "triad_bytes_s");
    json_t *fraction = json_object_get(r, "fraction_of_theoretical");
    if (json_is_number(fraction))
        fprintf(out, _("  triad is %.0f%% of the theoretical %.1f GB/s\n"), json_number_value(fraction) * 100,
               json_number_value(json_object_get(r, "theoretical_bytes_s")) / GB);
    else
        fprintf(out, _("  theoretical bandwidth unknown: %s\n"), bench_text(r, "theoretical_unknown"));
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(r, "per_node"), i, node)
        fprintf(out, _("  node %lld (CPUs %s): triad %.2f GB/s\n"), json_integer_value(json_object_get(node, "node")),
               json_string_value(json_object_get(node, "cpus")),
               json_number_value(json_object_get(node, "triad_bytes_s")) / GB);
}

static void print_latency(FILE *out, json_t *r)
{
    json_t *mem = json_object_get(r, "memory_nodes"), *cpus = json_object_get(r, "cpu_nodes");
    fprintf(out, "%s  %8s", _("  ns, CPU node (rows) reading memory node (columns); kernel distance in brackets\n"), "");
    size_t i, k;
    json_t *v;
    json_array_foreach(mem, k, v)
        fprintf(out, " %12lld", json_integer_value(v));
    fprintf(out, "\n");
    json_array_foreach(cpus, i, v) {
        fprintf(out, "  %8lld", json_integer_value(v));
        json_t *row = json_array_get(json_object_get(r, "matrix_ns"), i);
        json_t *dist = json_array_get(json_object_get(r, "kernel_distances"), i);
        for (k = 0; k < json_array_size(mem); k++) {
            json_t *ns = json_array_get(row, k), *d = json_array_get(dist, k);
            char cell[32];
            if (json_is_number(ns))
                snprintf(cell, sizeof cell, "%.1f [%lld]", json_number_value(ns), json_integer_value(d));
            else
                snprintf(cell, sizeof cell, "-");
            fprintf(out, " %12s", cell);
        }
        fprintf(out, "\n");
    }
}

static void print_storage(FILE *out, json_t *r)
{
    /* TRANSLATORS: this line and "random read" line up: keep the numbers in the same column. */
    fprintf(out, _("  sequential read  %8.2f GB/s  (1 MiB, O_DIRECT, QD %lld, %s)\n"),
           json_number_value(json_object_get(r, "seq_read_bytes_s")) / GB,
           json_integer_value(json_object_get(r, "queue_depth")), json_string_value(json_object_get(r, "engine")));
    fprintf(out, _("  random read      %8.0f IOPS  (4 KiB)\n"), json_number_value(json_object_get(r, "rand_read_iops")));
    const char *file = json_string_value(json_object_get(r, "file"));
    if (file)
        fprintf(out, _("  from %s, %lld MiB (only read)\n"), file,
               json_integer_value(json_object_get(r, "file_bytes")) >> 20);
    else
        fprintf(out, _("  in %s, a %lld MiB file written for the test (removed)\n"), json_string_value(json_object_get(r, "dir")),
               json_integer_value(json_object_get(r, "file_bytes")) >> 20);
}

static void print_jitter(FILE *out, json_t *r)
{
    fprintf(out, _("  CPU %lld, %lld wake-ups: p50 %.1f us, p99 %.1f us, max %.1f us\n"),
           json_integer_value(json_object_get(r, "cpu")), json_integer_value(json_object_get(r, "samples")),
           json_number_value(json_object_get(r, "p50_us")), json_number_value(json_object_get(r, "p99_us")),
           json_number_value(json_object_get(r, "max_us")));
    json_t *steal = json_object_get(r, "steal_percent");
    if (json_is_number(steal))
        fprintf(out, _("  steal %.2f%%, preempted %lld times\n"), json_number_value(steal),
               json_integer_value(json_object_get(r, "involuntary_switches")));
    const char *why = bench_text(r, "explanation");
    if (why)
        fprintf(out, "  %s\n", why);
}

static void print_decode(FILE *out, json_t *r)
{
    json_t *feeds = json_object_get(r, "feeds_gpus");
    /* TRANSLATORS: this line and the next ("%3lld cores:") line up: keep the numbers in the same column. */
    fprintf(out, _("  one core:   %7.0f images/s (decode+crop+flip), decode alone %6.1f Mpix/s\n"),
           json_number_value(json_object_get(r, "images_s_per_core")),
           json_number_value(json_object_get(r, "decode_only_mpix_s_per_core")));
    fprintf(out, _("  %3lld cores:  %7.0f images/s, decode alone %6.1f Mpix/s\n"), json_integer_value(json_object_get(r, "cores")),
           json_number_value(json_object_get(r, "images_s_all_cores")),
           json_number_value(json_object_get(r, "decode_only_mpix_s_all_cores")));
    fprintf(out, _("  this CPU feeds %.2f A100s or %.2f H100s (estimated rate) at ResNet-50 training rates\n"),
           json_number_value(json_object_get(feeds, "a100")), json_number_value(json_object_get(feeds, "h100")));
    json_t *set = json_object_get(r, "images");
    fprintf(out, _("  images: %lld from %s\n"), json_integer_value(json_object_get(set, "count")),
           json_string_value(json_object_get(set, "dir")));
}

static void print_pcie(FILE *out, json_t *r)
{
    size_t i;
    json_t *gpu;
    json_array_foreach(r, i, gpu)
        if (json_object_get(gpu, "error"))
            fprintf(out, _("  %s  error: %s\n"), json_string_value(json_object_get(gpu, "bus_id")), bench_text(gpu, "error"));
        else
            fprintf(out, _("  %s  H2D %.2f GB/s  D2H %.2f GB/s (pinned, NUMA node %lld)\n"),
               json_string_value(json_object_get(gpu, "bus_id")),
               json_number_value(json_object_get(gpu, "h2d_pinned_bytes_s")) / GB,
               json_number_value(json_object_get(gpu, "d2h_pinned_bytes_s")) / GB,
               json_integer_value(json_object_get(gpu, "near_node")));
}

/* What NVML said while the FMA loop ran: SM clock, clock-event reasons, temperature, power. */
static void print_gpu_clocks(FILE *out, const char *bus, json_t *w)
{
    if (!w)
        return;
    const char *unseen = json_string_value(json_object_get(w, "unseen"));
    if (unseen) {
        fprintf(out, _("  %s  while it ran: clocks not watched (%s)\n"), bus, unseen);
        return;
    }
    char events[512] = "";
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(w, "clock_events"), i, e)
        snprintf(events + strlen(events), sizeof events - strlen(events), "%s%s", *events ? ", " : "",
                 json_string_value(e) ? json_string_value(e) : "?");
    const char *shown = json_object_get(w, "clock_events") ? (*events ? events : _("none")) : _("not reported");
    if (json_is_integer(json_object_get(w, "sm_clock_mhz_median")))
        fprintf(out, _("  %s  while it ran: SM clock %lld MHz (median of %lld readings), clock events: %s\n"), bus,
                json_integer_value(json_object_get(w, "sm_clock_mhz_median")),
                json_integer_value(json_object_get(w, "samples")), shown);
    else
        fprintf(out, _("  %s  while it ran: SM clock not reported, clock events: %s\n"), bus, shown);
}

/* bench gpu --burn: each GPU's GEMM rate, its result against the CPU's and the node's, what NVML saw. */
static void print_gpu_burn(FILE *out, json_t *burn)
{
    size_t i;
    json_t *gpu;
    json_array_foreach(json_object_get(burn, "gpus"), i, gpu) {
        const char *bus = json_string_value(json_object_get(gpu, "bus_id"));
        if (json_object_get(gpu, "error")) {
            fprintf(out, _("  %s  error: %s\n"), bus, bench_text(gpu, "error"));
            continue;
        }
        double flops = json_number_value(json_object_get(gpu, "bf16_flops"));
        double peak = json_number_value(json_object_get(json_object_get(gpu, "spec"), "bf16_dense_flops"));
        fprintf(out, _("  %s  BF16 GEMM (tensor cores, n = %lld) %.1f TFLOPS for %.0f s"), bus,
                json_integer_value(json_object_get(json_object_get(gpu, "gemm"), "n")), flops / 1e12,
                json_number_value(json_object_get(burn, "seconds")));
        if (peak > 0)
            fprintf(out, _(", %.0f%% of %.1f TFLOPS"), 100 * flops / peak, peak / 1e12);
        fprintf(out, "\n");
        json_t *match = json_object_get(gpu, "matches_node"), *ecc = json_object_get(gpu, "ecc_uncorrected_new");
        fprintf(out, _("  %s  result: %lld of %lld checked entries wrong, %s"), bus,
                json_integer_value(json_object_get(gpu, "entries_wrong")),
                json_integer_value(json_object_get(gpu, "entries_checked")),
                json_is_true(match) ? _("the node's result") : json_is_false(match) ? _("unlike the node's result")
                                                                                     : _("no result is the node's"));
        if (json_is_integer(ecc))
            fprintf(out, _("; new uncorrectable ECC errors: %lld\n"), json_integer_value(ecc));
        else
            fprintf(out, "%s", _("; uncorrectable ECC count not read\n"));
        json_t *fp8 = json_object_get(gpu, "fp8");
        double fp8_flops = json_number_value(json_object_get(fp8, "flops"));
        double fp8_peak = json_number_value(json_object_get(json_object_get(gpu, "spec"), "fp8_dense_flops"));
        if (fp8_flops > 0) {
            fprintf(out, _("  %s  FP8 GEMM (tensor cores, cuBLASLt) %.1f TFLOPS"), bus, fp8_flops / 1e12);
            if (fp8_peak > 0)
                fprintf(out, _(", %.0f%% of %.1f TFLOPS"), 100 * fp8_flops / fp8_peak, fp8_peak / 1e12);
            fprintf(out, _("; %lld of %lld checked entries wrong\n"), json_integer_value(json_object_get(fp8, "entries_wrong")),
                    json_integer_value(json_object_get(fp8, "entries_checked")));
        } else if (json_object_get(fp8, "error") || json_object_get(fp8, "unknown")) {
            fprintf(out, _("  %s  FP8 GEMM not measured: %s\n"), bus,
                    bench_text(fp8, json_object_get(fp8, "error") ? "error" : "unknown"));
        }
        size_t k;
        json_t *xid;
        json_array_foreach(json_object_get(gpu, "xids_new"), k, xid)
            fprintf(out, _("  %s  new Xid %lld during the burn (%s), %lld time(s)\n"), bus,
                    json_integer_value(json_object_get(xid, "code")),
                    /* the catalogue's description (data/xid-codes.csv), which the catalogue of messages holds */
                    json_string_value(json_object_get(xid, "meaning")) ? _(json_string_value(json_object_get(xid, "meaning")))
                                                                        : _("not in gpuvet's Xid table"),
                    json_integer_value(json_object_get(xid, "count")));
        print_gpu_clocks(out, bus, json_object_get(gpu, "while_running"));
    }
    if (json_object_get(burn, "xids_unseen"))
        fprintf(out, _("  Xid errors during the burn not watched: %s\n"), bench_text(burn, "xids_unseen"));
}

static void print_gpu(FILE *out, json_t *r)
{
    size_t i;
    json_t *gpu;
    if (json_object_get(r, "burn")) {
        print_gpu_burn(out, json_object_get(r, "burn"));
        return;
    }
    json_array_foreach(json_object_get(r, "gpus"), i, gpu) {
        const char *bus = json_string_value(json_object_get(gpu, "bus_id"));
        json_t *spec = json_object_get(gpu, "spec");
        if (json_object_get(gpu, "error")) {
            fprintf(out, _("  %s  error: %s\n"), bus, bench_text(gpu, "error"));
            continue;
        }
        json_t *memory = json_object_get(gpu, "memory"), *memtest = json_object_get(gpu, "memtest");
        double bw = json_number_value(json_object_get(memory, "kernel_copy_bytes_s"));
        double peak_bw = json_number_value(json_object_get(spec, "mem_bytes_s"));
        double flops = json_number_value(json_object_get(json_object_get(gpu, "compute"), "fp32_flops"));
        double peak_flops = json_number_value(json_object_get(spec, "fp32_flops"));
        fprintf(out, _("  %s  memory %.0f GB/s (copy kernel, read + written; copy engines %.0f GB/s)"), bus, bw / GB,
                json_number_value(json_object_get(memory, "engine_copy_bytes_s")) / GB);
        if (peak_bw > 0)
            fprintf(out, _(", %.0f%% of %.0f GB/s"), 100 * bw / peak_bw, peak_bw / GB);
        fprintf(out, "\n");
        fprintf(out, _("  %s  FP32 FMA (CUDA cores) %.1f TFLOPS"), bus, flops / 1e12);
        if (peak_flops > 0)
            fprintf(out, _(", %.0f%% of %.1f TFLOPS"), 100 * flops / peak_flops, peak_flops / 1e12);
        fprintf(out, "\n");
        fprintf(out, _("  %s  memory test: %.2f GiB of %.2f GiB free, %lld errors\n"), bus,
                json_number_value(json_object_get(memtest, "tested_bytes")) / GIB,
                json_number_value(json_object_get(memtest, "free_bytes")) / GIB,
                json_integer_value(json_object_get(memtest, "errors")));
        print_gpu_clocks(out, bus, json_object_get(gpu, "while_running"));
    }
    json_array_foreach(json_object_get(r, "pairs"), i, gpu) {
        if (json_object_get(gpu, "error"))
            fprintf(out, _("  %s -> %s  error: %s\n"), json_string_value(json_object_get(gpu, "from")),
                    json_string_value(json_object_get(gpu, "to")), json_string_value(json_object_get(gpu, "error")));
        else
            fprintf(out,
                    json_is_true(json_object_get(gpu, "peer_access")) ? _("  %s -> %s  %.1f GB/s (peer access)\n")
                                                                      : _("  %s -> %s  %.1f GB/s (no peer access)\n"),
                    json_string_value(json_object_get(gpu, "from")), json_string_value(json_object_get(gpu, "to")),
                    json_number_value(json_object_get(gpu, "bytes_s")) / GB);
    }
    const char *pairs = bench_text(r, "pairs_skipped");
    if (pairs)
        fprintf(out, _("  pairs: %s\n"), pairs);
    const char *pairs_error = json_string_value(json_object_get(r, "pairs_error"));
    if (pairs_error)
        fprintf(out, _("  pairs: error: %s\n"), pairs_error);
    json_t *nccl = json_object_get(r, "nccl");
    if (json_is_number(json_object_get(nccl, "busbw_bytes_s")))
        fprintf(out, _("  all-reduce (NCCL %s, %d GPUs): %.1f GB/s bus bandwidth at %.0f MiB per GPU\n"),
                json_is_string(json_object_get(nccl, "version")) ? json_string_value(json_object_get(nccl, "version"))
                                                                 : "?",
                (int)json_integer_value(json_object_get(nccl, "ranks")),
                json_number_value(json_object_get(nccl, "busbw_bytes_s")) / GB,
                json_number_value(json_object_get(nccl, "bytes")) / MIB);
    else if (json_object_get(nccl, "skipped"))
        fprintf(out, _("  all-reduce: %s\n"), bench_text(nccl, "skipped"));
    else if (json_object_get(nccl, "error"))
        fprintf(out, _("  all-reduce: error: %s\n"), bench_text(nccl, "error"));
}

static int bench_report_unescaped(FILE *out, const void *ctx)
{
    json_t *doc = (json_t *)ctx;
    static const struct {
        const char *name;
        void (*print)(FILE *out, json_t *result);
    } printers[] = {{"memory", print_memory}, {"latency", print_latency}, {"pcie", print_pcie},
                    {"storage", print_storage}, {"jitter", print_jitter}, {"decode", print_decode},
                    {"gpu", print_gpu}};
    json_t *benchmarks = json_object_get(doc, "benchmarks");
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++) {
        json_t *r = json_object_get(benchmarks, printers[i].name);
        if (!r)
            continue;
        fprintf(out, "%s\n", printers[i].name);
        const char *skipped = bench_text(r, "skipped");
        const char *error = bench_text(r, "error");
        if (skipped)
            fprintf(out, _("  skipped: %s\n"), skipped);
        else if (error)
            fprintf(out, _("  error: %s\n"), error);
        else
            printers[i].print(out, r);
        const char *note = bench_text(r, "note");
        if (note)
            fprintf(out, _("  note: %s\n"), note);
    }
    return ferror(out) ? -1 : 0;
}

/* Through the sanitiser (util/output.h): disk models, paths and errors come from the machine. */
int bench_report_text(FILE *out, json_t *doc) { return text_render_escaped(out, bench_report_unescaped, doc, NULL); }
