/* The GPUs of one node talking to each other: which link a collective (all-reduce, all-gather,
 * reduce-scatter) runs over and at what bus bandwidth, from the GPU table's scale-up link and PCIe
 * interface (data/gpus.csv); and the time of the collectives that data-parallel ZeRO and tensor
 * parallelism add to a job. Used by plan --offers (the job's hours) and cost (what each offer's
 * GPUs talk over). The figures and their sources are in docs/plan-cost.md ("Interconnect"). */
#ifndef GPUVET_SIZING_INTERCONNECT_H
#define GPUVET_SIZING_INTERCONNECT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/link_busbw.h"
#include "util/gputable.h"

/* The measured figures (IC_*_MEASURED_*) and their sources: model/link_busbw.h, which the rules
 * that judge `bench gpu` read too. */

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
