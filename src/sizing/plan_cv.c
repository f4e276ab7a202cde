/* cv-train: the input pipeline per node: images/s the GPUs consume, the cores that decode them,
 * the read rate, the memory that caches the dataset. */
#include <math.h>
#include <stdio.h>

#include "sizing/balance.h"
#include "sizing/demand.h"
#include "sizing/jsonfile.h"
#include "sizing/plan_internal.h"

/* More decode cores per GPU than any machine has: the rate they came from is refused. */
#define PLAN_MAX_DECODE_CORES_PER_GPU 4096
/* Images/s one GPU consumes: ResNet-50 training runs at thousands; past this the cores it would
 * need overflow (the audit's CPU_CORES_PER_GPU need scales with it). */
#define PLAN_MAX_IMAGES_S_PER_GPU 1e7

static int decode_rate_from_bench(struct plan *p, const char *path, double *out)
{
    char err[1024];
    json_t *doc = json_load_named(path, err, sizeof err);
    if (!doc)
        return plan_fail(p, "%s", err);
    json_t *v = json_object_get(json_object_get(json_object_get(doc, "benchmarks"), "decode"), "images_s_per_core");
    int rc = 0;
    if (!json_is_number(v) || json_number_value(v) <= 0)
        rc = plan_fail(p, _("%s: no positive benchmarks.decode.images_s_per_core (a `gpuvet bench decode --json` file)"),
                       path);
    else
        *out = json_number_value(v);
    json_decref(doc);
    return rc;
}

int plan_cv(struct plan *p)
{
    int n = p->gpus_per_node;
    const char *rate_source = "--img-rate";
    double rate = p->opt.img_rate > 0 ? p->opt.img_rate : gpu_resnet50_rate(p->gpu, &rate_source);
    if (rate <= 0)
        return plan_fail(
            p,
            _("the table has no ResNet-50 rate for %s, measured or estimated (no 16-bit tensor figure): pass "
            "--img-rate N (images/s one GPU consumes)"),
            p->gpu->id);
    const char *decode_source =
        N_("one core decodes and augments ~460-500 ImageNet JPEGs/s with Pillow (gpuvet bench decode measures this CPU)");
    double per_core = thresholds_for(WL_CV_TRAIN)->cv_decode_images_s_per_core;
    /* decode_source stays English (the document's images_s_per_core_source, which the balance reads
     * back); decode_shown is what the text says. */
    char bench_source[320], bench_shown[320];
    const char *decode_shown = NULL;
    /* which basis the cores requirement rests on: measured (a bench document), given, or the table */
    const char *basis = "table";
    if (p->opt.decode_from) {
        if (decode_rate_from_bench(p, p->opt.decode_from, &per_core) != 0)
            return PLAN_CANNOT_RUN;
        decode_source = N_("measured by gpuvet bench decode");
        basis = "measured";
    } else if (p->opt.decode_rate > 0) {
        per_core = p->opt.decode_rate;
        decode_source = "--decode-rate";
        basis = "given";
    } else if (p->measured && p->measured->decode_per_core > 0) {
        /* The decode rate a --bench document measured on this CPU, as the balance's decode stage uses it. */
        per_core = p->measured->decode_per_core;
        snprintf(bench_source, sizeof bench_source, "measured by gpuvet bench decode (--bench %s)",
                 p->measured->decode_file);
        snprintf(bench_shown, sizeof bench_shown, _("measured by gpuvet bench decode (--bench %s)"),
                 p->measured->decode_file);
        decode_source = bench_source;
        decode_shown = bench_shown;
        basis = "measured";
    }
    /* Checked where the rates meet: a per-core rate so small that the cores would not fit an int (a
     * bench document of a stalled run, a mistyped --decode-rate) is refused by name, never printed
     * as "-2147483648 decode cores". */
    if (rate > PLAN_MAX_IMAGES_S_PER_GPU)
        return plan_fail(p, _("%g images/s per GPU (%s) is more than any GPU consumes (%g): check --img-rate"), rate,
                         rate_source, PLAN_MAX_IMAGES_S_PER_GPU);
    double decode_need = ceil(rate / per_core);
    if (!(per_core > 0) || !isfinite(decode_need) || decode_need > PLAN_MAX_DECODE_CORES_PER_GPU)
        return plan_fail(p,
                         _("%g images/s per core (%s) would need %.3g decode cores per GPU, more than the %d any "
                           "machine has: measure the decode rate again or pass --decode-rate N"),
                         per_core, decode_shown ? decode_shown : _(decode_source), decode_need,
                         PLAN_MAX_DECODE_CORES_PER_GPU);
    struct cv_demand d;
    cv_pipeline_demand(rate, per_core, n, p->opt.image_bytes, &d);
    int decode_cores = d.cores_per_gpu - CORES_PER_TRAINING_PROCESS;
    int audit_need = cores_per_gpu(WL_CV_TRAIN, 0, rate);
    if (audit_need > d.cores_per_gpu) {
        d.cores_per_gpu = audit_need;
        d.cores_per_node = n * audit_need + CORES_FOR_OS;
    }
    json_object_set_new(p->doc, "pipeline",
                        json_pack("{s:f, s:s, s:b, s:f, s:s, s:s, s:i, s:i, s:f, s:f}", "images_s_per_gpu", rate,
                                  "images_s_source", rate_source, "images_s_estimated",
                                  p->opt.img_rate <= 0 && p->gpu->resnet50_img_s <= 0, "images_s_per_core", per_core,
                                  "images_s_per_core_source", decode_source, "images_s_per_core_basis", basis,
                                  "cores_per_gpu", d.cores_per_gpu,
                                  "cores_per_node", d.cores_per_node, "image_bytes", p->opt.image_bytes,
                                  "read_bytes_s_per_node", d.read_bytes_s_per_node));
    plan_step(p, N_("gpus"), _("%d x %s consume %.0f images/s each (%s)"), n, p->gpu->id, rate, rate_source);
    plan_step(p, N_("cpu"),
              _("%.0f / %.0f images/s per core (%s) = %d decode cores + 1 training process per GPU%s; x %d GPUs + %d "
              "for the OS = %d cores"),
              rate, per_core, decode_shown ? decode_shown : _(decode_source), decode_cores,
              audit_need == d.cores_per_gpu && audit_need > decode_cores + 1
                  ? _(", raised to the audit's CPU_CORES_PER_GPU need")
                  : "",
              n, CORES_FOR_OS, d.cores_per_node);
    plan_step(p, N_("storage"), _("%.0f images/s x %.0f KB = %.2f GB/s read per node, sustained"), rate * n,
              p->opt.image_bytes / 1e3, gb(d.read_bytes_s_per_node));
    plan_require(p, N_("gpus_per_node"), json_integer(n), _("%d x %s as asked"), n, p->gpu->id);
    plan_require(
        p, N_("cpu_cores_per_node"), json_integer(d.cores_per_node),
        _("images/s per GPU / images/s per core + 1 per GPU (at least the audit's CPU_CORES_PER_GPU need), + %d for "
        "the OS"),
        CORES_FOR_OS);
    plan_require(p, N_("storage_read_bytes_s"), json_real(d.read_bytes_s_per_node), _("images/s x average image size"));
    if (p->opt.dataset_bytes > 0) {
        double host = p->opt.dataset_bytes + n * (double)TRAINING_PROCESS_HOST_BYTES;
        plan_require(
            p, N_("host_ram_bytes_per_node"), json_real(host),
            _("the dataset (%.*f GB) cached in the page cache so epochs after the first read no disk, + %d x 2 GB "
            "training processes; data-loader workers' memory comes on top"),
            gb_decimals(p->opt.dataset_bytes), gb(p->opt.dataset_bytes), n);
        plan_require(p, N_("storage_bytes_per_node"), json_real(p->opt.dataset_bytes), _("the dataset"));
        plan_step(p, N_("host memory"), _("%.*f GB: the dataset fits in the page cache"), gb_decimals(host), gb(host));
    } else {
        plan_require(p, N_("host_ram_bytes_per_node"), json_null(),
                     _("pass --dataset-bytes to size the cache for the dataset"));
        plan_step(p, N_("host memory"), _("unknown: pass --dataset-bytes to size it"));
    }
    plan_network(p, false);
    plan_correction(
        p,
        _("A common rule of thumb says 12-24 cores are enough for CV training: at %.0f images/s per GPU and %.0f "
        "per core this node needs %d."),
        rate, per_core, d.cores_per_node);
    return 0;
}
