/* The rule table. IDs are public and stable (SPEC); severities are per workload, in the order
 * general, cv-train, llm-train, llm-infer, render, hpc. */
#include <string.h>
#include <strings.h>

#include "rules/checks.h"
#include "rules/rule.h"
#include "rules/watch.h"
#include "util/i18n.h"

#define ALL(s) {s, s, s, s, s, s}
#define PER_WORKLOAD(general, cv, llm_train, llm_infer, render, hpc) {general, cv, llm_train, llm_infer, render, hpc}

const struct rule rules_table[] = {
    {"PCIE_LINK_DEGRADED", "pcie", N_("PCIe link narrower or slower than the device can do"), ALL(SEV_FAIL),
     check_pcie_link_degraded,
     N_("A device that negotiated fewer lanes than both it and its slot support (x8 instead of x16) moves\n"
     "data at a fraction of the rate it was sold for: a bad riser, a dirty contact, a card not fully\n"
     "seated, or a BIOS bifurcation setting. Width is fixed at link training, so a narrow link is a\n"
     "fault at any time. Speed is not: GPUs drop to Gen1 when idle to save power, so a lower speed\n"
     "at idle is only 'info' until it is re-read under load (nvidia-smi while a job runs, or\n"
     "`gpuvet audit --load-check` on NVIDIA GPUs). The limit judged is the lower of the device's and\n"
     "its upstream port's maximum: a cap of the slot is PCIE_SLOT_CAPPED, not a degraded link.\n"
     "NICs and NVMe drives do not downclock their links at idle, so their lower speed is a warning.")},
    {"PCIE_SLOT_CAPPED", "pcie", N_("device faster than the port it is plugged into"), ALL(SEV_WARN),
     check_pcie_slot_capped,
     N_("The device can do more than its upstream port (a Gen4 GPU in a Gen3 slot or riser, a x16 card\n"
     "in a x8 slot). Nothing is broken, but the platform caps the device: host<->device copies\n"
     "run at the port's rate. Compare the offer's spec sheet with the slot, and move the card or\n"
     "ask for a platform whose slots match the card.")},
    {"PCIE_UPLINK_SHARED", "pcie", N_("several accelerators share one switch uplink"),
     PER_WORKLOAD(SEV_INFO, SEV_WARN, SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO), check_pcie_uplink_shared,
     N_("Accelerators (and NICs) behind one PCIe switch share the switch's uplink to the CPU. When their\n"
     "links add up to more than the uplink, simultaneous host<->device copies divide it: four x16\n"
     "GPUs behind one x16 uplink get a quarter each when all load data at once. This matters most\n"
     "for CV training, which streams every batch from host memory (warn); for LLM training and\n"
     "inference the weights stay on the GPU and peer traffic can stay inside the switch (info).")},
    {"PCIE_BANDWIDTH_LOW", "pcie", N_("measured host<->GPU copy bandwidth too low"), ALL(SEV_FAIL),
     check_pcie_bandwidth_low,
     N_("`gpuvet bench pcie` copies >=256 MiB between pinned host memory on the GPU's NUMA node and the\n"
     "GPU. A healthy link gives pinned copies ~79% (Gen3), ~83% (Gen4) or ~88% (Gen5) of its\n"
     "theoretical per-direction rate (x16: 15.75, 31.5, 63 GB/s). Below {general.pcie_min_fraction_of_achievable%} of that, or more than\n"
     "{general.pcie_sibling_max_shortfall%} below the other GPUs of the box, something is wrong that the link state alone does not\n"
     "show: a link that downtrains under load, a riser with errors and replays, a switch uplink\n"
     "shared with busy devices, or IOMMU/ATS settings. The expected rate uses the link's width and\n"
     "the highest speed both the device and its port support, because idle GPUs read a lower speed.\n"
     "Without a bench (audit --bench FILE or --bench-quick) the verdict is unknown.")},
    {"PCIE_AER_ERRORS", "pcie", N_("PCIe errors counted by AER on a GPU or the ports above it"), ALL(SEV_FAIL),
     check_pcie_aer_errors,
     N_("PCIe Advanced Error Reporting counts each function's errors since boot (sysfs aer_dev_fatal,\n"
     "aer_dev_nonfatal, aer_dev_correctable: the kernel's sysfs-bus-pci-devices-aer_stats). gpuvet reads\n"
     "them for every accelerator and each port on its way to the root port. A fatal or non-fatal\n"
     "(uncorrectable) error lost a transaction: the GPU may have dropped off the bus or corrupted a\n"
     "transfer (fail). Correctable errors were retried by the link; a mean since boot of\n"
     "{general.aer_correctable_per_min_max} or more per minute, DCGM's limit for PCIe replays, means a bad contact, riser or cable (warn),\n"
     "fewer are info. Without the files (firmware-first AER, or a kernel without CONFIG_PCIEAER) the\n"
     "counts are unknown, and so are they when a file is there but cannot be read. The GPU's own PCIe\n"
     "replay counter (NVML, nvidia-smi's \"Replays Since Reset\"; in a passthrough VM the tenant's only\n"
     "PCIe error signal) is judged against the same limit, DCGM's PCIe health watch: a mean since boot\n"
     "at or past it warns; replays over a time the source does not give are unknown. The kernel log's\n"
     "AER lines of the current boot (drivers/pci/pcie/aer.c: \"PCIe Bus Error: severity=...\") are judged\n"
     "the same way for a function sysfs did not count: on a GPU, or a port above it by the PCI paths or\n"
     "the GPU the kernel's recovery names next.")},
    {"GPU_ECC_OFF", "gpu", N_("datacenter GPU with ECC disabled"),
     PER_WORKLOAD(SEV_WARN, SEV_WARN, SEV_FAIL, SEV_WARN, SEV_WARN, SEV_FAIL), check_gpu_ecc_off,
     N_("ECC on GPU memory detects and corrects bit flips; without it a flipped bit silently corrupts\n"
     "weights, gradients or results. Datacenter GPUs ship with ECC on; a provider may turn it off to\n"
     "gain a few percent of memory and bandwidth. For multi-day training and HPC, where one silent\n"
     "error wastes the run, it must be on (fail); for other work it is a warning. GeForce cards have\n"
     "no ECC, and workstation cards ship with it off (info).")},
    {"GPU_RETIRED_PAGES", "gpu", N_("GPU memory errors, retired pages or no spare rows"), ALL(SEV_FAIL),
     check_gpu_retired_pages,
     N_("GPU memory with failing cells is repaired by retiring pages (up to Volta) or remapping rows (Ampere\n"
     "and later), which takes effect at the next GPU reset. DCGM's limits are used: a pending retirement\n"
     "or remap, {general.gpu_retired_pages_max} or more retired pages, a row-remap failure (no spare rows left) or {general.gpu_remapped_uncorrectable_max} rows remapped\n"
     "for uncorrectable errors fail: the GPU is about to, or already does, lose data. Any uncorrected ECC\n"
     "error, SRAM or DRAM, since the driver loaded (volatile) or in the GPU's lifetime (aggregate), fails\n"
     "too (DCGM's memory health watch fails on one; Meta GCM's check allows none); corrected errors past\n"
     "{general.gpu_ecc_corrected_volatile_max} since the driver loaded (Meta GCM's threshold) warn. With ECC on and its counters\n"
     "N/A or unreadable, the state is unknown, not clean. Reset the GPU; if it crosses a limit again, the\n"
     "GPU should be replaced.")},
    {"GPU_THROTTLE", "gpu", N_("GPU clocks slowed by hardware, heat or power brake"), ALL(SEV_FAIL), check_gpu_throttle,
     N_("The driver reports why clocks are below their maximum (clock-event or 'throttle' reasons). A HW\n"
     "slowdown, thermal slowdown or power-brake means the server's cooling or power cannot sustain the\n"
     "GPU: the card delivers a fraction of what is paid for. These are the reasons DCGM fails a stress\n"
     "run on. The software power cap is different: a GPU at full load normally runs at its power\n"
     "limit (info). Reasons are a snapshot: read them while a job runs for the full picture.")},
    {"GPU_DRIVER_CUDA", "gpu", N_("CUDA runtime newer than the driver supports"), ALL(SEV_FAIL), check_gpu_driver_cuda,
     N_("Each driver supports CUDA up to a version (nvidia-smi's 'CUDA Version'). A CUDA runtime\n"
     "(libcudart) or a PyTorch build for a newer major version fails at start-up with 'CUDA driver\n"
     "version is insufficient'. Within one major version, minor-version compatibility lets a newer\n"
     "runtime run on an older driver, except for PTX that needs the newer compiler (info). gpuvet looks\n"
     "for libcudart in the system library folders, /usr/local/cuda-*, and Python site-packages (pip's\n"
     "nvidia/cuda_runtime wheels and torch/version.py).")},
    {"GPU_PERSISTENCE_OFF", "gpu", N_("GPU persistence mode off"), ALL(SEV_INFO), check_gpu_persistence_off,
     N_("Without persistence mode (nvidia-persistenced), the driver de-initialises a GPU when the last\n"
     "process using it exits, so every job start and every nvidia-smi call pays the initialisation\n"
     "again (seconds on large machines) and ECC/clocks settings may be re-applied. DCGM can require it.")},
    {"GPU_MIG_ON", "gpu", N_("GPU split by Multi-Instance GPU"), ALL(SEV_INFO), check_gpu_mig_on,
     N_("With MIG on, an A100/H100 is partitioned into instances; a job sees one instance's memory and\n"
     "SMs, not the whole GPU. That is what a provider sells as a fraction of a GPU; if you paid for\n"
     "whole GPUs, MIG must be off.")},
    {"GPU_NVLINK_DOWN", "gpu", N_("NVLink-capable GPU with inactive links"), ALL(SEV_FAIL), check_gpu_nvlink_down,
     N_("SXM GPUs talk to each other over NVLink (and NVSwitch). A link that is down makes collective\n"
     "operations fall back to slower paths or fail; on NVSwitch systems, a stopped fabric manager\n"
     "leaves all links down. Each link is judged against the links the part has, derived from its\n"
     "scale-up bandwidth in data/gpus.csv and NVIDIA's per-link rate (NVLink page: 50 GB/s per link for\n"
     "NVLink 2-4, 100 GB/s for NVLink 5): V100 SXM2 6, A100 SXM4 12, H100/H200 SXM 18, B200 18. A link\n"
     "the driver does not list counts as down. PCIe cards link through an optional bridge, so their\n"
     "count is not judged: one bridged link down beside an active one still fails, none up is 'no\n"
     "bridge' (info). A machine that sees a single SXM GPU (a slice of a board) has nothing to talk to\n"
     "over NVLink (info). `nvidia-smi -q -x` and `-q` do not report NVLink; NVML and\n"
     "`nvidia-smi nvlink -s` do.")},
    {"GPU_NVLINK_ERRORS", "gpu", N_("NVLink error counters past DCGM's limits"), ALL(SEV_WARN), check_gpu_nvlink_errors,
     N_("NVLink counts data-link replays and recoveries and CRC errors per link since the driver loaded\n"
     "(NVML's nvmlDeviceGetNvLinkErrorCounter, `nvidia-smi nvlink -e`). DCGM's health watch\n"
     "(dcgm_gpu_hardware_limits.h) flags a link at {general.nvlink_error_max} replay or recovery error and at\n"
     "{general.nvlink_crc_per_s_max} CRC errors per second, both over a minute; gpuvet reads the counters once, so it\n"
     "warns at the same replay/recovery count since the driver loaded, and at the CRC limit as a mean\n"
     "since boot (a lower bound of the rate while they were counted). CRC errors below that are info:\n"
     "the link retried and recovered. Read the counters again a minute later: growing counters mean a\n"
     "bad link.")},
    {"GPU_FABRIC_NOT_READY", "gpu", N_("NVSwitch fabric not up"), ALL(SEV_FAIL), check_gpu_fabric_not_ready,
     N_("On NVSwitch boards (HGX/DGX A100, H100, H200, B200) each GPU must register with the NVLink fabric,\n"
     "which NVIDIA's fabric manager (nv-fabricmanager) sets up; until then every CUDA job fails with\n"
     "error 802, 'system not yet initialized' (NVIDIA Fabric Manager User Guide). NVML's GPU fabric\n"
     "info (nvmlDeviceGetGpuFabricInfo, nvidia-smi's Fabric State/Status) must say Completed and Success:\n"
     "Not Started, In Progress, or Completed with an error such as Insufficient Resources is a fail,\n"
     "as Azure's HPC image checks treat it. A100 boards report no fabric state, so gpuvet also looks\n"
     "for NVSwitches on the PCI bus (NVIDIA bridge functions, class 0x0680) and fails when no\n"
     "nv-fabricmanager process runs beside them. Inside a container the host's processes are not\n"
     "visible (unknown). A GPU outside any fabric (PCIe, a single SXM GPU) reports Not Supported.")},
    {"GPU_P2P_CROSS_SOCKET", "gpu", N_("GPU pairs that talk across the CPU interconnect"),
     PER_WORKLOAD(SEV_INFO, SEV_WARN, SEV_WARN, SEV_INFO, SEV_INFO, SEV_INFO), check_gpu_p2p_cross_socket,
     N_("GPUs on different sockets without NVLink exchange data through both CPUs' PCIe roots and the\n"
     "socket interconnect (UPI, Infinity Fabric): 'SYS' in `nvidia-smi topo -m`. Gradient all-reduce\n"
     "between them is slower than within a socket, and P2P may be disabled altogether. It matters for\n"
     "multi-GPU training (warn); single-GPU jobs do not care.")},
    {"GPU_XID_ERRORS", "gpu", N_("the kernel log shows GPU faults since boot"), ALL(SEV_FAIL), check_gpu_xid_errors,
     N_("The NVIDIA driver logs every error it sees on a GPU in the kernel log as an Xid (`NVRM: Xid\n"
     "(PCI:0000:3b:00): 79, ...`), NVSwitch errors as SXid, and says when a GPU has fallen off the bus,\n"
     "could not be initialised (RmInitAdapter failed) or needs a reset. NVIDIA's Xid catalogue\n"
     "(docs.nvidia.com/deploy/xid-errors) says which codes are the application's (13 graphics exception,\n"
     "31 page fault, 43 channel reset, 45 cleanup: info) and which are hardware or driver faults with a\n"
     "recovery action (48 double-bit ECC, 62 micro-controller halt, 63/64 row remapping, 74 NVLink, 79 off\n"
     "the bus, 92 SBE rate, 94/95 contained/uncontained memory error, 119/120 GSP, ...: fail, with the\n"
     "count, the first and last time and the catalogue's action). Only the current boot counts. The\n"
     "table is data/xid-codes.csv; `--xid-fatal LIST` and `--xid-ignore LIST` override it. Reading\n"
     "/dev/kmsg needs root where kernel.dmesg_restrict=1 (Debian's default): then it is unknown, and\n"
     "`--kernel-log FILE` (dmesg, journalctl -k or syslog text) judges a saved log.")},
    {"GPU_LOST", "gpu", N_("a GPU is missing or lost"), ALL(SEV_FAIL), check_gpu_lost,
     N_("A GPU that fell off the bus, failed to initialise or was never seated is a GPU paid for and not\n"
     "delivered. Fails: an NVIDIA GPU on the PCI bus that the driver (NVML or the nvidia-smi file) does\n"
     "not list, NVML answering NVML_ERROR_GPU_IS_LOST, a 'fallen off the bus' line in the kernel log,\n"
     "and fewer accelerators (of any vendor gpuvet recognises) than expected: `--expect-gpus N`, or\n"
     "`--claim`'s gpus.count. Without an expected count, a GPU gone from the bus altogether cannot be\n"
     "told from one never fitted; give --expect-gpus in Slurm's HealthCheckProgram. NVIDIA's Xid\n"
     "catalogue (Xid 79) and NVML's reference (nvmlReturn_t) are the sources.")},
    {"NUMA_GPU_NODE_NO_MEMORY", "numa", N_("accelerator's NUMA node has no host memory"), ALL(SEV_FAIL),
     check_numa_gpu_node_no_memory,
     N_("An accelerator is attached to one CPU socket (its NUMA node). Pinned staging buffers should be\n"
     "allocated in that node's memory; when the node has none (DIMMs missing on that socket), every\n"
     "host<->device copy crosses the CPU interconnect, which can cut pinned bandwidth to a quarter\n"
     "on older platforms and adds latency. Populate that socket's memory channels.")},
    {"NUMA_GPU_NODE_NO_CPUS", "numa", N_("accelerator's NUMA node has no usable CPUs"), ALL(SEV_FAIL),
     check_numa_gpu_node_no_cpus,
     N_("The process that feeds an accelerator should run on CPUs of the accelerator's NUMA node. When\n"
     "that node has no CPUs this process may use (offline CPUs, a cgroup/cpuset that excludes them),\n"
     "the data loader runs far from the device. Memory-only nodes that expose GPU memory (Grace\n"
     "Hopper, MI300A) are not judged: the accelerator's node is then the CPU node its local CPUs say.")},
    {"NUMA_AFFINITY_UNKNOWN", "numa", N_("accelerator's NUMA node unknown on a multi-node host"), ALL(SEV_WARN),
     check_numa_affinity_unknown,
     N_("The kernel reports numa_node = -1 when firmware (ACPI _PXM) does not say which socket a device\n"
     "hangs off. On a single-node machine that is harmless; on a multi-node machine nobody can bind\n"
     "the job correctly, and NCCL/CUDA may pick a far node. Ask the provider for a BIOS that reports\n"
     "proximity, or measure with `gpuvet bench pcie` from each node.")},
    {"NUMA_MEMORY_IMBALANCE", "numa", N_("host memory differs a lot between NUMA nodes"), ALL(SEV_WARN),
     check_numa_memory_imbalance,
     N_("Nodes that hold CPUs should hold similar amounts of memory: an imbalance means DIMMs are missing\n"
     "on one socket, so jobs bound to that socket run out of local memory and spill across the\n"
     "interconnect. Memory-only nodes (GPU memory, CXL, HBM exposed as NUMA nodes) are not host DRAM\n"
     "of a socket and are left out of the comparison.")},
    {"NUMA_BINDING", "numa", N_("the binding to use for each accelerator"), ALL(SEV_INFO), check_numa_binding,
     N_("Run the process that feeds each accelerator on that accelerator's NUMA node, with memory\n"
     "allocated there: `numactl --cpunodebind=N --membind=N cmd`, or `taskset -c CPUS cmd` with the\n"
     "device's local CPUs. Frameworks do not do this by themselves (PyTorch DataLoader workers\n"
     "inherit the parent's affinity).")},
    {"CPU_GOVERNOR", "cpu", N_("cpufreq governor is not 'performance'"), ALL(SEV_INFO), check_cpu_governor,
     N_("With 'powersave' or 'schedutil', cores ramp up only after load appears, which slows bursty\n"
     "data loading and adds latency to inference. 'performance' keeps clocks up. Where no cpufreq\n"
     "driver is loaded (most VMs, some BIOS settings) the firmware or hypervisor owns the clocks and\n"
     "gpuvet cannot tell.")},
    {"CPU_CORES_PER_GPU", "cpu", N_("too few physical cores per accelerator"), ALL(SEV_WARN), check_cpu_cores_per_gpu,
     N_("Every accelerator needs CPU cores beside it: the process that drives it and the data-loader\n"
     "workers that read, decode and augment its batches. Physical cores count, not threads: two\n"
     "hyperthreads share one core's decode units. CV training decodes JPEGs on the CPU: an A100 trains\n"
     "ResNet-50 on {cv-train.cv_reference_img_s} img/s and one core decodes and augments {cv-train.cv_decode_images_s_per_core} of them, so an A100\n"
     "needs {cv-train.cores_for_reference} cores (decode workers + the training process, as `gpuvet plan` counts them); a\n"
     "GPU with a known rate in data/gpus.csv is judged by its own rate. LLM training needs >= {llm-train.cores_per_accelerator_min} per\n"
     "GPU (the training process plus loader workers; NCCL runs on the GPU, not on CPU cores, whatever\n"
     "rules of thumb say), LLM inference >= {llm-infer.cores_per_accelerator_min} (the server and its tokenizer/batching thread).")},
    {"CPU_FREQ_LOW", "cpu", N_("CPU clock below the workload's need"), ALL(SEV_WARN), check_cpu_freq_low,
     N_("Per-batch CPU work (JPEG decode, kernel launches, synchronisation) runs on few threads and\n"
     "scales with the clock. Common rules of thumb are kept where they hold: CV training wants a\n"
     "boost clock >= {cv-train.cpu_boost_min_mhzGHz}, LLM training >= {llm-train.cpu_boost_min_mhzGHz}. For inference they ask for a 4.5 GHz\n"
     "single-core turbo, which no datacenter CPU reaches: latency is judged by measured scheduling\n"
     "jitter (`gpuvet bench jitter`) instead. acpi-cpufreq shows base + 1 MHz as the maximum when\n"
     "turbo is on; gpuvet then reports the boost clock as unknown rather than guess.")},
    {"STORAGE_SLOW_DATA", "storage", N_("dataset on slow storage or on the system disk"),
     PER_WORKLOAD(SEV_INFO, SEV_WARN, SEV_INFO, SEV_INFO, SEV_INFO, SEV_INFO), check_storage_slow_data,
     N_("CV training reads its dataset every epoch as many small files in random order. A spinning disk\n"
     "seeks for each one and a SATA SSD's 6 Gb/s link caps reads at ~550 MB/s: the data loaders\n"
     "starve the GPUs (warn for cv-train; info for workloads whose data is small). A dataset on the\n"
     "system disk competes with logs, updates and swap (info: keep system and data on separate\n"
     "disks). Give the dataset with --data-dir DIR: gpuvet finds the mount and the disks below it\n"
     "(partitions, LVM and RAID resolved). Network filesystems are judged by measurement only\n"
     "(`gpuvet bench storage`).")},
    {"NET_MULTINODE", "network", N_("network too slow for a multi-node job"), ALL(SEV_FAIL), check_net_multinode,
     N_("A job spread over several machines (--nodes N) exchanges gradients or activations every step.\n"
     "Below {general.net_multinode_fail_gbps} Gb/s on the fastest usable NIC the exchange dominates the step (fail). Without RDMA\n"
     "(InfiniBand or RoCE) NCCL falls back to TCP sockets, costing CPU time and latency (warn). LLM\n"
     "training moves the most data and wants >= {llm-train.net_multinode_warn_gbps} Gb/s per node (warn below). GPUDirect RDMA\n"
     "moves data between NIC and GPU memory over PCIe: a NIC on another NUMA node than the GPUs, or\n"
     "under no common PCIe switch, routes it through the CPU (info). NICs whose link is not visible\n"
     "(no driver, another network namespace) make the verdict unknown rather than a fail.")},
    {"NET_IB_ERRORS", "network", N_("InfiniBand/RoCE port error counters above zero"), ALL(SEV_WARN), check_net_ib_errors,
     N_("Each RDMA port counts symbol errors, link error recoveries, link downs, receive errors (local and\n"
     "remote physical), link integrity errors, buffer overruns and transmit discards\n"
     "(/sys/class/infiniband/DEV/ports/N/counters, the InfiniBand PortCounters). A clean link counts\n"
     "none: `ibqueryerrors` (rdma-core's infiniband-diags) reports every counter above its default\n"
     "threshold of zero, and so does gpuvet (warn). A link that went down or keeps recovering makes NCCL\n"
     "jobs hang or restart. The counters run since the port came up or was last cleared: clear them\n"
     "(`perfquery -R`) and read again under load to tell an old event from a bad cable.")},
    {"NET_GPUDIRECT", "network", N_("GPUDirect RDMA not ready for a multi-node job"), ALL(SEV_WARN), check_net_gpudirect,
     N_("A multi-node job (--nodes N) moves GPU data over the network. With GPUDirect RDMA the NIC reads\n"
     "and writes GPU memory directly; that needs NVIDIA's peer-memory module (nvidia_peermem, formerly\n"
     "nv_peer_mem) loaded, or DMA-BUF in its place: NVIDIA's GPU Operator documentation (GPUDirect\n"
     "RDMA) recommends DMA-BUF where it is supported; it needs NVIDIA's open GPU kernel modules\n"
     "(/proc/driver/nvidia/version says \"Open Kernel Module\") and Linux 5.12 or later, and NCCL uses\n"
     "it where they are there (its NCCL_DMABUF_ENABLE environment variable, on by default). Without\n"
     "the peer-memory module, the open module on a 5.12+ kernel passes, the proprietary one or an older\n"
     "kernel warns, and an unknown module type warns naming DMA-BUF as the way out. PCIe Access\n"
     "Control Services that redirect peer requests on the switch ports between a GPU and its NIC send\n"
     "that traffic up to the root complex, which cuts its bandwidth or breaks it (NCCL troubleshooting\n"
     "guide: disable ACS). ACS lives in the ports' extended configuration space, which only root can\n"
     "read: as another user it is unknown.")},
    {"CLAIM_MISMATCH", "claims", N_("the provider's claimed spec differs from the machine"), ALL(SEV_FAIL),
     check_claim_mismatch,
     N_("`--claim FILE` sets the offer's spec against what the audit finds, key by key (label vs\n"
     "reality). Counting tricks are named: '32 cores' that are 16 cores with 2 threads each\n"
     "says so. Memory is compared with MemTotal plus what the kernel keeps: the page map (64-byte\n"
     "struct page per 4 KiB, {general.claim_memory_page_map_share%}) and ~{general.claim_memory_fixed_reserve_bytesGiB} of firmware, kernel and crashkernel reservations; Linux\n"
     "does not reserve '5 %' of RAM (that is ext4's reserved disk blocks). Keys whose facts this audit\n"
     "does not observe are 'unknown', never 'pass'.")},

    {"MEM_CHANNELS_UNDERPOPULATED", "memory", N_("memory channels left empty"),
     PER_WORKLOAD(SEV_WARN, SEV_FAIL, SEV_WARN, SEV_WARN, SEV_WARN, SEV_WARN), check_mem_channels_underpopulated,
     N_("Memory bandwidth per socket is channels x MT/s x 8 bytes. A socket with DIMMs on 2 of its 6\n"
     "channels has a third of the bandwidth the CPU was built for, however much memory is installed;\n"
     "two DIMMs on some channels and none on others is just as bad even when the count looks right.\n"
     "CV training streams every decoded batch through host memory, so it fails there; elsewhere it\n"
     "warns. Channels come from the DIMM locators (22 vendor schemes: P0_Node0_Channel0_Dimm0,\n"
     "CPU0_C0D0, DIMM000, P0 CHANNEL A, SOCKET 0 CHANNEL 0 DIMM 0, Dell A1..A12, ...), the vendors'\n"
     "slot maps of data/board-slot-maps.csv (HP DL380 G7, DL360e/DL388e Gen8; Lenovo SR570, SR650 V2,\n"
     "each with its manual), or, on HPE ProLiant Gen10 and later,\n"
     "from HPE's DIMM location records (SMBIOS type 202). A socket passes\n"
     "only when every channel is shown to hold a DIMM. Fewer DIMMs than channels warns whatever the\n"
     "locators say. Where they name the socket but no channel (HPE Gen8/Gen9 'PROC 1 DIMM 3'), as\n"
     "many DIMMs as channels is unknown: HPE's slot order puts 8 DIMMs on 4 of 6 channels of a DL360\n"
     "Gen10. Persistent memory (Optane, NVDIMM) is not RAM and fills no channel here.\n"
     "Channels per socket come from data/cpu-platforms.csv; a front-side-bus Xeon (5400 and older)\n"
     "has none of its own: its memory controller is in the chipset, so the audit says unknown and\n"
     "that the per-socket rule does not apply.")},
    {"MEM_DIMMS_MIXED", "memory", N_("DIMMs of different size, speed or rank"), ALL(SEV_WARN), check_mem_dimms_mixed,
     N_("Mixed DIMMs run at the slowest module's speed and timings, and unequal sizes break the even\n"
     "interleave across channels: part of the memory is reached through fewer channels. Use\n"
     "identical modules in every channel.")},
    {"MEM_SPEED_DOWNCLOCKED", "memory", N_("memory runs below what DIMMs and CPU allow"), ALL(SEV_WARN),
     check_mem_speed_downclocked,
     N_("The configured speed (what the memory controller runs) below both the DIMMs' rating and the\n"
     "CPU's top speed costs bandwidth for nothing: a BIOS frequency or power-profile setting. The limit\n"
     "is per CPU model (data/cpu-platforms.csv, the vendor's spec page per row: E5-2640 v4 2133 MT/s,\n"
     "E5-2680 v4 2400, Gold 6430 4400) and per DIMMs per channel (two DIMMs in a channel lower it on\n"
     "most platforms). Running at that top speed passes; DIMMs rated below the CPU are `info` (slow\n"
     "DIMMs, not a downclock). A model missing from the table is judged by its family's lowest speed,\n"
     "and only a speed below it warns; where the locators name no channel and a second DIMM per channel\n"
     "is possible, a speed the derated limit explains is `unknown`, not a warning.")},
    {"MEM_BANDWIDTH_LOW", "memory", N_("measured memory bandwidth far below the DIMMs' theoretical"), ALL(SEV_WARN),
     check_mem_bandwidth_low,
     N_("STREAM triad on a healthy machine reaches ~70-85% of the theoretical bandwidth of the populated\n"
     "DIMMs (channels x MT/s x 8 bytes per socket). Below {general.mem_bandwidth_min_fraction%} the spec sheet and the box disagree:\n"
     "DIMMs running below their rated speed, channels without DIMMs, a BIOS power profile that\n"
     "throttles memory, or another job using the memory during the bench. `gpuvet bench memory`\n"
     "measures it with one pinned thread per core and arrays at least 4x the last-level cache.\n"
     "Without a bench (audit --bench FILE or --bench-quick) the verdict is unknown.")},
    {"MEM_ECC_DISABLED", "memory", N_("memory without ECC"),
     PER_WORKLOAD(SEV_WARN, SEV_WARN, SEV_FAIL, SEV_WARN, SEV_WARN, SEV_FAIL), check_mem_ecc_disabled,
     N_("Without ECC a flipped bit in host memory silently corrupts data: a gradient, a checkpoint, a\n"
     "simulation step. Weeks-long training and HPC runs meet such flips (fail); other work risks\n"
     "wrong results (warn). Evidence: SMBIOS type 16's error correction, the DIMMs' total vs data\n"
     "width, an EDAC driver. Inside a VM the SMBIOS table is the hypervisor's (QEMU says Multi-bit\n"
     "ECC on any host), so the verdict is unknown there.")},
    {"MEM_ECC_ERRORS", "memory", N_("memory errors counted by EDAC"), ALL(SEV_FAIL), check_mem_ecc_errors,
     N_("The kernel's EDAC driver counts corrected (ce) and uncorrected (ue) memory errors. Any\n"
     "uncorrected error means data was lost (fail). Corrected errors are repaired, but a rising\n"
     "count means a DIMM is failing; one reading cannot tell rising from old, so it warns.")},
    {"CPU_CONTENTION", "cpu", N_("other processes use the CPUs"), ALL(SEV_WARN), check_cpu_contention,
     N_("The data loader needs the cores the spec sheet promises. gpuvet watches the CPUs for\n"
     "--sample seconds (default 2) and names every process that used more than {general.contention_process_share%} of the machine\n"
     "(mining, backups, monitoring agents, a forgotten job), and warns when the load average exceeds\n"
     "the CPU count. A recorded tree or an evidence file has nothing to sample: unknown.")},
    {"CPU_STEAL", "cpu", N_("the hypervisor takes CPU time"), ALL(SEV_WARN), check_cpu_steal,
     N_("Steal is time a vCPU was ready to run but the hypervisor ran something else: oversold hosts.\n"
     "Above {general.steal_warn%} of the CPU time data loading stutters (warn); above {general.steal_fail%} the instance delivers far\n"
     "less than its vCPU count (fail). Measured from /proc/stat over the sampling window.")},
    {"CPU_THROTTLE", "cpu", N_("CPUs thermally throttled"), ALL(SEV_WARN), check_cpu_throttle,
     N_("Intel CPUs count thermal throttle events per core and package. Counters that rise during the\n"
     "sample mean the CPUs run hot now (fans, airflow, a dusty heat sink, a power-capped BIOS\n"
     "profile) and slow the data pipeline. Counts from long ago are shown but not judged.")},
    {"POWER_SUPPLY", "power", N_("power supply redundancy and headroom"), ALL(SEV_WARN), check_power_supply,
     N_("From SMBIOS type 39 (DMTF DSP0134, System Power Supply): one supply is no\n"
     "redundancy (info); a supply whose status is not OK is a warning. Headroom: the GPUs' power\n"
     "limits plus the CPUs' package power limit (RAPL PL1, about the TDP) should stay below {general.power_headroom_ratio%} of\n"
     "what the supplies give with one of them lost (N+1); undersized power throttles or trips under\n"
     "load. Without the GPUs' power limits (no driver, evidence file) headroom is unknown,\n"
     "never guessed.")},
    {"KERNEL_THP", "kernel", N_("transparent huge pages setting"), ALL(SEV_INFO), check_kernel_thp,
     N_("THP 'always' lets khugepaged compact memory in the background, which causes latency spikes in\n"
     "latency-sensitive inference; 'madvise' keeps the benefit for programs that ask for it (PyTorch's\n"
     "allocator, databases) without the stalls. For throughput jobs it rarely matters.")},
    {"KERNEL_SWAP", "kernel", N_("swap enabled with a high swappiness"), ALL(SEV_INFO), check_kernel_swap,
     N_("A training or inference job's host memory (dataset cache, pinned buffers' neighbours, the\n"
     "optimizer states of ZeRO offload) should never be paged out: a swapped-out page stalls the\n"
     "data pipeline for milliseconds. Swap with swappiness <= {general.swappiness_max} is a safety net; higher values let\n"
     "the kernel swap proactively.")},
    {"KERNEL_NUMA_BALANCING", "kernel", N_("automatic NUMA balancing is on"), ALL(SEV_INFO),
     check_kernel_numa_balancing,
     N_("Automatic NUMA balancing unmaps pages to see who touches them and migrates them; on a job that\n"
     "is already bound with numactl it only adds page faults and jitter. Turn it off when you bind.")},
    {"KERNEL_ISOLCPUS", "kernel", N_("isolated CPUs"), ALL(SEV_INFO), check_kernel_isolcpus,
     N_("isolcpus/nohz_full keep the scheduler and timer ticks off some CPUs. They help latency-critical\n"
     "inference threads pinned there, and they surprise everyone else: processes not explicitly\n"
     "pinned never run on isolated CPUs, so a box with isolated CPUs has fewer usable cores than\n"
     "its spec sheet says.")},
    {"VIRT_LIMITS", "virt", N_("running in a VM or container: what cannot be verified"), ALL(SEV_INFO),
     check_virt_limits,
     N_("Inside a VM the PCIe ports, the NUMA layout, the SMBIOS memory table (QEMU claims ECC) and CPU\n"
     "clocks are what the hypervisor chooses to show; inside a container /sys is the host's but the\n"
     "cgroup limits CPUs and memory. gpuvet lists what it cannot verify from inside instead of\n"
     "passing or failing it: ask the provider for a bare-metal audit or run it on the host.")},
    {"GPU_MEMORY_BW_LOW", "gpu", N_("measured GPU memory bandwidth too low"), ALL(SEV_FAIL), check_gpu_memory_bw_low,
     N_("`gpuvet bench gpu` copies a buffer of up to 1 GiB (256 MiB with --quick) with its own copy kernel\n"
     "and counts bytes read plus bytes written, as STREAM and BabelStream count Copy. Healthy NVIDIA GPUs\n"
     "reach 85-90% of their datasheet memory bandwidth this way (NVIDIA/cccl pull request 9881; alpaka\n"
     "issue 1874 quotes NVIDIA's advice that 70-80% is already good). Below 70% of the data/gpus.csv\n"
     "figure, or more than 10% behind the node's best GPU, the GPU is not the part it should be or runs\n"
     "with its memory clock held low. The copy engines' rate (cuMemcpyDtoDAsync) is recorded beside it\n"
     "but not judged: nvbandwidth's device-local copy stays far below the datasheet on healthy parts.\n"
     "Without a bench (audit --bench FILE) the verdict is unknown.")},
    {"GPU_COMPUTE_LOW", "gpu", N_("measured GPU compute too low"), ALL(SEV_FAIL), check_gpu_compute_low,
     N_("`gpuvet bench gpu` runs an FP32 FMA loop on the CUDA cores (8 independent chains per thread, every\n"
     "multiprocessor full) for 1 s (--quick) or 8 s. The datasheet FP32 figure is multiprocessors x FP32\n"
     "lanes x 2 x boost clock (CUDA C++ Programming Guide, arithmetic instruction throughput), so a GPU\n"
     "holding its boost clock comes close to it. Below 70% of the data/gpus.csv FP32 figure, or more\n"
     "than 10% behind the node's best GPU, clocks are held low (power cap, heat, locked clocks) or\n"
     "multiprocessors are missing. This is not a tensor-core (GEMM) rate: BF16/FP8 matrix throughput is\n"
     "not measured yet.")},
    {"GPU_MEMORY_ERRORS", "gpu", N_("the GPU memory test found errors"), ALL(SEV_FAIL), check_gpu_memory_errors,
     N_("`gpuvet bench gpu` writes address-in-address and its complement (and, without --quick, all zeros\n"
     "and all ones) over a share of the free GPU memory (half with --quick, 90% without, less when the\n"
     "time budget at the measured bandwidth is shorter) and verifies every 32-bit word on the GPU, in\n"
     "passes repeated while its 15 s last (one pass with --quick: an intermittent fault shows in some).\n"
     "Any word that does not hold what was written is a fault that ECC did not hide: the GPU should\n"
     "not run a job, whatever its counters say (DCGM's level-4 diagnostic runs a memory test for the\n"
     "same reason).")},
    {"GPU_BURN_FAILED", "gpu", N_("the GPU failed the burn-in"), ALL(SEV_FAIL), check_gpu_burn_failed,
     N_("`gpuvet bench gpu --burn` runs a BF16 GEMM on the tensor cores (cuBLAS cublasGemmEx, FP32\n"
     "accumulation, n = 8192 where memory allows) on every GPU at once for --duration seconds (60), and\n"
     "reads NVML every second. The inputs are multiples of 1/16, so FP32 accumulation is exact in any\n"
     "order and every healthy GPU returns the same bits: a result unlike the node's, or an entry unlike\n"
     "the CPU's sum, fails, as does a new uncorrectable ECC error. So does a rate below 45% of the\n"
     "data/gpus.csv dense BF16 figure (healthy parts reach 80-87% at their best shape and about half at\n"
     "8192^3: stas00/ml-engineering's matmul table, pranjalssh/fast.cu issue 13) or more than 10%\n"
     "behind the node's median. Judged only where a --burn document is given (audit --bench FILE).")},
    {"GPU_P2P_LOW", "gpu", N_("GPU-to-GPU copies slower than the node's other pairs"), ALL(SEV_WARN), check_gpu_p2p_low,
     N_("`gpuvet bench gpu` asks the driver whether each GPU can reach each other directly\n"
     "(cuDeviceCanAccessPeer) and times 64 MiB (--quick) or 256 MiB copies each way (cuMemcpyPeerAsync),\n"
     "as nvbandwidth's device-to-device copies do. A pair without peer access while others have it, or\n"
     "a pair more than 10% behind the node's best pair, talks through a slower path than its siblings: a\n"
     "link down, a fabric manager not running, ACS or IOMMU settings forcing copies through the CPU. On\n"
     "PCIe nodes pairs under different root ports are slower by design; compare with `nvidia-smi topo -m`.\n"
     "What the link itself should give (NVLink generation, PCIe switch) is not judged yet.")},
    {"GPU_NCCL_LOW", "gpu", N_("NCCL all-reduce slower than the GPUs' link should give"), ALL(SEV_WARN),
     check_gpu_nccl_low,
     N_("`gpuvet bench gpu` loads NCCL (libnccl.so.2) and, in one process, all-reduces float32 buffers\n"
     "of up to 1 GiB per GPU (256 MiB with --quick) over every GPU (ncclCommInitAll), as nccl-tests'\n"
     "all_reduce_perf does, and reports its bus bandwidth: algbw x 2(n-1)/n (nccl-tests,\n"
     "doc/PERFORMANCE.md). The link's figure is the one plan and cost use: NVLink through NVSwitch 370\n"
     "of 450 GB/s a direction (NCCL's maintainer, NVIDIA/nccl-tests issue 212), NVLink bridges 115.9 of\n"
     "300 (NVIDIA/nccl issue 1161), PCIe 28 GB/s on Gen5 x16 (NVIDIA/nccl issue 1639), each scaled to\n"
     "this part's line rate (data/gpus.csv; bridges only where their NVLinks are seen active). Healthy\n"
     "nodes reach about that figure or more (Azure/azurehpc-health-checks: 228 GB/s on 8x A100, 431 on\n"
     "8x H200): below 70% warns, below 40% fails (NVIDIA/NVSentinel's preflight fails NVLink nodes\n"
     "below 150 GB/s). Without NCCL, or with one GPU, it is unknown.")},
};

const int rules_count = (int)(sizeof rules_table / sizeof rules_table[0]);

const struct rule *rule_find(const char *id)
{
    for (int i = 0; i < rules_count; i++)
        if (!strcasecmp(rules_table[i].id, id))
            return &rules_table[i];
    for (int i = 0; i < watch_rules_count; i++)
        if (!strcasecmp(watch_rules_table[i].id, id))
            return &watch_rules_table[i];
    return NULL;
}

static void run_checks(const struct machine *m, enum workload workload, const struct audit_inputs *inputs,
                       struct findings *out)
{
    static const struct audit_inputs single_node = {.nodes = 1};
    struct audit_ctx ctx = {.machine = m, .workload = workload, .thresholds = thresholds_for(workload),
                            .inputs = inputs ? inputs : &single_node, .out = out};
    for (int i = 0; i < rules_count; i++) {
        ctx.rule = &rules_table[i];
        rules_table[i].check(&ctx);
    }
}

/* The local text of each finding comes from a second, translated run of the same checks: the
 * checks are pure functions of the model, so the runs pair up finding by finding. Formatting the
 * English and the local text in one call would leave the pieces a message is built from (a
 * "%s" filled with "could not be read") in English. */
static void add_local_text(const struct machine *m, enum workload workload, const struct audit_inputs *inputs,
                           struct findings *out)
{
    struct findings local = {0};
    run_checks(m, workload, inputs, &local);
    findings_adopt_local(out, &local);
}

void rules_run(const struct machine *m, enum workload workload, const struct audit_inputs *inputs,
               struct findings *out)
{
    i18n_english_begin();
    run_checks(m, workload, inputs, out);
    i18n_english_end();
    if (i18n_translating())
        add_local_text(m, workload, inputs, out);
    findings_sort(out);
}
