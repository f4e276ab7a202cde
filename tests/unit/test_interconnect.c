/* sizing/interconnect.c: which link n GPUs of one node talk over, the bus bandwidth a ring reaches
 * there, and the ZeRO traffic per micro-step. The GPUs are rows of data/gpus.csv, so the figures
 * follow the table. */
#include <criterion/criterion.h>
#include <string.h>

#include "sizing/interconnect.h"
#include "util/gputable.h"
#include "util/parse.h"

static struct gpu_table table;

static void load(void)
{
    char err[512];
    cr_assert_eq(gpu_table_load_default(&table, err, sizeof err), 0, "%s", err);
}
static void unload(void) { gpu_table_free(&table); }

static const struct gpu_spec *gpu(const char *id)
{
    char note[256], err[512];
    const struct gpu_spec *g = gpu_lookup(&table, id, note, sizeof note, err, sizeof err);
    cr_assert(g, "%s", err);
    return g;
}

TestSuite(interconnect, .init = load, .fini = unload);

/* NVIDIA/nccl-tests issue #212: NCCL's ring reaches ~370 GB/s over H100 NVLink4's 450 a direction;
 * H200 has the same NVLink4 at 900 GB/s bidirectional (data/gpus.csv): a measurement, not a guess. */
Test(interconnect, h200_nvlink_is_the_measured_figure)
{
    struct interconnect ic;
    interconnect_in_node(gpu("h200-sxm-141gb"), 8, &ic);
    cr_expect_eq(ic.kind, IC_SCALEUP);
    cr_expect_str_eq(ic.link, "NVLink4");
    cr_expect_float_eq(ic.busbw_bytes_s, 370e9, 1e3);
    cr_expect_eq(ic.basis, IC_BASIS_MEASURED);
    cr_expect(strstr(ic.source, "nccl-tests issue #212"), "%s", ic.source);
}

/* H800's NVLink is cut to 400 GB/s bidirectional: the same share of its 200 a direction, an estimate. */
Test(interconnect, h800_scaled_from_the_h100_share)
{
    struct interconnect ic;
    interconnect_in_node(gpu("h800-sxm5-80gb"), 8, &ic);
    cr_expect_float_eq(ic.busbw_bytes_s, 200e9 * 370.0 / 450.0, 1e3);
    cr_expect_eq(ic.basis, IC_BASIS_ESTIMATED);
}

/* NVIDIA/nccl issue #1639: 8x RTX 5090 on Gen5 x16 without P2P, 28 GB/s bus bandwidth: measured. */
Test(interconnect, rtx_5090_is_the_measured_pcie_figure)
{
    struct interconnect ic;
    interconnect_in_node(gpu("rtx-5090-32gb"), 8, &ic);
    cr_expect_eq(ic.kind, IC_PCIE);
    cr_expect_not(ic.p2p, "GeForce: the driver disables P2P");
    cr_expect_float_eq(ic.busbw_bytes_s, 28e9, 1e3);
    cr_expect_eq(ic.basis, IC_BASIS_MEASURED);
}

/* Gen4 x16 is half Gen5 x16's line rate (16 against 32 GT/s, both 128b/130b): 14 GB/s. L40S is a
 * data-centre card (P2P allowed); RTX 4090 is GeForce (none). */
Test(interconnect, gen4_cards_at_half_the_gen5_measurement)
{
    struct interconnect l40s, rtx;
    interconnect_in_node(gpu("l40s-pcie-48gb"), 8, &l40s);
    interconnect_in_node(gpu("rtx-4090-24gb"), 8, &rtx);
    cr_expect_float_eq(l40s.busbw_bytes_s, 14e9, 1e3);
    cr_expect_float_eq(rtx.busbw_bytes_s, 14e9, 1e3);
    cr_expect(l40s.p2p);
    cr_expect_not(rtx.p2p);
    cr_expect_str_eq(rtx.link, "PCIe Gen4 x16 (no P2P)");
    cr_expect_eq(l40s.basis, IC_BASIS_ESTIMATED);
}

/* An NVLink bridge joins a pair: two A100 PCIe cards use it, eight go over PCIe. Bridges reach
 * less than NVSwitch: 2x H100 PCIe measured 115.9 of 300 GB/s (NVIDIA/nccl issue #1161); the A100
 * PCIe bridge (600 GB/s bidirectional too) is scaled from it. */
Test(interconnect, bridge_joins_pairs_only)
{
    struct interconnect two, eight, h100;
    interconnect_in_node(gpu("a100-pcie-80gb"), 2, &two);
    interconnect_in_node(gpu("a100-pcie-80gb"), 8, &eight);
    interconnect_in_node(gpu("h100-pcie-80gb"), 2, &h100);
    cr_expect_eq(two.kind, IC_BRIDGE);
    cr_expect_float_eq(two.busbw_bytes_s, 115.9e9, 1e3);
    cr_expect_eq(two.basis, IC_BASIS_ESTIMATED, "NVLink3, not the measured NVLink4 bridge");
    cr_expect_float_eq(h100.busbw_bytes_s, 115.9e9, 1e3);
    cr_expect_eq(h100.basis, IC_BASIS_MEASURED);
    cr_expect_eq(eight.kind, IC_PCIE);
    cr_expect(strstr(eight.source, "runs over PCIe"), "%s", eight.source);
}

Test(interconnect, one_gpu_has_no_collectives)
{
    struct interconnect ic;
    interconnect_in_node(gpu("h100-sxm5-80gb"), 1, &ic);
    cr_expect_eq(ic.kind, IC_NONE);
    cr_expect_eq(ic.basis, IC_BASIS_NOT_USED);
    cr_expect_float_eq(ic_collective_seconds(&ic, 1, 1e9, 2), 0, 1e-12);
}

/* Ring collectives (nccl-tests doc/PERFORMANCE.md): an all-reduce moves 2 (n-1)/n of the bytes per
 * GPU, an all-gather or reduce-scatter (n-1)/n; ZeRO-3 is 3 such passes, DDP and ZeRO-1/2 two
 * (Rajbhandari et al. 2020, §7). */
Test(interconnect, ring_time_and_zero_passes)
{
    struct interconnect ic = {.kind = IC_PCIE, .busbw_bytes_s = 14e9};
    cr_expect_float_eq(ic_collective_seconds(&ic, 8, 14e9, 2), 2 * 7.0 / 8, 1e-12);
    cr_expect_float_eq(zero_comm_passes(3), 3, 0);
    cr_expect_float_eq(zero_comm_passes(2), 2, 0);
    cr_expect_float_eq(zero_comm_passes(0), 2, 0);
    struct interconnect unknown = {.kind = IC_PCIE};
    cr_expect_float_eq(ic_collective_seconds(&unknown, 8, 1e9, 2), -1, 0);
}
