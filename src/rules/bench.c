/* MEM_BANDWIDTH_LOW, PCIE_BANDWIDTH_LOW: judge what `gpuvet bench` measured (audit --bench FILE
 * or --bench-quick). Without measurements the verdict is unknown, never a pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/checks.h"
#include "rules/hints.h"
#include "util/parse.h"
#include "util/pciaddr.h"
#include "util/i18n.h"
#include "util/units.h"

void judge_mem_bandwidth(struct audit_ctx *ctx, double measured_bytes_s, double theoretical_bytes_s,
                         const char *theoretical_unknown)
{
    const struct bench_results *b = &ctx->machine->bench;
    if (!b->loaded) {
        finding_add(ctx, SEV_UNKNOWN, "machine", NULL, hint_measure_fix(ctx->machine), _("memory bandwidth not measured"));
        return;
    }
    if (measured_bytes_s <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", json_pack("{s:s}", "bench", b->source), hint_measure_fix(ctx->machine), "%s",
                    b->mem_unmeasured ? _(b->mem_unmeasured) : _("memory bandwidth not measured"));
        return;
    }
    json_t *evidence = json_pack("{s:s, s:f}", "bench", b->source, "triad_bytes_s", measured_bytes_s);
    if (theoretical_bytes_s <= 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", evidence, NULL,
                    _("STREAM triad %.1f GB/s, but the theoretical bandwidth is unknown (%s)"), measured_bytes_s / GB,
                    _(theoretical_unknown));
        return;
    }
    double fraction = measured_bytes_s / theoretical_bytes_s, floor = ctx->thresholds->mem_bandwidth_min_fraction;
    json_object_set_new(evidence, "theoretical_bytes_s", json_real(theoretical_bytes_s));
    json_object_set_new(evidence, "fraction", json_real(fraction));
    json_object_set_new(evidence, "min_fraction", json_real(floor));
    if (fraction < floor)
        finding_add(ctx, ctx_severity(ctx), "machine", evidence,
                    _("check that every channel is populated and runs at its rated speed (dmidecode -t memory), "
                    "that no other job ran during the bench, and rerun it"),
                    _("STREAM triad %.1f GB/s is %.0f%% of the theoretical %.1f GB/s (healthy machines reach "
                    "70-85%%; below %.0f%% something is wrong)"),
                    measured_bytes_s / GB, fraction * 100, theoretical_bytes_s / GB, floor * 100);
    else
        finding_add(ctx, SEV_PASS, "machine", evidence, NULL, _("STREAM triad %.1f GB/s is %.0f%% of the theoretical %.1f GB/s"),
                    measured_bytes_s / GB, fraction * 100, theoretical_bytes_s / GB);
}

void check_mem_bandwidth_low(struct audit_ctx *ctx)
{
    const char *why = NULL;
    double theoretical = machine_memory_theoretical_bytes_s(ctx->machine, &why);
    judge_mem_bandwidth(ctx, ctx->machine->bench.mem_triad_bytes_s, theoretical, why);
}

double pcie_achievable_bytes_s(double gt_s, int width)
{
    if (gt_s <= 0 || width <= 0)
        return 0;
    return pci_link_gb_s(gt_s, width) * GB * pcie_pinned_achievable_fraction(pcie_generation(gt_s));
}

const struct pci_device *accelerator_at(const struct machine *m, const char *bus_id)
{
    for (int i = 0; i < m->npci; i++)
        if (m->pci[i].role == PCI_ROLE_ACCELERATOR && pci_address_same(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of one direction over the GPUs other than `skip`; 0 when there are none. */
static double sibling_median(const struct bench_results *b, int skip, bool h2d)
{
    double *v = calloc((size_t)b->npcie, sizeof *v);
    int n = 0;
    for (int i = 0; i < b->npcie; i++)
        if (i != skip)
            v[n++] = h2d ? b->pcie[i].h2d_pinned_bytes_s : b->pcie[i].d2h_pinned_bytes_s;
    qsort(v, (size_t)n, sizeof *v, compare_double);
    double median = n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    return median;
}

/* The rate a link trains to under load: its current width, and the lower of the device's and
 * its port's maximum speed (an idle GPU reads a lower current speed, SPEC). */
static void loaded_link(const struct pci_device *d, double *gt_s, int *width)
{
    *gt_s = d->link.max_gt_s;
    if (d->npath > 0 && d->path[0].link.known && d->path[0].link.max_gt_s < *gt_s)
        *gt_s = d->path[0].link.max_gt_s;
    *width = d->link.cur_width;
}

void check_pcie_bandwidth_low(struct audit_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    const struct bench_results *b = &m->bench;
    if (!b->loaded || b->pcie_unmeasured || b->npcie == 0) {
        finding_add(ctx, SEV_UNKNOWN, "machine", b->loaded ? json_pack("{s:s}", "bench", b->source) : NULL,
                    hint_measure_fix(ctx->machine), "%s",
                    !b->loaded ? _("host<->GPU bandwidth not measured")
                    : b->pcie_unmeasured ? _(b->pcie_unmeasured)
                                         : _("the bench measured no GPU"));
        return;
    }
    const struct thresholds *t = ctx->thresholds;
    for (int i = 0; i < b->npcie; i++) {
        const struct bench_gpu_copy *g = &b->pcie[i];
        double slowest = g->h2d_pinned_bytes_s < g->d2h_pinned_bytes_s ? g->h2d_pinned_bytes_s : g->d2h_pinned_bytes_s;
        json_t *evidence = json_pack("{s:s, s:f, s:f}", "bench", b->source, "h2d_pinned_bytes_s",
                                     g->h2d_pinned_bytes_s, "d2h_pinned_bytes_s", g->d2h_pinned_bytes_s);
        char problem[512] = "";
        const struct pci_device *d = accelerator_at(m, g->bus_id);
        double expected = 0;
        if (d && d->link.known) {
            double gt_s;
            int width;
            loaded_link(d, &gt_s, &width);
            expected = pcie_achievable_bytes_s(gt_s, width);
            json_object_set_new(evidence, "link_gen", json_integer(pcie_generation(gt_s)));
            json_object_set_new(evidence, "link_width", json_integer(width));
            json_object_set_new(evidence, "achievable_bytes_s", json_real(expected));
            if (expected > 0 && slowest < t->pcie_min_fraction_of_achievable * expected)
                snprintf(problem, sizeof problem,
                         _("pinned copies reach %.1f GB/s, %.0f%% of the %.1f GB/s a Gen%d x%d link achieves"), slowest / GB,
                         100 * slowest / expected, expected / GB, pcie_generation(gt_s), width);
        }
        for (int dir = 0; dir < 2 && !*problem; dir++) {
            double mine = dir == 0 ? g->h2d_pinned_bytes_s : g->d2h_pinned_bytes_s;
            double median = sibling_median(b, i, dir == 0);
            if (median > 0 && mine < (1 - t->pcie_sibling_max_shortfall) * median)
                snprintf(problem, sizeof problem, _("%s %.1f GB/s is %.0f%% below the other GPUs' median %.1f GB/s"),
                         dir == 0 ? "host->device" : "device->host", mine / GB, 100 * (1 - mine / median),
                         median / GB);
        }
        if (*problem) {
            finding_add(ctx, ctx_severity(ctx), g->bus_id, evidence,
                        _("check the link under load (nvidia-smi -q -d PCIE while copying), reseat the card or riser, "
                        "and bind the copying process to the GPU's NUMA node"),
                        "%s", problem);
        } else if (expected > 0) {
            finding_add(ctx, SEV_PASS, g->bus_id, evidence, NULL, _("pinned copies reach %.1f GB/s (%.0f%% of achievable)"),
                        slowest / GB, 100 * slowest / expected);
        } else {
            finding_add(ctx, SEV_UNKNOWN, g->bus_id, evidence, NULL,
                        _("pinned copies reach %.1f GB/s, but %s, so the expected rate is unknown"), slowest / GB,
                        d ? _("the kernel shows no link attributes for it")
                          : _("this machine has no accelerator at that address (a bench from another machine?)"));
        }
    }
}
