/* Symbols are resolved newest version first (nvmlInit_v2 before nvmlInit, PciInfo_v3 before
 * _v2 before the unversioned one), as nvml.h itself maps the plain names. The device count and
 * handle-by-index calls are taken as a pair: v1 count skips devices this user may not open while
 * v2 counts them, so mixing versions would map indices to the wrong GPUs. */
#include "gpu/nvml.h"
#include "gpu/dlsym.h"
#include "util/i18n.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESOLVE(field, ...) DL_RESOLVE(n->library, n->field, __VA_ARGS__)

static void resolve_all(struct nvml *n)
{
    RESOLVE(shutdown, "nvmlShutdown");
    RESOLVE(error_string, "nvmlErrorString");
    RESOLVE(driver_version, "nvmlSystemGetDriverVersion");
    RESOLVE(cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion");
    RESOLVE(name, "nvmlDeviceGetName");
    RESOLVE(uuid, "nvmlDeviceGetUUID");
    RESOLVE(serial, "nvmlDeviceGetSerial");
    RESOLVE(vbios, "nvmlDeviceGetVbiosVersion");
    RESOLVE(pci_info, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
    RESOLVE(memory_v2, "nvmlDeviceGetMemoryInfo_v2");
    RESOLVE(memory_v1, "nvmlDeviceGetMemoryInfo");
    RESOLVE(persistence, "nvmlDeviceGetPersistenceMode");
    RESOLVE(pstate, "nvmlDeviceGetPerformanceState");
    RESOLVE(link_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
    RESOLVE(max_link_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
    RESOLVE(gpu_max_link_gen, "nvmlDeviceGetGpuMaxPcieLinkGeneration");
    RESOLVE(virtualization_mode, "nvmlDeviceGetVirtualizationMode");
    RESOLVE(link_width, "nvmlDeviceGetCurrPcieLinkWidth");
    RESOLVE(max_link_width, "nvmlDeviceGetMaxPcieLinkWidth");
    RESOLVE(replay_counter, "nvmlDeviceGetPcieReplayCounter");
    RESOLVE(ecc_mode, "nvmlDeviceGetEccMode");
    RESOLVE(ecc_errors, "nvmlDeviceGetTotalEccErrors");
    RESOLVE(retired_pages, "nvmlDeviceGetRetiredPages");
    RESOLVE(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
    RESOLVE(remapped_rows, "nvmlDeviceGetRemappedRows");
    RESOLVE(clock, "nvmlDeviceGetClockInfo");
    RESOLVE(max_clock, "nvmlDeviceGetMaxClockInfo");
    RESOLVE(clock_events, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    RESOLVE(power_usage, "nvmlDeviceGetPowerUsage");
    RESOLVE(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    RESOLVE(temperature_v, "nvmlDeviceGetTemperatureV");
    RESOLVE(temperature, "nvmlDeviceGetTemperature");
    RESOLVE(temperature_threshold, "nvmlDeviceGetTemperatureThreshold");
    RESOLVE(utilization, "nvmlDeviceGetUtilizationRates");
    RESOLVE(mig_mode, "nvmlDeviceGetMigMode");
    RESOLVE(nvlink_state, "nvmlDeviceGetNvLinkState");
    RESOLVE(nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo");
    RESOLVE(nvlink_version, "nvmlDeviceGetNvLinkVersion");
    RESOLVE(nvlink_error_counter, "nvmlDeviceGetNvLinkErrorCounter");
    RESOLVE(field_values, "nvmlDeviceGetFieldValues");
    RESOLVE(fabric_info_v, "nvmlDeviceGetGpuFabricInfoV");
    RESOLVE(fabric_info, "nvmlDeviceGetGpuFabricInfo");
    RESOLVE(cpu_affinity, "nvmlDeviceGetCpuAffinity");
    RESOLVE(memory_affinity, "nvmlDeviceGetMemoryAffinity");
    RESOLVE(pcie_throughput, "nvmlDeviceGetPcieThroughput");
}

static bool resolve_device_pair(struct nvml *n)
{
    RESOLVE(device_count, "nvmlDeviceGetCount_v2");
    RESOLVE(device_by_index, "nvmlDeviceGetHandleByIndex_v2");
    n->count_symbol = "nvmlDeviceGetCount_v2";
    if (n->device_count && n->device_by_index)
        return true;
    RESOLVE(device_count, "nvmlDeviceGetCount");
    RESOLVE(device_by_index, "nvmlDeviceGetHandleByIndex");
    n->count_symbol = "nvmlDeviceGetCount";
    return n->device_count && n->device_by_index;
}

int nvml_open(struct nvml *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    const char *wanted = getenv("GPUVET_NVML_LIBRARY");
    const char *const candidates[] = {wanted && *wanted ? wanted : "libnvidia-ml.so.1", "libnvidia-ml.so"};
    /* dlerror's text lives until the next dl call: the second dlopen would overwrite it. */
    char why[512] = "";
    for (size_t i = 0; i < 2 && !n->library; i++) {
        i18n_english_begin(); /* the loader's text in English: it reaches the JSON */
        n->library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        const char *error = n->library ? NULL : dlerror();
        if (n->library)
            snprintf(n->library_path, sizeof n->library_path, "%s", candidates[i]);
        else if (i == 0 && error)
            snprintf(why, sizeof why, "%s", error);
        i18n_english_end();
        if (wanted && *wanted)
            break; /* an explicit library is the only one to try */
    }
    if (!n->library) {
        /* TRANSLATORS: %s is the library, then the loader's own error text (English). */
        i18n_snprintf(err, errlen, "cannot load %s: %s", candidates[0], *why ? why : _("not found"));
        return -1;
    }
    nvml_return (*init)(void) = NULL;
    void *sym = dl_first_symbol(n->library, "nvmlInit_v2", "nvmlInit", (const char *)NULL);
    memcpy(&init, &sym, sizeof sym);
    if (!init || !resolve_device_pair(n)) {
        i18n_snprintf(err, errlen, "%s lacks nvmlInit or nvmlDeviceGetCount/HandleByIndex: not an NVML library",
                 n->library_path);
        dlclose(n->library);
        n->library = NULL;
        return -1;
    }
    resolve_all(n);
    nvml_return rc = init();
    if (rc != NVML_SUCCESS) {
        i18n_snprintf(err, errlen, "nvmlInit failed: %s (error %d)", _(nvml_error(n, rc)), rc);
        dlclose(n->library);
        n->library = NULL;
        return -1;
    }
    return 0;
}

void nvml_close(struct nvml *n)
{
    if (!n->library)
        return;
    if (n->shutdown)
        n->shutdown();
    dlclose(n->library);
    n->library = NULL;
}

const char *nvml_error(const struct nvml *n, nvml_return rc)
{
    if (n->error_string)
        return n->error_string(rc);
    switch (rc) {
    case NVML_ERROR_UNINITIALIZED: return N_("NVML was not initialised");
    case NVML_ERROR_NOT_SUPPORTED: return N_("not supported");
    case NVML_ERROR_NO_PERMISSION: return N_("no permission");
    case NVML_ERROR_DRIVER_NOT_LOADED: return N_("driver not loaded");
    case NVML_ERROR_LIBRARY_NOT_FOUND: return N_("library not found");
    case NVML_ERROR_GPU_IS_LOST: return N_("GPU is lost");
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return N_("driver/library version mismatch");
    default: return N_("unknown error");
    }
}

/* A text field of the struct: it may lack its NUL (v1 has reserved words where busId[32] is). */
static bool text_names(const char *field, size_t size, const struct pci_address *want, struct pci_address *out)
{
    char copy[33];
    snprintf(copy, sizeof copy, "%.*s", (int)(size < sizeof copy - 1 ? size : sizeof copy - 1), field);
    return pci_address_parse(copy, out) && out->domain == want->domain && out->bus == want->bus &&
           out->device == want->device;
}

void nvml_pci_bus_id(const struct nvml_pci_info *p, char out[PCI_ADDRESS_LEN])
{
    struct pci_address fields = {p->domain, (uint8_t)p->bus, (uint8_t)p->device, 0}, a;
    if (!text_names(p->bus_id, sizeof p->bus_id, &fields, &a) &&
        !text_names(p->bus_id_legacy, sizeof p->bus_id_legacy, &fields, &a))
        a = fields;
    pci_address_format(&a, out);
}

bool nvml_power_w(unsigned mw, double *w)
{
    if (mw == 0xFFFFFFFFu || mw > GPU_POWER_READING_MAX_W * 1000u)
        return false;
    *w = mw / 1000.0;
    return true;
}
