/* The GPUs of one node talking to each other: which link a collective (all-reduce, all-gather,
 * reduce-scatter) runs over and at what bus bandwidth, from the GPU table's scale-up link and PCIe
 * interface (data/gpus.csv); and the time of the collectives that data-parallel ZeRO and tensor
 * parallelism add to a job. Used by plan --offers (the job's hours) and cost (what each offer's
 * GPUs talk over). The figures and their sources are in docs/plan-cost.md ("Interconnect"). */
#ifndef GPUVET_SIZING_INTERCONNECT_H
#define GPUVET_SIZING_INTERCONNECT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/gputable.h"

/* NVLink (through NVSwitch or a bridge) reaches about 370 of its 450 GB/s a direction as NCCL's
 * ring bus bandwidth on 8x H100 SXM: "with the protocol overhead (~20%) NCCL can get an effective
 * NVLink bandwidth of 370GB/s" (NCCL's maintainer, NVIDIA/nccl-tests issue #212). */
#define IC_NVLINK_MEASURED_BUSBW_GBS 370.0
#define IC_NVLINK_MEASURED_LINK_GBS 450.0
/* An NVLink bridge reaches far less: 2x H100 PCIe joined by NVLink4 bridges (600 GB/s
 * bidirectional, 300 a direction) measured 115.9 GB/s all_reduce_perf bus bandwidth at 4 GB
 * (NVIDIA/nccl issue #1161). */
#define IC_BRIDGE_MEASURED_BUSBW_GBS 115.9
#define IC_BRIDGE_MEASURED_LINK_GBS 300.0
/* PCIe: 8x RTX 5090 (PCIe Gen5 x16, P2P disabled on GeForce, two Xeon 8480+) measured 28 GB/s
 * all_reduce_perf bus bandwidth (NVIDIA/nccl issue #1639); NCCL's maintainer there: "on PCI
 * systems, the performance you get is usually determined by the bandwidth your CPU and memory can
 * deliver". P2P through the root complex is no faster (8x A40: NVIDIA/nccl-tests issue #74). */
#define IC_PCIE_MEASURED_BUSBW_GBS 28.0
#define IC_PCIE_MEASURED_GEN 5
#define IC_PCIE_MEASURED_LANES 16

enum ic_kind { IC_NONE, IC_SCALEUP, IC_BRIDGE, IC_PCIE, IC_UNKNOWN };

/* measured: a public measurement on this link (same link generation and rate); estimated: another
 * link's measured share of its line rate applied to this one. */
enum ic_basis { IC_BASIS_MEASURED, IC_BASIS_ESTIMATED, IC_BASIS_UNKNOWN, IC_BASIS_NOT_USED };
const char *ic_basis_name(enum ic_basis b);
/* The same for a sentence, in the language of the output ("measured", "estimated"). */
const char *ic_basis_label(enum ic_basis b);

struct interconnect {
    enum ic_kind kind;
    char link[96];         /* "none (one GPU)", "NVLink4", "PCIe Gen4 x16", ... (the table's own names) */
    bool p2p;              /* false: GeForce cards, whose driver disables peer-to-peer: the host bounces it */
    double busbw_bytes_s;  /* NCCL's ring bus bandwidth per GPU (nccl-tests busbw); 0 unknown or unused */
    enum ic_basis basis;
    char source[384]; /* what the figure rests on, for the reader */
};

/* How n GPUs of g in one node reach each other. */
void interconnect_in_node(const struct gpu_spec *g, int n, struct interconnect *out);

/* Seconds of a ring collective over n GPUs moving `passes` times (n-1)/n x bytes per GPU: 1 for an
 * all-gather or a reduce-scatter, 2 for an all-reduce (nccl-tests' busbw definition,
 * doc/PERFORMANCE.md). 0 for one GPU; -1 when the bandwidth is unknown. */
double ic_collective_seconds(const struct interconnect *ic, int n, double bytes, double passes);

/* Data-parallel traffic per micro-step, in multiples of the parameters' bytes moved by a ring
 * collective: 2 for DDP and ZeRO-1/2 (gradients all-reduced, or reduce-scattered and the updated
 * parameters all-gathered), 3 for ZeRO-3 (parameters all-gathered in forward and again in backward,
 * gradients reduce-scattered): Rajbhandari et al. 2020, "ZeRO", §7. */
double zero_comm_passes(int stage);

#endif
