/* probe/audit_json.c: a saved audit of a recorded machine, loaded back, holds the facts the probe
 * read from the same tree; a damaged document leaves facts unknown and never crashes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/audit_json.h"
#include "probe/probe.h"
#include "report/report.h"
#include "testutil.h"
#include "util/fsroot.h"

static char *write_temp(json_t *doc)
{
    char path[] = "/tmp/gpuvet-audit-json-XXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(json_dump_file(doc, path, 0), 0);
    return strdup(path);
}

static void probe_tree(const char *tree, struct machine *m)
{
    machine_init(m);
    fsroot_set(fixture(tree));
    cr_assert_eq(probe_machine(m, &(struct probe_request){.read_system = true}), 0);
    fsroot_set(NULL);
}

static void expect_same_links(const struct pci_link *a, const struct pci_link *b, const char *bus)
{
    cr_expect_eq(a->known, b->known, "%s", bus);
    cr_expect_float_eq(a->cur_gt_s, b->cur_gt_s, 1e-9, "%s", bus);
    cr_expect_float_eq(a->max_gt_s, b->max_gt_s, 1e-9, "%s", bus);
    cr_expect_eq(a->cur_width, b->cur_width, "%s", bus);
    cr_expect_eq(a->max_width, b->max_width, "%s", bus);
}

/* Each field plan --check judges, and the PCI paths, as the probe holds them. */
static void expect_same_machine(const struct machine *live, const struct machine *saved)
{
    cr_expect_eq(saved->cpu.cores, live->cpu.cores);
    cr_expect_eq(saved->cpu.threads, live->cpu.threads);
    cr_expect_eq(saved->cpu.sockets, live->cpu.sockets);
    cr_expect_eq(saved->pci_scanned, live->pci_scanned);
    cr_expect_eq(saved->storage.listed, live->storage.listed);
    cr_expect_eq(saved->network.listed, live->network.listed);
    cr_assert_eq(saved->nnodes, live->nnodes);
    for (int i = 0; i < live->nnodes; i++) {
        cr_expect_eq(saved->nodes[i].id, live->nodes[i].id);
        cr_expect(hwloc_bitmap_isequal(saved->nodes[i].cpus, live->nodes[i].cpus), "node %d cpus", i);
        cr_expect_eq(saved->nodes[i].memory_known, live->nodes[i].memory_known);
        cr_expect_eq(saved->nodes[i].memory_bytes, live->nodes[i].memory_bytes);
    }
    /* The audit writes accelerators, NICs and NVMe as three lists: compare each device by bus id. */
    cr_assert_eq(saved->npci, live->npci);
    for (int i = 0; i < live->npci; i++) {
        const struct pci_device *d = &live->pci[i], *s = NULL;
        for (int k = 0; k < saved->npci && !s; k++)
            if (!strcmp(saved->pci[k].bus_id, d->bus_id))
                s = &saved->pci[k];
        cr_assert_not_null(s, "%s not in the saved audit", d->bus_id);
        cr_expect_eq(s->role, d->role, "%s", d->bus_id);
        cr_expect_eq(s->class_id, d->class_id, "%s", d->bus_id);
        cr_expect_eq(s->vendor_id, d->vendor_id, "%s", d->bus_id);
        cr_expect_eq(s->numa_node, d->numa_node, "%s", d->bus_id);
        expect_same_links(&s->link, &d->link, d->bus_id);
        cr_assert_eq(s->npath, d->npath, "%s", d->bus_id);
        for (int k = 0; k < d->npath; k++)
            expect_same_links(&s->path[k].link, &d->path[k].link, d->path[k].bus_id);
    }
    cr_assert_eq(saved->storage.ndevices, live->storage.ndevices);
    for (int i = 0; i < live->storage.ndevices; i++) {
        cr_expect_eq(saved->storage.devices[i].size_bytes, live->storage.devices[i].size_bytes);
        cr_expect_eq(saved->storage.devices[i].transport, live->storage.devices[i].transport);
    }
    cr_assert_eq(saved->network.nports, live->network.nports);
    for (int i = 0; i < live->network.nports; i++) {
        cr_expect_eq(saved->network.ports[i].state, live->network.ports[i].state);
        cr_expect_eq(saved->network.ports[i].speed_mbps, live->network.ports[i].speed_mbps);
        cr_expect_eq(saved->network.ports[i].has_rdma, live->network.ports[i].has_rdma);
    }
    cr_expect_eq(saved->gpus.source != NULL, live->gpus.source != NULL);
    cr_assert_eq(saved->gpus.count, live->gpus.count);
    for (int i = 0; i < live->gpus.count; i++) {
        cr_expect_str_eq(saved->gpus.items[i].name, live->gpus.items[i].name);
        cr_expect_eq(saved->gpus.items[i].memory_total_bytes, live->gpus.items[i].memory_total_bytes);
    }
}

/* Trees with switches, an InfiniBand port and NVMe (32em64t), eight accelerators behind two
 * switches (32intel64), GPUs as NUMA nodes, an NVIDIA H200 VM with nvidia-smi evidence, and a tree
 * without PCI or block devices (16amd64: both lists unknown, not empty). */
Test(audit_json, saved_audit_holds_what_the_probe_read)
{
    static const char *const trees[] = {"sysroot/32em64t-2n8c+1mic", "sysroot/32intel64-2p8co2t+8ve",
                                        "sysroot/nvidiagpunumanodes", "sysroot/h200-firecracker-vm",
                                        "sysroot/16amd64-8n2c"};
    for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {
        char *path = saved_audit(trees[t]);
        struct machine live, saved;
        probe_tree(trees[t], &live);
        machine_init(&saved);
        char err[1024] = "";
        cr_assert_eq(audit_json_load(path, AUDIT_SCHEMA, &saved, err, sizeof err), 0, "%s: %s", trees[t], err);
        expect_same_machine(&live, &saved);
        if (!strcmp(trees[t], "sysroot/16amd64-8n2c"))
            cr_expect(!saved.pci_scanned && !saved.storage.listed, "the tree has no PCI or block devices");
        machine_free(&live);
        machine_free(&saved);
        unlink(path);
        free(path);
    }
}

/* Every field of the wrong type or out of range: unknown, never a crash or a wrapped value. */
Test(audit_json, damaged_fields_are_unknown)
{
    char *path = saved_audit("sysroot/32em64t-2n8c+1mic");
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr), *machine = json_object_get(doc, "machine");
    cr_assert_not_null(doc, "%s", jerr.text);
    json_object_set_new(json_object_get(machine, "cpu"), "cores", json_string("sixteen"));
    json_object_set_new(json_object_get(machine, "cpu"), "threads", json_integer(-32));
    json_t *node0 = json_array_get(json_object_get(machine, "numa_nodes"), 0);
    json_object_set_new(node0, "memory_bytes", json_real(1e300));
    json_object_set_new(node0, "cpus", json_string("0-99999999999"));
    json_object_set_new(node0, "distances", json_string("near"));
    json_t *acc0 = json_array_get(json_object_get(machine, "accelerators"), 0);
    json_object_set_new(acc0, "link", json_integer(7));
    json_object_set_new(acc0, "bus_id", json_string("0000:00:00.0 and far too long for any bus id"));
    json_object_set_new(acc0, "path", json_pack("[i, {s:s}]", 3, "link", "x16"));
    json_object_set_new(json_array_get(json_object_get(machine, "network"), 0), "speed_mbps", json_real(-1e308));
    json_object_set_new(json_array_get(json_object_get(machine, "storage"), 0), "transport", json_integer(1));
    json_object_set_new(machine, "gpus", json_pack("[s, {s:i, s:s}]", "A100", "name", 3, "memory_bytes", "80GB"));
    json_object_set_new(machine, "nvidia", json_pack("{s:s}", "cuda_version", "twelve"));
    char *damaged = write_temp(doc);
    json_decref(doc);

    struct machine m;
    machine_init(&m);
    char err[1024] = "";
    cr_assert_eq(audit_json_load(damaged, AUDIT_SCHEMA, &m, err, sizeof err), 0, "%s", err);
    cr_expect_eq(m.cpu.cores, 0, "a string is no core count");
    cr_expect_eq(m.cpu.threads, 0);
    cr_expect_not(m.nodes[0].memory_known, "1e300 is no integer");
    cr_expect(hwloc_bitmap_iszero(m.nodes[0].cpus), "a cpulist past 2^20 CPUs is refused");
    cr_expect_null(m.nodes[0].distances);
    cr_expect_not(m.pci[0].link.known);
    cr_expect_str_eq(m.pci[0].bus_id, "");
    cr_expect_eq(m.pci[0].npath, 2);
    cr_expect_not(m.pci[0].path[0].link.known);
    cr_expect_eq(m.network.ports[0].speed_mbps, -1);
    cr_expect_eq(m.storage.devices[0].transport, TRANSPORT_UNKNOWN);
    cr_assert_eq(m.gpus.count, 2);
    cr_expect_null(m.gpus.items[0].name);
    cr_expect_eq(m.gpus.items[1].memory_total_bytes, -1);
    cr_expect_eq(m.gpus.cuda_major, -1);
    machine_free(&m);
    unlink(damaged);
    free(damaged);
    unlink(path);
    free(path);
}

/* Not an audit, not JSON, not a file: an error that names the file. */
Test(audit_json, bad_documents_are_named)
{
    struct machine m;
    char err[1024];
    const char *cases[][2] = {
        {GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.json", "not a gpuvet.audit/1 document"},
        {GPUVET_TEST_SOURCE "/fixtures/plan/offers-seed.csv", "not valid JSON"},
        {"/nonexistent/audit.json", "/nonexistent/audit.json: "},
        {"/dev/zero", "/dev/zero: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        machine_init(&m);
        err[0] = '\0';
        cr_expect_eq(audit_json_load(cases[i][0], AUDIT_SCHEMA, &m, err, sizeof err), -1, "%s", cases[i][0]);
        cr_expect(strstr(err, cases[i][1]) && strstr(err, cases[i][0]), "%s: %s", cases[i][0], err);
        machine_free(&m);
    }
}

/* More GPUs than a node holds: capped, with a problem that says so. */
Test(audit_json, long_lists_are_capped)
{
    json_t *gpus = json_array();
    for (int i = 0; i < 5000; i++)
        json_array_append_new(gpus, json_pack("{s:s, s:I}", "name", "NVIDIA H100 80GB HBM3", "memory_bytes",
                                              (json_int_t)85520809984));
    json_t *doc = json_pack("{s:s, s:{s:o, s:[]}}", "schema", AUDIT_SCHEMA, "machine", "gpus", gpus, "accelerators");
    char *path = write_temp(doc);
    json_decref(doc);
    struct machine m;
    machine_init(&m);
    char err[1024] = "";
    cr_assert_eq(audit_json_load(path, AUDIT_SCHEMA, &m, err, sizeof err), 0, "%s", err);
    cr_expect_eq(m.gpus.count, GPU_MAX_PER_NODE);
    cr_assert_eq(m.nproblems, 1);
    cr_expect(strstr(m.problems[0].message, "5000 GPUs"), "%s", m.problems[0].message);
    cr_expect_eq(m.cpu.cores, 0, "no cpu object: unknown");
    cr_expect_eq(m.nnodes, 0);
    machine_free(&m);
    unlink(path);
    free(path);
}
