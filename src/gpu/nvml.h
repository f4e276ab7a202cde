/* NVML (libnvidia-ml.so.1) loaded at run time with our own minimal declarations: nothing of
 * NVIDIA's is needed to build gpuvet, and a machine without the driver still runs it.
 * Layouts and constants follow nvml.h 13.x (tests/decl/check_gpu_decls.py compares them with bindings
 * generated from NVIDIA's nvml.h); every function pointer may be NULL (an old driver
 * without the call), which loses that one fact. */
#ifndef GPUVET_GPU_NVML_H
#define GPUVET_GPU_NVML_H

#include <stddef.h>

#include "util/pciaddr.h"

typedef int nvml_return;
typedef struct nvml_device_opaque *nvml_device;

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18

/* Versioned structs carry sizeof | version << 24 in their first field (NVML_STRUCT_VERSION). */
#define NVML_STRUCT_VERSION(type, ver) ((unsigned)(sizeof(type) | ((unsigned)(ver) << 24)))

/* nvmlPciInfo_t: v1 had a 16-byte busId and reserved words where v2/v3 have busId[32]; domain,
 * bus and device sit at the same offsets in all three, so we read those. */
struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

struct nvml_memory_v1 {
    unsigned long long total, free, used;
};

struct nvml_memory_v2 {
    unsigned version;
    unsigned long long total, reserved, free, used;
};

struct nvml_utilization {
    unsigned gpu, memory;
};

struct nvml_temperature_v1 {
    unsigned version;
    int sensor;      /* NVML_TEMPERATURE_GPU = 0 */
    int temperature;
};

enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_ECC_CORRECTED = 0, NVML_ECC_UNCORRECTED = 1 };
enum { NVML_ECC_VOLATILE = 0, NVML_ECC_AGGREGATE = 1 };
enum { NVML_RETIRED_SBE = 0, NVML_RETIRED_DBE = 1 };
enum { NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1 };
enum { NVML_AFFINITY_SCOPE_NODE = 0 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
/* nvmlNvLinkErrorCounter_t: data-link replays and recoveries, CRC errors in flits and in data. */
enum { NVML_NVLINK_ERROR_DL_REPLAY = 0, NVML_NVLINK_ERROR_DL_RECOVERY = 1, NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
       NVML_NVLINK_ERROR_DL_CRC_DATA = 3 };

/* nvmlFieldValue_t, for nvmlDeviceGetFieldValues: value is nvmlValue_t, a union of 8 bytes whose
 * member value_type names (read with memcpy from its first bytes, as the union's members start).
 * One field is asked: the common speed of a GPU's active NVLinks, in MB/s. */
struct nvml_field_value {
    unsigned field_id;
    unsigned scope_id;
    long long timestamp;
    long long latency_usec;
    unsigned value_type;
    nvml_return nvml_return;
    unsigned long long value;
};
enum { NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON = 90 };
enum { NVML_VALUE_TYPE_UNSIGNED_INT = 1 };

/* nvmlGpuFabricInfo_t (driver 525+) and its versioned successor nvmlGpuFabricInfo_v2_t
 * (nvmlDeviceGetGpuFabricInfoV, driver 550+), as nvml.h declares them (NCCL's nvmlwrap.h carries
 * a copy); the 0.7 bindings predate both, so tests/decl cannot check these two. state is an
 * unsigned char holding GPU_FABRIC_STATE_* (model/gpu.h); status is an nvmlReturn_t, meaningful
 * once state is "completed". */
struct nvml_fabric_info_v1 {
    unsigned char cluster_uuid[16];
    nvml_return status;
    unsigned clique_id;
    unsigned char state;
};

struct nvml_fabric_info_v2 {
    unsigned version;
    unsigned char cluster_uuid[16];
    nvml_return status;
    unsigned clique_id;
    unsigned char state;
    unsigned health_mask;
};

struct nvml {
    void *library;
    char library_path[256];
    const char *count_symbol; /* which count/handle pair was resolved, for reports and tests */
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*driver_version)(char *, unsigned);
    nvml_return (*cuda_driver_version)(int *);
    nvml_return (*device_count)(unsigned *);
    nvml_return (*device_by_index)(unsigned, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned);
    nvml_return (*uuid)(nvml_device, char *, unsigned);
    nvml_return (*serial)(nvml_device, char *, unsigned);
    nvml_return (*vbios)(nvml_device, char *, unsigned);
    nvml_return (*pci_info)(nvml_device, struct nvml_pci_info *);
    nvml_return (*memory_v2)(nvml_device, struct nvml_memory_v2 *);
    nvml_return (*memory_v1)(nvml_device, struct nvml_memory_v1 *);
    nvml_return (*persistence)(nvml_device, int *);
    nvml_return (*pstate)(nvml_device, int *);
    nvml_return (*link_gen)(nvml_device, unsigned *);
    nvml_return (*max_link_gen)(nvml_device, unsigned *);
    nvml_return (*gpu_max_link_gen)(nvml_device, unsigned *);
    nvml_return (*virtualization_mode)(nvml_device, unsigned *); /* nvmlGpuVirtualizationMode_t */
    nvml_return (*link_width)(nvml_device, unsigned *);
    nvml_return (*max_link_width)(nvml_device, unsigned *);
    nvml_return (*replay_counter)(nvml_device, unsigned *);
    nvml_return (*ecc_mode)(nvml_device, int *, int *);
    nvml_return (*ecc_errors)(nvml_device, int, int, unsigned long long *);
    nvml_return (*retired_pages)(nvml_device, int, unsigned *, unsigned long long *);
    nvml_return (*retired_pending)(nvml_device, int *);
    nvml_return (*remapped_rows)(nvml_device, unsigned *, unsigned *, unsigned *, unsigned *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*clock_events)(nvml_device, unsigned long long *);
    nvml_return (*power_usage)(nvml_device, unsigned *);
    nvml_return (*power_limit)(nvml_device, unsigned *);
    nvml_return (*temperature_v)(nvml_device, struct nvml_temperature_v1 *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*temperature_threshold)(nvml_device, int, unsigned *);
    nvml_return (*utilization)(nvml_device, struct nvml_utilization *);
    nvml_return (*mig_mode)(nvml_device, unsigned *, unsigned *);
    nvml_return (*nvlink_state)(nvml_device, unsigned, int *);
    nvml_return (*nvlink_remote_pci)(nvml_device, unsigned, struct nvml_pci_info *);
    nvml_return (*nvlink_version)(nvml_device, unsigned, unsigned *);
    nvml_return (*nvlink_error_counter)(nvml_device, unsigned, int, unsigned long long *); /* NVML_NVLINK_ERROR_* */
    nvml_return (*field_values)(nvml_device, int, struct nvml_field_value *);
    nvml_return (*fabric_info_v)(nvml_device, struct nvml_fabric_info_v2 *);
    nvml_return (*fabric_info)(nvml_device, struct nvml_fabric_info_v1 *);
    nvml_return (*cpu_affinity)(nvml_device, unsigned, unsigned long *);
    nvml_return (*memory_affinity)(nvml_device, unsigned, unsigned long *, unsigned); /* nvmlAffinityScope_t */
    /* KB/s over the last 20 ms (nvmlDeviceGetPcieThroughput), counter NVML_PCIE_UTIL_*. */
    nvml_return (*pcie_throughput)(nvml_device, int, unsigned *);
};

/* Loads the library ($GPUVET_NVML_LIBRARY, else libnvidia-ml.so.1, else libnvidia-ml.so) and
 * initialises NVML. Returns 0, or -1 with the reason in err. */
int nvml_open(struct nvml *n, char *err, size_t errlen);
void nvml_close(struct nvml *n);
/* The library's words for an error code (our own when it has no nvmlErrorString). */
const char *nvml_error(const struct nvml *n, nvml_return rc);

/* The device's bus id in the sysfs form (util/pciaddr.h): busId ("00000000:17:00.0") or else
 * busIdLegacy ("0000:17:00.0", where v1 kept its busId) when it names the function that the
 * numeric domain/bus/device fields name, else those fields with function 0 (NVML prints ".0"). */
void nvml_pci_bus_id(const struct nvml_pci_info *p, char out[PCI_ADDRESS_LEN]);

/* A power reading of NVML (milliwatts) as watts, checked where it enters: false for 0xFFFFFFFF
 * (NVML's "not available", 4.29 MW taken at its word) and for anything past GPU_POWER_READING_MAX_W,
 * which no board draws or is limited to (a GB200 superchip is rated about 2.7 kW). */
#define GPU_POWER_READING_MAX_W 10000
bool nvml_power_w(unsigned mw, double *w);

#endif
