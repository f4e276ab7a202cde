/* Probes fill the machine model from one source each. They read only through util/fsroot, so
 * the same code audits the live machine and a recorded tree. */
#ifndef GPUVET_PROBE_PROBE_H
#define GPUVET_PROBE_PROBE_H

#include <time.h>

#include "model/machine.h"
#include "util/datadir.h"
#include "util/linereader.h"

struct cpu_ticks;
struct xid_overrides;

/* What the request (pipeline/audit.h) says of how to read the machine; passed down to the probes
 * that use it, never kept between runs. */
struct probe_request {
    bool read_system;                /* false: evidence files alone describe the machine */
    const struct xid_overrides *xid; /* --xid-fatal, --xid-ignore; NULL none */
    double deadline_cap_s;           /* no blocking call's own budget exceeds this (util/deadline.h);
                                        0: none */
};

/* Runs every probe of the system (live or --sysroot) in dependency order. With req->read_system
 * false (an audit of evidence files alone) it reads nothing and marks the source "evidence".
 * Returns 0, or -1 when the machine cannot be read at all (the reason is in m->problems). */
int probe_machine(struct machine *m, const struct probe_request *req);
/* The host name of the machine under fsroot (its proc/sys/kernel/hostname; live: else gethostname),
 * malloc'd; NULL when a recorded tree has none. */
char *probe_hostname(void);

/* hwloc: packages, cores, threads, usable CPUs, CPU model and frequencies. */
void probe_topology(struct machine *m);
/* /proc/cpuinfo and cpufreq: model (when hwloc had none), flags, clocks, hypervisor flag. */
void probe_cpu(struct machine *m);
/* /sys/devices/system/node: CPUs, memory and distances per NUMA node. */
void probe_numa(struct machine *m);
/* /sys/bus/pci/devices: accelerators, NICs, NVMe, their links and the bridges above them. */
void probe_pci(struct machine *m);
/* THP, swap, NUMA balancing, isolated CPUs, cpufreq governors. */
void probe_kernel(struct machine *m);
/* VM and container detection. Needs probe_cpu first (hypervisor flag). */
void probe_virt(struct machine *m);

/* /sys/class/block and the mount table: disks, and the disks under `/` and the data directory
 * (m->storage.data.path, set before probing). Needs probe_pci first (NVMe NUMA nodes). statvfs waits
 * at most deadline_cap_s (0: its own budget). */
void probe_storage(struct machine *m, double deadline_cap_s);
/* --data-dir DIR before probe_storage: on the live machine its real path (under a deadline: a hung
 * mount is judged by the path as given), in a recorded tree the absolute path on that machine.
 * 0, or -1 with the error printed. realpath waits at most deadline_cap_s (0: its own budget). */
int probe_data_dir(struct machine *m, const char *dir, double deadline_cap_s);
/* m->bench from a saved `gpuvet bench --json` document (bench_json.c); doc is taken (freed), source
 * names it in errors. 0, or -1 with the error printed. */
int probe_bench_document(struct machine *m, json_t *doc, const char *source);
/* The same from FILE, refused when it is not a readable regular file. */
int probe_bench_file(struct machine *m, const char *file);
/* /sys/class/net and /sys/class/infiniband: NICs, their links and RDMA ports. Needs probe_pci. */
void probe_network(struct machine *m);

/* "0000:3b:00.0", also with VMD's 5-digit domains. */
/* The last PCI function in a resolved sysfs device path (the controller or NIC a block or
 * network device hangs off); malloc'd, NULL when the path holds none. */
char *pci_bus_id_of_path(const char *sysfs_path);

/* NVIDIA GPUs: NVML on the live machine (only when an NVIDIA device is there, or
 * $GPUVET_NVML_LIBRARY names a library), the stored nvidia-smi.xml in a recorded tree; then the
 * CUDA runtimes and PyTorch builds installed. Needs probe_pci first. NVML waits at most
 * deadline_cap_s (0: its own budget). */
void probe_nvidia(struct machine *m, double deadline_cap_s);

/* Joins each GPU to its row of data/gpus.csv by product name (the ResNet-50 rate CV sizing uses).
 * A GPU the table does not know keeps its unknowns. */
void probe_gpu_specs(struct machine *m);

/* NVSwitch functions on the PCI bus, the fabric manager's process where there are any, and the
 * uptime (probe/fabric.c). Needs probe_virt first (a container cannot see the host's processes). */
void probe_fabric(struct machine *m);
/* AER counters of each accelerator and the ports above it (probe/aer.c). Needs probe_pci. */
void probe_aer(struct machine *m);
/* InfiniBand/RoCE port error counters (probe/rdma_faults.c). */
void probe_ib_errors(struct machine *m);
/* GPUDirect RDMA: the peer-memory module and ACS on the switch ports between NVIDIA GPUs and RDMA
 * NICs, where both exist. Needs probe_pci, probe_network and probe_nvidia. */
void probe_gpudirect(struct machine *m);
/* ACS redirect state from a port's config space (len bytes): 1 redirect or egress control on, 0
 * off or no ACS capability, -1 with the reason in *why (static English) when too little of the
 * space was readable. */
int pci_acs_redirect(const unsigned char *config, size_t len, const char **why);

/* Where `gpuvet snapshot` stores `nvidia-smi -q -x` output inside its tree. */
#define NVIDIA_SMI_SNAPSHOT_FILE "/nvidia-smi.xml"
/* Reads `nvidia-smi -q -x` output from a file given by the user; replaces any GPU facts.
 * Returns 0, or -1 with the reason in m->problems (naming the file). */
int probe_nvidia_smi_file(struct machine *m, const char *path);
#define NVIDIA_SMI_MAX_FILES 8
/* Several --nvidia-smi files (at most NVIDIA_SMI_MAX_FILES), each recognised by its content: `nvidia-smi -q -x` XML
 * or `nvidia-smi -q` text first (the last one describes the GPUs), then `nvidia-smi nvlink -s` and
 * `-e` text joined to those GPUs. 0 or -1. */
int probe_nvidia_smi_files(struct machine *m, const char *const *paths, int n);
/* The GPU facts of an nvidia-smi file replace what another source gave (the CUDA runtimes found
 * stay): the set emptied, marked probed, its source "nvidia-smi:FILE". */
void nvidia_smi_take_gpus(struct machine *m, const char *file);
/* `nvidia-smi nvlink -s` or `-e` text: a "GPU N: ..." line and a "Link L: ..." (or all-inactive) line. */
bool nvidia_smi_text_is_nvlink(const char *text);
/* Sets the NVLink state and error counters of the GPUs already described (by UUID, else index),
 * or, where no other file described them, of the GPUs its "GPU N: PRODUCT (UUID: ...)" lines name
 * (subject "GPU N"); 0 or -1 with a problem. */
int probe_nvidia_smi_nvlink_text(struct machine *m, const char *file, const char *text);
/* `nvidia-smi -q` text (or a part of it, `-q -d ECC`): a "GPU 00000000:18:00.0" line and a "Key : Value"
 * line after it. */
bool nvidia_smi_text_is_q(const char *text);
/* The text rewritten as the `nvidia-smi -q -x` document it stands for (probe/nvidia_smi_text.c),
 * with at most GPU_MAX_PER_NODE <gpu> elements; *sections counts the GPU sections of the text.
 * NULL when out of memory. The caller frees it (xmlFreeDoc). */
struct _xmlDoc *nvidia_smi_text_to_xml(const char *text, int *sections);
/* nvidia-smi's own failure lines in a file ("Unable to determine the device handle for GPU
 * 0000:07:00.0: Unknown Error", "No devices were found", "Failed to initialize NVML: ..."): the
 * GPUs it could not reach, with its words, and the first line that says it could reach none. */
struct smi_failures {
    int unreachable;            /* lines; the first GPU_SMI_UNREACHABLE_MAX are kept */
    struct {
        char bus_id[32];        /* as printed; "" when the line names none */
        char said[200];
    } items[GPU_SMI_UNREACHABLE_MAX];
    char nothing[200];          /* "" when no such line */
};
/* True when the text holds one of those lines. */
bool nvidia_smi_text_failures(const char *text, struct smi_failures *f);
/* Reads NVIDIA_SMI_SNAPSHOT_FILE under the root: 0 read, 1 absent, -1 malformed (in m->problems). */
int probe_nvidia_smi_recorded(struct machine *m);
/* `--load-check`: drives host-to-device copies on each GPU whose link generation is below its
 * max and re-reads the link in NVML while they run (gpu.load). Live machine only. The driver's
 * start-up allowance is at most deadline_cap_s (0: its own budget). */
void probe_nvidia_load_check(struct machine *m, double deadline_cap_s);

/* The kernel log (probe/kernel_log.c, model/kernel_log.h). Where `gpuvet snapshot` stores the
 * current boot's log inside its tree (what --sysroot reads back). */
#define KERNEL_LOG_SNAPSHOT_FILE "/kernel-log.txt"
#define XID_CODE_MAX 1023
#define XID_SET_BYTES ((XID_CODE_MAX + 1) / 8)
/* `--xid-fatal LIST`, `--xid-ignore LIST`: codes classified against the catalogue. */
struct xid_overrides {
    unsigned char fatal[XID_SET_BYTES], ignore[XID_SET_BYTES];
};
/* Adds a comma-separated list of codes ("48,79") to set; false when it is not such a list. */
bool xid_list_parse(const char *list, unsigned char set[XID_SET_BYTES]);
/* The live ring buffer (/dev/kmsg, without blocking; readable by root only under dmesg_restrict:
 * then unknown with that reason), or a recorded tree's KERNEL_LOG_SNAPSHOT_FILE. While a snapshot
 * records, the current boot's lines are stored at KERNEL_LOG_SNAPSHOT_FILE. */
void probe_kernel_log(struct machine *m, const struct xid_overrides *xid);
/* `--kernel-log FILE`: a saved log in any of dmesg's, journalctl's or syslog's forms, replacing
 * what probe_kernel_log read. 0, or -1 with the reason in m->problems (not a regular file, not a
 * kernel log, a read error). */
int probe_kernel_log_file(struct machine *m, const char *path, const struct xid_overrides *xid);
/* PCIe switches with accelerators below and an empty downstream port (m->empty_ports). Needs
 * probe_pci. */
void probe_gpu_slots(struct machine *m);
/* data/xid-codes.csv's row checker (util/datadir.h). */
int xid_table_check(FILE *f, const char *label, char *err, size_t errlen);

/* What the GPUs' virtualization mode says of the machine (after the GPUs are read): a GPU passed
 * through or a vGPU slice means a VM, with `source` ("nvidia-smi", "NVML") and the mode as the
 * evidence; the hypervisor stays unknown unless something else named it. */
void virt_from_gpus(struct machine *m, const char *source);

/* The hypervisor a DMI vendor/product string names ("QEMU" -> "qemu"), or NULL. */
const char *virt_hypervisor_named_by(const char *dmi_text);

struct dmi_data;
/* SMBIOS memory, slots, power supplies and (when the model has none) processors, from `evidence`
 * (a --dmidecode/--dmi-table file) or, when NULL, from the machine's table; then EDAC, the CPU
 * platform table and RAPL. Replaces what an earlier call found. */
void probe_memory(struct machine *m, const struct dmi_data *evidence);
/* The locator scheme (name, static) that maps one SMBIOS type-17 locator / bank locator to a socket
 * (raw: 0- or 1-based as the vendor writes it) and a channel key (controller * 64 + channel; -1 when
 * the scheme names the socket only); NULL when no scheme matches (Dell's slot order needs the vendor
 * and is not tried here). */
const char *memory_locator_scheme(const char *locator, const char *bank_locator, int *socket, int *channel);
/* How a slot map's locators name the processor and the slot (the table's scheme field). */
enum board_slot_layout {
    SLOT_LAYOUT_PROC_DIMM, /* "PROC n DIMM m", m numbered per processor */
    SLOT_LAYOUT_DIMM_CPU,  /* "DIMM m" + bank locator "CPU n", m numbered across processors */
    SLOT_LAYOUT_DIMM,      /* "DIMM m" (or "DIMMmm") alone, numbered across processors: slots
                              1..nslots on processor 1, the next nslots on processor 2, ... */
};
/* A server model's DIMM slot map (data/board-slot-maps.csv): slot_channel[k] is the channel (0..channels-1)
 * of processor 1's slot k+1. */
struct board_slot_map {
    char *scheme;  /* "PROC 1 DIMM 3 (slot map: DOCUMENT)", names the document */
    char *source;  /* where the document is published */
    enum board_slot_layout layout;
    int channels, nslots;
    int slot_channel[64];
};
/* Finds the row for this SMBIOS vendor and product (every row is checked; a broken one is a machine
 * problem naming FILE:LINE). false when none matches. */
bool board_slot_map_find(struct machine *m, const char *vendor, const char *product, struct board_slot_map *out);
void board_slot_map_free(struct board_slot_map *map);
/* The socket (1-based, as the locator writes it) and channel of one DIMM by the map; false when its
 * locators are not of the map's form or name a slot the map lacks. */
bool board_slot_map_place(const struct board_slot_map *map, const char *locator, const char *bank_locator,
                          int *socket, int *channel);
/* EDAC memory controllers: ECC driver presence, error counters, DIMMs when SMBIOS had none. */
void probe_edac(struct machine *m);
/* Socket (-1 unknown) and channel key (-1 unknown) from an EDAC dimm_label and dimm_location. */
void edac_position(const char *label, const char *location, int *socket, int *channel);
/* The DIMMs EDAC lists, placed as far as label, location and topology say (*out malloc'd: free each
 * locator, bank_locator, type and the array): dimm* entries, rank* and legacy csrow* chip selects made
 * into modules by their board label (rank: the chip selects under it; 0 unknown). Returns the count;
 * *ungrouped: chip-select entries left apart because no board label says which share a module. */
int edac_read_dimms(const struct machine *m, struct dimm **out, int *ungrouped);
/* The next row of a data/ table read by r: skips blank and '#' lines and splits the row in place at
 * its commas (the tables quote nothing and have no commas inside fields) into at most max fields.
 * Returns the row's field count (more than max when the row has too many: the caller must reject
 * it), 0 at the end of the file, -1 with "FILE:LINE: why" in err for a line over TEXT_LINE_MAX. */
int data_row_next(struct line_reader *r, char **fields, int max, char *err, size_t errlen);
/* Records "FILE: line N: K fields, expected E" for a data/ table row with the wrong field count. */
void data_row_field_count_problem(struct machine *m, const char *file, int lineno, int nfields, int expected);
/* 0 for a usable row (nfields == expected, problem NULL), else -1 with "FILE:LINE: what is wrong"
 * in err: the field count, or problem (an N_() text the table's loader found). */
int data_row_error(const char *file, int lineno, int nfields, int expected, const char *problem, char *err,
                   size_t errlen);
/* Row checkers of the data tables (util/datadir.h's data_table_checker): read f to its end and
 * close it; the first row the loader could not use is "FILE:LINE: what is wrong" in err, -1. */
int cpu_platform_table_check(FILE *f, const char *label, char *err, size_t errlen);
int board_slot_table_check(FILE *f, const char *label, char *err, size_t errlen);
/* Every table's checker by file name (probe/data_tables.c), and data_tables_check run with them. */
extern const struct data_table_checks data_table_checkers[];
extern const int data_table_checkers_count;
int probe_data_tables_check(char *err, size_t errlen);
/* Looks the CPU up in data/cpu-platforms.csv (model string, then CPUID family/model). */
void probe_cpu_platform(struct machine *m);
/* Samples /proc/stat, /proc/PID/stat, load average and thermal throttle counters for `seconds`
 * on the live machine; a recorded tree or seconds <= 0 leaves the sample unknown with the reason. */
void probe_contention(struct machine *m, double seconds);
/* The same window opened before the other probes, so that they run inside it instead of before it
 * (audit: NVML on an 8-GPU node overlaps the 2 s). Open it where probe_contention would sample (the
 * live machine, seconds > 0); close fills m->contention as probe_contention does, sleeping out what
 * is left of the window (a window the probes outran is as long as they took: seconds says so).
 * gpuvet's own CPU time in the window (getrusage, itself and its reaped children) is counted idle in
 * the machine total, as if it had slept throughout; per-CPU shares still hold it. A window not
 * opened is opened at close (probe_contention's behaviour). */
struct contention_window {
    bool open;
    double seconds;
    const char *skipped_why; /* why seconds is 0 (N_() text); NULL: --sample 0 */
    struct timespec start;
    struct cpu_ticks *ticks;
    int ncpus;
    struct proc_ticks *procs;
    int nprocs;
    long throttle;
    double self_user, self_system; /* seconds, at open */
};
void contention_window_open(struct contention_window *w, double seconds);
void probe_contention_close(struct machine *m, struct contention_window *w);
/* /proc/stat's cpu lines into *all: the all-CPU line first, then one per online CPU. Returns the
 * count of CPUs, < 1 when unreadable. */
int proc_stat_read(struct cpu_ticks **all);
/* Shares of the time between two readings of one cpu line. */
struct cpu_time_shares cpu_shares_between(const struct cpu_ticks *a, const struct cpu_ticks *b);

/* One process of /proc: its CPU time so far (utime+stime, clock ticks), parent, comm. */
struct proc_ticks {
    int pid, ppid;
    char state;              /* R, S, D, Z, ... */
    unsigned long long ticks;
    bool kernel_thread;
    char name[64];
};
/* Every process but gpuvet itself, sorted by pid (proc_ticks_compare_pid). Returns the count and
 * a malloc'd array in *out (NULL when out of memory). */
int proc_ticks_read(struct proc_ticks **out);
int proc_ticks_compare_pid(const void *a, const void *b);

/* Why a file is absent, in words that fit the source ("not in the recorded tree" or "not
 * exposed by this kernel"), or why the file just read was refused when it is there (permission
 * denied, oversized, not a regular file). Returns a static string. */
const char *probe_missing_reason(void);

#endif
