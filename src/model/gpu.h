/* NVIDIA GPUs as NVML or `nvidia-smi -q -x` describe them. Every number is -1 when the source did
 * not report it ("N/A", an NVML error, an old driver without the call); tristates are GPU_UNKNOWN,
 * GPU_OFF or GPU_ON. A GPU is joined to the PCI facts of sysfs by its normalised bus id. */
#ifndef GPUVET_MODEL_GPU_H
#define GPUVET_MODEL_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/gpu_limits.h" /* GPU_MAX_PER_NODE */

#define GPU_MAX_NVLINKS 18
/* GPUs nvidia-smi could not reach that are kept with their words (gpu_set.smi_unreachable). */
#define GPU_SMI_UNREACHABLE_MAX 8
/* The subject of a GPU whose paste names no bus id (a `nvidia-smi -q` section without its
 * "GPU 00000000:..." line). */
#define GPU_UNNAMED_SUBJECT "(GPU not named)"

enum { GPU_UNKNOWN = -1, GPU_OFF = 0, GPU_ON = 1 };

/* Clock-event ("throttle") reason bits, as NVML numbers them. */
#define GPU_EVENT_GPU_IDLE 0x1ULL
#define GPU_EVENT_APP_CLOCKS 0x2ULL
#define GPU_EVENT_SW_POWER_CAP 0x4ULL
#define GPU_EVENT_HW_SLOWDOWN 0x8ULL
#define GPU_EVENT_SYNC_BOOST 0x10ULL
#define GPU_EVENT_SW_THERMAL 0x20ULL
#define GPU_EVENT_HW_THERMAL 0x40ULL
#define GPU_EVENT_HW_POWER_BRAKE 0x80ULL
#define GPU_EVENT_DISPLAY_CLOCKS 0x100ULL
/* The reasons that slow a GPU below what its power cap allows: a fault of cooling or power. */
#define GPU_EVENT_SLOWDOWNS (GPU_EVENT_HW_SLOWDOWN | GPU_EVENT_HW_THERMAL | GPU_EVENT_SW_THERMAL | GPU_EVENT_HW_POWER_BRAKE)

/* Each reason bit and its name in reports (nvidia-smi's XML element names, less their prefix). */
struct gpu_event_name {
    uint64_t bit;
    const char *name;
};
extern const struct gpu_event_name gpu_event_names[];
extern const int gpu_event_names_count;
/* The names of the bits of `bits` in `mask`, joined by ", " into out ("" for none). */
void gpu_event_list(uint64_t bits, uint64_t mask, char *out, size_t n);

/* NVLink error counters, in NVML's order (nvmlNvLinkErrorCounter_t): data-link replays and
 * recoveries, CRC errors in flits and in data. */
enum { GPU_NVLINK_REPLAY, GPU_NVLINK_RECOVERY, GPU_NVLINK_CRC_FLIT, GPU_NVLINK_CRC_DATA, GPU_NVLINK_COUNTERS };

struct gpu_nvlink {
    int link;
    int active;                /* tristate */
    char remote_bus_id[32];    /* normalised; "" unknown */
    int version;               /* NVLink generation (NVML's nvmlDeviceGetNvLinkVersion); -1 unknown */
    int64_t errors[GPU_NVLINK_COUNTERS]; /* since the driver loaded; -1 unknown */
};

/* NVSwitch fabric registration of a GPU (NVML's nvmlGpuFabricState_t, nvidia-smi's Fabric State). */
enum { GPU_FABRIC_UNKNOWN = -1, GPU_FABRIC_NOT_SUPPORTED = 0, GPU_FABRIC_NOT_STARTED = 1, GPU_FABRIC_IN_PROGRESS = 2,
       GPU_FABRIC_COMPLETED = 3 };

/* The link re-read while `--load-check` drives host-to-device copies. */
struct gpu_load_check {
    bool done;
    int pstate, gen, width;    /* -1 unknown */
    double h2d_bytes_s;        /* the copies' rate, 0 unknown */
    char *error;               /* why it could not run; NULL when done */
};

struct gpu {
    char bus_id[32];           /* sysfs form "0000:3b:00.0" */
    char *name, *brand, *uuid, *serial, *vbios;
    int64_t memory_total_bytes;
    int persistence, ecc_current, ecc_pending, mig_current, mig_pending; /* tristates */
    int pstate;                /* 0..15 for P0..P15 */
    /* pcie_gen_max is what the GPU and its slot allow together, pcie_gen_gpu_max the GPU's own. */
    int pcie_gen_current, pcie_gen_max, pcie_gen_gpu_max, pcie_width_current, pcie_width_max;
    char *virtualization_mode; /* nvidia-smi's words: "None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"; NULL unknown */
    int64_t pcie_replays;
    int64_t ecc_corrected_volatile, ecc_uncorrected_volatile, ecc_corrected_aggregate, ecc_uncorrected_aggregate;
    int retired_sbe, retired_dbe, retired_pending; /* pending is a tristate */
    int remapped_correctable, remapped_uncorrectable, remap_pending, remap_failure; /* last two tristates */
    int clock_graphics_mhz, clock_sm_mhz, clock_mem_mhz, max_graphics_mhz, max_sm_mhz, max_mem_mhz;
    bool clock_events_known;
    uint64_t clock_events;     /* GPU_EVENT_* bits active */
    double power_draw_w, power_limit_w; /* < 0 unknown */
    int temperature_c, slowdown_temperature_c;
    int utilization_gpu, utilization_memory; /* percent */
    int numa_node;             /* from NVML's memory affinity when sysfs has none; -1 unknown */
    char *cpu_affinity;        /* cpulist from NVML; NULL unknown */
    bool nvlink_known;         /* the source reports NVLink state (NVML does, -q -x does not) */
    int nnvlinks;
    struct gpu_nvlink nvlinks[GPU_MAX_NVLINKS];
    int nvlink_speed_mbps;     /* NVML's common speed of the active links (NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON), MB/s per link; -1 unknown */
    /* NVLinks the part has by design (data/gpus.csv, gpu_spec_nvlinks); 0 none, -1 unknown. For a
     * bridged card (nvlink_bridged), the count with every bridge fitted. */
    int nvlinks_expected;
    bool nvlink_bridged;
    int fabric_state;          /* GPU_FABRIC_*; GPU_FABRIC_UNKNOWN when the source does not say */
    int fabric_status_ok;      /* tristate: the registration's status is success (read once completed) */
    char *fabric_status;       /* the status in words ("Success", "Insufficient Resources"); NULL unknown */
    struct gpu_load_check load;
    double resnet50_img_s;     /* ResNet-50 training rate of this part (data/gpus.csv); 0 unknown */
};

/* A CUDA runtime or framework build found on the machine, with the CUDA version it needs. */
struct cuda_runtime {
    char *path;
    char *kind;                /* "libcudart" or "torch" */
    int major, minor;          /* minor -1 when only the soname's major is known */
};

struct gpu_set {
    bool probed;               /* an NVIDIA source was read (or tried) */
    char *source;              /* "nvml", or "nvidia-smi:FILE" */
    char *unknown_reason;      /* an NVIDIA device is there but no source could describe it */
    char *driver_version;
    int cuda_major, cuda_minor; /* the CUDA version the driver supports; -1 unknown */
    int attached_gpus;         /* what the source claims; may differ from count in trimmed files */
    struct gpu *items;
    int count;
    bool runtimes_searched;
    struct cuda_runtime *runtimes;
    int nruntimes;
    /* GPUs NVML counted but answered "GPU is lost" for (NVML_ERROR_GPU_IS_LOST): their bus ids
     * where NVML still gave one ("" when not), the first 8 of them. */
    int nvml_lost;
    char nvml_lost_bus_ids[8][32];
    /* GPUs nvidia-smi's own output says it cannot reach ("Unable to determine the device handle for
     * GPU 0000:07:00.0: GPU is lost. ..."): the bus id ("" when the line names none, or one not
     * read) and nvidia-smi's words, the first GPU_SMI_UNREACHABLE_MAX of them. */
    int smi_unreachable;
    struct {
        char bus_id[32];
        char said[200];
    } smi_unreachable_items[GPU_SMI_UNREACHABLE_MAX];
};

/* PCIe switches whose downstream ports hold accelerators and one or more ports hold nothing
 * (probe/gpu_slots.c): a hint for GPU_LOST without an expected count, never a verdict. */
struct empty_port_hints {
    int count;
    struct {
        char switch_port[32], empty_port[32];
        int accelerators;
    } items[8];
};

struct machine;
struct pci_device;

/* The sysfs PCI device of a GPU (same bus id); NULL when sysfs was not read or lacks it. */
const struct pci_device *gpu_pci_device(const struct machine *m, const struct gpu *g);
/* The GPU's NUMA node: sysfs first (it is the kernel's view), NVML's memory affinity second. */
int gpu_numa_node(const struct machine *m, const struct gpu *g);
/* How two GPUs reach each other, in `nvidia-smi topo -m` words: "NV<n>" (n NVLinks), "PIX" (one
 * PCIe switch), "PXB" (several bridges), "PHB" (the same host bridge), "NODE" (the same NUMA
 * node), "SYS" (across the CPU interconnect), or "?" when the PCI paths are unknown. */
void gpu_link_level(const struct machine *m, const struct gpu *a, const struct gpu *b, char out[8]);

void gpu_init(struct gpu *g);
void gpu_set_init(struct gpu_set *s);
/* Appends a GPU (initialised to unknowns) and returns it; NULL when out of memory. */
struct gpu *gpu_set_add(struct gpu_set *s);
/* The GPU at bus_id, in any form util/pciaddr.h reads; NULL when none. */
const struct gpu *gpu_set_find(const struct gpu_set *s, const char *bus_id);
void gpu_set_add_runtime(struct gpu_set *s, const char *path, const char *kind, int major, int minor);
/* Frees everything the set holds and leaves it empty. */
void gpu_set_free(struct gpu_set *s);
/* The GPU facts came from an `nvidia-smi -q -x` file (source "nvidia-smi:FILE"), not from NVML. */
bool gpu_set_from_nvidia_smi(const struct gpu_set *s);

/* nvidia-smi's words for a fabric state ("Not Supported", "Not Started", "In Progress",
 * "Completed"), case-insensitive, to GPU_FABRIC_*; GPU_FABRIC_UNKNOWN for anything else. */
int gpu_fabric_state_parse(const char *words);
/* The same words back; "unknown" for GPU_FABRIC_UNKNOWN. */
const char *gpu_fabric_state_name(int state);

/* Datacenter parts (Tesla, A100, H100, L40...) as opposed to GeForce, TITAN, Quadro and RTX
 * workstation cards, judged by the product name. */
bool gpu_is_datacenter(const struct gpu *g);
/* Link facts enough to judge the link (current and max width, or current and max generation). */
bool gpu_link_known(const struct gpu *g);

/* NVML's nvmlGpuVirtualizationMode_t (0 None .. 4 Host VSGA) in nvidia-smi's words; NULL unknown. */
const char *gpu_virtualization_mode_name(unsigned nvml_mode);
/* The GPU is a guest's (passed through to a VM, or a vGPU slice): the machine seeing it is a VM. */
bool gpu_virtualization_in_guest(const char *mode);
/* The GPU serves guests from this machine (vGPU or vSGA host). */
bool gpu_virtualization_on_host(const char *mode);

#endif
