/* node_exporter's textfile format (the Prometheus text exposition format, version 0.0.4):
 * `--prom FILE` on audit, bench and health. The file is written next to its final name and
 * renamed over it, so the textfile collector never reads half a file (a device or FIFO is written
 * through, never replaced: util/output_file.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "util/i18n.h"
#include "util/output.h"
#include "util/output_file.h"
#include "util/pciaddr.h"
#include "util/sanitize.h"

/* A label value as the format wants it: valid UTF-8 (a bad byte as U+FFFD, util/sanitize.h: one
 * invalid byte would make node_exporter drop the whole file, the verdict with it), backslash,
 * double quote and line feed escaped. */
static void put_label(FILE *out, const char *name, const char *value, bool *first)
{
    fprintf(out, "%s%s=\"", *first ? "" : ",", name);
    *first = false;
    char *valid = text_valid_utf8(value);
    for (const char *p = valid ? valid : ""; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", out);
        else if (*p == '"')
            fputs("\\\"", out);
        else if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p, out);
    }
    free(valid);
    fputc('"', out);
}

static void put_family(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* dcgm-exporter's GPU labels (gpu: the NVML index, in the order gpuvet read the GPUs; UUID;
 * pci_bus_id) when bus_id is one of the machine's NVIDIA GPUs; only pci_bus_id for an NVIDIA GPU on
 * the PCI bus that the driver does not list; nothing otherwise. dcgm-exporter's modelName is left
 * out: promtool refuses camelCase label names, and gpuvet_gpu_info's model_name joins on UUID. */
static void put_gpu_labels(FILE *out, const struct machine *m, const char *bus_id, bool *first)
{
    const struct gpu *g = m && bus_id ? gpu_set_find(&m->gpus, bus_id) : NULL;
    struct pci_address address;
    if (!g) {
        /* An NVIDIA GPU on the bus that the driver lost (GPU_LOST) keeps its pci_bus_id, for joins. */
        for (int i = 0; m && bus_id && i < m->npci; i++)
            if (m->pci[i].vendor_id == 0x10de && m->pci[i].role == PCI_ROLE_ACCELERATOR &&
                !strcmp(m->pci[i].bus_id, bus_id) && pci_address_parse(bus_id, &address)) {
                char lost[PCI_ADDRESS_LEN];
                pci_address_format_nvml(&address, lost);
                put_label(out, "pci_bus_id", lost, first);
            }
        return;
    }
    if (!pci_address_parse(g->bus_id, &address))
        return;
    /* NVML's spelling, as dcgm-exporter's pci_bus_id label has it: "00000000:3B:00.0". */
    char index[16], nvml[PCI_ADDRESS_LEN];
    snprintf(index, sizeof index, "%d", (int)(g - m->gpus.items));
    pci_address_format_nvml(&address, nvml);
    put_label(out, "gpu", index, first);
    put_label(out, "UUID", g->uuid, first);
    put_label(out, "pci_bus_id", nvml, first);
}

/* One sample. labels: NULL-terminated name, value pairs; a NULL value is left out. */
static void put_sample(FILE *out, const char *name, const struct prom_report *r, const char *gpu_bus_id, double value,
                       ...)
{
    bool first = true;
    fprintf(out, "%s{", name);
    put_label(out, "command", r->command, &first);
    va_list ap;
    va_start(ap, value);
    for (const char *label; (label = va_arg(ap, const char *));) {
        const char *v = va_arg(ap, const char *);
        if (v)
            put_label(out, label, v, &first);
    }
    va_end(ap);
    put_gpu_labels(out, r->machine, gpu_bus_id, &first);
    fprintf(out, "} %.15g\n", value);
}

static void put_findings(FILE *out, const struct prom_report *r)
{
    put_family(out, "gpuvet_finding", "A finding worse than pass (1 while present): rule, severity, subject.");
    for (int i = 0; i < r->findings->count; i++) {
        const struct finding *f = &r->findings->items[i];
        if (f->severity == SEV_PASS)
            continue;
        /* A subject that is an NVIDIA GPU also gets dcgm-exporter's labels, for joins. */
        put_sample(out, "gpuvet_finding", r, f->subject, 1, "rule", f->rule->id, "severity",
                   severity_name(f->severity), "subject", f->subject, NULL);
    }
    if (!r->verdict)
        return;
    put_family(out, "gpuvet_verdict",
               "1 for the run's verdict (pass, inconclusive, warn or fail), 0 for the others.");
    static const enum verdict verdicts[] = {VERDICT_PASS, VERDICT_INCONCLUSIVE, VERDICT_WARN, VERDICT_FAIL};
    for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++)
        put_sample(out, "gpuvet_verdict", r, NULL, r->verdict->verdict == verdicts[i], "verdict",
                   verdict_name(verdicts[i]), NULL);
}

static void put_gpus(FILE *out, const struct prom_report *r)
{
    if (!r->machine || r->machine->gpus.count == 0)
        return;
    put_family(out, "gpuvet_gpu_info", "An NVIDIA GPU gpuvet saw (always 1), with dcgm-exporter's labels.");
    for (int i = 0; i < r->machine->gpus.count; i++) {
        const struct gpu *g = &r->machine->gpus.items[i];
        put_sample(out, "gpuvet_gpu_info", r, g->bus_id, 1, "model_name", g->name, NULL);
    }
}

/* A number of the bench document, or false when it is absent (not measured). */
static bool bench_number(json_t *object, const char *key, double *out)
{
    json_t *v = json_object_get(object, key);
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return true;
}

static json_t *measured(json_t *benchmarks, const char *name)
{
    json_t *r = json_object_get(benchmarks, name);
    if (!json_is_object(r) || json_object_get(r, "skipped") || json_object_get(r, "error"))
        return NULL;
    return r;
}

static void put_bench_memory(FILE *out, const struct prom_report *r, json_t *benchmarks)
{
    json_t *mem = measured(benchmarks, "memory");
    if (mem) {
        put_family(out, "gpuvet_bench_memory_bandwidth_bytes_per_second",
                   "STREAM bandwidth of the whole machine, per kernel (copy, scale, add, triad).");
        static const char *const kernels[] = {"copy", "scale", "add", "triad"};
        for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
            char key[32];
            double v;
            snprintf(key, sizeof key, "%s_bytes_s", kernels[i]);
            if (bench_number(mem, key, &v))
                put_sample(out, "gpuvet_bench_memory_bandwidth_bytes_per_second", r, NULL, v, "kernel", kernels[i],
                           NULL);
        }
    }
    json_t *lat = measured(benchmarks, "latency");
    if (lat) {
        put_family(out, "gpuvet_bench_memory_latency_seconds",
                   "Dependent-load latency from a CPU node to a memory node (pointer chase).");
        json_t *cpus = json_object_get(lat, "cpu_nodes"), *mems = json_object_get(lat, "memory_nodes");
        for (size_t i = 0; i < json_array_size(cpus); i++)
            for (size_t k = 0; k < json_array_size(mems); k++) {
                json_t *ns = json_array_get(json_array_get(json_object_get(lat, "matrix_ns"), i), k);
                if (!json_is_number(ns))
                    continue;
                char cpu_node[16], mem_node[16];
                snprintf(cpu_node, sizeof cpu_node, "%lld", json_integer_value(json_array_get(cpus, i)));
                snprintf(mem_node, sizeof mem_node, "%lld", json_integer_value(json_array_get(mems, k)));
                put_sample(out, "gpuvet_bench_memory_latency_seconds", r, NULL, json_number_value(ns) * 1e-9,
                           "cpu_node", cpu_node, "memory_node", mem_node, NULL);
            }
    }
}

/* bench gpu: each GPU's memory bandwidth, FP32 rate and memory-test errors, and each pair's copies. */
static void put_bench_gpu(FILE *out, const struct prom_report *r, json_t *benchmarks)
{
    json_t *gpu = json_object_get(benchmarks, "gpu");
    json_t *gpus = json_object_get(gpu, "gpus"), *pairs = json_object_get(gpu, "pairs");
    if (json_array_size(gpus) == 0)
        return;
    size_t i;
    json_t *g;
    double v;
    put_family(out, "gpuvet_bench_gpu_memory_bandwidth_bytes_per_second",
               "GPU memory bandwidth, bytes read + written: method kernel (gpuvet's copy kernel) or engine (copy engines).");
    json_array_foreach(gpus, i, g) {
        const char *bus_id = json_string_value(json_object_get(g, "bus_id"));
        if (bench_number(json_object_get(g, "memory"), "kernel_copy_bytes_s", &v))
            put_sample(out, "gpuvet_bench_gpu_memory_bandwidth_bytes_per_second", r, bus_id, v, "method", "kernel", NULL);
        if (bench_number(json_object_get(g, "memory"), "engine_copy_bytes_s", &v))
            put_sample(out, "gpuvet_bench_gpu_memory_bandwidth_bytes_per_second", r, bus_id, v, "method", "engine", NULL);
    }
    put_family(out, "gpuvet_bench_gpu_fp32_flops_per_second", "FP32 FMA throughput on the CUDA cores (not tensor cores).");
    json_array_foreach(gpus, i, g)
        if (bench_number(json_object_get(g, "compute"), "fp32_flops", &v))
            put_sample(out, "gpuvet_bench_gpu_fp32_flops_per_second", r, json_string_value(json_object_get(g, "bus_id")), v,
                       NULL);
    put_family(out, "gpuvet_bench_gpu_memtest_errors", "32-bit words of GPU memory that did not keep their pattern.");
    json_array_foreach(gpus, i, g)
        if (bench_number(json_object_get(g, "memtest"), "errors", &v))
            put_sample(out, "gpuvet_bench_gpu_memtest_errors", r, json_string_value(json_object_get(g, "bus_id")), v, NULL);
    if (json_array_size(pairs) == 0)
        return;
    put_family(out, "gpuvet_bench_gpu_peer_bytes_per_second", "Copies from one GPU (the GPU labels) to another (peer).");
    json_array_foreach(pairs, i, g)
        if (bench_number(g, "bytes_s", &v))
            put_sample(out, "gpuvet_bench_gpu_peer_bytes_per_second", r, json_string_value(json_object_get(g, "from")), v,
                       "peer", json_string_value(json_object_get(g, "to")), NULL);
}

static void put_bench_io(FILE *out, const struct prom_report *r, json_t *benchmarks)
{
    json_t *storage = measured(benchmarks, "storage");
    double v;
    if (storage) {
        const char *where = json_string_value(json_object_get(storage, "file"));
        if (!where)
            where = json_string_value(json_object_get(storage, "dir"));
        put_family(out, "gpuvet_bench_storage_read_bytes_per_second", "1 MiB O_DIRECT sequential reads, queue depth 16.");
        if (bench_number(storage, "seq_read_bytes_s", &v))
            put_sample(out, "gpuvet_bench_storage_read_bytes_per_second", r, NULL, v, "path", where, NULL);
        put_family(out, "gpuvet_bench_storage_random_read_iops", "4 KiB O_DIRECT random reads per second, queue depth 16.");
        if (bench_number(storage, "rand_read_iops", &v))
            put_sample(out, "gpuvet_bench_storage_random_read_iops", r, NULL, v, "path", where, NULL);
    }
    json_t *pcie = json_object_get(benchmarks, "pcie");
    if (json_is_array(pcie) && json_array_size(pcie) > 0) {
        put_family(out, "gpuvet_bench_pcie_bytes_per_second",
                   "Pinned host-device copies per NVIDIA GPU, host buffer on the GPU's NUMA node.");
        size_t i;
        json_t *gpu;
        json_array_foreach(pcie, i, gpu) {
            const char *bus_id = json_string_value(json_object_get(gpu, "bus_id"));
            if (bench_number(gpu, "h2d_pinned_bytes_s", &v))
                put_sample(out, "gpuvet_bench_pcie_bytes_per_second", r, bus_id, v, "direction", "h2d", NULL);
            if (bench_number(gpu, "d2h_pinned_bytes_s", &v))
                put_sample(out, "gpuvet_bench_pcie_bytes_per_second", r, bus_id, v, "direction", "d2h", NULL);
        }
    }
    put_bench_gpu(out, r, benchmarks);
}

static void put_bench_cpu(FILE *out, const struct prom_report *r, json_t *benchmarks)
{
    json_t *jitter = measured(benchmarks, "jitter");
    double v;
    if (jitter) {
        char cpu[16];
        snprintf(cpu, sizeof cpu, "%lld", json_integer_value(json_object_get(jitter, "cpu")));
        put_family(out, "gpuvet_bench_wakeup_lateness_seconds",
                   "Lateness of wake-ups from a 1 ms sleep loop (cyclictest's method): p50, p99, max.");
        static const char *const stats[][2] = {{"p50", "p50_us"}, {"p99", "p99_us"}, {"max", "max_us"}};
        for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
            if (bench_number(jitter, stats[i][1], &v))
                put_sample(out, "gpuvet_bench_wakeup_lateness_seconds", r, NULL, v * 1e-6, "cpu", cpu, "stat",
                           stats[i][0], NULL);
    }
    json_t *decode = measured(benchmarks, "decode");
    if (decode) {
        put_family(out, "gpuvet_bench_decode_images_per_second",
                   "JPEG decode, random-resized-crop and flip per second: one core, all cores.");
        if (bench_number(decode, "images_s_per_core", &v))
            put_sample(out, "gpuvet_bench_decode_images_per_second", r, NULL, v, "cores", "one", NULL);
        if (bench_number(decode, "images_s_all_cores", &v))
            put_sample(out, "gpuvet_bench_decode_images_per_second", r, NULL, v, "cores", "all", NULL);
    }
}

static void put_document(FILE *out, const struct prom_report *r)
{
    if (r->findings)
        put_findings(out, r);
    put_gpus(out, r);
    if (r->bench) {
        json_t *benchmarks = json_object_get(r->bench, "benchmarks");
        put_bench_memory(out, r, benchmarks);
        put_bench_io(out, r, benchmarks);
        put_bench_cpu(out, r, benchmarks);
    }
    put_family(out, "gpuvet_run_duration_seconds", "How long the gpuvet run took.");
    put_sample(out, "gpuvet_run_duration_seconds", r, NULL, r->elapsed_s, NULL);
    put_family(out, "gpuvet_last_run_timestamp_seconds", "When the gpuvet run ended, in seconds since the Unix epoch.");
    put_sample(out, "gpuvet_last_run_timestamp_seconds", r, NULL, (double)r->finished, NULL);
}

int report_prom_file(const char *path, const struct prom_report *r)
{
    /* A temporary file renamed over path, or a device or FIFO written through: util/output_file.h. */
    struct output_target target;
    char why[PATH_MAX + 128];
    if (output_target_open(&target, path, 0644, why, sizeof why) != 0) {
        print_error(NULL, _("--prom %s: %s"), path, _(why));
        return -1;
    }
    int fd = dup(target.fd);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        print_error(NULL, _("--prom %s: %s"), path, i18n_error_text(errno));
        if (fd >= 0)
            close(fd);
        output_target_finish(&target, false, why, sizeof why);
        return -1;
    }
    /* Metric names, labels and HELP texts are for machines: English in every language. */
    i18n_english_begin();
    put_document(out, r);
    i18n_english_end();
    bool ok = fflush(out) == 0 && !ferror(out);
    int saved = errno;
    ok = fclose(out) == 0 && ok;
    if (!ok) {
        print_error(NULL, _("--prom %s: %s"), path, i18n_error_text(saved));
        output_target_finish(&target, false, why, sizeof why);
        return -1;
    }
    if (output_target_finish(&target, true, why, sizeof why) != 0) {
        print_error(NULL, _("--prom %s: %s"), path, _(why));
        return -1;
    }
    return 0;
}
