/* A saved audit (gpuvet.audit/1, docs/audit-json.md) read back into the machine model. It reads
 * the facts report/json.c writes: the CPU, NUMA nodes, PCI accelerators, NICs and NVMe with their
 * links and upstream paths, disks, network ports, NVIDIA GPUs, and a few kernel and virtualization
 * facts. What the document leaves out or gets wrong stays unknown; nothing is guessed. */
#include "probe/audit_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/pciaddr.h"
#include "util/fsroot.h"
#include "util/inputfile.h"
#include "util/i18n.h"
#include "util/jsonerror.h"
#include "util/parse.h"

/* Lists longer than any machine has (a damaged or hostile file) are cut here, with a problem. */
#define AUDIT_MAX_NUMA_NODES 1024
#define AUDIT_MAX_PCI_PER_ROLE 256
#define AUDIT_MAX_PATH_HOPS 32
#define AUDIT_MAX_DISKS 4096
#define AUDIT_MAX_PORTS 4096

static char *text_copy(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? strdup(s) : NULL;
}

/* An integer in [min, max], or fallback (the field's unknown marker). */
static long long int_in(json_t *obj, const char *key, long long min, long long max, long long fallback)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return fallback;
    long long x = json_integer_value(v);
    return x >= min && x <= max ? x : fallback;
}

/* A finite number in [min, max], or fallback. */
static double number_in(json_t *obj, const char *key, double min, double max, double fallback)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        return fallback;
    double x = json_number_value(v);
    return isfinite(x) && x >= min && x <= max ? x : fallback;
}

static bool flag(json_t *obj, const char *key) { return json_is_true(json_object_get(obj, key)); }

/* "0x030200" -> 0x030200 within digits hex digits; false on anything else. */
static bool hex_id(json_t *obj, const char *key, int digits, unsigned *out)
{
    const char *s = json_string_value(json_object_get(obj, key));
    if (!s || strncmp(s, "0x", 2) != 0 || strlen(s) < 3 || strlen(s) > 2 + (size_t)digits)
        return false;
    unsigned v = 0;
    for (const char *p = s + 2; *p; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0)
            return false;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return true;
}

/* A bus id that fits the model's field; "" (unknown) otherwise. */
static void bus_id_copy(json_t *obj, const char *key, char out[32])
{
    const char *s = json_string_value(json_object_get(obj, key));
    out[0] = '\0';
    if (s && strlen(s) < 32)
        strcpy(out, s);
}

/* A cpulist into a fresh bitmap, empty when absent or malformed. */
static hwloc_bitmap_t cpus_of(json_t *obj, const char *key)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && !parse_cpulist(json_string_value(json_object_get(obj, key)), set))
        hwloc_bitmap_zero(set);
    return set;
}

/* How many entries of a list to read: all, or max with a problem recorded. too_many is the whole
 * message, "%zu ... %zu", with the count found and max. */
static size_t capped(struct machine *m, const char *path, json_t *list, size_t max, const char *too_many)
{
    size_t n = json_array_size(list);
    if (n > max) {
        machine_problem(m, path, too_many, n, max);
        n = max;
    }
    return n;
}

/* machine.listed.KEY says whether the probe could read a list; audits written before it existed
 * say so by having the list at all. */
static bool listed(json_t *machine, const char *key, const char *list)
{
    json_t *said = json_object_get(json_object_get(machine, "listed"), key);
    return json_is_boolean(said) ? json_is_true(said) : json_is_array(json_object_get(machine, list));
}

/* Room for the entries of a list (capped to max): NULL with *n 0 for an empty or absent list,
 * NULL with *n > 0 when out of memory. */
static void *alloc_entries(struct machine *m, const char *path, json_t *list, size_t max, size_t size, const char *what,
                           size_t *n)
{
    *n = capped(m, path, list, max, what);
    return *n ? calloc(*n, size) : NULL;
}

static void load_cpu(struct cpu_info *c, json_t *cpu)
{
    c->model = text_copy(cpu, "model");
    c->vendor = text_copy(cpu, "vendor");
    c->arch = text_copy(cpu, "arch");
    c->family = (int)int_in(cpu, "family", 0, 1 << 16, -1);
    c->model_number = (int)int_in(cpu, "model_number", 0, 1 << 16, -1);
    c->sockets = (int)int_in(cpu, "sockets", 1, 1 << 16, 0);
    c->cores = (int)int_in(cpu, "cores", 1, 1 << 22, 0);
    c->threads = (int)int_in(cpu, "threads", 1, 1 << 22, 0);
    c->usable_threads = (int)int_in(cpu, "usable_threads", 1, 1 << 22, 0);
    c->usable_cpus = text_copy(cpu, "usable_cpus");
    c->base_mhz = number_in(cpu, "base_mhz", 0, 1e5, 0);
    c->max_mhz = number_in(cpu, "max_mhz", 0, 1e5, 0);
    json_t *flags = json_object_get(cpu, "flags");
    c->flags_known = json_is_object(flags);
    c->avx2 = flag(flags, "avx2");
    c->avx512f = flag(flags, "avx512f");
    c->amx = flag(flags, "amx");
}

static int load_numa(struct machine *m, const char *path, json_t *nodes)
{
    size_t n;
    m->nodes = alloc_entries(m, path, nodes, AUDIT_MAX_NUMA_NODES, sizeof *m->nodes,
                             "%zu NUMA nodes in the saved audit: only the first %zu are read", &n);
    if (n && !m->nodes)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(nodes, i);
        struct numa_node *node = &m->nodes[m->nnodes++];
        node->id = (int)int_in(o, "id", 0, AUDIT_MAX_NUMA_NODES * 64, (long long)i);
        node->cpus = cpus_of(o, "cpus");
        if (!node->cpus)
            return -1;
        long long bytes = int_in(o, "memory_bytes", 0, INT64_MAX, -1);
        node->memory_known = bytes >= 0;
        node->memory_bytes = bytes >= 0 ? (uint64_t)bytes : 0;
        json_t *row = json_object_get(o, "distances");
        if (json_array_size(row) == n) {
            node->distances = calloc(n, sizeof *node->distances);
            for (size_t k = 0; node->distances && k < n; k++) {
                json_t *d = json_array_get(row, k);
                node->distances[k] = json_is_integer(d) && json_integer_value(d) >= 0 && json_integer_value(d) <= 255
                                         ? (int)json_integer_value(d)
                                         : -1;
            }
        }
    }
    return 0;
}

static struct pci_link link_of(json_t *link)
{
    struct pci_link l = {0};
    if (!json_is_object(link))
        return l;
    l.known = true;
    l.cur_gt_s = number_in(link, "current_gt_s", 0, 1e3, 0);
    l.max_gt_s = number_in(link, "max_gt_s", 0, 1e3, 0);
    l.cur_width = (int)int_in(link, "current_width", 0, 64, 0);
    l.max_width = (int)int_in(link, "max_width", 0, 64, 0);
    return l;
}

static int load_pci_device(struct pci_device *d, json_t *o, enum pci_role role)
{
    bus_id_copy(o, "bus_id", d->bus_id);
    d->role = role;
    if (!hex_id(o, "class", 6, &d->class_id))
        d->class_id = 0;
    if (!hex_id(o, "vendor_id", 4, &d->vendor_id))
        d->vendor_id = PCI_ID_UNKNOWN;
    if (!hex_id(o, "device_id", 4, &d->device_id))
        d->device_id = PCI_ID_UNKNOWN;
    d->subsystem_vendor_id = d->subsystem_device_id = PCI_ID_UNKNOWN;
    d->missing = text_copy(o, "missing_files");
    d->vendor_name = text_copy(o, "vendor");
    d->device_name = text_copy(o, "device");
    d->driver = text_copy(o, "driver");
    d->numa_node = (int)int_in(o, "numa_node", 0, AUDIT_MAX_NUMA_NODES * 64, -1);
    d->numa_derived = flag(o, "numa_node_derived");
    d->local_cpus = cpus_of(o, "local_cpus");
    if (!d->local_cpus)
        return -1;
    d->link = link_of(json_object_get(o, "link"));
    json_t *path = json_object_get(o, "path");
    size_t hops = json_array_size(path) < AUDIT_MAX_PATH_HOPS ? json_array_size(path) : AUDIT_MAX_PATH_HOPS;
    if (hops) {
        d->path = calloc(hops, sizeof *d->path);
        if (!d->path)
            return -1;
        for (size_t k = 0; k < hops; k++) {
            json_t *hop = json_array_get(path, k);
            bus_id_copy(hop, "bus_id", d->path[k].bus_id);
            if (!hex_id(hop, "class", 6, &d->path[k].class_id))
                d->path[k].class_id = 0;
            d->path[k].link = link_of(json_object_get(hop, "link"));
        }
        d->npath = (int)hops;
    }
    return 0;
}

/* accelerators, nics and nvme: one list in the model, told apart by role. */
static int load_pci(struct machine *m, const char *path, json_t *machine)
{
    static const struct {
        const char *key;
        enum pci_role role;
        const char *too_many;
    } lists[] = {
        {"accelerators", PCI_ROLE_ACCELERATOR, "%zu accelerators in the saved audit: only the first %zu are read"},
        {"nics", PCI_ROLE_NIC, "%zu NICs in the saved audit: only the first %zu are read"},
        {"nvme", PCI_ROLE_NVME, "%zu NVMe drives in the saved audit: only the first %zu are read"},
    };
    size_t counts[3], total = 0;
    for (size_t l = 0; l < 3; l++) {
        json_t *list = json_object_get(machine, lists[l].key);
        counts[l] = capped(m, path, list, AUDIT_MAX_PCI_PER_ROLE, lists[l].too_many);
        total += counts[l];
    }
    m->pci_scanned = listed(machine, "pci", "accelerators");
    if (total == 0)
        return 0;
    m->pci = calloc(total, sizeof *m->pci);
    if (!m->pci)
        return -1;
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; i < counts[l]; i++)
            if (load_pci_device(&m->pci[m->npci++], json_array_get(json_object_get(machine, lists[l].key), i),
                                lists[l].role) != 0)
                return -1;
    return 0;
}

static enum storage_transport transport_of(json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "transport"));
    for (int t = TRANSPORT_UNKNOWN; name && t <= TRANSPORT_PMEM; t++)
        if (!strcmp(name, storage_transport_name((enum storage_transport)t)))
            return (enum storage_transport)t;
    return TRANSPORT_UNKNOWN;
}

static int load_storage(struct machine *m, const char *path, json_t *machine)
{
    json_t *disks = json_object_get(machine, "storage");
    m->storage.listed = listed(machine, "storage", "storage");
    size_t n;
    m->storage.devices = alloc_entries(m, path, disks, AUDIT_MAX_DISKS, sizeof *m->storage.devices,
                                       "%zu disks in the saved audit: only the first %zu are read", &n);
    if (n && !m->storage.devices)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(disks, i);
        struct block_device *d = &m->storage.devices[m->storage.ndevices++];
        d->name = text_copy(o, "name");
        d->vendor = text_copy(o, "vendor");
        d->model = text_copy(o, "model");
        d->size_bytes = int_in(o, "size_bytes", 0, INT64_MAX, -1);
        d->transport = transport_of(o);
        json_t *rot = json_object_get(o, "rotational");
        d->rotational = json_is_boolean(rot) ? json_is_true(rot) : -1;
        d->removable = flag(o, "removable");
        d->pci_bus_id = text_copy(o, "pci_bus_id");
        d->numa_node = (int)int_in(o, "numa_node", 0, AUDIT_MAX_NUMA_NODES * 64, -1);
        d->holds_root = flag(o, "holds_root");
        d->holds_data = flag(o, "holds_data");
    }
    return 0;
}

static enum link_state state_of(json_t *o)
{
    const char *s = json_string_value(json_object_get(o, "state"));
    return !s ? LINK_UNKNOWN : !strcmp(s, "up") ? LINK_UP : !strcmp(s, "down") ? LINK_DOWN : LINK_UNKNOWN;
}

static int load_network(struct machine *m, const char *path, json_t *machine)
{
    json_t *ports = json_object_get(machine, "network");
    m->network.listed = listed(machine, "network", "network");
    size_t n;
    m->network.ports = alloc_entries(m, path, ports, AUDIT_MAX_PORTS, sizeof *m->network.ports,
                                     "%zu network ports in the saved audit: only the first %zu are read", &n);
    if (n && !m->network.ports)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(ports, i);
        struct nic_port *p = &m->network.ports[m->network.nports++];
        p->name = text_copy(o, "name");
        p->pci_bus_id = text_copy(o, "pci_bus_id");
        p->driver = text_copy(o, "driver");
        p->state = state_of(o);
        p->speed_mbps = (long)int_in(o, "speed_mbps", 1, 100000000, -1);
        const char *speed_source = json_string_value(json_object_get(o, "speed_source"));
        p->speed_from_rdma = speed_source && !strcmp(speed_source, "rdma_rate");
        p->link_layer = text_copy(o, "link_layer");
        p->numa_node = (int)int_in(o, "numa_node", 0, AUDIT_MAX_NUMA_NODES * 64, -1);
        p->has_rdma = flag(o, "rdma");
        json_t *r = json_object_get(o, "rdma_port");
        if (json_is_object(r)) {
            p->rdma.device = text_copy(r, "device");
            p->rdma.port = (int)int_in(r, "port", 0, 1 << 16, 0);
            p->rdma.state = text_copy(r, "state");
            p->rdma.rate_gbps = number_in(r, "rate_gbps", 0, 1e5, 0);
            p->rdma.link_layer = text_copy(r, "link_layer");
        }
        p->unknown_reason = text_copy(o, "unknown_reason");
    }
    return 0;
}

/* machine.gpus is null when no NVIDIA source described the GPUs (not "zero GPUs"). */
static int load_gpus(struct machine *m, const char *path, json_t *gpus, json_t *nvidia)
{
    struct gpu_set *s = &m->gpus;
    if (!json_is_array(gpus))
        return 0;
    s->probed = true;
    s->source = text_copy(nvidia, "source");
    if (!s->source)
        s->source = strdup("saved audit");
    if (!s->source)
        return -1;
    s->driver_version = text_copy(nvidia, "driver_version");
    s->attached_gpus = (int)int_in(nvidia, "attached_gpus", 0, 1 << 20, -1);
    const char *cuda = json_string_value(json_object_get(nvidia, "cuda_version"));
    if (cuda && sscanf(cuda, "%d.%d", &s->cuda_major, &s->cuda_minor) != 2)
        s->cuda_major = s->cuda_minor = -1;
    size_t n = capped(m, path, gpus, GPU_MAX_PER_NODE, "%zu GPUs in the saved audit: only the first %zu are read");
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(gpus, i);
        struct gpu *g = gpu_set_add(s);
        if (!g)
            return -1;
        const char *bus = json_string_value(json_object_get(o, "bus_id"));
        if (!bus || !pci_address_normalise(bus, g->bus_id))
            g->bus_id[0] = '\0';
        g->name = text_copy(o, "name");
        g->brand = text_copy(o, "brand");
        g->memory_total_bytes = int_in(o, "memory_bytes", 0, INT64_MAX, -1);
        g->numa_node = (int)int_in(o, "numa_node", 0, AUDIT_MAX_NUMA_NODES * 64, -1);
        g->cpu_affinity = text_copy(o, "cpu_affinity");
        json_t *pcie = json_object_get(o, "pcie");
        g->pcie_gen_current = (int)int_in(pcie, "current_gen", 1, 16, -1);
        g->pcie_gen_max = (int)int_in(pcie, "max_gen", 1, 16, -1);
        g->pcie_gen_gpu_max = (int)int_in(pcie, "gpu_max_gen", 1, 16, -1);
        g->pcie_width_current = (int)int_in(pcie, "current_width", 1, 64, -1);
        g->pcie_width_max = (int)int_in(pcie, "max_width", 1, 64, -1);
    }
    return 0;
}

static void load_kernel_and_virt(struct machine *m, json_t *kernel, json_t *virt)
{
    m->kernel.release = text_copy(kernel, "release");
    m->kernel.mem_total_bytes = int_in(kernel, "mem_total_bytes", 0, INT64_MAX, -1);
    m->kernel.swap_total_bytes = int_in(kernel, "swap_total_bytes", 0, INT64_MAX, -1);
    json_t *vm = json_object_get(virt, "vm");
    m->virt.known = json_is_boolean(vm);
    m->virt.vm = json_is_true(vm);
    m->virt.hypervisor = text_copy(virt, "hypervisor");
    m->virt.container = flag(virt, "container");
    m->virt.container_kind = text_copy(virt, "container_kind");
    m->virt.evidence = text_copy(virt, "evidence");
}

static json_t *load_document(const char *path, char *err, size_t errlen)
{
    char why[256];
    size_t len;
    unsigned char *text = input_file_read(path, INPUT_FILE_LIMIT, &len, why, sizeof why);
    if (!text) {
        snprintf(err, errlen, _("%s: %s"), path, _(why));
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)text, len, 0, &jerr);
    free(text);
    if (!doc) {
        char what[320];
        json_error_describe(&jerr, what, sizeof what);
        snprintf(err, errlen, _("%s: not valid JSON: %s"), path, what);
    }
    return doc;
}

int audit_json_load(const char *path, const char *schema, struct machine *m, char *err, size_t errlen)
{
    json_t *doc = load_document(path, err, errlen);
    if (!doc)
        return -1;
    const char *found = json_string_value(json_object_get(doc, "schema"));
    json_t *machine = json_object_get(doc, "machine");
    if (!found || strcmp(found, schema) || !json_is_object(machine)) {
        snprintf(err, errlen, _("%s: not a %s document (from `gpuvet audit --json`)"), path, schema);
        json_decref(doc);
        return -1;
    }
    m->source = text_copy(machine, "source");
    m->hostname = text_copy(machine, "hostname");
    m->missing_reason = N_("the saved audit does not record it");
    load_cpu(&m->cpu, json_object_get(machine, "cpu"));
    int rc = load_numa(m, path, json_object_get(machine, "numa_nodes"));
    if (rc == 0)
        rc = load_pci(m, path, machine);
    if (rc == 0)
        rc = load_storage(m, path, machine);
    if (rc == 0)
        rc = load_network(m, path, machine);
    if (rc == 0)
        rc = load_gpus(m, path, json_object_get(machine, "gpus"), json_object_get(machine, "nvidia"));
    load_kernel_and_virt(m, json_object_get(machine, "kernel"), json_object_get(machine, "virtualization"));
    json_decref(doc);
    if (rc != 0)
        snprintf(err, errlen, _("%s: out of memory"), path);
    return rc;
}
