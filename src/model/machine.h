/* The machine model: every probe fills a part of it, rules only read it.
 * A value that could not be seen stays at its "unknown" marker (NULL, -1 or 0 as documented per
 * field), and the reason goes into `problems` or into the field's *_unknown string. */
#ifndef GPUVET_MODEL_MACHINE_H
#define GPUVET_MODEL_MACHINE_H

#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/bench.h"
#include "model/network.h"
#include "model/storage.h"

#include "model/gpu.h"

#include "model/contention.h"
#include "model/faults.h"
#include "model/kernel_log.h"
#include "model/memory.h"

struct input_problem {
    char *path;    /* the file (or source) that was missing or malformed */
    char *message; /* what was wrong with it */
    char *message_local; /* the same in the reader's language; NULL: message */
};

struct cpu_info {
    char *vendor;       /* "GenuineIntel", "AuthenticAMD", ARM implementer...; NULL unknown */
    char *model;        /* model name; NULL unknown (ARM and engineering samples may have none) */
    char *arch;         /* "x86_64", "aarch64", ... from the model source */
    int family, model_number; /* CPUID family/model (x86), -1 unknown */
    int sockets, cores, threads; /* physical packages, physical cores, logical CPUs; 0 unknown */
    int usable_threads; /* logical CPUs this process may run on (cgroup, affinity) */
    char *usable_cpus;  /* cpulist of those */
    double base_mhz, max_mhz; /* 0 unknown */
    bool flags_known;
    bool avx2, avx512f, amx;
    bool hypervisor_flag; /* the CPU says it runs under a hypervisor */
};

struct numa_node {
    int id;               /* OS index */
    hwloc_bitmap_t cpus;  /* may be empty (memory-only nodes, e.g. GPU memory on Grace) */
    bool memory_known;
    uint64_t memory_bytes;
    int *distances;       /* row of the kernel's distance table, nnodes entries; NULL unknown */
};

struct pci_link {
    bool known;           /* false when the kernel exposes no link attributes */
    double cur_gt_s, max_gt_s;
    int cur_width, max_width;
};

struct pci_hop {
    char bus_id[32];
    unsigned class_id;    /* 24-bit class code */
    struct pci_link link;
};

enum pci_role { PCI_ROLE_ACCELERATOR, PCI_ROLE_NIC, PCI_ROLE_NVME };

/* vendor_id/device_id when the tree has no such file: outside the 16-bit ID space. */
#define PCI_ID_UNKNOWN 0x10000u

struct pci_device {
    char bus_id[32];      /* "0000:3b:00.0" */
    unsigned class_id;    /* 24-bit class code, e.g. 0x030200 */
    unsigned vendor_id, device_id, subsystem_vendor_id, subsystem_device_id; /* PCI_ID_UNKNOWN: not read */
    char *missing;        /* the ID files the tree lacks ("vendor, device"); NULL when both were read */
    char *vendor_name, *device_name; /* from pci.ids; NULL when not installed or not listed */
    char *driver;         /* bound kernel driver; NULL none */
    enum pci_role role;
    int numa_node;        /* -1 unknown */
    bool numa_derived;    /* numa_node derived from local_cpulist, the kernel said -1 */
    hwloc_bitmap_t local_cpus; /* empty when unknown */
    struct pci_link link;
    struct pci_hop *path; /* upstream bridges: path[0] is the port the device hangs off, the last is the root port */
    int npath;
};

struct kernel_info {
    char *release;
    char *thp_enabled, *thp_defrag; /* selected choice, NULL unknown */
    int64_t swap_total_bytes;       /* -1 unknown */
    int64_t mem_total_bytes;        /* /proc/meminfo MemTotal; -1 unknown */
    int swappiness;                 /* -1 unknown */
    int numa_balancing;             /* -1 unknown, 0 off, 1+ on */
    char *isolated_cpus;            /* cpulist; "" none; NULL unknown */
    char *nohz_full;                /* cpulist; "" none; NULL unknown */
    bool cpufreq_present;
    char *governor;                 /* the governor of most CPUs; NULL when no cpufreq */
    int governor_cpus, governor_other; /* CPUs on `governor`, CPUs on another one */
    char *cmdline;
};

struct virt_info {
    bool known;
    bool vm;
    char *hypervisor;     /* "kvm", "vmware", "microsoft", "xen", "qemu", ... NULL unknown */
    bool container;
    char *container_kind; /* "docker", "podman", "kubernetes", "lxc", ... */
    char *evidence;       /* what the verdict rests on */
};

struct machine {
    char *hostname;
    char *source;         /* "live" or "sysroot:DIR" */
    const char *missing_reason; /* why a file the probes looked for is absent (live kernel, recorded tree,
                                   evidence files only): a static string the probes set */
    struct cpu_info cpu;
    struct numa_node *nodes;
    int nnodes;
    bool pci_scanned;     /* false when the PCI bus could not be read: no device is known */
    struct pci_device *pci; /* accelerators, NICs and NVMe (bridges are in their paths) */
    int npci;
    struct kernel_info kernel;
    struct virt_info virt;
    struct storage_info storage;
    struct network_info network;
    struct gpu_set gpus;  /* NVIDIA GPUs from NVML or nvidia-smi evidence (model/gpu.h) */

    struct memory_info memory;
    struct power_info power;
    struct contention_info contention;
    struct input_problem *problems;
    int nproblems;
    hwloc_topology_t topology; /* kept for binding advice and benchmarks; NULL when not loaded */
    struct bench_results bench; /* audit --bench / --bench-quick; zero when none */
    struct fault_info faults; /* NVSwitch fabric manager, AER, InfiniBand counters, GPUDirect (model/faults.h) */
    struct kernel_log_info kernel_log; /* the GPUs' lines of the kernel log (model/kernel_log.h) */
    struct empty_port_hints empty_ports; /* model/gpu.h */
};

void machine_init(struct machine *m);
void machine_free(struct machine *m);

/* Records that a file was missing or malformed; the report shows it and no fact is guessed. The
 * message is kept in English (JSON) and, formatted from _(fmt) with the same arguments, in the
 * reader's language (reports): arguments are paths, numbers and file contents, the same in both;
 * a sentence around a translated word or an errno text is written with i18n_asprintf and given to
 * machine_problem_reason. */
void machine_problem(struct machine *m, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with a reason already written in English (N_() or i18n_asprintf): _() translates it. */
void machine_problem_reason(struct machine *m, const char *path, const char *reason);
/* A problem recorded on another machine struct (a probe's scratch copy), in both languages. */
void machine_problem_copy(struct machine *m, const struct input_problem *p);
/* The same for a file that is not there: "REASON: WHAT", reason from probe_missing_reason() and
 * `what` ("NUMA layout unknown") marked with N_(), so that reports show both translated while the
 * JSON keeps the English message. */
void machine_problem_missing(struct machine *m, const char *path, const char *reason, const char *what);
/* A problem's message as people read it (the translation where there is one). */
const char *machine_problem_text(const struct input_problem *p);

/* Only evidence files (--dmidecode, --nvidia-smi...) describe this machine: nothing was read live. */
bool machine_from_evidence(const struct machine *m);
/* This machine, read live (not a recorded tree, not evidence files). */
bool machine_is_live(const struct machine *m);
/* A recorded tree (--sysroot DIR). */
bool machine_from_sysroot(const struct machine *m);

const struct numa_node *machine_node(const struct machine *m, int id);
/* NUMA nodes that hold CPUs (GPU memory exposed as a CPU-less node is not host memory). */
int machine_cpu_node_count(const struct machine *m);
/* Accelerators on the PCI bus. */
int machine_accelerator_count(const struct machine *m);

const char *pci_role_name(enum pci_role role);
/* Accelerators are PCI class 0x03xx, 0x12xx and 0x0b40 (SPEC). */
bool pci_class_is_accelerator(unsigned class_id);
bool pci_class_is_bridge(unsigned class_id);
/* GB/s per direction of a link at a rate and width (after encoding). */
double pci_link_gb_s(double gt_s, int width);

#endif
