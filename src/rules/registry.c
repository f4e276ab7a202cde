/* The rule table. IDs are public and stable (SPEC); severities are per workload, in the order
 * general, cv-train, llm-train, llm-infer, render, hpc. */
#include <string.h>
#include <strings.h>

#include "rules/checks.h"
#include "rules/rule.h"

#define ALL(s) {s, s, s, s, s, s}
#define PER_WORKLOAD(general, cv, llm_train, llm_infer, render, hpc) {general, cv, llm_train, llm_infer, render, hpc}

const struct rule rules_table[] = {
    {"PCIE_LINK_DEGRADED", "pcie", "PCIe link narrower or slower than the device can do", ALL(SEV_FAIL),
     check_pcie_link_degraded,
     "A device that negotiated fewer lanes than both it and its slot support (x8 instead of x16) moves\n"
     "data at a fraction of the rate it was sold for: a bad riser, a dirty contact, a card not fully\n"
     "seated, or a BIOS bifurcation setting. Width is fixed at link training, so a narrow link is a\n"
     "fault at any time. Speed is not: GPUs drop to Gen1 when idle to save power, so a lower speed\n"
     "at idle is only 'info' until it is re-read under load (nvidia-smi while a job runs, or\n"
     "`gpuvet audit --load-check` on NVIDIA GPUs). The limit judged is the lower of the device's and\n"
     "its upstream port's maximum: a cap of the slot is PCIE_SLOT_CAPPED, not a degraded link.\n"
     "NICs and NVMe drives do not downclock their links at idle, so their lower speed is a warning."},
    {"PCIE_SLOT_CAPPED", "pcie", "device faster than the port it is plugged into", ALL(SEV_WARN),
     check_pcie_slot_capped,
     "The device can do more than its upstream port (a Gen4 GPU in a Gen3 slot or riser, a x16 card\n"
     "in a x8 slot). Nothing is broken, but the platform caps the device: host<->device copies\n"
     "run at the port's rate. Compare the offer's spec sheet with the slot, and move the card or\n"
     "ask for a platform whose slots match the card."},
    {"PCIE_UPLINK_SHARED", "pcie", "several accelerators share one switch uplink",
     PER_WORKLOAD(SEV_INFO, SEV_WARN, SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO), check_pcie_uplink_shared,
     "Accelerators (and NICs) behind one PCIe switch share the switch's uplink to the CPU. When their\n"
     "links add up to more than the uplink, simultaneous host<->device copies divide it: four x16\n"
     "GPUs behind one x16 uplink get a quarter each when all load data at once. This matters most\n"
     "for CV training, which streams every batch from host memory (warn); for LLM training and\n"
     "inference the weights stay on the GPU and peer traffic can stay inside the switch (info)."},
    {"PCIE_BANDWIDTH_LOW", "pcie", "measured host<->GPU copy bandwidth too low", ALL(SEV_FAIL),
     check_pcie_bandwidth_low,
     "`gpuvet bench pcie` copies >=256 MiB between pinned host memory on the GPU's NUMA node and the\n"
     "GPU. A healthy link gives pinned copies ~79% (Gen3), ~83% (Gen4) or ~88% (Gen5) of its\n"
     "theoretical per-direction rate (x16: 15.75, 31.5, 63 GB/s). Below 80% of that, or more than\n"
     "10% below the other GPUs of the box, something is wrong that the link state alone does not\n"
     "show: a link that downtrains under load, a riser with errors and replays, a switch uplink\n"
     "shared with busy devices, or IOMMU/ATS settings. The expected rate uses the link's width and\n"
     "the highest speed both the device and its port support, because idle GPUs read a lower speed.\n"
     "Without a bench (audit --bench FILE or --bench-quick) the verdict is unknown."},
    {"NUMA_GPU_NODE_NO_MEMORY", "numa", "accelerator's NUMA node has no host memory", ALL(SEV_FAIL),
     check_numa_gpu_node_no_memory,
     "An accelerator is attached to one CPU socket (its NUMA node). Pinned staging buffers should be\n"
     "allocated in that node's memory; when the node has none (DIMMs missing on that socket), every\n"
     "host<->device copy crosses the CPU interconnect, which can cut pinned bandwidth to a quarter\n"
     "on older platforms and adds latency. Populate that socket's memory channels."},
    {"NUMA_GPU_NODE_NO_CPUS", "numa", "accelerator's NUMA node has no usable CPUs", ALL(SEV_FAIL),
     check_numa_gpu_node_no_cpus,
     "The process that feeds an accelerator should run on CPUs of the accelerator's NUMA node. When\n"
     "that node has no CPUs this process may use (offline CPUs, a cgroup/cpuset that excludes them),\n"
     "the data loader runs far from the device. Memory-only nodes that expose GPU memory (Grace\n"
     "Hopper, MI300A) are not judged: the accelerator's node is then the CPU node its local CPUs say."},
    {"NUMA_AFFINITY_UNKNOWN", "numa", "accelerator's NUMA node unknown on a multi-node host", ALL(SEV_WARN),
     check_numa_affinity_unknown,
     "The kernel reports numa_node = -1 when firmware (ACPI _PXM) does not say which socket a device\n"
     "hangs off. On a single-node machine that is harmless; on a multi-node machine nobody can bind\n"
     "the job correctly, and NCCL/CUDA may pick a far node. Ask the provider for a BIOS that reports\n"
     "proximity, or measure with `gpuvet bench pcie` from each node."},
    {"NUMA_MEMORY_IMBALANCE", "numa", "host memory differs a lot between NUMA nodes", ALL(SEV_WARN),
     check_numa_memory_imbalance,
     "Nodes that hold CPUs should hold similar amounts of memory: an imbalance means DIMMs are missing\n"
     "on one socket, so jobs bound to that socket run out of local memory and spill across the\n"
     "interconnect. Memory-only nodes (GPU memory, CXL, HBM exposed as NUMA nodes) are not host DRAM\n"
     "of a socket and are left out of the comparison."},
    {"NUMA_BINDING", "numa", "the binding to use for each accelerator", ALL(SEV_INFO), check_numa_binding,
     "Run the process that feeds each accelerator on that accelerator's NUMA node, with memory\n"
     "allocated there: `numactl --cpunodebind=N --membind=N cmd`, or `taskset -c CPUS cmd` with the\n"
     "device's local CPUs. Frameworks do not do this by themselves (PyTorch DataLoader workers\n"
     "inherit the parent's affinity)."},
    {"MEM_BANDWIDTH_LOW", "memory", "measured memory bandwidth far below the DIMMs' theoretical", ALL(SEV_WARN),
     check_mem_bandwidth_low,
     "STREAM triad on a healthy machine reaches ~70-85% of the theoretical bandwidth of the populated\n"
     "DIMMs (channels x MT/s x 8 bytes per socket). Below 60% the spec sheet and the box disagree:\n"
     "DIMMs running below their rated speed, channels without DIMMs, a BIOS power profile that\n"
     "throttles memory, or another job using the memory during the bench. `gpuvet bench memory`\n"
     "measures it with one pinned thread per core and arrays at least 4x the last-level cache.\n"
     "Without a bench (audit --bench FILE or --bench-quick) the verdict is unknown."},
    {"CPU_GOVERNOR", "cpu", "cpufreq governor is not 'performance'", ALL(SEV_INFO), check_cpu_governor,
     "With 'powersave' or 'schedutil', cores ramp up only after load appears, which slows bursty\n"
     "data loading and adds latency to inference. 'performance' keeps clocks up. Where no cpufreq\n"
     "driver is loaded (most VMs, some BIOS settings) the firmware or hypervisor owns the clocks and\n"
     "gpuvet cannot tell."},
    {"KERNEL_THP", "kernel", "transparent huge pages setting", ALL(SEV_INFO), check_kernel_thp,
     "THP 'always' lets khugepaged compact memory in the background, which causes latency spikes in\n"
     "latency-sensitive inference; 'madvise' keeps the benefit for programs that ask for it (PyTorch's\n"
     "allocator, databases) without the stalls. For throughput jobs it rarely matters."},
    {"KERNEL_SWAP", "kernel", "swap enabled with a high swappiness", ALL(SEV_INFO), check_kernel_swap,
     "A training or inference job's host memory (dataset cache, pinned buffers' neighbours, the\n"
     "optimizer states of ZeRO offload) should never be paged out: a swapped-out page stalls the\n"
     "data pipeline for milliseconds. Swap with swappiness <= 10 is a safety net; higher values let\n"
     "the kernel swap proactively."},
    {"KERNEL_NUMA_BALANCING", "kernel", "automatic NUMA balancing is on", ALL(SEV_INFO),
     check_kernel_numa_balancing,
     "Automatic NUMA balancing unmaps pages to see who touches them and migrates them; on a job that\n"
     "is already bound with numactl it only adds page faults and jitter. Turn it off when you bind."},
    {"KERNEL_ISOLCPUS", "kernel", "isolated CPUs", ALL(SEV_INFO), check_kernel_isolcpus,
     "isolcpus/nohz_full keep the scheduler and timer ticks off some CPUs. They help latency-critical\n"
     "inference threads pinned there, and they surprise everyone else: processes not explicitly\n"
     "pinned never run on isolated CPUs, so a box with isolated CPUs has fewer usable cores than\n"
     "its spec sheet says."},
    {"VIRT_LIMITS", "virt", "running in a VM or container: what cannot be verified", ALL(SEV_INFO),
     check_virt_limits,
     "Inside a VM the PCIe ports, the NUMA layout, the SMBIOS memory table (QEMU claims ECC) and CPU\n"
     "clocks are what the hypervisor chooses to show; inside a container /sys is the host's but the\n"
     "cgroup limits CPUs and memory. gpuvet lists what it cannot verify from inside instead of\n"
     "passing or failing it: ask the provider for a bare-metal audit or run it on the host."},
};

const int rules_count = (int)(sizeof rules_table / sizeof rules_table[0]);

const struct rule *rule_find(const char *id)
{
    for (int i = 0; i < rules_count; i++)
        if (!strcasecmp(rules_table[i].id, id))
            return &rules_table[i];
    return NULL;
}

void rules_run(const struct machine *m, enum workload workload, struct findings *out)
{
    struct audit_ctx ctx = {.machine = m, .workload = workload, .thresholds = thresholds_for(workload), .out = out};
    for (int i = 0; i < rules_count; i++) {
        ctx.rule = &rules_table[i];
        rules_table[i].check(&ctx);
    }
    findings_sort(out);
}
