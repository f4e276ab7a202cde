#include "sizing/check.h"

#include <stdio.h>
#include <string.h>

#include "util/i18n.h"
#include "util/parse.h"
#include "util/units.h"

/* Appends an item and returns it (borrowed); need and have are new references (or NULL for null). */
static json_t *add(json_t *out, const char *what, json_t *need, json_t *have, const char *status, const char *why)
{
    json_t *item = json_pack("{s:s, s:o, s:o, s:s, s:s?}", "what", what, "need", need ? need : json_null(), "have",
                             have ? have : json_null(), "status", status, "why", why);
    json_array_append_new(out, item);
    return item;
}

static json_t *requirement(json_t *requirements, const char *key)
{
    json_t *v = json_object_get(json_object_get(requirements, key), "value");
    return json_is_number(v) ? v : NULL;
}

/* need (borrowed) against have (a new reference, NULL when the machine does not say). */
static void check_count(json_t *out, const char *what, json_t *need, json_t *have, const char *unknown_why,
                        const char *why, int *shortfalls)
{
    if (!need) {
        json_decref(have);
        return;
    }
    if (!have) {
        add(out, what, json_incref(need), NULL, N_("unknown"), unknown_why);
        return;
    }
    bool ok = json_number_value(have) >= json_number_value(need);
    *shortfalls += !ok;
    add(out, what, json_incref(need), have, ok ? N_("ok") : N_("short"), why);
}

/* The fastest port whose link is up (Mb/s) against the plan's Gb/s; RDMA when the plan asks. */
static void check_network(json_t *out, const struct machine *m, json_t *requirements, int *shortfalls)
{
    json_t *need = requirement(requirements, "network_gbit_s");
    if (!need)
        return;
    double fastest = 0;
    bool rdma = false;
    for (int i = 0; i < m->network.nports; i++) {
        const struct nic_port *p = &m->network.ports[i];
        if (p->state != LINK_UP)
            continue;
        double gbit = p->speed_mbps > 0 ? p->speed_mbps / 1000.0 : 0;
        if (gbit > fastest)
            fastest = gbit;
        rdma = rdma || p->has_rdma;
    }
    check_count(out, N_("network"), need, fastest > 0 ? json_real(fastest) : NULL,
                _("no port with its link up and a known speed"), _("Gb/s of the fastest port whose link is up"),
                shortfalls);
    if (json_is_true(json_object_get(json_object_get(requirements, "rdma"), "value"))) {
        *shortfalls += !rdma;
        add(out, N_("RDMA"), json_true(), json_boolean(rdma), rdma ? N_("ok") : N_("short"),
            _("an InfiniBand or RoCE port whose link is up"));
    }
}

/* NVMe capacity against the plan's ZeRO-Infinity space; a read rate needs a measurement
 * (`gpuvet bench storage`), which the machine model of an audit does not hold. */
static void check_storage(json_t *out, const struct machine *m, json_t *requirements, int *shortfalls)
{
    json_t *need = requirement(requirements, "nvme_bytes_per_node");
    if (need) {
        json_t *have = NULL;
        if (m->storage.listed) {
            double bytes = 0;
            for (int i = 0; i < m->storage.ndevices; i++)
                if (m->storage.devices[i].transport == TRANSPORT_NVME && m->storage.devices[i].size_bytes > 0)
                    bytes += (double)m->storage.devices[i].size_bytes;
            have = json_integer((json_int_t)bytes);
        }
        check_count(out, N_("NVMe space"), need, have, _("the block devices could not be listed"),
                    _("capacity of the NVMe drives"), shortfalls);
    }
    /* A rate, not an amount: "unit" tells the report to show GB/s (other items' numbers are counts or
     * bytes). */
    if (requirement(requirements, "storage_read_bytes_s"))
        json_object_set_new(add(out, N_("storage read rate"),
                                json_incref(requirement(requirements, "storage_read_bytes_s")), NULL, N_("unknown"),
                                _("a read rate is measured, not audited: gpuvet bench storage --dir DATA_DIR")),
                            "unit", json_string("bytes/s"));
}

/* GPUs the driver reports (NVML or nvidia-smi: m->gpus.source set), else PCI accelerators. */
static void check_gpus(json_t *out, const struct machine *m, json_t *requirements, const struct gpu_spec *gpu,
                       const struct gpu_table *table, int *shortfalls)
{
    bool driver = m->gpus.source != NULL;
    json_t *count = driver           ? json_integer(m->gpus.count)
                    : m->pci_scanned ? json_integer(machine_accelerator_count(m))
                                     : NULL;
    check_count(out, N_("GPUs"), requirement(requirements, "gpus_per_node"), count,
                _("the PCI bus could not be read: the accelerators are unknown"),
                driver ? _("GPUs the driver reports") : _("PCI accelerators (any vendor or model)"), shortfalls);
    if (!gpu)
        return;
    if (!driver || m->gpus.count == 0) {
        add(out, N_("GPU model"), json_string(gpu->id), NULL, N_("unknown"),
            _("the audit has no GPU model or memory (no NVIDIA driver data in it)"));
        return;
    }
    for (int i = 0; i < m->gpus.count; i++) {
        const struct gpu *g = &m->gpus.items[i];
        const char *name = g->name;
        char what[64], why[512], err[512];
        snprintf(what, sizeof what, "GPU %d", i);
        const struct gpu_spec *found = name ? gpu_lookup(table, name, NULL, 0, err, sizeof err) : NULL;
        if (found == gpu) {
            add(out, what, json_string(gpu->id), json_string(name), N_("ok"), _("the planned model"));
        } else if (g->memory_total_bytes >= 0) {
            double mem = (double)g->memory_total_bytes;
            /* Against the planned card's memory as its driver reports it (data/gpus.csv memory_mib),
             * less 3%: the same card reports a little less with ECC on or another driver. */
            double need = gpu_memory_bytes(gpu);
            bool ok = mem >= need * 0.97;
            *shortfalls += !ok;
            snprintf(why, sizeof why, _("%s is not %s; judged by its memory (%.1f GB, the plan needs %.1f GB)"),
                     name ? name : _("a GPU"), gpu->id, mem / GB, need / GB);
            add(out, what, json_string(gpu->id), json_string(name ? name : "?"), ok ? N_("ok") : N_("short"), why);
        } else {
            add(out, what, json_string(gpu->id), json_string(name ? name : "?"), N_("unknown"),
                _("a different or unknown model and no memory size in the audit"));
        }
    }
}

static void check_links(json_t *out, const struct machine *m, const struct gpu_spec *gpu, int *shortfalls)
{
    for (int i = 0; i < m->npci; i++) {
        const struct pci_device *a = &m->pci[i];
        if (a->role != PCI_ROLE_ACCELERATOR)
            continue;
        char what[96], need[32], have[64], why[256];
        snprintf(what, sizeof what, "PCIe link %s", *a->bus_id ? a->bus_id : "?");
        if (!a->link.known) {
            add(out, what, NULL, NULL, N_("unknown"), _("the kernel exposes no link attributes for it"));
            continue;
        }
        long cur_w = a->link.cur_width, max_w = a->link.max_width;
        long cur_gen = pcie_generation(a->link.cur_gt_s), max_gen = pcie_generation(a->link.max_gt_s);
        /* path[0] is the port the device hangs off: its maximum is the slot's. */
        long slot_gen = a->npath > 0 && a->path[0].link.known ? pcie_generation(a->path[0].link.max_gt_s) : 0;
        snprintf(need, sizeof need, "x%ld", max_w);
        snprintf(have, sizeof have, "Gen%ld x%ld (max Gen%ld x%ld)", cur_gen, cur_w, max_gen, max_w);
        if (cur_w < max_w) {
            (*shortfalls)++;
            add(out, what, json_string(need), json_string(have), N_("short"),
                _("negotiated narrower than the device supports: host-GPU bandwidth is cut"));
        } else if (gpu && gpu->pcie_gen > 0 && slot_gen > 0 && slot_gen < gpu->pcie_gen) {
            snprintf(why, sizeof why,
                     _("the planned %s is a PCIe Gen%g part; the port above this one tops out at Gen%ld"),
                     gpu->id, gpu->pcie_gen, slot_gen);
            add(out, what, json_string(need), json_string(have), N_("note"), why);
        } else if (gpu && gpu->pcie_gen > 0 && max_gen > 0 && max_gen < gpu->pcie_gen) {
            snprintf(why, sizeof why, _("the device here is a PCIe Gen%ld part; the planned %s is Gen%g"), max_gen,
                     gpu->id, gpu->pcie_gen);
            add(out, what, json_string(need), json_string(have), N_("note"), why);
        } else if (cur_gen < max_gen) {
            add(out, what, json_string(need), json_string(have), N_("note"),
                _("lower speed than its maximum: idle GPUs downtrain; re-read under load (gpuvet bench/watch)"));
        } else {
            add(out, what, json_string(need), json_string(have), N_("ok"), _("full width and speed"));
        }
    }
}

/* Host RAM: the memory of the NUMA nodes that hold CPUs (GPU memory exposed as a CPU-less node on
 * Grace is not host RAM); NULL unless every such node's size is known. */
static json_t *host_ram(const struct machine *m)
{
    bool known = m->nnodes > 0;
    double bytes = 0;
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        if (!n->cpus || hwloc_bitmap_iszero(n->cpus))
            continue;
        known = known && n->memory_known;
        bytes += n->memory_known ? (double)n->memory_bytes : 0;
    }
    return known ? json_integer((json_int_t)bytes) : NULL;
}

json_t *plan_check(const struct machine *m, json_t *requirements, const struct gpu_spec *gpu,
                   const struct gpu_table *table, int *shortfalls)
{
    json_t *out = json_array();
    *shortfalls = 0;
    check_gpus(out, m, requirements, gpu, table, shortfalls);
    check_links(out, m, gpu, shortfalls);
    check_count(out, N_("CPU cores"), requirement(requirements, "cpu_cores_per_node"),
                m->cpu.cores > 0 ? json_integer(m->cpu.cores) : NULL, _("the audit could not count physical cores"),
                _("physical cores (threads do not decode twice as fast)"), shortfalls);
    check_count(out, N_("host RAM"), requirement(requirements, "host_ram_bytes_per_node"), host_ram(m),
                _("the audit has no memory size for every NUMA node"), _("memory of the NUMA nodes that hold CPUs"),
                shortfalls);
    check_network(out, m, requirements, shortfalls);
    check_storage(out, m, requirements, shortfalls);
    return out;
}
