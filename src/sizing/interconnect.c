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

/* A measured link's share of its line rate applied to this link's line_gb_s (one direction); true
 * when the link is the measured one (the figure is the measurement, not an estimate). */
static bool scaled(struct interconnect *out, double share, double line_gb_s, bool measured_link)
{
    out->busbw_bytes_s = share * line_gb_s * 1e9;
    out->basis = measured_link ? IC_BASIS_MEASURED : IC_BASIS_ESTIMATED;
    return measured_link;
}

static double pcie_line_gb_s(int gen, int lanes) { return pcie_lane_gb_s(pcie_generation_gt_s(gen)) * lanes; }

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
    double share = IC_PCIE_MEASURED_BUSBW_GBS / pcie_line_gb_s(IC_PCIE_MEASURED_GEN, IC_PCIE_MEASURED_LANES);
    double line = pcie_line_gb_s(gen, lanes);
    if (scaled(out, share, line, gen == IC_PCIE_MEASURED_GEN && lanes == IC_PCIE_MEASURED_LANES && !out->p2p))
        snprintf(out->source, sizeof out->source,
                 _("measured: 8x RTX 5090 on PCIe Gen5 x16 without P2P reached %.0f GB/s all-reduce bus bandwidth "
                   "(NVIDIA/nccl issue #1639)%s"),
                 IC_PCIE_MEASURED_BUSBW_GBS, why);
    else
        snprintf(out->source, sizeof out->source,
                 _("estimate: %.0f%% of Gen%d x%d's %.1f GB/s a direction, the share 8x RTX 5090 on Gen5 x16 reached "
                   "(%.0f GB/s all-reduce bus bandwidth, NVIDIA/nccl issue #1639; the CPU and host memory bound "
                   "it, with P2P or without)%s"),
                 share * 100, gen, lanes, line, IC_PCIE_MEASURED_BUSBW_GBS, why);
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
    double line = g->scaleup_gbs_bidir / 2;
    if (bridge) {
        double share = IC_BRIDGE_MEASURED_BUSBW_GBS / IC_BRIDGE_MEASURED_LINK_GBS;
        if (scaled(out, share, line, !strncmp(link, "NVLink4 bridge", 14) && line == IC_BRIDGE_MEASURED_LINK_GBS))
            snprintf(out->source, sizeof out->source,
                     _("measured: 2x H100 PCIe over NVLink4 bridges (%.0f GB/s a direction) reached %.1f GB/s "
                       "all-reduce bus bandwidth (NVIDIA/nccl issue #1161)"),
                     IC_BRIDGE_MEASURED_LINK_GBS, IC_BRIDGE_MEASURED_BUSBW_GBS);
        else
            snprintf(out->source, sizeof out->source,
                     _("estimate: %.0f%% of %s's %.0f GB/s a direction, the share 2x H100 PCIe reached over NVLink4 "
                       "bridges (%.1f of %.0f GB/s, NVIDIA/nccl issue #1161)"),
                     share * 100, link, line, IC_BRIDGE_MEASURED_BUSBW_GBS, IC_BRIDGE_MEASURED_LINK_GBS);
        return;
    }
    double share = IC_NVLINK_MEASURED_BUSBW_GBS / IC_NVLINK_MEASURED_LINK_GBS;
    if (scaled(out, share, line, !strncmp(link, "NVLink4", 7) && line == IC_NVLINK_MEASURED_LINK_GBS))
        snprintf(out->source, sizeof out->source,
                 _("measured: NCCL's ring reaches about %.0f GB/s bus bandwidth over H100 NVLink4's %.0f GB/s a "
                   "direction (NCCL's maintainer, NVIDIA/nccl-tests issue #212)"),
                 IC_NVLINK_MEASURED_BUSBW_GBS, IC_NVLINK_MEASURED_LINK_GBS);
    else
        snprintf(out->source, sizeof out->source,
                 _("estimate: %.0f%% of %s's %.0f GB/s a direction, the share NCCL's ring reaches on H100 NVLink4 "
                   "(%.0f of %.0f GB/s, NVIDIA/nccl-tests issue #212)"),
                 share * 100, link, line, IC_NVLINK_MEASURED_BUSBW_GBS, IC_NVLINK_MEASURED_LINK_GBS);
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
