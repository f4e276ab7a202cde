#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/parse.h"
#include "util/datadir.h"
#include "util/jsonval.h"
#include "util/output.h"
#include "util/sanitize.h"

static json_t *positive_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }
static json_t *int_or_null(long v) { return v >= 0 ? json_integer(v) : json_null(); }

static json_t *cpulist_json(hwloc_const_bitmap_t set)
{
    char *s = format_cpulist(set);
    json_t *j = json_string(s ? s : "");
    free(s);
    return j;
}

static json_t *cpu_json(const struct cpu_info *c)
{
    json_t *flags = json_null();
    if (c->flags_known)
        flags = json_pack("{s:b, s:b, s:b}", "avx2", c->avx2, "avx512f", c->avx512f, "amx", c->amx);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "model", json_string_or_null(c->model),
                     "vendor", json_string_or_null(c->vendor), "arch", json_string_or_null(c->arch), "family", int_or_null(c->family),
                     "model_number", int_or_null(c->model_number), "sockets", int_or_null(c->sockets ? c->sockets : -1),
                     "cores", int_or_null(c->cores ? c->cores : -1), "threads", int_or_null(c->threads ? c->threads : -1),
                     "usable_threads", int_or_null(c->usable_threads ? c->usable_threads : -1), "usable_cpus",
                     json_string_or_null(c->usable_cpus), "base_mhz", positive_or_null(c->base_mhz), "max_mhz",
                     positive_or_null(c->max_mhz), "flags", flags);
}

static json_t *numa_json(const struct machine *m)
{
    json_t *arr = json_array();
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        json_t *dist = json_null();
        if (n->distances) {
            dist = json_array();
            for (int k = 0; k < m->nnodes; k++)
                json_array_append_new(dist, json_integer(n->distances[k]));
        }
        json_array_append_new(arr, json_pack("{s:i, s:o, s:o, s:o}", "id", n->id, "cpus", cpulist_json(n->cpus),
                                             "memory_bytes",
                                             n->memory_known ? json_integer((json_int_t)n->memory_bytes) : json_null(),
                                             "distances", dist));
    }
    return arr;
}

static json_t *link_json(const struct pci_link *l)
{
    if (!l->known)
        return json_null();
    return json_pack("{s:f, s:i, s:f, s:i, s:i, s:i}", "current_gt_s", l->cur_gt_s, "current_width", l->cur_width,
                     "max_gt_s", l->max_gt_s, "max_width", l->max_width, "current_gen",
                     pcie_generation(l->cur_gt_s), "max_gen", pcie_generation(l->max_gt_s));
}

static json_t *hex_id(unsigned v, int digits)
{
    char buf[16];
    snprintf(buf, sizeof buf, "0x%0*x", digits, v);
    return json_string(buf);
}

static json_t *pci_json(const struct pci_device *d)
{
    json_t *path = json_array();
    for (int k = 0; k < d->npath; k++)
        json_array_append_new(path, json_pack("{s:s, s:o, s:o}", "bus_id", d->path[k].bus_id, "class",
                                              hex_id(d->path[k].class_id, 6), "link", link_json(&d->path[k].link)));
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:b, s:o, s:o, s:o}", "bus_id", d->bus_id,
                     "role", pci_role_name(d->role), "class", hex_id(d->class_id, 6), "vendor_id",
                     d->vendor_id == PCI_ID_UNKNOWN ? json_null() : hex_id(d->vendor_id, 4), "device_id",
                     d->device_id == PCI_ID_UNKNOWN ? json_null() : hex_id(d->device_id, 4), "missing_files",
                     json_string_or_null(d->missing), "vendor",
                     json_string_or_null(d->vendor_name), "device", json_string_or_null(d->device_name), "driver",
                     json_string_or_null(d->driver), "numa_node", int_or_null(d->numa_node), "numa_node_raw",
                     d->numa_derived ? -1 : d->numa_node, "numa_node_derived", d->numa_derived, "local_cpus",
                     cpulist_json(d->local_cpus), "link", link_json(&d->link), "path", path);
}

static const struct pci_device *pci_by_bus_id(const struct machine *m, const char *bus_id)
{
    for (int i = 0; bus_id && i < m->npci; i++)
        if (!strcmp(m->pci[i].bus_id, bus_id))
            return &m->pci[i];
    return NULL;
}

/* The PCIe link of a disk's or NIC's PCI function, when the PCI probe listed it (NVMe, NICs). */
static json_t *pcie_link_of(const struct machine *m, const char *bus_id)
{
    const struct pci_device *d = pci_by_bus_id(m, bus_id);
    return d ? link_json(&d->link) : json_null();
}

static json_t *storage_json(const struct machine *m)
{
    json_t *arr = json_array();
    for (int i = 0; i < m->storage.ndevices; i++) {
        const struct block_device *d = &m->storage.devices[i];
        json_array_append_new(
            arr, json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:b, s:o, s:o, s:o, s:b, s:b}", "name", json_string_or_null(d->name), "vendor",
                           json_string_or_null(d->vendor), "model", json_string_or_null(d->model), "size_bytes",
                           d->size_bytes >= 0 ? json_integer(d->size_bytes) : json_null(), "transport",
                           storage_transport_name(d->transport), "rotational",
                           d->rotational < 0 ? json_null() : json_boolean(d->rotational), "removable", d->removable,
                           "pci_bus_id", json_string_or_null(d->pci_bus_id), "numa_node", int_or_null(d->numa_node),
                           "pcie_link", pcie_link_of(m, d->pci_bus_id), "holds_root", d->holds_root, "holds_data",
                           d->holds_data));
    }
    return arr;
}

static json_t *location_json(const struct storage_location *l)
{
    json_t *disks = json_array();
    for (int i = 0; i < l->ndisks; i++)
        json_array_append_new(disks, json_text(l->disks[i]));
    return json_pack("{s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o}", "path", json_text(l->path), "mountpoint",
                     json_string_or_null(l->mountpoint), "fstype", json_string_or_null(l->fstype), "source", json_string_or_null(l->source),
                     "network_fs", l->network_fs, "disks", disks, "free_bytes",
                     l->free_bytes >= 0 ? json_integer(l->free_bytes) : json_null(), "unknown_reason",
                     json_string_or_null(l->unknown_reason));
}

static json_t *storage_paths_json(const struct storage_info *s)
{
    return json_pack("{s:o, s:o}", "root", s->root.path ? location_json(&s->root) : json_null(), "data",
                     s->has_data ? location_json(&s->data) : json_null());
}

static json_t *network_json(const struct machine *m)
{
    json_t *arr = json_array();
    for (int i = 0; i < m->network.nports; i++) {
        const struct nic_port *p = &m->network.ports[i];
        json_t *rdma = json_null();
        if (p->has_rdma)
            rdma = json_pack("{s:o, s:i, s:o, s:o, s:o}", "device", json_string_or_null(p->rdma.device), "port", p->rdma.port, "state",
                             json_string_or_null(p->rdma.state), "rate_gbps", positive_or_null(p->rdma.rate_gbps),
                             "link_layer", json_string_or_null(p->rdma.link_layer));
        json_array_append_new(
            arr, json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o}", "name", json_string_or_null(p->name),
                           "pci_bus_id", json_string_or_null(p->pci_bus_id), "driver", json_string_or_null(p->driver), "state",
                           link_state_name(p->state), "speed_mbps",
                           p->speed_mbps > 0 ? json_integer(p->speed_mbps) : json_null(), "speed_source",
                           p->speed_mbps > 0 ? json_string(p->speed_from_rdma ? "rdma_rate" : "netdev") : json_null(),
                           "rdma", p->has_rdma, "rdma_port", rdma, "link_layer", json_string_or_null(p->link_layer),
                           "numa_node", int_or_null(p->numa_node), "pcie_link", pcie_link_of(m, p->pci_bus_id),
                           "unknown_reason", json_string_or_null(p->unknown_reason)));
    }
    return arr;
}

json_t *claims_to_json(const struct claim_set *set)
{
    json_t *arr = json_array();
    for (int i = 0; set && i < set->count; i++) {
        const struct claim *c = &set->items[i];
        json_array_append_new(arr, json_pack("{s:s, s:O, s:O, s:s, s:o}", "key", c->key, "claimed", c->claimed,
                                             "found", c->found, "verdict", claim_verdict_name(c->verdict), "message",
                                             json_string_or_null(c->message)));
    }
    return arr;
}

static json_t *kernel_json(const struct kernel_info *k)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "release", json_string_or_null(k->release),
                     "thp_enabled", json_string_or_null(k->thp_enabled), "thp_defrag", json_string_or_null(k->thp_defrag),
                     "swap_total_bytes", k->swap_total_bytes >= 0 ? json_integer(k->swap_total_bytes) : json_null(),
                     "mem_total_bytes", k->mem_total_bytes >= 0 ? json_integer(k->mem_total_bytes) : json_null(),
                     "swappiness", int_or_null(k->swappiness), "numa_balancing", int_or_null(k->numa_balancing),
                     "isolated_cpus", json_string_or_null(k->isolated_cpus), "nohz_full", json_string_or_null(k->nohz_full),
                     "cpufreq_governor", json_string_or_null(k->governor), "cmdline", json_string_or_null(k->cmdline));
}

static json_t *virt_json(const struct virt_info *v)
{
    if (!v->known)
        return json_pack("{s:n, s:n, s:b, s:o, s:o}", "vm", "hypervisor", "container", v->container,
                         "container_kind", json_string_or_null(v->container_kind), "evidence", json_string_or_null(v->evidence));
    return json_pack("{s:b, s:o, s:b, s:o, s:o}", "vm", v->vm, "hypervisor", json_string_or_null(v->hypervisor), "container",
                     v->container, "container_kind", json_string_or_null(v->container_kind), "evidence",
                     json_string_or_null(v->evidence));
}

json_t *machine_to_json(const struct machine *m)
{
    json_t *accel = json_array(), *nics = json_array(), *nvme = json_array(), *problems = json_array();
    for (int i = 0; i < m->npci; i++) {
        json_t *arr = m->pci[i].role == PCI_ROLE_ACCELERATOR ? accel : m->pci[i].role == PCI_ROLE_NIC ? nics : nvme;
        json_array_append_new(arr, pci_json(&m->pci[i]));
    }
    for (int i = 0; i < m->nproblems; i++)
        json_array_append_new(problems, json_pack("{s:o, s:o}", "path", json_string_or_null(m->problems[i].path), "message",
                                                  json_text(m->problems[i].message)));
    /* One key per line: each part of the model adds its own. */
    json_t *o = json_object();
    json_object_set_new(o, "source", json_string_or_null(m->source));
    json_object_set_new(o, "hostname", json_string_or_null(m->hostname));
    json_object_set_new(o, "cpu", cpu_json(&m->cpu));
    json_object_set_new(json_object_get(o, "cpu"), "steal_ratio",
                        m->contention.steal_ratio >= 0 ? json_real(m->contention.steal_ratio) : json_null());
    json_object_set_new(o, "numa_nodes", numa_json(m));
    json_object_set_new(o, "accelerators", accel);
    json_object_set_new(o, "nics", nics);
    json_object_set_new(o, "nvme", nvme);
    json_object_set_new(o, "storage", storage_json(m));
    json_object_set_new(o, "storage_paths", storage_paths_json(&m->storage));
    json_object_set_new(o, "network", network_json(m));
    /* Which lists the probes could read: an empty list is "none" only where this says true. */
    json_object_set_new(o, "listed", json_pack("{s:b, s:b, s:b}", "pci", m->pci_scanned, "storage", m->storage.listed,
                                               "network", m->network.listed));
    json_object_set_new(o, "kernel", kernel_json(&m->kernel));
    json_object_set_new(o, "virtualization", virt_json(&m->virt));
    json_object_set_new(o, "bench", bench_results_json(&m->bench));
    json_object_set_new(o, "gpus", gpus_to_json(m));
    json_object_set_new(o, "nvidia", nvidia_to_json(m));

    json_object_set_new(o, "memory", memory_json(&m->memory));
    json_object_set_new(o, "power", power_json(&m->power));
    json_object_set_new(o, "contention", contention_json(&m->contention));
    json_object_set_new(o, "problems", problems);
    return o;
}

json_t *findings_to_json(const struct findings *f)
{
    json_t *arr = json_array();
    for (int i = 0; i < f->count; i++) {
        const struct finding *it = &f->items[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o, s:o, s:O, s:o}", "id", it->rule->id, "area",
                                             it->rule->area, "severity", severity_name(it->severity), "subject",
                                             json_string_or_null(it->subject), "message",
                                             json_string_or_null(it->message), "evidence", it->evidence, "fix",
                                             json_string_or_null(it->fix)));
    }
    return arr;
}

/* coverage: what the verdict rests on (docs/audit-json.md). */
static json_t *coverage_json(const struct workload_verdict *v)
{
    json_t *unknown = json_array();
    for (int i = 0; i < v->ngaps; i++) {
        const struct coverage_gap *g = &v->gaps[i];
        json_array_append_new(unknown, json_pack("{s:s, s:s?, s:i, s:b, s:b}", "fact", g->fact, "reason", g->reason,
                                                 "checks", g->checks, "key", g->key, "outside_evidence",
                                                 g->outside_evidence));
    }
    return json_pack("{s:i, s:i, s:i, s:o}", "checked", v->checked, "applicable", v->applicable,
                     "outside_evidence", v->outside_evidence, "unknown", unknown);
}

/* Which copy of each data table the audit read: built-in, installed, --data or GPUVET_DATA_DIR. */
static json_t *data_tables_json(void)
{
    int n;
    const struct data_table_use *used = data_tables_used(&n);
    json_t *tables = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(tables, json_pack("{s:s, s:s, s:o}", "file", used[i].name, "source",
                                                data_origin_name(used[i].origin), "path",
                                                *used[i].path ? json_string(used[i].path) : json_null()));
    return tables;
}

int report_json(FILE *out, const struct audit_report *r)
{
    json_t *counts = json_object();
    for (enum severity s = SEV_PASS; s <= SEV_FAIL; s++)
        json_object_set_new(counts, severity_name(s), json_integer(findings_count(r->findings, s)));
    const struct workload_verdict *selected = &r->verdicts->verdicts[r->workload];
    json_t *workloads = json_array();
    for (int w = 0; w < WORKLOAD_COUNT; w++) {
        const struct workload_verdict *v = &r->verdicts->verdicts[w];
        json_array_append_new(workloads, json_pack("{s:s, s:s, s:i, s:i, s:o}", "workload",
                                                   workload_name((enum workload)w), "verdict", verdict_name(v->verdict),
                                                   "fail", v->fails, "warn", v->warns, "coverage", coverage_json(v)));
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:{s:s, s:o, s:o, s:o}}", "schema", AUDIT_SCHEMA,
                             "gpuvet_version", GPUVET_VERSION, "workload", workload_name(r->workload), "machine",
                             machine_to_json(r->machine), "claims", claims_to_json(r->claims), "findings",
                             findings_to_json(r->findings), "summary", "verdict", verdict_name(selected->verdict),
                             "counts", counts, "coverage", coverage_json(selected), "workloads", workloads);
    if (!root)
        return -1;
    json_object_set_new(root, "data_tables", data_tables_json());
    if (r->claims && r->claims->listing) {
        /* --expect: the listing as given and the words that made no claim; its claims are in "claims". */
        json_t *differing = json_array();
        for (int i = 0; i < r->claims->count; i++)
            if (r->claims->items[i].verdict != CLAIM_PASS)
                json_array_append_new(differing, json_string(r->claims->items[i].key));
        json_object_set_new(root, "listing",
                            json_pack("{s:s, s:O, s:o}", "text", r->claims->listing, "unparsed", r->claims->unparsed,
                                      "differing", differing));
    }
    if (r->finished > 0) {
        /* RFC 3339 UTC: gpuvet fleet keeps the newest audit of a host by it. */
        char when[32];
        struct tm tm;
        if (gmtime_r(&r->finished, &tm) && strftime(when, sizeof when, UTC_TIME_FORMAT, &tm))
            json_object_set_new(root, "generated_at", json_string(when));
    }
    if (r->redact)
        report_redact(root);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    fputc('\n', out);
    json_decref(root);
    return rc;
}
