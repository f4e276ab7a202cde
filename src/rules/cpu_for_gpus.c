/* CPU_CORES_PER_GPU and CPU_FREQ_LOW: the CPU work each accelerator needs (its process, the data
 * loader workers that decode and augment) against the cores and clocks the box has. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rules/checks.h"
#include "util/i18n.h"

/* Accelerators on PCI; for an audit of evidence files alone (no PCI bus read), the GPUs listed. */
static int accelerator_count(const struct machine *m)
{
    return m->pci_scanned ? machine_accelerator_count(m) : m->gpus.count;
}

/* The fastest GPU's ResNet-50 rate from the GPU table; 0 when no GPU's rate is known. */
static double fastest_resnet50_rate(const struct machine *m)
{
    double best = 0;
    for (int i = 0; i < m->gpus.count; i++)
        if (m->gpus.items[i].resnet50_img_s > best)
            best = m->gpus.items[i].resnet50_img_s;
    return best;
}

/* Where each workload's need comes from, for the evidence. */
static const char *cores_basis(enum workload w, bool scaled, char *buf, size_t len)
{
    switch (w) {
    case WL_CV_TRAIN:
        thresholds_expand(scaled ? _("this GPU's ResNet-50 rate (data/gpus.csv) / {cv-train.cv_decode_images_s_per_core} "
                                   "JPEGs/s one core decodes and augments, rounded up, + 1 core for the training process")
                                 : _("this GPU's rate is not in data/gpus.csv: an A100's {cv-train.cv_reference_img_s} "
                                   "ResNet-50 img/s (NVIDIA's published training rate) / {cv-train.cv_decode_images_s_per_core} "
                                   "JPEGs/s per core, rounded up, + 1 core for the training process"),
                          buf, len);
        return buf;
    case WL_LLM_TRAIN:
        return _("the training process plus data-loader workers per GPU (NCCL runs on the GPU, not on CPU cores)");
    case WL_LLM_INFER:
        return _("the serving process plus its tokenizer/batching thread per GPU");
    default:
        return _("this workload sets no per-accelerator need");
    }
}

void check_cpu_cores_per_gpu(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct cpu_info *c = &m->cpu;
    int accelerators = accelerator_count(m);
    if (accelerators == 0)
        return;
    if (c->cores <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL, _("the number of physical cores is unknown"));
        return;
    }
    /* A cpuset or cgroup that hides CPUs hides their cores too: count what this process may use. */
    double cores = c->cores;
    if (c->threads > 0 && c->usable_threads > 0 && c->usable_threads < c->threads)
        cores = (double)c->cores * c->usable_threads / c->threads;
    double per = cores / accelerators;
    int need = ctx->thresholds->cores_per_accelerator_min;
    double rate = fastest_resnet50_rate(m);
    bool scaled = ctx->workload == WL_CV_TRAIN && rate > 0;
    if (ctx->workload == WL_CV_TRAIN)
        need = cv_cores_per_accelerator(ctx->thresholds, scaled ? rate : ctx->thresholds->cv_reference_img_s);
    if (ctx->workload == WL_CV_TRAIN && need == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, NULL,
                    _("the cores a GPU needs for CV training are unknown: data/gpus.csv could not be read, or has "
                      "neither this GPU's ResNet-50 rate nor the reference A100's"));
        return;
    }
    char basis[320];
    json_t *ev = json_pack("{s:i, s:f, s:i, s:f, s:i, s:s}", "physical_cores", c->cores, "usable_physical_cores",
                           cores, "accelerators", accelerators, "cores_per_accelerator", per, "need_per_accelerator",
                           need, "basis", cores_basis(ctx->workload, scaled, basis, sizeof basis));
    if (need == 0)
        finding_add(ctx, SEV_INFO, "machine", ev, NULL,
                    i18n_plural("%.1f physical cores per accelerator (%g cores, %d accelerator); workload %s sets no need",
                                "%.1f physical cores per accelerator (%g cores, %d accelerators); workload %s sets no need",
                                (unsigned long)accelerators),
                    per, cores, accelerators, workload_name(ctx->workload));
    else if (per < need) {
        char fix[160];
        snprintf(fix, sizeof fix, _("rent a node with at least %d physical cores for %d accelerators, or use fewer "
                                  "accelerators per node"), need * accelerators, accelerators);
        finding_add(ctx, ctx_severity(ctx), "machine", ev, fix,
                    _("%.1f physical cores per accelerator (%g cores, %d accelerators), below the %d that %s needs: "
                    "the data loaders cannot keep the accelerators busy"), per, cores, accelerators, need,
                    workload_name(ctx->workload));
    } else
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("%.1f physical cores per accelerator (need %d)"), per, need);
}

void check_cpu_freq_low(struct audit_ctx *ctx)
{
    const struct cpu_info *c = &ctx->machine->cpu;
    const struct thresholds *t = ctx->thresholds;
    double need = t->cpu_boost_min_mhz;
    if (need <= 0) {
        if (t->latency_sensitive)
            finding_add(ctx, SEV_INFO, "machine", NULL, _("gpuvet bench jitter"),
                        _("no clock rule for %s: a 4.5 GHz single-core turbo, as often asked for, fits no datacenter CPU; judge "
                        "latency by measured scheduling jitter instead"), workload_name(ctx->workload));
        return;
    }
    json_t *ev = json_pack("{s:o, s:o, s:f}", "base_mhz", c->base_mhz > 0 ? json_real(c->base_mhz) : json_null(),
                           "max_mhz", c->max_mhz > 0 ? json_real(c->max_mhz) : json_null(), "need_boost_mhz", need);
    /* acpi-cpufreq reports base + 1 MHz as the maximum when turbo is on: the real top is hidden. */
    bool max_is_turbo_marker = c->max_mhz > 0 && c->base_mhz > 0 && c->max_mhz - c->base_mhz > 0 &&
                               c->max_mhz - c->base_mhz <= 1.0;
    double boost = max_is_turbo_marker ? 0 : c->max_mhz;
    if (boost > 0 && boost < need)
        finding_add(ctx, ctx_severity(ctx), "machine", ev, _("rent a CPU with a higher boost clock"),
                    _("boost clock %.2f GHz, below the %.1f GHz that %s wants: per-batch CPU work (decode, launch, "
                    "sync) runs slower"), boost / 1000, need / 1000, workload_name(ctx->workload));
    else if (boost > 0)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("boost clock %.2f GHz (need %.1f GHz)"), boost / 1000,
                    need / 1000);
    else if (c->base_mhz >= need)
        finding_add(ctx, SEV_PASS, "machine", ev, NULL, _("base clock %.2f GHz already meets %.1f GHz"),
                    c->base_mhz / 1000, need / 1000);
    else {
        char base[32] = "unknown";
        if (c->base_mhz > 0)
            snprintf(base, sizeof base, "%.2f GHz", c->base_mhz / 1000);
        finding_add(ctx, SEV_UNKNOWN, "machine", ev, NULL, _("boost clock unknown (%s); base %s, need %.1f GHz"),
                    max_is_turbo_marker ? _("acpi-cpufreq shows base + 1 MHz when turbo is on")
                                        : _("the kernel shows no maximum clock: no cpufreq"),
                    base, need / 1000);
    }
}
