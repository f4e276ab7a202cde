#include "sizing/check.h"

#include <stdio.h>
#include <string.h>

static void add(json_t *out, const char *what, json_t *need, json_t *have, const char *status, const char *why)
{
    json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:s, s:s}", "what", what, "need", need ? need : json_null(),
                                         "have", have ? have : json_null(), "status", status, "why", why));
}

static const char *string_or_empty(json_t *v) { return json_is_string(v) ? json_string_value(v) : ""; }

static json_t *requirement(json_t *requirements, const char *key)
{
    json_t *v = json_object_get(json_object_get(requirements, key), "value");
    return json_is_number(v) ? v : NULL;
}

static void check_count(json_t *out, const char *what, json_t *need, json_t *have, const char *unknown_why,
                        const char *why, int *shortfalls)
{
    if (!need)
        return;
    if (!json_is_number(have)) {
        add(out, what, json_incref(need), NULL, "unknown", unknown_why);
        return;
    }
    bool ok = json_number_value(have) >= json_number_value(need);
    *shortfalls += !ok;
    add(out, what, json_incref(need), json_incref(have), ok ? "ok" : "short", why);
}

/* The fastest NIC whose link is up (machine.network[], Mb/s) against the plan's Gb/s; RDMA when the
 * plan asks for it. */
static void check_network(json_t *out, json_t *machine, json_t *requirements, int *shortfalls)
{
    json_t *need = requirement(requirements, "network_gbit_s");
    json_t *ports = json_object_get(machine, "network");
    if (!need)
        return;
    if (!json_is_array(ports)) {
        add(out, "network", json_incref(need), NULL, "unknown", "the audit lists no network ports");
        return;
    }
    double fastest = 0;
    bool rdma = false;
    size_t i;
    json_t *p;
    json_array_foreach (ports, i, p) {
        if (strcmp(string_or_empty(json_object_get(p, "state")), "up") != 0)
            continue;
        double gbit = json_number_value(json_object_get(p, "speed_mbps")) / 1000.0;
        if (gbit > fastest)
            fastest = gbit;
        rdma = rdma || json_is_true(json_object_get(p, "rdma"));
    }
    json_t *have = fastest > 0 ? json_real(fastest) : NULL;
    check_count(out, "network", need, have, "no port with its link up and a known speed",
                "Gb/s of the fastest port whose link is up", shortfalls);
    json_decref(have);
    if (json_is_true(json_object_get(json_object_get(requirements, "rdma"), "value"))) {
        *shortfalls += !rdma;
        add(out, "RDMA", json_true(), json_boolean(rdma), rdma ? "ok" : "short",
            "an InfiniBand or RoCE port whose link is up");
    }
}

/* NVMe capacity (machine.storage[]) against the plan's ZeRO-Infinity space; read speed needs a
 * measurement (`gpuvet bench storage`), which an audit does not hold. */
static void check_storage(json_t *out, json_t *machine, json_t *requirements, int *shortfalls)
{
    json_t *need = requirement(requirements, "nvme_bytes_per_node");
    json_t *disks = json_object_get(machine, "storage");
    if (need) {
        json_t *have = NULL;
        if (json_is_array(disks)) {
            double bytes = 0;
            size_t i;
            json_t *d;
            json_array_foreach (disks, i, d)
                if (!strcmp(string_or_empty(json_object_get(d, "transport")), "nvme"))
                    bytes += json_number_value(json_object_get(d, "size_bytes"));
            have = json_integer((json_int_t)bytes);
        }
        check_count(out, "NVMe space", need, have, "the audit lists no disks", "capacity of the NVMe drives",
                    shortfalls);
        json_decref(have);
    }
    if (requirement(requirements, "storage_read_bytes_s"))
        add(out, "storage read rate", json_incref(requirement(requirements, "storage_read_bytes_s")), NULL, "unknown",
            "a read rate is measured, not audited: gpuvet bench storage --dir DATA_DIR");
}

static void check_gpus(json_t *out, json_t *machine, json_t *requirements, const struct gpu_spec *gpu,
                       const struct gpu_table *table, int *shortfalls)
{
    json_t *accelerators = json_object_get(machine, "accelerators"), *gpus = json_object_get(machine, "gpus");
    json_t *need = requirement(requirements, "gpus_per_node");
    json_t *count = json_is_array(gpus)           ? json_integer((json_int_t)json_array_size(gpus))
                    : json_is_array(accelerators) ? json_integer((json_int_t)json_array_size(accelerators))
                                                  : NULL;
    check_count(out, "GPUs", need, count, "the audit lists no accelerators",
                json_is_array(gpus) ? "GPUs the driver reports" : "PCI accelerators (any vendor or model)", shortfalls);
    json_decref(count);
    if (!gpu)
        return;
    if (!json_is_array(gpus) || json_array_size(gpus) == 0) {
        add(out, "GPU model", json_string(gpu->id), NULL, "unknown",
            "the audit has no GPU model or memory (no NVIDIA driver data in it)");
        return;
    }
    size_t i;
    json_t *g;
    json_array_foreach (gpus, i, g) {
        const char *name = json_string_value(json_object_get(g, "name"));
        json_t *mem = json_object_get(g, "memory_bytes");
        char what[64], why[512], err[512];
        snprintf(what, sizeof what, "GPU %zu", i);
        const struct gpu_spec *found = name ? gpu_lookup(table, name, NULL, 0, err, sizeof err) : NULL;
        if (found == gpu) {
            add(out, what, json_string(gpu->id), json_string(name), "ok", "the planned model");
        } else if (json_is_number(mem)) {
            bool ok = json_number_value(mem) >= gpu->memory_gb * 1e9 * 0.97; /* drivers report a little less */
            *shortfalls += !ok;
            snprintf(why, sizeof why, "%s is not %s; judged by its memory (%.0f GB, the plan needs %g GB)",
                     name ? name : "a GPU", gpu->id, json_number_value(mem) / 1e9, gpu->memory_gb);
            add(out, what, json_string(gpu->id), json_string(name ? name : "?"), ok ? "ok" : "short", why);
        } else {
            add(out, what, json_string(gpu->id), json_string(name ? name : "?"), "unknown",
                "a different or unknown model and no memory size in the audit");
        }
    }
}

static void check_links(json_t *out, json_t *machine, const struct gpu_spec *gpu, int *shortfalls)
{
    size_t i;
    json_t *a;
    json_array_foreach (json_object_get(machine, "accelerators"), i, a) {
        const char *bus = json_string_value(json_object_get(a, "bus_id"));
        json_t *link = json_object_get(a, "link");
        char what[96], need[32], have[64], why[256];
        snprintf(what, sizeof what, "PCIe link %s", bus ? bus : "?");
        if (!json_is_object(link)) {
            add(out, what, NULL, NULL, "unknown", "the kernel exposes no link attributes for it");
            continue;
        }
        long cur_w = (long)json_integer_value(json_object_get(link, "current_width"));
        long max_w = (long)json_integer_value(json_object_get(link, "max_width"));
        long cur_gen = (long)json_integer_value(json_object_get(link, "current_gen"));
        long max_gen = (long)json_integer_value(json_object_get(link, "max_gen"));
        /* path[0] is the port the device hangs off: its maximum is the slot's. */
        json_t *port_link = json_object_get(json_array_get(json_object_get(a, "path"), 0), "link");
        long slot_gen = (long)json_integer_value(json_object_get(port_link, "max_gen"));
        snprintf(need, sizeof need, "x%ld", max_w);
        snprintf(have, sizeof have, "Gen%ld x%ld (max Gen%ld x%ld)", cur_gen, cur_w, max_gen, max_w);
        if (cur_w < max_w) {
            (*shortfalls)++;
            add(out, what, json_string(need), json_string(have), "short",
                "negotiated narrower than the device supports: host-GPU bandwidth is cut");
        } else if (gpu && gpu->pcie_gen > 0 && slot_gen > 0 && slot_gen < gpu->pcie_gen) {
            snprintf(why, sizeof why, "the planned %s is a PCIe Gen%g part; the port above this one tops out at Gen%ld",
                     gpu->id, gpu->pcie_gen, slot_gen);
            add(out, what, json_string(need), json_string(have), "note", why);
        } else if (gpu && gpu->pcie_gen > 0 && max_gen > 0 && max_gen < gpu->pcie_gen) {
            snprintf(why, sizeof why, "the device here is a PCIe Gen%ld part; the planned %s is Gen%g", max_gen,
                     gpu->id, gpu->pcie_gen);
            add(out, what, json_string(need), json_string(have), "note", why);
        } else if (cur_gen < max_gen) {
            add(out, what, json_string(need), json_string(have), "note",
                "lower speed than its maximum: idle GPUs downtrain; re-read under load (gpuvet bench/watch)");
        } else {
            add(out, what, json_string(need), json_string(have), "ok", "full width and speed");
        }
    }
}

json_t *plan_check(json_t *machine, json_t *requirements, const struct gpu_spec *gpu, const struct gpu_table *table,
                   int *shortfalls)
{
    json_t *out = json_array();
    *shortfalls = 0;
    check_gpus(out, machine, requirements, gpu, table, shortfalls);
    check_links(out, machine, gpu, shortfalls);
    json_t *cpu = json_object_get(machine, "cpu");
    check_count(out, "CPU cores", requirement(requirements, "cpu_cores_per_node"), json_object_get(cpu, "cores"),
                "the audit could not count physical cores", "physical cores (threads do not decode twice as fast)",
                shortfalls);
    json_t *nodes = json_object_get(machine, "numa_nodes");
    /* Memory-only nodes (GPU memory exposed as a NUMA node on Grace) hold no CPUs: not host RAM. */
    json_t *ram = NULL;
    double host_bytes = 0;
    bool known = json_is_array(nodes) && json_array_size(nodes) > 0;
    size_t i;
    json_t *n;
    json_array_foreach (nodes, i, n) {
        if (json_string_length(json_object_get(n, "cpus")) == 0)
            continue;
        json_t *b = json_object_get(n, "memory_bytes");
        known = known && json_is_number(b);
        host_bytes += json_number_value(b);
    }
    if (known)
        ram = json_integer((json_int_t)host_bytes);
    check_count(out, "host RAM", requirement(requirements, "host_ram_bytes_per_node"), ram,
                "the audit has no memory size for every NUMA node", "memory of the NUMA nodes that hold CPUs",
                shortfalls);
    json_decref(ram);
    check_network(out, machine, requirements, shortfalls);
    check_storage(out, machine, requirements, shortfalls);
    return out;
}
