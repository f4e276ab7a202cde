/* In-node collectives: the link from the GPU table, its bus bandwidth from one public measurement
 * per kind of link, scaled by line rate where the link differs. */
#include "sizing/interconnect.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/i18n.h"
#include "util/parse.h"

const char *ic_basis_name(enum ic_basis b)
{
    switch (b) {
    case IC_BASIS_MEASURED:
        return "measured";
    case IC_BASIS_ESTIMATED:
        return "estimated";
    case IC_BASIS_NOT_USED:
        return "not_used";
    default:
        return "unknown";
    }
}

const char *ic_basis_label(enum ic_basis b)
{
    return b == IC_BASIS_MEASURED ? _("measured") : b == IC_BASIS_ESTIMATED ? _("estimated") : _("unknown");
}

/* GeForce cards: NVIDIA's driver disables peer-to-peer between them (nvidia-smi topo -p2p r shows
 * "CNS"; NCCL falls back to copies through host memory). */
static bool geforce(const struct gpu_spec *g)
{
    if (g->variant && strcasestr(g->variant, "GeForce"))
        return true;
    for (int i = 0; i < g->naliases; i++)
        if (strcasestr(g->aliases[i], "GeForce"))
            return true;
    return false;
}

/* How many GPUs a bridge joins: "NVLink4 bridge (2 or 4 GPUs)" 4, otherwise pairs. */
static int bridged_gpus(const char *link) { return strstr(link, "4 GPUs") ? 4 : 2; }

/* One public measurement of a kind of link: the bus bandwidth reached, over which line rate (one
 * direction), by what setup (a msgid), where it is published. */
struct ic_measurement {
    double busbw_gbs, line_gbs;
    const char *setup, *where;
};

static double pcie_line_gb_s(int gen, int lanes) { return pcie_lane_gb_s(pcie_generation_gt_s(gen)) * lanes; }

/* The measurement's share of its line rate applied to this link's line_gbs; the measurement itself
 * where the link is the measured one. why: what the reader should know besides ("" none). */
static void from_measurement(struct interconnect *out, const struct ic_measurement *m, double line_gbs,
                             bool measured_link, const char *why)
{
    double share = m->busbw_gbs / m->line_gbs;
    out->busbw_bytes_s = share * line_gbs * 1e9;
    out->basis = measured_link ? IC_BASIS_MEASURED : IC_BASIS_ESTIMATED;
    if (measured_link)
        snprintf(out->source, sizeof out->source,
                 _("measured on %s: %.1f GB/s bus bandwidth of %.1f GB/s a direction (%s)%s"), _(m->setup),
                 m->busbw_gbs, m->line_gbs, m->where, why);
    else
        snprintf(out->source, sizeof out->source,
                 _("estimate: %.0f%% of %s's %.1f GB/s a direction, the share measured on %s (%.1f of %.1f GB/s, "
                   "%s)%s"),
                 share * 100, out->link, line_gbs, _(m->setup), m->busbw_gbs, m->line_gbs, m->where, why);
}

static void over_pcie(const struct gpu_spec *g, const char *why, struct interconnect *out)
{
    out->kind = IC_PCIE;
    out->p2p = !geforce(g);
    if (g->pcie_gen <= 0 || g->pcie_lanes <= 0) {
        snprintf(out->link, sizeof out->link, "PCIe");
        out->basis = IC_BASIS_UNKNOWN;
        snprintf(out->source, sizeof out->source, _("the GPU table has no PCIe interface for %s"), g->id);
        return;
    }
    int gen = (int)g->pcie_gen, lanes = (int)g->pcie_lanes;
    snprintf(out->link, sizeof out->link, "PCIe Gen%d x%d%s", gen, lanes, out->p2p ? "" : _(" (no P2P)"));
    const struct ic_measurement m = {
        IC_PCIE_MEASURED_BUSBW_GBS, pcie_line_gb_s(IC_PCIE_MEASURED_GEN, IC_PCIE_MEASURED_LANES),
        N_("8x RTX 5090 on PCIe Gen5 x16 without P2P, where the CPU and host memory bound it"), "NVIDIA/nccl issue #1639"};
    from_measurement(out, &m, pcie_line_gb_s(gen, lanes),
                     gen == IC_PCIE_MEASURED_GEN && lanes == IC_PCIE_MEASURED_LANES && !out->p2p, why);
}

void interconnect_in_node(const struct gpu_spec *g, int n, struct interconnect *out)
{
    *out = (struct interconnect){.kind = IC_UNKNOWN, .basis = IC_BASIS_UNKNOWN, .p2p = true};
    if (n <= 1) {
        out->kind = IC_NONE;
        out->basis = IC_BASIS_NOT_USED;
        snprintf(out->link, sizeof out->link, "none");
        snprintf(out->source, sizeof out->source, _("one GPU: no collectives between GPUs"));
        return;
    }
    const char *link = g->scaleup_link ? g->scaleup_link : "";
    bool none = !*link || !strncasecmp(link, "none", 4) || g->scaleup_gbs_bidir <= 0;
    bool bridge = !none && strcasestr(link, "bridge");
    if (none) {
        over_pcie(g, "", out);
        return;
    }
    if (bridge && n > bridged_gpus(link)) {
        char why[160];
        snprintf(why, sizeof why, _("; %s joins %d GPUs, so a ring over %d runs over PCIe"), link, bridged_gpus(link),
                 n);
        over_pcie(g, why, out);
        return;
    }
    out->kind = bridge ? IC_BRIDGE : IC_SCALEUP;
    snprintf(out->link, sizeof out->link, "%s", link);
    static const struct ic_measurement bridged = {IC_BRIDGE_MEASURED_BUSBW_GBS, IC_BRIDGE_MEASURED_LINK_GBS,
                                                  N_("2x H100 PCIe over NVLink4 bridges"), "NVIDIA/nccl issue #1161"},
                                       switched = {IC_NVLINK_MEASURED_BUSBW_GBS, IC_NVLINK_MEASURED_LINK_GBS,
                                                   N_("8x H100 SXM over NVLink4, NCCL's ring as its maintainer gives it"),
                                                   "NVIDIA/nccl-tests issue #212"};
    const struct ic_measurement *m = bridge ? &bridged : &switched;
    double line = g->scaleup_gbs_bidir / 2;
    bool same = !strncmp(link, bridge ? "NVLink4 bridge" : "NVLink4", bridge ? 14 : 7) && line == m->line_gbs;
    from_measurement(out, m, line, same, "");
}

double ic_collective_seconds(const struct interconnect *ic, int n, double bytes, double passes)
{
    if (n <= 1)
        return 0;
    if (ic->busbw_bytes_s <= 0)
        return -1;
    return passes * (n - 1) / (double)n * bytes / ic->busbw_bytes_s;
}

double zero_comm_passes(int stage) { return stage >= 3 ? 3 : 2; }
