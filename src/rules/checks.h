/* The check functions of the rule table, one group per file in rules/. */
#ifndef GPUVET_RULES_CHECKS_H
#define GPUVET_RULES_CHECKS_H

#include "rules/rule.h"

/* rules/pcie.c */
void check_pcie_link_degraded(struct audit_ctx *ctx);
void check_pcie_slot_capped(struct audit_ctx *ctx);
void check_pcie_uplink_shared(struct audit_ctx *ctx);
/* rules/numa.c */
void check_numa_gpu_node_no_memory(struct audit_ctx *ctx);
void check_numa_gpu_node_no_cpus(struct audit_ctx *ctx);
void check_numa_affinity_unknown(struct audit_ctx *ctx);
void check_numa_memory_imbalance(struct audit_ctx *ctx);
void check_numa_binding(struct audit_ctx *ctx);
/* rules/cpu.c */
void check_cpu_governor(struct audit_ctx *ctx);
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
/* rules/virt.c */
void check_virt_limits(struct audit_ctx *ctx);

#endif
