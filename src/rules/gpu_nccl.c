/* GPU_NCCL_LOW: NCCL's all-reduce bus bandwidth that `bench gpu` measured across the node's GPUs,
 * against what the link between them should give: the share of its line rate that a public
 * measurement reached on that kind of link (model/link_busbw.h, the figures `plan` and `cost` use
 * for a job's collectives), applied to this node's link. Which link: the part's scale-up link from
 * data/gpus.csv (NVLink through NVSwitch, or bridges), and, for bridges and PCIe, this machine's
 * topology: bridges count only where the model sees their NVLinks active between the GPUs, PCIe at
 * the generation and width the GPUs and their slots allow together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/link_busbw.h"
#include "rules/checks.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/units.h"

/* What a healthy node reaches, as a share of the link figure above (NCCL's ring bus bandwidth on
 * that link): Azure's floor for 8x A100, 228 GB/s at 8 GB (Azure/azurehpc-health-checks,
 * conf/nd96asr_v4.conf), is 92 % of the estimate for NVLink3's 300 GB/s a direction (370/450 x 300
 * = 247); NCCL's NVLS algorithm on NVSwitch passes the ring figure (the same project's floors at
 * 16 GB: 431 GB/s for 8x H200, conf/nd96isr_h200_v5.conf, and 460 for 8x H100, 116 % and 124 % of
 * 370). `bench gpu` stops at 1 GiB per GPU (256 MiB with --quick), where nccl-tests' curves are
 * still rising: below 70 % is below every healthy figure with room for that. */
#define NCCL_WARN_FRACTION 0.70
/* NVIDIA's NVSentinel preflight nccl-loopback check (one node's all-reduce over all its GPUs)
 * fails below BW_THRESHOLD_GBPS, 150 GB/s by default, "NVLink interconnect typically sustains 150+
 * GB/s; set to approx 15 GB/s for PCIe interconnect" (NVIDIA/NVSentinel, preflight docs): 41 % of
 * the 370 GB/s NVLink4 figure, and about half of the PCIe Gen5 x16 one. Below 40 % a node is one
 * an operator drains. */
#define NCCL_FAIL_FRACTION 0.40
/* A bus bandwidth half as much again as the fastest link's line rate did not move what was timed. */
#define NCCL_MAX_PLAUSIBLE_OF_LINE 1.5

/* The link a ring over the communicator's GPUs runs on, and what NCCL should reach over it. */
struct nccl_link {
    char name[96];        /* "NVLink4", "NVLink3 bridge (2 GPUs)", "PCIe Gen4 x16" */
    double line_gbs;      /* one direction */
    double expected_gbs;  /* the measured share of the line rate, applied to it */
    double fastest_line_gbs; /* the fastest path the part could have (plausibility) */
    char note[256];       /* why this link was chosen where the machine decided it ("" none) */
};

static double pcie_line_gbs(int gen, int lanes) { return pcie_lane_gb_s(pcie_generation_gt_s(gen)) * lanes; }

/* Every GPU of the communicator has an active NVLink to another of its GPUs (a bridge fitted); -1
 * where the model does not know the NVLink state (`nvidia-smi -q -x` does not report it). */
static int bridges_seen(const struct machine *m, const struct bench_gpu_nccl *c)
{
    for (int i = 0; i < c->ngpus; i++) {
        const struct gpu *g = gpu_set_find(&m->gpus, c->gpus[i]);
        if (!g || !g->nvlink_known)
            return -1;
        bool joined = false;
        for (int k = 0; k < g->nnvlinks && !joined; k++)
            for (int j = 0; j < c->ngpus && !joined; j++)
                joined = j != i && g->nvlinks[k].active == GPU_ON &&
                         gpu_set_find(&m->gpus, g->nvlinks[k].remote_bus_id) == gpu_set_find(&m->gpus, c->gpus[j]);
        if (!joined)
            return 0;
    }
    return 1;
}

/* PCIe at the lowest generation and width the communicator's GPUs and their slots allow, or the
 * part's own where the machine does not say. */
static void over_pcie(const struct machine *m, const struct bench_gpu_nccl *c, const struct gpu_spec *s,
                      struct nccl_link *out)
{
    int gen = 0, lanes = 0;
    bool known = true;
    for (int i = 0; i < c->ngpus; i++) {
        const struct gpu *g = gpu_set_find(&m->gpus, c->gpus[i]);
        if (!g || g->pcie_gen_max <= 0 || g->pcie_width_max <= 0) {
            known = false;
            break;
        }
        if (!gen || g->pcie_gen_max < gen)
            gen = g->pcie_gen_max;
        if (!lanes || g->pcie_width_max < lanes)
            lanes = g->pcie_width_max;
    }
    if (!known) {
        gen = (int)s->pcie_gen;
        lanes = (int)s->pcie_lanes;
    }
    if (gen <= 0 || lanes <= 0)
        return;
    snprintf(out->name, sizeof out->name, "PCIe Gen%d x%d", gen, lanes);
    out->line_gbs = pcie_line_gbs(gen, lanes);
    out->expected_gbs = IC_PCIE_MEASURED_BUSBW_GBS /
                        pcie_line_gbs(IC_PCIE_MEASURED_GEN, IC_PCIE_MEASURED_LANES) * out->line_gbs;
}

/* The link of n GPUs of part s on machine m; out->expected_gbs 0 where unknown. */
static void link_of(const struct machine *m, const struct bench_gpu_nccl *c, const struct gpu_spec *s,
                    struct nccl_link *out)
{
    memset(out, 0, sizeof *out);
    const char *link = s->scaleup_link ? s->scaleup_link : "";
    bool none = !*link || !strncasecmp(link, "none", 4) || s->scaleup_gbs_bidir <= 0;
    bool bridge = !none && strcasestr(link, "bridge");
    double scaleup_line = none ? 0 : s->scaleup_gbs_bidir / 2;
    if (!none && !bridge) {
        snprintf(out->name, sizeof out->name, "%s", link);
        out->line_gbs = out->fastest_line_gbs = scaleup_line;
        out->expected_gbs = IC_NVLINK_MEASURED_BUSBW_GBS / IC_NVLINK_MEASURED_LINK_GBS * scaleup_line;
        return;
    }
    int joins = bridge && strstr(link, "4 GPUs") ? 4 : 2, seen = bridge ? bridges_seen(m, c) : 0;
    if (bridge && c->ngpus <= joins && seen == 1) {
        snprintf(out->name, sizeof out->name, "%s", link);
        out->line_gbs = out->fastest_line_gbs = scaleup_line;
        out->expected_gbs = IC_BRIDGE_MEASURED_BUSBW_GBS / IC_BRIDGE_MEASURED_LINK_GBS * scaleup_line;
        return;
    }
    over_pcie(m, c, s, out);
    out->fastest_line_gbs = out->line_gbs > scaleup_line ? out->line_gbs : scaleup_line;
    if (bridge && c->ngpus > joins)
        snprintf(out->note, sizeof out->note, _("; %s joins %d GPUs, so a ring over %d runs over PCIe"), link, joins,
                 c->ngpus);
    else if (bridge && seen == 0)
        snprintf(out->note, sizeof out->note, "%s", _("; no active NVLink bridge between them, so PCIe"));
    else if (bridge)
        snprintf(out->note, sizeof out->note, "%s",
                 _("; the source does not report NVLink state, so judged as PCIe, the slower of the two"));
}

void check_gpu_nccl_low(struct audit_ctx *ctx)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (bench_gpu_unknown(ctx, _("NCCL all-reduce not measured (gpuvet bench gpu)")))
        return;
    const struct bench_gpu_nccl *c = &b->nccl;
    if (c->busbw_bytes_s <= 0 || c->ngpus < 2) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "bench", b->source), NULL, "%s",
                    c->unmeasured ? _(c->unmeasured) : _("the bench measured no all-reduce"));
        return;
    }
    /* The part: the data/gpus.csv row the bench copied for each GPU of the communicator. */
    const char *spec_id = NULL;
    for (int i = 0; i < c->ngpus; i++) {
        const char *id = NULL;
        for (int k = 0; k < b->ngpu; k++)
            if (!strcmp(b->gpu[k].bus_id, c->gpus[i]))
                id = b->gpu[k].spec_id;
        if (!id || !*id) {
            finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s, s:s}", "bench", b->source, "gpu", c->gpus[i]),
                        NULL, _("all-reduce %.1f GB/s bus bandwidth, but data/gpus.csv has no row for the GPU at %s, "
                                "so what its link should give is not known"),
                        c->busbw_bytes_s / GB, c->gpus[i]);
            return;
        }
        if (spec_id && strcmp(spec_id, id)) {
            finding_add(ctx, SEV_UNKNOWN, "machine",
                        json_pack("{s:s, s:s, s:s}", "bench", b->source, "spec", spec_id, "other_spec", id), NULL,
                        _("all-reduce %.1f GB/s bus bandwidth over unlike GPUs (%s and %s): no one link figure to "
                          "judge it by"),
                        c->busbw_bytes_s / GB, spec_id, id);
            return;
        }
        spec_id = id;
    }
    struct gpu_table table;
    char err[256];
    if (gpu_table_load_default(&table, err, sizeof err)) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "bench", b->source), NULL, "%s", err);
        return;
    }
    const struct gpu_spec *s = gpu_lookup(&table, spec_id, NULL, 0, err, sizeof err);
    struct nccl_link link = {0};
    if (s)
        link_of(ctx->machine, c, s, &link);
    double measured = c->busbw_bytes_s / GB;
    json_t *evidence = json_pack("{s:s, s:f, s:I, s:i, s:s}", "bench", b->source, "busbw_bytes_s", c->busbw_bytes_s,
                                 "bytes", (json_int_t)c->bytes, "gpus", c->ngpus, "spec", spec_id);
    if (link.expected_gbs <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", evidence, NULL,
                    _("all-reduce %.1f GB/s bus bandwidth, but data/gpus.csv gives no link for %s"), measured, spec_id);
        gpu_table_free(&table);
        return;
    }
    json_object_set_new(evidence, "link", json_string(link.name));
    json_object_set_new(evidence, "link_gb_s", json_real(link.line_gbs));
    json_object_set_new(evidence, "expected_busbw_bytes_s", json_real(link.expected_gbs * GB));
    json_object_set_new(evidence, "fraction", json_real(measured / link.expected_gbs));
    json_object_set_new(evidence, "warn_below_fraction", json_real(NCCL_WARN_FRACTION));
    json_object_set_new(evidence, "fail_below_fraction", json_real(NCCL_FAIL_FRACTION));
    const char *fix = _("check `nvidia-smi topo -m` against what was ordered, NVLink state (nvidia-smi nvlink -s), "
                        "the fabric manager on NVSwitch systems and ACS/IOMMU settings that block PCIe peer access; "
                        "then rerun with NCCL_DEBUG=INFO to see which path NCCL chose");
    double fraction = measured / link.expected_gbs;
    if (measured > NCCL_MAX_PLAUSIBLE_OF_LINE * link.fastest_line_gbs)
        finding_add(ctx, SEV_UNKNOWN, "machine", evidence,
                    _("rerun `gpuvet bench gpu`; if the figure stays above the link's, check which libnccl.so.2 "
                      "it loads (`ldconfig -p`)"),
                    _("not a measurement: all-reduce %.1f GB/s bus bandwidth is more than the %s's %.1f GB/s line "
                      "rate can carry (a library that did not run the all-reduce, or a timer that does not count)"),
                    measured, link.name, link.fastest_line_gbs);
    else if (fraction < NCCL_FAIL_FRACTION || fraction < NCCL_WARN_FRACTION)
        finding_add(ctx, fraction < NCCL_FAIL_FRACTION ? SEV_FAIL : ctx_severity(ctx), "machine", evidence, fix,
                    _("all-reduce %.1f GB/s bus bandwidth over %d GPUs is %.0f%% of the %.1f GB/s that NCCL reaches "
                      "over %s (below %.0f%% something is wrong)%s"),
                    measured, c->ngpus, 100 * fraction, link.expected_gbs, link.name,
                    100 * (fraction < NCCL_FAIL_FRACTION ? NCCL_FAIL_FRACTION : NCCL_WARN_FRACTION), link.note);
    else
        finding_add(ctx, SEV_PASS, "machine", evidence, NULL,
                    _("all-reduce %.1f GB/s bus bandwidth over %d GPUs, %.0f%% of the %.1f GB/s that NCCL reaches "
                      "over %s%s"),
                    measured, c->ngpus, 100 * fraction, link.expected_gbs, link.name, link.note);
    gpu_table_free(&table);
}
