#include "model/gpu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/machine.h"
#include "util/pciaddr.h"

const struct gpu_event_name gpu_event_names[] = {{GPU_EVENT_GPU_IDLE, "gpu_idle"},
                                                  {GPU_EVENT_APP_CLOCKS, "applications_clocks_setting"},
                                                  {GPU_EVENT_SW_POWER_CAP, "sw_power_cap"},
                                                  {GPU_EVENT_HW_SLOWDOWN, "hw_slowdown"},
                                                  {GPU_EVENT_SYNC_BOOST, "sync_boost"},
                                                  {GPU_EVENT_SW_THERMAL, "sw_thermal_slowdown"},
                                                  {GPU_EVENT_HW_THERMAL, "hw_thermal_slowdown"},
                                                  {GPU_EVENT_HW_POWER_BRAKE, "hw_power_brake_slowdown"},
                                                  {GPU_EVENT_DISPLAY_CLOCKS, "display_clocks_setting"}};
const int gpu_event_names_count = sizeof gpu_event_names / sizeof gpu_event_names[0];

void gpu_event_list(uint64_t bits, uint64_t mask, char *out, size_t n)
{
    if (n == 0)
        return;
    *out = '\0';
    size_t used = 0;
    for (int i = 0; i < gpu_event_names_count && used < n; i++)
        if (bits & mask & gpu_event_names[i].bit) {
            int w = snprintf(out + used, n - used, "%s%s", used ? ", " : "", gpu_event_names[i].name);
            used += w > 0 ? (size_t)w : 0;
        }
}

void gpu_init(struct gpu *g)
{
    memset(g, 0, sizeof *g);
    g->memory_total_bytes = -1;
    g->persistence = g->ecc_current = g->ecc_pending = g->mig_current = g->mig_pending = GPU_UNKNOWN;
    g->pstate = -1;
    g->pcie_gen_current = g->pcie_gen_max = g->pcie_gen_gpu_max = g->pcie_width_current = g->pcie_width_max = -1;
    g->pcie_replays = -1;
    g->ecc_corrected_volatile = g->ecc_uncorrected_volatile = -1;
    g->ecc_corrected_aggregate = g->ecc_uncorrected_aggregate = -1;
    g->retired_sbe = g->retired_dbe = g->retired_pending = -1;
    g->remapped_correctable = g->remapped_uncorrectable = g->remap_pending = g->remap_failure = -1;
    g->clock_graphics_mhz = g->clock_sm_mhz = g->clock_mem_mhz = -1;
    g->max_graphics_mhz = g->max_sm_mhz = g->max_mem_mhz = -1;
    g->power_draw_w = g->power_limit_w = -1;
    g->temperature_c = g->slowdown_temperature_c = -1;
    g->utilization_gpu = g->utilization_memory = -1;
    g->numa_node = -1;
    g->load.pstate = g->load.gen = g->load.width = -1;
    g->nvlinks_expected = -1;
    g->nvlink_speed_mbps = -1;
    g->fabric_state = GPU_FABRIC_UNKNOWN;
    g->fabric_status_ok = GPU_UNKNOWN;
    for (int k = 0; k < GPU_MAX_NVLINKS; k++) {
        g->nvlinks[k].version = -1;
        for (int c = 0; c < GPU_NVLINK_COUNTERS; c++)
            g->nvlinks[k].errors[c] = -1;
    }
}

static const char *const fabric_states[] = {
    [GPU_FABRIC_NOT_SUPPORTED] = "Not Supported", [GPU_FABRIC_NOT_STARTED] = "Not Started",
    [GPU_FABRIC_IN_PROGRESS] = "In Progress", [GPU_FABRIC_COMPLETED] = "Completed"};

int gpu_fabric_state_parse(const char *words)
{
    for (int i = 0; words && i <= GPU_FABRIC_COMPLETED; i++)
        if (!strcasecmp(words, fabric_states[i]))
            return i;
    return GPU_FABRIC_UNKNOWN;
}

const char *gpu_fabric_state_name(int state)
{
    return state >= 0 && state <= GPU_FABRIC_COMPLETED ? fabric_states[state] : "unknown";
}

struct gpu *gpu_set_add(struct gpu_set *s)
{
    struct gpu *grown = realloc(s->items, (size_t)(s->count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    s->items = grown;
    gpu_init(&s->items[s->count]);
    return &s->items[s->count++];
}

const struct gpu *gpu_set_find(const struct gpu_set *s, const char *bus_id)
{
    char want[PCI_ADDRESS_LEN];
    if (!pci_address_normalise(bus_id, want))
        return NULL;
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->items[i].bus_id, want))
            return &s->items[i];
    return NULL;
}

void gpu_set_add_runtime(struct gpu_set *s, const char *path, const char *kind, int major, int minor)
{
    struct cuda_runtime *grown = realloc(s->runtimes, (size_t)(s->nruntimes + 1) * sizeof *grown);
    if (!grown)
        return;
    s->runtimes = grown;
    s->runtimes[s->nruntimes++] = (struct cuda_runtime){strdup(path), strdup(kind), major, minor};
}

static void gpu_free(struct gpu *g)
{
    free(g->name);
    free(g->brand);
    free(g->uuid);
    free(g->serial);
    free(g->vbios);
    free(g->cpu_affinity);
    free(g->virtualization_mode);
    free(g->load.error);
    free(g->fabric_status);
}

void gpu_set_free(struct gpu_set *s)
{
    for (int i = 0; i < s->count; i++)
        gpu_free(&s->items[i]);
    free(s->items);
    for (int i = 0; i < s->nruntimes; i++) {
        free(s->runtimes[i].path);
        free(s->runtimes[i].kind);
    }
    free(s->runtimes);
    free(s->source);
    free(s->unknown_reason);
    free(s->driver_version);
    gpu_set_init(s);
}

void gpu_set_init(struct gpu_set *s)
{
    memset(s, 0, sizeof *s);
    s->cuda_major = s->cuda_minor = -1;
    s->attached_gpus = -1;
}

bool gpu_is_datacenter(const struct gpu *g)
{
    static const char *const client[] = {"GeForce", "TITAN", "Quadro", "RTX"};
    if (!g->name)
        return false;
    for (size_t i = 0; i < sizeof client / sizeof client[0]; i++)
        if (strcasestr(g->name, client[i]))
            return false;
    return true;
}

bool gpu_link_known(const struct gpu *g)
{
    return (g->pcie_width_current > 0 && g->pcie_width_max > 0) || (g->pcie_gen_current > 0 && g->pcie_gen_max > 0);
}

/* nvmlGpuVirtualizationMode_t, in the order nvml.h numbers it, and nvidia-smi's words for it. */
static const char *const virtualization_modes[] = {"None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"};

const char *gpu_virtualization_mode_name(unsigned nvml_mode)
{
    return nvml_mode < sizeof virtualization_modes / sizeof virtualization_modes[0] ? virtualization_modes[nvml_mode]
                                                                                   : NULL;
}

bool gpu_virtualization_in_guest(const char *mode)
{
    return mode && (!strcasecmp(mode, "Pass-Through") || !strcasecmp(mode, "VGPU"));
}

bool gpu_virtualization_on_host(const char *mode)
{
    return mode && (!strcasecmp(mode, "Host VGPU") || !strcasecmp(mode, "Host VSGA"));
}

const struct pci_device *gpu_pci_device(const struct machine *m, const struct gpu *g)
{
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, g->bus_id))
            return &m->pci[i];
    return NULL;
}

int gpu_numa_node(const struct machine *m, const struct gpu *g)
{
    const struct pci_device *d = gpu_pci_device(m, g);
    return d && d->numa_node >= 0 ? d->numa_node : g->numa_node;
}

static int nvlinks_between(const struct gpu *a, const struct gpu *b)
{
    int n = 0;
    for (int k = 0; k < a->nnvlinks; k++)
        n += a->nvlinks[k].active == GPU_ON && !strcmp(a->nvlinks[k].remote_bus_id, b->bus_id);
    return n;
}

/* "0000:3a" of a root port "0000:3a:00.0": the host bridge's bus. */
static bool same_root_bus(const char *x, const char *y)
{
    const char *cx = strrchr(x, ':'), *cy = strrchr(y, ':');
    return cx && cy && cx - x == cy - y && !strncmp(x, y, (size_t)(cx - x));
}

void gpu_link_level(const struct machine *m, const struct gpu *a, const struct gpu *b, char out[8])
{
    int nv = nvlinks_between(a, b);
    if (nv > 0) {
        snprintf(out, 8, "NV%d", nv > 99 ? 99 : nv);
        return;
    }
    const struct pci_device *da = gpu_pci_device(m, a), *db = gpu_pci_device(m, b);
    if (!da || !db || da->npath == 0 || db->npath == 0) {
        int na = gpu_numa_node(m, a), nb = gpu_numa_node(m, b);
        snprintf(out, 8, "%s", na >= 0 && nb >= 0 && na != nb ? "SYS" : "?");
        return;
    }
    for (int ka = 0; ka < da->npath; ka++)
        for (int kb = 0; kb < db->npath; kb++)
            if (!strcmp(da->path[ka].bus_id, db->path[kb].bus_id)) {
                snprintf(out, 8, "%s", ka <= 1 && kb <= 1 ? "PIX" : "PXB");
                return;
            }
    const char *root_a = da->path[da->npath - 1].bus_id, *root_b = db->path[db->npath - 1].bus_id;
    int na = gpu_numa_node(m, a), nb = gpu_numa_node(m, b);
    if (same_root_bus(root_a, root_b))
        snprintf(out, 8, "PHB");
    else if (na >= 0 && nb >= 0)
        snprintf(out, 8, "%s", na == nb ? "NODE" : "SYS");
    else
        snprintf(out, 8, "?");
}

bool gpu_set_from_nvidia_smi(const struct gpu_set *s) { return s->source && !strncmp(s->source, "nvidia-smi", 10); }
