/* What NCCL's all-reduce reaches between the GPUs of one node, per kind of link, from one public
 * measurement each: the bus bandwidth (nccl-tests' busbw) over the link's line rate, one direction.
 * Read by sizing/interconnect (plan and cost: a job's collectives) and by rules/gpu_nccl
 * (GPU_NCCL_LOW: what `bench gpu` measured), so that plan and bench speak of one number. */
#ifndef GPUVET_MODEL_LINK_BUSBW_H
#define GPUVET_MODEL_LINK_BUSBW_H

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

#endif
