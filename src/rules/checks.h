/* The check functions of the rule table, one group per file in rules/. */
#ifndef GPUVET_RULES_CHECKS_H
#define GPUVET_RULES_CHECKS_H

#include "rules/rule.h"

/* rules/pcie.c */
void check_pcie_link_degraded(struct audit_ctx *ctx);
void check_pcie_slot_capped(struct audit_ctx *ctx);
void check_pcie_uplink_shared(struct audit_ctx *ctx);
/* rules/gpu.c (check_gpu_link_degraded is PCIE_LINK_DEGRADED's judgement of NVIDIA GPUs) */
void check_gpu_link_degraded(struct audit_ctx *ctx);
void check_gpu_ecc_off(struct audit_ctx *ctx);
void check_gpu_retired_pages(struct audit_ctx *ctx);
void check_gpu_throttle(struct audit_ctx *ctx);
void check_gpu_driver_cuda(struct audit_ctx *ctx);
void check_gpu_persistence_off(struct audit_ctx *ctx);
void check_gpu_mig_on(struct audit_ctx *ctx);
void check_gpu_nvlink_down(struct audit_ctx *ctx);
void check_gpu_p2p_cross_socket(struct audit_ctx *ctx);
/* rules/faults.c */
void check_gpu_nvlink_errors(struct audit_ctx *ctx);
void check_gpu_fabric_not_ready(struct audit_ctx *ctx);
void check_pcie_aer_errors(struct audit_ctx *ctx);
void check_net_ib_errors(struct audit_ctx *ctx);
void check_net_gpudirect(struct audit_ctx *ctx);
/* rules/gpu_faults.c */
void check_gpu_xid_errors(struct audit_ctx *ctx);
void check_gpu_lost(struct audit_ctx *ctx);
/* rules/numa.c */
void check_numa_gpu_node_no_memory(struct audit_ctx *ctx);
void check_numa_gpu_node_no_cpus(struct audit_ctx *ctx);
void check_numa_affinity_unknown(struct audit_ctx *ctx);
void check_numa_memory_imbalance(struct audit_ctx *ctx);
void check_numa_binding(struct audit_ctx *ctx);
/* rules/cpu.c */
void check_cpu_governor(struct audit_ctx *ctx);
/* rules/cpu_for_gpus.c */
void check_cpu_cores_per_gpu(struct audit_ctx *ctx);
void check_cpu_freq_low(struct audit_ctx *ctx);
/* rules/storage.c */
void check_storage_slow_data(struct audit_ctx *ctx);
/* rules/network.c */
void check_net_multinode(struct audit_ctx *ctx);
/* rules/claims.c */
void check_claim_mismatch(struct audit_ctx *ctx);

/* rules/memory.c */
void check_mem_channels_underpopulated(struct audit_ctx *ctx);
void check_mem_dimms_mixed(struct audit_ctx *ctx);
void check_mem_speed_downclocked(struct audit_ctx *ctx);
void check_mem_ecc_disabled(struct audit_ctx *ctx);
void check_mem_ecc_errors(struct audit_ctx *ctx);
/* rules/contention.c */
void check_cpu_contention(struct audit_ctx *ctx);
void check_cpu_steal(struct audit_ctx *ctx);
void check_cpu_throttle(struct audit_ctx *ctx);
/* rules/power.c */
void check_power_supply(struct audit_ctx *ctx);
/* rules/kernel.c */
void check_kernel_thp(struct audit_ctx *ctx);
void check_kernel_swap(struct audit_ctx *ctx);
void check_kernel_numa_balancing(struct audit_ctx *ctx);
void check_kernel_isolcpus(struct audit_ctx *ctx);
/* rules/bench.c */
void check_mem_bandwidth_low(struct audit_ctx *ctx);
void check_pcie_bandwidth_low(struct audit_ctx *ctx);
/* MEM_BANDWIDTH_LOW's verdict on a measured triad against the populated DIMMs' theoretical
 * bandwidth; theoretical <= 0 gives `unknown` with theoretical_unknown as the reason. */
void judge_mem_bandwidth(struct audit_ctx *ctx, double measured_bytes_s, double theoretical_bytes_s,
                         const char *theoretical_unknown);
/* Bytes/s that pinned copies achieve on a healthy link of that rate and width; 0 if unknown. */
double pcie_achievable_bytes_s(double gt_s, int width);
/* The machine's accelerator at a bench's bus id, or NULL. */
const struct pci_device *accelerator_at(const struct machine *m, const char *bus_id);
/* rules/gpu_bench.c */
void check_gpu_compute_low(struct audit_ctx *ctx);
void check_gpu_memory_bw_low(struct audit_ctx *ctx);
void check_gpu_memory_errors(struct audit_ctx *ctx);
void check_gpu_burn_failed(struct audit_ctx *ctx);
void check_gpu_p2p_low(struct audit_ctx *ctx);
/* Unknown findings where the bench has no per-GPU measurement to judge (none given, a --burn
 * document, one from another machine): true when it added them. */
bool bench_gpu_unknown(struct audit_ctx *ctx, const char *what);
/* rules/gpu_nccl.c */
void check_gpu_nccl_low(struct audit_ctx *ctx);
/* rules/virt.c */
void check_virt_limits(struct audit_ctx *ctx);

#endif
