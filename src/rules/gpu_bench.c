/* GPU_COMPUTE_LOW, GPU_MEMORY_BW_LOW, GPU_MEMORY_ERRORS, GPU_P2P_LOW: judge what `gpuvet bench gpu`
 * measured (audit --bench FILE). Each GPU against its data/gpus.csv figure (copied into the bench
 * document) and against the node's best GPU; without a measurement the verdict is unknown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "rules/hints.h"
#include "util/i18n.h"
#include "util/units.h"

/* A copy kernel (STREAM/BabelStream Copy) reaches 85-90 % of the datasheet memory bandwidth on
 * healthy NVIDIA GPUs (NVIDIA/cccl pull request 9881: BabelStream's kernels at ~87 % of an RTX
 * 5090's; alpaka-group/alpaka issue 1874: 300 of 336 GB/s on an RTX 2060, "NVIDIA often advises
 * that 70%-80% of the theoretical bandwidth are already quite good"). Below 70 % is a fault. */
#define GPU_MEM_BW_MIN_FRACTION 0.70
/* The datasheet FP32 rate is multiprocessors x FP32 lanes x 2 flops x boost clock (CUDA C++
 * Programming Guide, "Arithmetic Instructions" throughput table); an FMA loop with no memory
 * traffic runs at that rate times the clock it holds. Below 70 %: clocks held far below boost
 * (power or heat), or fewer working multiprocessors than the part should have. */
#define GPU_FP32_MIN_FRACTION 0.70
/* SPEC: more than 10 % behind the node's best GPU (or pair) is slow even above the floor. */
#define GPU_SIBLING_MAX_SHORTFALL 0.10
/* A datasheet figure is the part's peak: a copy kernel or an FMA loop that measures half as much
 * again did not run what was timed (a driver that does nothing, a timer that does not count), and
 * is no measurement at all. */
#define GPU_MAX_PLAUSIBLE_FRACTION 1.5

/* The GPU's figure, or 0 where it is no measurement: an error, or above what the part can do. */
static double plausible(const struct bench_gpu_device *g, bool memory)
{
    double v = memory ? g->mem_bytes_s : g->fp32_flops, peak = memory ? g->mem_peak_bytes_s : g->fp32_peak_flops;
    if (g->error || (!memory && g->compute_error) || (peak > 0 && v > GPU_MAX_PLAUSIBLE_FRACTION * peak))
        return 0;
    return v;
}

/* A bench GPU that is not one of the audited machine's accelerators: the document was measured on
 * another machine (or the GPU left the bus since), and judging it here would blame a GPU this
 * machine may not have. Only where the machine's PCI devices were read: evidence files alone (an
 * nvidia-smi file, a dmidecode report) list no PCI devices, and the document is then judged as given. */
static const char *gpu_elsewhere(const struct machine *m)
{
    if (!m->pci_scanned)
        return NULL;
    for (int i = 0; i < m->bench.ngpu; i++)
        if (!accelerator_at(m, m->bench.gpu[i].bus_id))
            return m->bench.gpu[i].bus_id;
    return NULL;
}

bool bench_gpu_unknown(struct audit_ctx *ctx, const char *what)
{
    const struct bench_results *b = &ctx->machine->bench;
    const char *elsewhere = b->loaded && !b->gpu_unmeasured ? gpu_elsewhere(ctx->machine) : NULL;
    if (elsewhere) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s, s:s}", "bench", b->source, "bench_gpu", elsewhere),
                    _("run `gpuvet bench gpu` on this machine and judge that document"),
                    _("the bench measured a GPU at %s, which is not one of this machine's accelerators (a bench from "
                      "another machine, or a GPU that left the bus since)"),
                    elsewhere);
        return true;
    }
    if (b->loaded && !b->gpu_unmeasured && b->ngpu > 0)
        return false;
    finding_add(ctx, SEV_UNKNOWN, "machine", b->loaded ? json_pack("{s:s}", "bench", b->source) : NULL,
                hint_measure_gpu_fix(ctx->machine), "%s",
                !b->loaded          ? what
                : b->gpu_unmeasured ? _(b->gpu_unmeasured)
                                    : _("the bench measured no GPU"));
    return true;
}

/* One figure of every GPU against its floor and the best of the node. */
static void judge_rate(struct audit_ctx *ctx, bool memory)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (bench_gpu_unknown(ctx, memory ? _("GPU memory bandwidth not measured (gpuvet bench gpu)")
                                      : _("GPU compute not measured (gpuvet bench gpu)")))
        return;
    double best = 0;
    for (int i = 0; i < b->ngpu; i++)
        if (plausible(&b->gpu[i], memory) > best)
            best = plausible(&b->gpu[i], memory);
    double floor = memory ? GPU_MEM_BW_MIN_FRACTION : GPU_FP32_MIN_FRACTION;
    double unit = memory ? GB : 1e12;
    const char *unit_name = memory ? "GB/s" : "TFLOPS";
    for (int i = 0; i < b->ngpu; i++) {
        const struct bench_gpu_device *g = &b->gpu[i];
        const char *error = g->error ? g->error : memory ? NULL : g->compute_error;
        if (error) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, json_pack("{s:s}", "bench", b->source), NULL,
                        _("not measured: %s"), _(error));
            continue;
        }
        double v = memory ? g->mem_bytes_s : g->fp32_flops, peak = memory ? g->mem_peak_bytes_s : g->fp32_peak_flops;
        if (plausible(g, memory) == 0) { /* no value, or not a measurement */
            finding_add(ctx, SEV_UNKNOWN, g->bus_id,
                        json_pack("{s:s, s:f, s:f, s:f}", "bench", b->source, memory ? "mem_bytes_s" : "fp32_flops", v,
                                  "peak", peak, "max_plausible_fraction", GPU_MAX_PLAUSIBLE_FRACTION),
                        _("rerun `gpuvet bench gpu`; if the figure stays above the datasheet's, check which libcuda.so.1 "
                          "it loads (`ldconfig -p`) and that nvidia-smi sees the GPU"),
                        _("not a measurement: %.1f %s is %.0f%% of the %s's %.1f %s, more than the part can do (a "
                          "driver that did not run the kernel, or a timer that does not count)"),
                        v / unit, unit_name, 100 * v / peak, g->spec_id, peak / unit, unit_name);
            continue;
        }
        json_t *evidence = json_pack("{s:s, s:f, s:f, s:f}", "bench", b->source, memory ? "mem_bytes_s" : "fp32_flops",
                                     v, "node_best", best, "max_shortfall", GPU_SIBLING_MAX_SHORTFALL);
        if (peak > 0) {
            json_object_set_new(evidence, "peak", json_real(peak));
            json_object_set_new(evidence, "fraction", json_real(v / peak));
            json_object_set_new(evidence, "min_fraction", json_real(floor));
        }
        if (*g->spec_id)
            json_object_set_new(evidence, "spec", json_string(g->spec_id));
        /* The FMA loop ran with NVML read beside it: a slowdown it reported is the cause to fix first. */
        char slowdowns[256] = "", during[400] = "";
        if (!memory && g->clocks_watched) {
            gpu_event_list(g->clock_events_seen, GPU_EVENT_SLOWDOWNS, slowdowns, sizeof slowdowns);
            json_t *seen = json_array();
            for (int k = 0; k < gpu_event_names_count; k++)
                if (g->clock_events_seen & gpu_event_names[k].bit)
                    json_array_append_new(seen, json_string(gpu_event_names[k].name));
            json_object_set_new(evidence, "clock_events_while_running", seen);
            if (g->sm_clock_mhz_median > 0)
                json_object_set_new(evidence, "sm_clock_mhz_median", json_integer(g->sm_clock_mhz_median));
            if (*slowdowns)
                i18n_snprintf(during, sizeof during, _("; while it ran NVML reported clocks slowed by %s"), slowdowns);
        }
        const char *fix = *slowdowns ? _("the GPU was slowed by heat or power while it ran: check the server's cooling "
                                         "and power supply (fans, airflow, PSU cables), then rerun `gpuvet bench gpu`")
                        : memory ? _("rerun `gpuvet bench gpu` with nothing else on the GPU; if it stays low, "
                                     "check nvidia-smi -q -d CLOCK,PERFORMANCE,ECC while it runs and ask the "
                                     "provider for a replacement")
                                 : _("rerun `gpuvet bench gpu` with nothing else on the GPU; check nvidia-smi -q -d "
                                     "CLOCK,PERFORMANCE,POWER,TEMPERATURE while it runs (power cap, heat, clocks "
                                     "locked low) and ask the provider for a replacement");
        if (peak > 0 && v < floor * peak)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        memory ? _("copy kernel %.0f %s is %.0f%% of the %s's %.0f %s (healthy GPUs reach 85-90%%; "
                                   "below %.0f%% something is wrong)%s")
                               : _("FP32 FMA (CUDA cores) %.1f %s is %.0f%% of the %s's %.1f %s (below %.0f%% something "
                                   "is wrong)%s"),
                        v / unit, unit_name, 100 * v / peak, g->spec_id, peak / unit, unit_name, floor * 100, during);
        else if (b->ngpu > 1 && v < (1 - GPU_SIBLING_MAX_SHORTFALL) * best)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("%.1f %s is %.0f%% behind the node's best GPU (%.1f %s)%s"), v / unit, unit_name,
                        100 * (1 - v / best), best / unit, unit_name, during);
        else if (peak > 0)
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL, _("%.1f %s, %.0f%% of the %s's %.1f %s"), v / unit,
                        unit_name, 100 * v / peak, g->spec_id, peak / unit, unit_name);
        else if (b->ngpu > 1)
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL,
                        _("%.1f %s, within %.0f%% of the node's best GPU (data/gpus.csv has no figure for it)"),
                        v / unit, unit_name, GPU_SIBLING_MAX_SHORTFALL * 100);
        else
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, evidence, NULL,
                        _("%.1f %s, but data/gpus.csv has no figure for this GPU and there is no other to compare"),
                        v / unit, unit_name);
    }
}

void check_gpu_memory_bw_low(struct audit_ctx *ctx) { judge_rate(ctx, true); }
void check_gpu_compute_low(struct audit_ctx *ctx) { judge_rate(ctx, false); }

void check_gpu_memory_errors(struct audit_ctx *ctx)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (bench_gpu_unknown(ctx, _("GPU memory not tested (gpuvet bench gpu)")))
        return;
    for (int i = 0; i < b->ngpu; i++) {
        const struct bench_gpu_device *g = &b->gpu[i];
        const char *fix = _("do not use this GPU: check nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER and the "
                            "kernel log for Xid 48/63/64/94/95, and ask the provider for a replacement");
        if (!g->error && g->memtest_uncorrectable) {
            /* The driver's own verdict on the memory the test was writing: a failing GPU, not a missing figure. */
            finding_add(ctx, ctx_severity(ctx), g->bus_id,
                        json_pack("{s:s, s:b, s:s?}", "bench", b->source, "uncorrectable_ecc", 1, "error",
                                  g->memtest_error),
                        fix, "%s", _(g->memtest_error));
            continue;
        }
        if (g->error || g->memtest_errors < 0) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, json_pack("{s:s}", "bench", b->source), NULL,
                        _("not tested: %s"),
                        g->error ? _(g->error) : g->memtest_error ? _(g->memtest_error) : _("no memory test result"));
            continue;
        }
        json_t *evidence = json_pack("{s:s, s:I, s:I}", "bench", b->source, "tested_bytes", (json_int_t)g->memtest_bytes,
                                     "errors", (json_int_t)g->memtest_errors);
        if (g->memtest_errors > 0)
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("%lld words of %.2f GiB did not keep the pattern written to them"), g->memtest_errors,
                        g->memtest_bytes / GIB);
        else
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL,
                        _("%.2f GiB written and verified without an error"), g->memtest_bytes / GIB);
    }
}

/* What joins two GPUs, as far as this machine's model says: "NVLink xN" where N active NVLinks of
 * `from` end at `to` (a bridge), else "PCIe GenG xW" at the lower of the two GPUs' maximum
 * generation and width, with "across sockets" where their NUMA nodes differ; "" unknown. Pairs are
 * compared only with pairs over the same kind of link: an NVLink pair beside PCIe pairs, or a pair
 * across the sockets of a two-socket server, is not slow for being unlike the best pair. */
static void pair_link(struct audit_ctx *ctx, const char *from, const char *to, char *out, size_t size)
{
    const struct machine *m = ctx->machine;
    const struct gpu *a = gpu_set_find(&m->gpus, from), *b = gpu_set_find(&m->gpus, to);
    *out = '\0';
    if (!a || !b)
        return;
    int links = 0;
    for (int k = 0; k < a->nnvlinks; k++)
        links += a->nvlinks[k].active == 1 && a->nvlinks[k].remote_bus_id[0] &&
                 gpu_set_find(&m->gpus, a->nvlinks[k].remote_bus_id) == b;
    if (links > 0) {
        snprintf(out, size, "NVLink x%d", links);
        return;
    }
    int gen = a->pcie_gen_max < b->pcie_gen_max ? a->pcie_gen_max : b->pcie_gen_max;
    int width = a->pcie_width_max < b->pcie_width_max ? a->pcie_width_max : b->pcie_width_max;
    if (gen <= 0 || width <= 0)
        return;
    int na = gpu_numa_node(m, a), nb = gpu_numa_node(m, b);
    snprintf(out, size, "PCIe Gen%d x%d%s", gen, width, na >= 0 && nb >= 0 && na != nb ? " across sockets" : "");
}

void check_gpu_p2p_low(struct audit_ctx *ctx)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (bench_gpu_unknown(ctx, _("GPU-to-GPU copies not measured (gpuvet bench gpu)")))
        return;
    if (b->ngpu_pairs == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "bench", b->source), NULL, "%s",
                    b->gpu_pairs_unmeasured ? _(b->gpu_pairs_unmeasured) : _("the bench measured no GPU pair"));
        return;
    }
    int with_peer = 0;
    char(*link)[64] = calloc((size_t)b->ngpu_pairs, sizeof *link);
    if (!link)
        return;
    for (int i = 0; i < b->ngpu_pairs; i++) {
        with_peer += b->gpu_pairs[i].peer_access;
        pair_link(ctx, b->gpu_pairs[i].from, b->gpu_pairs[i].to, link[i], sizeof link[i]);
    }
    for (int i = 0; i < b->ngpu_pairs; i++) {
        const struct bench_gpu_pair *p = &b->gpu_pairs[i];
        /* The best pair with peer access over the same kind of link (unknown links: with each other). */
        double best = 0;
        for (int k = 0; k < b->ngpu_pairs; k++)
            if (b->gpu_pairs[k].peer_access && !strcmp(link[k], link[i]) && b->gpu_pairs[k].bytes_s > best)
                best = b->gpu_pairs[k].bytes_s;
        char subject[80];
        snprintf(subject, sizeof subject, "%s->%s", p->from, p->to);
        json_t *evidence = json_pack("{s:s, s:b, s:f, s:f}", "bench", b->source, "peer_access", p->peer_access,
                                     "bytes_s", p->bytes_s, "best_peer_bytes_s", best);
        if (*link[i])
            json_object_set_new(evidence, "link", json_string(link[i]));
        const char *fix = _("compare `nvidia-smi topo -m` with what was ordered; check NVLink state (nvidia-smi "
                            "nvlink -s), the fabric manager on NVSwitch systems, and ACS/IOMMU settings that block "
                            "PCIe peer access");
        if (p->bytes_s <= 0)
            finding_add(ctx, SEV_UNKNOWN, subject, evidence, NULL, "%s", _("the copies between these GPUs failed"));
        else if (!p->peer_access && with_peer > 0)
            finding_add(ctx, ctx_severity(ctx), subject, evidence, fix,
                        _("no peer access between these GPUs (copies go through host memory at %.1f GB/s) while other "
                          "pairs of the node have it"),
                        p->bytes_s / GB);
        else if (!p->peer_access)
            finding_add(ctx, SEV_UNKNOWN, subject, evidence, NULL,
                        _("no pair of this node has peer access (copies go through host memory at %.1f GB/s); what "
                          "the link between them should give is not known to gpuvet"),
                        p->bytes_s / GB);
        else if (p->bytes_s < (1 - GPU_SIBLING_MAX_SHORTFALL) * best && *link[i])
            finding_add(ctx, ctx_severity(ctx), subject, evidence, fix,
                        _("peer copies %.1f GB/s are %.0f%% behind the node's best pair over the same link (%s, %.1f "
                          "GB/s)"),
                        p->bytes_s / GB, 100 * (1 - p->bytes_s / best), link[i], best / GB);
        else if (p->bytes_s < (1 - GPU_SIBLING_MAX_SHORTFALL) * best)
            finding_add(ctx, ctx_severity(ctx), subject, evidence, fix,
                        _("peer copies %.1f GB/s are %.0f%% behind the node's best pair (%.1f GB/s)"), p->bytes_s / GB,
                        100 * (1 - p->bytes_s / best), best / GB);
        else if (*link[i])
            finding_add(ctx, SEV_PASS, subject, evidence, NULL,
                        _("peer copies %.1f GB/s, within %.0f%% of the node's best pair over the same link (%s)"),
                        p->bytes_s / GB, GPU_SIBLING_MAX_SHORTFALL * 100, link[i]);
        else
            finding_add(ctx, SEV_PASS, subject, evidence, NULL,
                        _("peer copies %.1f GB/s, within %.0f%% of the node's best pair"), p->bytes_s / GB,
                        GPU_SIBLING_MAX_SHORTFALL * 100);
    }
    free(link);
}

/* GPU_BURN_FAILED. A BF16 GEMM through cuBLAS reaches 80-87 % of the datasheet's dense BF16 figure on
 * healthy parts at its best shape (stas00/ml-engineering, "Maximum Achievable Matmul FLOPS
 * comparison table": H100 SXM 792 of 989 TFLOPS, A100 SXM 271 of 312), and about half at the
 * burn's fixed 8192^3 (pranjalssh/fast.cu issue 13: cuBLAS 518.6 TFLOPS on an H100 at 8192).
 * Below 45 % is below every published healthy figure; the node's median (SPEC: more than 10 %
 * behind) is the sharper test, the same GPUs under the same load. */
#define GPU_BURN_MIN_FRACTION 0.45
/* The FP8 GEMM (cuBLASLt, E4M3): healthy parts reach 65-70 % of the dense FP8 figure (Azure ND H100
 * v5: 1,290 TFLOPS at 8192^3 and 1,377 at 16384^3 of 1,979; Azure/AI-benchmarking-guide,
 * Azure_Results/ND_H100_v5_results.md) and Blackwell about 57 % (ND GB200 v6: 2,744 sustained of the
 * 4,856 peak Azure measured; Azure HPC blog "Unpacking NVIDIA GB200 GPU performance on Azure virtual
 * machines"). Below 40 % is below every one of them; the node's median is again the sharper test. */
#define GPU_BURN_FP8_MIN_FRACTION 0.40

/* The GPU's new Xids of one weight, "Xid 79 (GPU has fallen off the bus) x1, ..." into out: fault,
 * or the others (application or informational, a code the catalogue does not list, a non-fatal
 * one) when fault is false; --xid-ignore's are neither. Returns how many codes. */
static int burn_xids(const struct bench_gpu_burn *g, bool fault, char *out, size_t outlen)
{
    int n = 0;
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < g->nxids; i++) {
        const struct bench_burn_xid *x = &g->xids[i];
        if (!strcmp(x->klass, "ignored") || !strcmp(x->klass, "fault") != fault)
            continue;
        int w = snprintf(out + used, outlen - used, "%sXid %d (%s) x%lld", n ? ", " : "", x->code,
                         x->meaning ? _(x->meaning) : _("not in gpuvet's Xid table"), x->count);
        if (w > 0 && (size_t)w < outlen - used)
            used += (size_t)w;
        n++;
    }
    return n;
}

/* One GEMM's rate v ("BF16", "FP8"): above 1.5x the datasheet's peak it is no measurement (unknown);
 * below floor x peak, or more than 10 % behind the node's median, it fails, naming any clock slowdown
 * NVML saw. True when it added the GPU's finding (which takes evidence). */
static bool burn_rate_judged(struct audit_ctx *ctx, const struct bench_gpu_burn *g, json_t *evidence, const char *fix,
                             const char *precision, double v, double peak, double median, double floor)
{
    if (peak > 0 && v > GPU_MAX_PLAUSIBLE_FRACTION * peak) {
        finding_add(ctx, SEV_UNKNOWN, g->bus_id, evidence, NULL,
                    _("not a measurement: %s GEMM at %.0f TFLOPS is %.0f%% of the datasheet's %.0f (a library that "
                      "did not run the GEMM, or a timer that does not count)"),
                    precision, v / 1e12, 100 * v / peak, peak / 1e12);
        return true;
    }
    if (!(peak > 0 && v < floor * peak) && !(median > 0 && v < (1 - GPU_SIBLING_MAX_SHORTFALL) * median))
        return false;
    char throttled[256] = "";
    gpu_event_list(g->clock_events_seen, GPU_EVENT_SLOWDOWNS, throttled, sizeof throttled);
    finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                _("%s GEMM at %.1f TFLOPS: %.0f%% of the datasheet's %.0f (floor %.0f%%), %.0f%% of the node's "
                  "median%s%s"),
                precision, v / 1e12, peak > 0 ? 100 * v / peak : 0.0, peak / 1e12, 100 * floor,
                median > 0 ? 100 * v / median : 0.0, *throttled ? _("; clock slowdowns seen: ") : "", throttled);
    return true;
}

void check_gpu_burn_failed(struct audit_ctx *ctx)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (!b->loaded || !b->burn_run)
        return; /* judged only where a --burn document is given */
    if (b->nburn == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "bench", b->source), NULL, _("not burnt in: %s"),
                    _(b->burn_unmeasured ? b->burn_unmeasured : "the bench measured no GPU"));
        return;
    }
    /* As for the other bench rules: a document of another machine's GPUs is not judged here. */
    for (int i = 0; i < b->nburn && ctx->machine->pci_scanned; i++)
        if (!accelerator_at(ctx->machine, b->burn[i].bus_id)) {
            finding_add(ctx, SEV_UNKNOWN, "machine",
                        json_pack("{s:s, s:s}", "bench", b->source, "bench_gpu", b->burn[i].bus_id),
                        _("run `gpuvet bench gpu` on this machine and judge that document"),
                        _("the bench measured a GPU at %s, which is not one of this machine's accelerators (a bench from "
                          "another machine, or a GPU that left the bus since)"),
                        b->burn[i].bus_id);
            return;
        }
    const char *fix = _("do not use this GPU: check the kernel log for Xid errors and nvidia-smi -q -d "
                        "ECC,PERFORMANCE,TEMPERATURE,POWER, and ask the provider for a replacement");
    /* A burn that could not read the kernel log cannot say no Xid came: that part is unknown. */
    if (b->burn_xids_unseen)
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s, s:s}", "bench", b->source, "reason", b->burn_xids_unseen),
                    _("run the burn as root (the kernel log needs CAP_SYSLOG where kernel.dmesg_restrict=1), or read "
                      "`dmesg` for Xid lines after it"),
                    _("Xid errors during the burn-in not watched: %s"), _(b->burn_xids_unseen));
    for (int i = 0; i < b->nburn; i++) {
        const struct bench_gpu_burn *g = &b->burn[i];
        char fault_xids[512], other_xids[512];
        int nfault = burn_xids(g, true, fault_xids, sizeof fault_xids);
        int nother = burn_xids(g, false, other_xids, sizeof other_xids);
        json_t *evidence = json_pack("{s:s, s:f, s:o, s:o, s:i, s:I}", "bench", b->source, "seconds", b->burn_seconds,
                                     "bf16_flops", g->bf16_flops > 0 ? json_real(g->bf16_flops) : json_null(),
                                     "median_bf16_flops",
                                     b->burn_median_flops > 0 ? json_real(b->burn_median_flops) : json_null(),
                                     "entries_wrong", g->entries_wrong, "ecc_uncorrected_new", (json_int_t)g->ecc_new);
        if (!b->burn_xids_unseen) {
            json_t *codes = json_array();
            for (int k = 0; k < g->nxids; k++)
                json_array_append_new(codes, json_integer(g->xids[k].code));
            json_object_set_new(evidence, "xids_new", codes);
        }
        json_object_set_new(evidence, "fp8_flops", g->fp8_flops > 0 ? json_real(g->fp8_flops) : json_null());
        json_object_set_new(evidence, "median_fp8_flops",
                            b->burn_median_fp8_flops > 0 ? json_real(b->burn_median_fp8_flops) : json_null());
        const char *xid_note = b->burn_xids_unseen ? _("; Xids not watched") : _("; no new Xid");
        if (g->ecc_new > 0) {
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("%lld new uncorrectable ECC errors during the %.0f s burn-in"), g->ecc_new, b->burn_seconds);
            continue;
        }
        if (nfault > 0) {
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("new Xid errors the catalogue counts as faults during the %.0f s burn-in: %s"),
                        b->burn_seconds, fault_xids);
            continue;
        }
        if (g->error) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, evidence, NULL, _("not burnt in: %s"), _(g->error));
            continue;
        }
        if (g->entries_wrong > 0) {
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("wrong GEMM result: %d of %d checked entries differ from the CPU's sum"), g->entries_wrong,
                        g->entries_checked);
            continue;
        }
        if (g->matches_node == 0) {
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                        _("wrong GEMM result: it differs from the one %d other GPUs of the node returned"),
                        g->gpus_compared);
            continue;
        }
        if (g->matches_node < 0 || g->entries_wrong < 0) {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, evidence, NULL, "%s",
                        _("the GEMM result could not be judged: two different results were equally common"));
            continue;
        }
        double median = b->burn_median_flops, v = g->bf16_flops;
        if (burn_rate_judged(ctx, g, evidence, fix, "BF16", v, g->bf16_peak_flops, median, GPU_BURN_MIN_FRACTION))
            continue;
        /* FP8 where it ran: its result and rate judged as BF16's, against its own figure and median. */
        double fmedian = b->burn_median_fp8_flops, f = g->fp8_flops;
        if (!g->fp8_unmeasured) {
            if (g->fp8_entries_wrong > 0 || g->fp8_matches_node == 0) {
                if (g->fp8_entries_wrong > 0)
                    finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                                _("wrong FP8 GEMM result: %d of %d checked entries differ from the CPU's sum"),
                                g->fp8_entries_wrong, g->fp8_entries_checked);
                else
                    finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence, fix,
                                _("wrong FP8 GEMM result: it differs from the one %d other GPUs of the node returned"),
                                g->fp8_gpus_compared);
                continue;
            }
            if (burn_rate_judged(ctx, g, evidence, fix, "FP8", f, g->fp8_peak_flops, fmedian, GPU_BURN_FP8_MIN_FRACTION))
                continue;
        }
        char notes[512], fp8_note[400];
        if (g->fp8_unmeasured)
            snprintf(fp8_note, sizeof fp8_note, _("; FP8 not measured: %s"), _(g->fp8_unmeasured));
        else if (g->fp8_matches_node < 0)
            snprintf(fp8_note, sizeof fp8_note, "%s",
                     _("; the FP8 result could not be judged: two different results were equally common"));
        else
            snprintf(fp8_note, sizeof fp8_note, _("; FP8 GEMM at %.1f TFLOPS (%.0f%% of the node's median), result correct"),
                     f / 1e12, fmedian > 0 ? 100 * f / fmedian : 0.0);
        snprintf(notes, sizeof notes, "%s%s", xid_note, fp8_note);
        if (nother > 0)
            finding_add(ctx, SEV_WARN, g->bus_id, evidence,
                        _("read the kernel log around the burn: the catalogue lays these codes to the application "
                          "or calls them informational, and the burn's GEMM is the only work gpuvet ran"),
                        _("%.0f s burn-in: BF16 GEMM at %.1f TFLOPS (%.0f%% of the node's median), result correct, "
                          "but new Xids: %s%s"),
                        b->burn_seconds, v / 1e12, median > 0 ? 100 * v / median : 0.0, other_xids, fp8_note);
        else if (g->ecc_new == 0)
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL,
                        _("%.0f s burn-in: BF16 GEMM at %.1f TFLOPS (%.0f%% of the node's median), result correct, no "
                          "new uncorrectable ECC error%s"),
                        b->burn_seconds, v / 1e12, median > 0 ? 100 * v / median : 0.0, notes);
        else /* the result check stands without the counter: a pass that says what it could not see */
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL,
                        _("%.0f s burn-in: BF16 GEMM at %.1f TFLOPS (%.0f%% of the node's median), result correct; "
                          "the uncorrectable ECC count could not be read%s"),
                        b->burn_seconds, v / 1e12, median > 0 ? 100 * v / median : 0.0, notes);
    }
}
