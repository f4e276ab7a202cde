/* Recorded machines unlike the ones the rules were first written on: a KVM guest with QEMU's
 * emulated VGA, an old POWER9 tree whose GPUs lack vendor/device files, an old kernel with NUMA
 * CPUs only in `cpumap`, and a tree where hwloc silently drops a conflicting socket. Each test
 * runs the built binary on hwloc's recorded tree (tests/fixtures/README.md) and checks its JSON. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static json_t *audit_tree(const char *rel, struct run_result *out)
{
    struct run_result r = run_gpuvet("audit", "--json", "--sample", "0", "--sysroot", fixture(rel), NULL);
    cr_assert(r.status == 0 || r.status == 1, "exit %d on %s; stderr: %s", r.status, rel, r.err);
    json_t *doc = run_json(&r);
    if (out)
        *out = r;
    else
        run_result_free(&r);
    return doc;
}

static json_t *machine(json_t *doc) { return json_object_get(doc, "machine"); }

/* The problem whose path contains `path_part`, or NULL. */
static const char *problem_about(json_t *doc, const char *path_part)
{
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(machine(doc), "problems"), i, p)
    {
        const char *path = json_string_value(json_object_get(p, "path"));
        if (path && strstr(path, path_part))
            return json_string_value(json_object_get(p, "message"));
    }
    return NULL;
}

/* A CloudStack KVM guest: its only display function is QEMU's Cirrus GD 5446 (1013:00b8), which
 * computes nothing and is no accelerator. */
Test(recorded_variants, emulated_vga_in_a_vm_is_no_accelerator)
{
    struct run_result r;
    json_t *doc = audit_tree("sysroot/2pa-pcidomain32bits", &r);
    json_t *m = machine(doc);
    cr_assert(json_is_true(json_object_get(json_object_get(m, "virtualization"), "vm")));
    cr_assert_eq(json_array_size(json_object_get(m, "accelerators")), 0, "%s",
                 json_dumps(json_object_get(m, "accelerators"), JSON_COMPACT));
    json_decref(doc);
    run_result_free(&r);
    r = run_gpuvet("audit", "--sample", "0", "--sysroot", fixture("sysroot/2pa-pcidomain32bits"), NULL);
    cr_assert(strstr(r.out, "accelerators: 0"), "%s", r.out);
    run_result_free(&r);
}

/* POWER9 with six V100s, recorded with only `class` (0x030000) and `local_cpus` per function: six
 * accelerators of unknown vendor on the nodes their local CPUs belong to, each saying which files
 * are missing; not "accelerators: 0". */
Test(recorded_variants, gpus_without_vendor_files_are_accelerators_of_unknown_vendor)
{
    json_t *doc = audit_tree("sysroot/nvidiagpunumanodes", NULL);
    json_t *acc = json_object_get(machine(doc), "accelerators");
    cr_assert_eq(json_array_size(acc), 6);
    const char *bus[] = {"0004:05:00.0", "0004:06:00.0", "0006:00:00.0", "0007:00:00.0", "0035:04:00.0", "0035:05:00.0"};
    const int node[] = {0, 0, 0, 8, 8, 8};
    for (size_t i = 0; i < 6; i++) {
        json_t *d = json_array_get(acc, i);
        cr_assert_str_eq(json_string_value(json_object_get(d, "bus_id")), bus[i]);
        cr_assert_str_eq(json_string_value(json_object_get(d, "class")), "0x030000");
        cr_assert(json_is_null(json_object_get(d, "vendor_id")), "%s: vendor unknown, not 0x0000", bus[i]);
        cr_assert(json_is_null(json_object_get(d, "device_id")));
        cr_assert(json_is_null(json_object_get(d, "vendor")), "no pci.ids name for an unknown vendor");
        cr_assert_str_eq(json_string_value(json_object_get(d, "missing_files")), "vendor, device");
        cr_assert_eq(json_integer_value(json_object_get(d, "numa_node")), node[i], "%s", bus[i]);
        cr_assert(json_is_true(json_object_get(d, "numa_node_derived")), "no numa_node file: from local CPUs");
        const char *why = problem_about(doc, bus[i]);
        cr_assert(why && strstr(why, "vendor, device") && strstr(why, "unknown vendor"), "%s: %s", bus[i], why);
    }
    json_decref(doc);
}

/* IBM x3950 M2 (four chassis as one NUMA machine) on an old kernel: node CPUs only as hex masks. */
Test(recorded_variants, numa_cpus_from_cpumap_when_there_is_no_cpulist)
{
    json_t *doc = audit_tree("sysroot/96em64t-4n4d3ca2co", NULL);
    json_t *nodes = json_object_get(machine(doc), "numa_nodes");
    cr_assert_eq(json_array_size(nodes), 4);
    const char *cpus[] = {"0-23", "24-47", "48-71", "72-95"};
    for (size_t i = 0; i < 4; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, i), "cpus")), cpus[i]);
    cr_assert_null(problem_about(doc, "cpulist"), "cpumap is enough: %s", problem_about(doc, "cpulist"));
    cr_assert_null(problem_about(doc, "cpumap"));
    json_decref(doc);
}

/* hwloc's own test tree with a 4th socket whose CPU set conflicts: hwloc drops it silently (its
 * errors are hidden) and counts 3 packages; the kernel names 4. The count is unknown, with both. */
Test(recorded_variants, hwloc_socket_count_against_physical_package_id)
{
    json_t *doc = audit_tree("sysroot/40intel64-4n10c+pci-conflicts", NULL);
    json_t *cpu = json_object_get(machine(doc), "cpu");
    cr_assert(json_is_null(json_object_get(cpu, "sockets")), "hwloc's 3 is not a fact: %s",
              json_dumps(cpu, JSON_COMPACT));
    const char *why = problem_about(doc, "physical_package_id");
    cr_assert(why && strstr(why, "4 packages") && strstr(why, "hwloc counts 3"), "%s", why);
    json_decref(doc);
    /* Where both agree, the count stands and nothing is said. */
    doc = audit_tree("sysroot/32intel64-2p8co2t+8ve", NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(machine(doc), "cpu"), "sockets")), 2);
    cr_assert_null(problem_about(doc, "physical_package_id"));
    json_decref(doc);
}
