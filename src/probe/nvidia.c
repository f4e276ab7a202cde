/* NVIDIA GPUs: NVML on the live machine, the stored `nvidia-smi -q -x` in a recorded tree, and
 * the CUDA runtimes and PyTorch builds installed (what they need of the driver). A machine
 * without NVIDIA devices gets nothing here; one with an NVIDIA device but no driver gets an
 * "unknown, because" that the rules turn into findings with the fix. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/cuda.h"
#include "gpu/nvml.h"
#include "probe/probe.h"
#include "util/deadline.h"
#include "util/fsrecord.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/pciaddr.h"

#define NVIDIA_VENDOR 0x10de

static bool has_nvidia_device(const struct machine *m)
{
    for (int i = 0; i < m->npci; i++)
        if (m->pci[i].vendor_id == NVIDIA_VENDOR && m->pci[i].role == PCI_ROLE_ACCELERATOR)
            return true;
    return false;
}

static char *nvml_string(nvml_return (*fn)(nvml_device, char *, unsigned), nvml_device dev)
{
    char buf[128];
    if (!fn || fn(dev, buf, sizeof buf) != NVML_SUCCESS)
        return NULL;
    buf[sizeof buf - 1] = '\0';
    return buf[0] ? strdup(buf) : NULL;
}

static void get_uint(nvml_return (*fn)(nvml_device, unsigned *), nvml_device dev, int *out)
{
    unsigned v;
    if (fn && fn(dev, &v) == NVML_SUCCESS && v < 0x7fffffff)
        *out = (int)v;
}

static void get_enable_state(nvml_return (*fn)(nvml_device, int *), nvml_device dev, int *out)
{
    int v;
    if (fn && fn(dev, &v) == NVML_SUCCESS)
        *out = v ? GPU_ON : GPU_OFF;
}

static void read_memory(const struct nvml *n, nvml_device dev, struct gpu *g)
{
    struct nvml_memory_v2 v2 = {.version = NVML_STRUCT_VERSION(struct nvml_memory_v2, 2)};
    struct nvml_memory_v1 v1;
    if (n->memory_v2 && n->memory_v2(dev, &v2) == NVML_SUCCESS)
        g->memory_total_bytes = (int64_t)v2.total;
    else if (n->memory_v1 && n->memory_v1(dev, &v1) == NVML_SUCCESS)
        g->memory_total_bytes = (int64_t)v1.total;
}

static void read_ecc(const struct nvml *n, nvml_device dev, struct gpu *g)
{
    int cur, pending;
    if (n->ecc_mode && n->ecc_mode(dev, &cur, &pending) == NVML_SUCCESS) {
        g->ecc_current = cur ? GPU_ON : GPU_OFF;
        g->ecc_pending = pending ? GPU_ON : GPU_OFF;
    }
    unsigned long long v;
    if (n->ecc_errors) {
        if (n->ecc_errors(dev, NVML_ECC_CORRECTED, NVML_ECC_VOLATILE, &v) == NVML_SUCCESS)
            g->ecc_corrected_volatile = (int64_t)v;
        if (n->ecc_errors(dev, NVML_ECC_UNCORRECTED, NVML_ECC_VOLATILE, &v) == NVML_SUCCESS)
            g->ecc_uncorrected_volatile = (int64_t)v;
        if (n->ecc_errors(dev, NVML_ECC_CORRECTED, NVML_ECC_AGGREGATE, &v) == NVML_SUCCESS)
            g->ecc_corrected_aggregate = (int64_t)v;
        if (n->ecc_errors(dev, NVML_ECC_UNCORRECTED, NVML_ECC_AGGREGATE, &v) == NVML_SUCCESS)
            g->ecc_uncorrected_aggregate = (int64_t)v;
    }
    if (n->retired_pages) {
        /* A count of 0 asks for the size: success means none, INSUFFICIENT_SIZE gives the count. */
        unsigned count = 0;
        nvml_return rc = n->retired_pages(dev, NVML_RETIRED_SBE, &count, NULL);
        if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
            g->retired_sbe = (int)count;
        count = 0;
        rc = n->retired_pages(dev, NVML_RETIRED_DBE, &count, NULL);
        if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
            g->retired_dbe = (int)count;
    }
    get_enable_state(n->retired_pending, dev, &g->retired_pending);
    unsigned corr, unc, pending_remap, failure;
    if (n->remapped_rows && n->remapped_rows(dev, &corr, &unc, &pending_remap, &failure) == NVML_SUCCESS) {
        g->remapped_correctable = (int)corr;
        g->remapped_uncorrectable = (int)unc;
        g->remap_pending = pending_remap ? GPU_ON : GPU_OFF;
        g->remap_failure = failure ? GPU_ON : GPU_OFF;
    }
}

static void read_clocks_power(struct machine *m, const struct nvml *n, nvml_device dev, struct gpu *g)
{
    static const int types[] = {NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM};
    int *cur[] = {&g->clock_graphics_mhz, &g->clock_sm_mhz, &g->clock_mem_mhz};
    int *max[] = {&g->max_graphics_mhz, &g->max_sm_mhz, &g->max_mem_mhz};
    for (int i = 0; i < 3; i++) {
        unsigned v;
        if (n->clock && n->clock(dev, types[i], &v) == NVML_SUCCESS)
            *cur[i] = (int)v;
        if (n->max_clock && n->max_clock(dev, types[i], &v) == NVML_SUCCESS)
            *max[i] = (int)v;
    }
    unsigned long long events;
    if (n->clock_events && n->clock_events(dev, &events) == NVML_SUCCESS) {
        g->clock_events_known = true;
        g->clock_events = events;
    }
    unsigned mw;
    if (n->power_usage && n->power_usage(dev, &mw) == NVML_SUCCESS && !nvml_power_w(mw, &g->power_draw_w))
        machine_problem(m, "nvml", "GPU %s: power draw of %u milliwatts is not a reading (NVML's 0xffffffff, or past %d W): "
                        "unknown", g->bus_id, mw, GPU_POWER_READING_MAX_W);
    if (n->power_limit && n->power_limit(dev, &mw) == NVML_SUCCESS && !nvml_power_w(mw, &g->power_limit_w))
        machine_problem(m, "nvml", "GPU %s: power limit of %u milliwatts is not a reading (NVML's 0xffffffff, or past %d W): "
                        "unknown", g->bus_id, mw, GPU_POWER_READING_MAX_W);
    struct nvml_temperature_v1 t = {.version = NVML_STRUCT_VERSION(struct nvml_temperature_v1, 1)};
    unsigned c;
    if (n->temperature_v && n->temperature_v(dev, &t) == NVML_SUCCESS)
        g->temperature_c = t.temperature;
    else if (n->temperature && n->temperature(dev, 0, &c) == NVML_SUCCESS)
        g->temperature_c = (int)c;
    if (n->temperature_threshold && n->temperature_threshold(dev, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &c) == NVML_SUCCESS)
        g->slowdown_temperature_c = (int)c;
    struct nvml_utilization u;
    if (n->utilization && n->utilization(dev, &u) == NVML_SUCCESS) {
        g->utilization_gpu = (int)u.gpu;
        g->utilization_memory = (int)u.memory;
    }
}

static void read_nvlinks(const struct nvml *n, nvml_device dev, struct gpu *g)
{
    if (!n->nvlink_state)
        return;
    for (unsigned link = 0; link < GPU_MAX_NVLINKS; link++) {
        int state;
        /* Links are numbered from 0; the first unsupported one ends the list. */
        if (n->nvlink_state(dev, link, &state) != NVML_SUCCESS)
            break;
        struct gpu_nvlink *l = &g->nvlinks[g->nnvlinks++];
        l->link = (int)link;
        l->active = state ? GPU_ON : GPU_OFF;
        struct nvml_pci_info remote;
        memset(&remote, 0, sizeof remote);
        if (n->nvlink_remote_pci && n->nvlink_remote_pci(dev, link, &remote) == NVML_SUCCESS)
            nvml_pci_bus_id(&remote, l->remote_bus_id);
        unsigned version;
        if (n->nvlink_version && n->nvlink_version(dev, link, &version) == NVML_SUCCESS && version < 100)
            l->version = (int)version;
        static const int counters[GPU_NVLINK_COUNTERS] = {
            [GPU_NVLINK_REPLAY] = NVML_NVLINK_ERROR_DL_REPLAY, [GPU_NVLINK_RECOVERY] = NVML_NVLINK_ERROR_DL_RECOVERY,
            [GPU_NVLINK_CRC_FLIT] = NVML_NVLINK_ERROR_DL_CRC_FLIT, [GPU_NVLINK_CRC_DATA] = NVML_NVLINK_ERROR_DL_CRC_DATA};
        for (int c = 0; c < GPU_NVLINK_COUNTERS; c++) {
            unsigned long long v;
            /* Counters of an inactive link, and on Blackwell the CRC ones, are "not supported". */
            if (n->nvlink_error_counter && n->nvlink_error_counter(dev, link, counters[c], &v) == NVML_SUCCESS &&
                v < (unsigned long long)INT64_MAX)
                l->errors[c] = (int64_t)v;
        }
    }
    g->nvlink_known = true;
    /* One field for all links; a driver without the call or the field leaves the speed unknown. */
    struct nvml_field_value speed = {.field_id = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON};
    if (g->nnvlinks > 0 && n->field_values && n->field_values(dev, 1, &speed) == NVML_SUCCESS &&
        speed.nvml_return == NVML_SUCCESS && speed.value_type == NVML_VALUE_TYPE_UNSIGNED_INT) {
        unsigned mbps;
        memcpy(&mbps, &speed.value, sizeof mbps);
        if (mbps > 0 && mbps < 10000000) /* below 10 TB/s a link: a real figure */
            g->nvlink_speed_mbps = (int)mbps;
    }
}

/* The GPU's registration with the NVSwitch fabric: the versioned call first (driver 550+), then
 * the first one (525+). A GPU outside any fabric (PCIe, a single SXM GPU) answers "not supported". */
static void read_fabric(const struct nvml *n, nvml_device dev, struct gpu *g)
{
    struct nvml_fabric_info_v2 v2 = {.version = NVML_STRUCT_VERSION(struct nvml_fabric_info_v2, 2)};
    struct nvml_fabric_info_v1 v1;
    memset(&v1, 0, sizeof v1);
    int state;
    nvml_return status;
    /* -1: the library lacks the call. A driver that does not know v2 says so (version mismatch):
     * then the first call answers. */
    nvml_return rc = n->fabric_info_v ? n->fabric_info_v(dev, &v2) : -1;
    if (rc == NVML_SUCCESS) {
        state = v2.state;
        status = v2.status;
    } else {
        if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_GPU_IS_LOST && n->fabric_info)
            rc = n->fabric_info(dev, &v1);
        if (rc != NVML_SUCCESS) {
            if (rc == NVML_ERROR_NOT_SUPPORTED)
                g->fabric_state = GPU_FABRIC_NOT_SUPPORTED;
            return;
        }
        state = v1.state;
        status = v1.status;
    }
    if (state < GPU_FABRIC_NOT_SUPPORTED || state > GPU_FABRIC_COMPLETED)
        return; /* a state this gpuvet does not know: unknown, not a guess */
    g->fabric_state = state;
    if (state == GPU_FABRIC_COMPLETED) {
        g->fabric_status_ok = status == NVML_SUCCESS ? GPU_ON : GPU_OFF;
        const char *words = status == NVML_SUCCESS ? "Success" : nvml_error(n, status);
        g->fabric_status = strdup(words ? words : "error");
    }
}

static void read_affinity(const struct nvml *n, nvml_device dev, struct gpu *g)
{
    enum { WORDS = 64 };
    unsigned long mask[WORDS];
    int bits = (int)(8 * sizeof mask[0]);
    if (n->cpu_affinity && n->cpu_affinity(dev, WORDS, memset(mask, 0, sizeof mask)) == NVML_SUCCESS) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        for (int w = 0; w < WORDS; w++)
            for (int b = 0; b < bits; b++)
                if (mask[w] >> b & 1UL)
                    hwloc_bitmap_set(set, (unsigned)(w * bits + b));
        if (!hwloc_bitmap_iszero(set))
            g->cpu_affinity = format_cpulist(set);
        hwloc_bitmap_free(set);
    }
    if (n->memory_affinity && n->memory_affinity(dev, WORDS, memset(mask, 0, sizeof mask), NVML_AFFINITY_SCOPE_NODE) == NVML_SUCCESS) {
        /* One node is the GPU's node; several mean the driver could not tell. */
        int found = -1, count = 0;
        for (int w = 0; w < WORDS; w++)
            for (int b = 0; b < bits; b++)
                if (mask[w] >> b & 1UL) {
                    found = w * bits + b;
                    count++;
                }
        if (count == 1)
            g->numa_node = found;
    }
}

static void read_device(struct machine *m, const struct nvml *n, unsigned index)
{
    nvml_device dev;
    nvml_return rc = n->device_by_index(index, &dev);
    if (rc == NVML_ERROR_GPU_IS_LOST) /* GPU_LOST: counted, its bus id unknown */
        m->gpus.nvml_lost++;
    if (rc != NVML_SUCCESS) {
        machine_problem(m, "nvml", "GPU index %u cannot be opened: %s", index, nvml_error(n, rc));
        return;
    }
    struct nvml_pci_info pci;
    memset(&pci, 0, sizeof pci);
    rc = n->pci_info ? n->pci_info(dev, &pci) : NVML_ERROR_NOT_SUPPORTED;
    if (rc == NVML_ERROR_GPU_IS_LOST)
        m->gpus.nvml_lost++;
    if (rc != NVML_SUCCESS) {
        machine_problem(m, "nvml", "GPU index %u has no PCI bus id", index);
        return;
    }
    char bus_id[PCI_ADDRESS_LEN];
    nvml_pci_bus_id(&pci, bus_id);
    /* A GPU that answers its bus id but "GPU is lost" for its name is lost too. */
    char probe_name[96];
    if (n->name && n->name(dev, probe_name, sizeof probe_name) == NVML_ERROR_GPU_IS_LOST) {
        if (m->gpus.nvml_lost < 8)
            snprintf(m->gpus.nvml_lost_bus_ids[m->gpus.nvml_lost], sizeof m->gpus.nvml_lost_bus_ids[0], "%s", bus_id);
        m->gpus.nvml_lost++;
        machine_problem(m, "nvml", "GPU %s: GPU is lost", bus_id);
        return;
    }
    struct gpu *g = gpu_set_add(&m->gpus);
    if (!g)
        return;
    snprintf(g->bus_id, sizeof g->bus_id, "%s", bus_id);
    g->name = nvml_string(n->name, dev);
    g->uuid = nvml_string(n->uuid, dev);
    g->serial = nvml_string(n->serial, dev);
    g->vbios = nvml_string(n->vbios, dev);
    unsigned mode;
    if (n->virtualization_mode && n->virtualization_mode(dev, &mode) == NVML_SUCCESS && gpu_virtualization_mode_name(mode))
        g->virtualization_mode = strdup(gpu_virtualization_mode_name(mode));
    read_memory(n, dev, g);
    get_enable_state(n->persistence, dev, &g->persistence);
    int pstate;
    if (n->pstate && n->pstate(dev, &pstate) == NVML_SUCCESS && pstate >= 0 && pstate <= 15)
        g->pstate = pstate;
    get_uint(n->link_gen, dev, &g->pcie_gen_current);
    get_uint(n->max_link_gen, dev, &g->pcie_gen_max);
    get_uint(n->gpu_max_link_gen, dev, &g->pcie_gen_gpu_max);
    get_uint(n->link_width, dev, &g->pcie_width_current);
    get_uint(n->max_link_width, dev, &g->pcie_width_max);
    unsigned replays;
    if (n->replay_counter && n->replay_counter(dev, &replays) == NVML_SUCCESS)
        g->pcie_replays = replays;
    read_ecc(n, dev, g);
    read_clocks_power(m, n, dev, g);
    unsigned mig, mig_pending;
    if (n->mig_mode && n->mig_mode(dev, &mig, &mig_pending) == NVML_SUCCESS) {
        g->mig_current = mig ? GPU_ON : GPU_OFF;
        g->mig_pending = mig_pending ? GPU_ON : GPU_OFF;
    }
    read_nvlinks(n, dev, g);
    read_fabric(n, dev, g);
    read_affinity(n, dev, g);
}

static void probe_nvml(struct machine *m)
{
    struct nvml n;
    char err[512];
    m->gpus.probed = true;
    if (nvml_open(&n, err, sizeof err) != 0) {
        /* TRANSLATORS: %s is gpuvet's reason, around the loader's or NVML's own error text (English). */
        i18n_asprintf(&m->gpus.unknown_reason, "NVIDIA driver not usable: %s", _(err));
        return;
    }
    if (asprintf(&m->gpus.source, "nvml:%s", n.library_path) < 0)
        m->gpus.source = NULL;
    char version[96];
    if (n.driver_version && n.driver_version(version, sizeof version) == NVML_SUCCESS) {
        version[sizeof version - 1] = '\0';
        m->gpus.driver_version = strdup(version);
    }
    int cuda;
    if (n.cuda_driver_version && n.cuda_driver_version(&cuda) == NVML_SUCCESS && cuda > 0) {
        m->gpus.cuda_major = cuda / 1000;
        m->gpus.cuda_minor = cuda % 1000 / 10;
    }
    unsigned count = 0;
    nvml_return rc = n.device_count(&count);
    if (rc != NVML_SUCCESS) {
        i18n_asprintf(&m->gpus.unknown_reason, "NVML cannot count GPUs: %s", _(nvml_error(&n, rc)));
    } else {
        if (count > GPU_MAX_PER_NODE) {
            machine_problem(m, "nvml", "NVML reports %u GPUs, more than the %d a node holds: only the first %d are read",
                            count, GPU_MAX_PER_NODE, GPU_MAX_PER_NODE);
            count = GPU_MAX_PER_NODE;
        }
        m->gpus.attached_gpus = (int)count;
        for (unsigned i = 0; i < count; i++)
            read_device(m, &n, i);
    }
    nvml_close(&n);
}

/* NVML runs in a worker thread on a machine of its own, so that a GPU or driver that stopped
 * answering costs DEADLINE_NVML_S and an `unknown`, not a hung audit (util/deadline.h says why
 * abandoning the thread is safe enough: it writes only into its own machine). */
static void nvml_work(void *scratch) { probe_nvml(scratch); }

static void nvml_release(void *scratch)
{
    machine_free(scratch);
    free(scratch);
}

static void probe_nvml_bounded(struct machine *m, double deadline_cap_s)
{
    struct machine *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return;
    machine_init(scratch);
    double limit = deadline_seconds_capped("GPUVET_DEADLINE_NVML_S", DEADLINE_NVML_S, deadline_cap_s);
    if (!deadline_run(nvml_work, scratch, nvml_release, limit)) {
        m->gpus.probed = true;
        i18n_asprintf(&m->gpus.unknown_reason, "no answer from NVML (libnvidia-ml) in %g s: the driver or a GPU is "
                                               "hung (see `dmesg` for Xid errors)", limit);
        machine_problem(m, "nvml", "no answer from NVML in %g s: GPU facts unknown", limit);
        return;
    }
    gpu_set_free(&m->gpus);
    m->gpus = scratch->gpus;
    gpu_set_init(&scratch->gpus);
    for (int i = 0; i < scratch->nproblems; i++)
        machine_problem_copy(m, &scratch->problems[i]);
    nvml_release(scratch);
    /* On the machine itself, not the worker's scratch copy: a GPU passed through makes it a VM. */
    virt_from_gpus(m, "NVML");
}

/* --- CUDA runtimes and PyTorch builds on the machine --------------------------------------------- */

/* Folders reached twice (/usr/local/cuda -> cuda-12.4) list one runtime once: by the folder's
 * real path. */
static void add_runtime_once(struct machine *m, const char *path, const char *kind, int major, int minor)
{
    char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char *real_dir = fs_resolve(dir);
    char real[4096];
    snprintf(real, sizeof real, "%s%s", real_dir ? real_dir : dir, slash);
    free(real_dir);
    for (int i = 0; i < m->gpus.nruntimes; i++)
        if (!strcmp(m->gpus.runtimes[i].path, real))
            return;
    gpu_set_add_runtime(&m->gpus, real, kind, major, minor);
}

/* "libcudart.so.12.2.140" -> 12, 2; "libcudart.so.12" -> 12, -1. */
static bool cudart_version(const char *name, int *major, int *minor)
{
    int a, b;
    if (strncmp(name, "libcudart.so.", 13) != 0)
        return false;
    int k = sscanf(name + 13, "%d.%d", &a, &b);
    if (k < 1 || a <= 0)
        return false;
    *major = a;
    *minor = k == 2 ? b : -1;
    return true;
}

static void scan_cudart_dir(struct machine *m, const char *dir)
{
    char **names;
    int n = fs_list(dir, &names);
    /* Keep the most precise name per folder: libcudart.so.12.2.140 over its libcudart.so.12 link. */
    int best = -1, major = 0, minor = -1;
    for (int i = 0; i < n; i++) {
        int a, b;
        if (!cudart_version(names[i], &a, &b))
            continue;
        /* The names are what this check reads: a snapshot keeps them, so that its replay finds
         * the same runtimes (and gives the same verdict) as the machine. */
        char seen[4096];
        snprintf(seen, sizeof seen, "%s/%s", dir, names[i]);
        fs_record_name(seen);
        if (best < 0 || b > minor) {
            best = i;
            major = a;
            minor = b;
        }
    }
    if (best >= 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[best]);
        add_runtime_once(m, path, "libcudart", major, minor);
    }
    if (n >= 0)
        fs_list_free(names, n);
}

/* torch/version.py holds `cuda = '12.1'` (or None for CPU builds). */
static void read_torch_version(struct machine *m, const char *site)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/torch/version.py", site);
    char *text = fs_read(path);
    if (!text)
        return;
    const char *line = strstr(text, "\ncuda");
    int a, b;
    if (!line && !strncmp(text, "cuda", 4))
        line = text - 1;
    if (line && sscanf(line + 1, "cuda = '%d.%d'", &a, &b) == 2)
        add_runtime_once(m, path, "torch", a, b);
    free(text);
}

/* Children of dir whose name starts with prefix, as full paths, each passed to fn. */
static void each_child(struct machine *m, const char *dir, const char *prefix, const char *suffix,
                       void (*fn)(struct machine *, const char *))
{
    char **names;
    int n = fs_list(dir, &names);
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], prefix, strlen(prefix)) != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%s", dir, names[i], suffix);
        fn(m, path);
    }
    if (n >= 0)
        fs_list_free(names, n);
}

static void scan_python(struct machine *m, const char *lib_python)
{
    static const char *const sites[] = {"/site-packages", "/dist-packages"};
    for (int s = 0; s < 2; s++) {
        char site[4096];
        snprintf(site, sizeof site, "%s%s", lib_python, sites[s]);
        read_torch_version(m, site);
        char cudart[4096];
        snprintf(cudart, sizeof cudart, "%s/nvidia/cuda_runtime/lib", site);
        scan_cudart_dir(m, cudart);
    }
}

static void scan_python_prefix(struct machine *m, const char *lib)
{
    each_child(m, lib, "python3", "", scan_python);
}

static void scan_cuda_toolkit(struct machine *m, const char *root)
{
    char *real_root = fs_resolve(root);
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/lib64", real_root ? real_root : root);
    free(real_root);
    scan_cudart_dir(m, lib);
}

/* The usual places: the distribution's library folders, /usr/local/cuda-*, system and conda
 * Pythons (pip wheels carry their own libcudart under nvidia/cuda_runtime). */
static void find_cuda_runtimes(struct machine *m)
{
    static const char *const lib_dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64"};
    static const char *const python_prefixes[] = {"/usr/lib", "/usr/local/lib", "/opt/conda/lib"};
    m->gpus.runtimes_searched = true;
    for (size_t i = 0; i < sizeof lib_dirs / sizeof lib_dirs[0]; i++)
        scan_cudart_dir(m, lib_dirs[i]);
    each_child(m, "/usr/local", "cuda", "", scan_cuda_toolkit);
    for (size_t i = 0; i < sizeof python_prefixes / sizeof python_prefixes[0]; i++)
        scan_python_prefix(m, python_prefixes[i]);
}

void probe_nvidia(struct machine *m, double deadline_cap_s)
{
    bool nvidia = has_nvidia_device(m);
    if (fsroot_is_live()) {
        const char *forced = getenv("GPUVET_NVML_LIBRARY");
        if (nvidia || (forced && *forced))
            probe_nvml_bounded(m, deadline_cap_s);
    } else {
        int rc = probe_nvidia_smi_recorded(m);
        if (rc != 0 && nvidia) {
            m->gpus.probed = true;
            m->gpus.unknown_reason =
                strdup(rc > 0 ? N_("the recorded tree has an NVIDIA device but no nvidia-smi.xml (record it with "
                                   "`gpuvet snapshot` on the machine, with the driver loaded)")
                              : N_("the recorded nvidia-smi.xml is malformed (see input problems)"));
        }
    }
    if (m->gpus.probed)
        find_cuda_runtimes(m);
}

/* --- --load-check ---------------------------------------------------------------------------- */

#define LOAD_CHECK_BYTES (256u << 20)
#define LOAD_CHECK_SECONDS 1.0
#define LOAD_CHECK_POLL_NS 50000000L

static bool nvml_find(const struct nvml *n, const char *bus_id, nvml_device *out)
{
    unsigned count = 0;
    if (n->device_count(&count) != NVML_SUCCESS || !n->pci_info)
        return false;
    for (unsigned i = 0; i < count; i++) {
        struct nvml_pci_info pci;
        char found[PCI_ADDRESS_LEN];
        memset(&pci, 0, sizeof pci);
        if (n->device_by_index(i, out) != NVML_SUCCESS || n->pci_info(*out, &pci) != NVML_SUCCESS)
            continue;
        nvml_pci_bus_id(&pci, found);
        if (pci_address_same(found, bus_id))
            return true;
    }
    return false;
}

/* Keeps the sample with the fastest link seen in P0 (the link retrains a few ms after load
 * starts), or the latest sample when the GPU never reached P0. */
static void sample_link(const struct nvml *n, nvml_device dev, struct gpu_load_check *l)
{
    int pstate = -1, gen = -1, width = -1;
    if (n->pstate)
        n->pstate(dev, &pstate);
    get_uint(n->link_gen, dev, &gen);
    get_uint(n->link_width, dev, &width);
    bool better = l->pstate != 0 || (pstate == 0 && gen > l->gen);
    if (better) {
        l->pstate = pstate;
        l->gen = gen;
        l->width = width;
    }
}

static void set_load_error(struct gpu *g, const char *why)
{
    free(g->load.error);
    g->load.error = strdup(why);
}

static void load_one(const struct nvml *n, const struct cuda *c, struct gpu *g)
{
    nvml_device dev;
    char err[512] = "";
    if (!nvml_find(n, g->bus_id, &dev)) {
        set_load_error(g, N_("NVML does not list this GPU"));
        return;
    }
    struct cuda_gpu cg;
    if (cuda_gpu_open(c, g->bus_id, LOAD_CHECK_BYTES, &cg, err, sizeof err) != 0) {
        set_load_error(g, err);
        cuda_gpu_close(&cg);
        return;
    }
    /* One timed copy sizes the queue to about a second of traffic. */
    double rate = cuda_copy_rate(&cg, CUDA_H2D, NULL, 1, err, sizeof err);
    int repeat = rate > 0 ? (int)(LOAD_CHECK_SECONDS * rate / LOAD_CHECK_BYTES) + 1 : 0;
    if (repeat > 400)
        repeat = 400;
    if (rate <= 0 || cuda_copies_start(&cg, repeat, err, sizeof err) != 0) {
        set_load_error(g, *err ? err : N_("the first copy failed"));
        cuda_gpu_close(&cg);
        return;
    }
    const struct timespec poll = {0, LOAD_CHECK_POLL_NS};
    while (!cuda_copies_done(&cg)) {
        sample_link(n, dev, &g->load);
        nanosleep(&poll, NULL);
    }
    g->load.h2d_bytes_s = rate;
    g->load.done = g->load.gen > 0;
    if (!g->load.done)
        set_load_error(g, N_("NVML gave no link generation while the copies ran"));
    cuda_gpu_close(&cg);
}

/* Every GPU is loaded, also one whose link already shows its top generation: the copies confirm
 * the width under load and give the host-to-device rate the user asked for. */
static bool load_check_candidate(const struct gpu *g)
{
    (void)g;
    return true;
}

/* Runs in a worker thread on copies of the candidate GPUs (util/deadline.h). */
static void load_check_work(void *p)
{
    struct gpu_set *set = p;
    struct nvml n;
    struct cuda c;
    char err[512] = "";
    bool have_nvml = nvml_open(&n, err, sizeof err) == 0;
    bool have_cuda = have_nvml && cuda_open(&c, err, sizeof err) == 0;
    for (int i = 0; i < set->count; i++) {
        if (have_cuda)
            load_one(&n, &c, &set->items[i]);
        else
            set_load_error(&set->items[i], err);
    }
    if (have_cuda)
        cuda_close(&c);
    if (have_nvml)
        nvml_close(&n);
}

static void load_check_release(void *p)
{
    gpu_set_free(p);
    free(p);
}

void probe_nvidia_load_check(struct machine *m, double deadline_cap_s)
{
    struct gpu_set *set = malloc(sizeof *set);
    if (!set)
        return;
    gpu_set_init(set);
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        struct gpu *copy = load_check_candidate(g) ? gpu_set_add(set) : NULL;
        if (!copy)
            continue;
        snprintf(copy->bus_id, sizeof copy->bus_id, "%s", g->bus_id);
        copy->pcie_gen_current = g->pcie_gen_current;
        copy->pcie_gen_max = g->pcie_gen_max;
    }
    if (set->count == 0) {
        load_check_release(set);
        return;
    }
    /* About LOAD_CHECK_SECONDS of copies per GPU, after the driver's start-up. */
    double limit = deadline_seconds_capped("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S, deadline_cap_s) + 2.0 * set->count;
    bool answered = deadline_run(load_check_work, set, load_check_release, limit);
    for (int i = 0; i < m->gpus.count; i++) {
        struct gpu *g = &m->gpus.items[i];
        if (!load_check_candidate(g))
            continue;
        if (!answered) {
            const char *call = cuda_call_in_progress();
            free(g->load.error);
            /* TRANSLATORS: %s is a CUDA or NVML call (cuMemcpyHtoD) or "the CUDA driver or NVML". */
            i18n_asprintf(&g->load.error, "no answer from %s in %g s: the GPU may be hung",
                          call ? call : _("the CUDA driver or NVML"), limit);
            continue;
        }
        for (int k = 0; k < set->count; k++)
            if (!strcmp(set->items[k].bus_id, g->bus_id)) {
                free(g->load.error);
                g->load = set->items[k].load;
                set->items[k].load.error = NULL;
            }
    }
    if (answered)
        load_check_release(set);
}
