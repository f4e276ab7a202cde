/* hwloc gives the CPU topology: packages, cores, threads, what this process may use, and the
 * CPU model and clocks it read from cpuinfo/cpufreq. PCI is walked in probe/pci.c instead,
 * because hwloc only knows the current link (research/inventory.md §1.2). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"

/* A snapshot stores hwloc's own export beside the files gpuvet read. */
#define SNAPSHOT_TOPOLOGY_XML "/gpuvet-hwloc.xml"

/* hwloc's export in a snapshot is at most a few MB even for a large machine. */
#define SNAPSHOT_TOPOLOGY_LIMIT (64u << 20)

/* *xml_buffer, when set, must live until the topology is loaded. */
static bool configure_source(struct machine *m, hwloc_topology_t topo, char **xml_buffer)
{
    /* PCI is ours; OpenCL/GL would initialise GPU drivers just to name devices. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "opencl");
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
    if (fsroot_is_live()) {
        unsetenv("HWLOC_FSROOT");
        return true;
    }
    /* Read by us (inside the root, bounded) and handed over as a buffer: hwloc would follow a link. */
    size_t len = 0;
    char *xml = (char *)fs_read_bin(SNAPSHOT_TOPOLOGY_XML, SNAPSHOT_TOPOLOGY_LIMIT, &len);
    if (xml) {
        xml[len] = '\0'; /* hwloc's size counts the final NUL, as its own export does */
        *xml_buffer = xml;
        return len < INT_MAX && hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) == 0;
    }
    if (fs_last_failure()) {
        machine_problem_reason(m, SNAPSHOT_TOPOLOGY_XML, fs_last_failure());
        return false;
    }
    /* hwloc opens the tree's files with openat() and follows their links: a link that leaves the
     * tree would make it describe this host. Such a tree (or one with a FIFO) is not handed over. */
    static const char *const hwloc_reads[] = {"/sys", "/proc"};
    for (size_t i = 0; i < sizeof hwloc_reads / sizeof *hwloc_reads; i++) {
        char why[PATH_MAX + 128];
        if (!fs_tree_is_closed(hwloc_reads[i], why, sizeof why)) {
            char *said;
            /* TRANSLATORS: %s says what in the recorded tree stops hwloc ("sys/x links outside the tree"). */
            i18n_asprintf(&said, "%s: hwloc is not given this tree (it follows links and blocks on FIFOs), "
                                 "CPU topology unknown", _(why));
            if (said)
                machine_problem_reason(m, fsroot_get(), said);
            free(said);
            return false;
        }
    }
    /* Replaying a tree: the x86 backend would describe the host's CPU instead (inventory §1.4). */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    setenv("HWLOC_FSROOT", fsroot_get(), 1);
    return true;
}

static double cpukind_mhz(hwloc_topology_t topo, const char *key)
{
    double best = 0;
    int nr = hwloc_cpukinds_get_nr(topo, 0);
    for (int i = 0; i < nr; i++) {
        struct hwloc_info_s *infos;
        unsigned ninfos;
        if (hwloc_cpukinds_get_info(topo, (unsigned)i, NULL, NULL, &ninfos, &infos, 0) != 0)
            continue;
        for (unsigned k = 0; k < ninfos; k++)
            if (!strcmp(infos[k].name, key) && atof(infos[k].value) > best)
                best = atof(infos[k].value);
    }
    return best;
}

static char *package_info(hwloc_topology_t topo, const char *key)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *v = pkg ? hwloc_obj_get_info_by_name(pkg, key) : NULL;
    if (!v)
        v = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), key);
    if (!v || !*v)
        return NULL;
    /* CPUID brand strings are padded with spaces. */
    size_t n = strlen(v);
    while (n > 0 && v[n - 1] == ' ')
        n--;
    return strndup(v, n);
}

#define CPU_DIR "/sys/devices/system/cpu"

/* The online CPUs: CPU_DIR/online, or (older kernels) every cpuN whose own `online` is not 0. */
static hwloc_bitmap_t online_cpus(void)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char *text = fs_read(CPU_DIR "/online");
    if (text && parse_cpulist(text, set)) {
        free(text);
        return set;
    }
    free(text);
    hwloc_bitmap_zero(set);
    char **names;
    int count = fs_list(CPU_DIR, &names);
    for (int i = 0; i < count; i++) {
        char *end, path[128];
        long id = strncmp(names[i], "cpu", 3) ? -1 : strtol(names[i] + 3, &end, 10);
        if (id < 0 || end == names[i] + 3 || *end)
            continue;
        long online = 1;
        snprintf(path, sizeof path, CPU_DIR "/%s/online", names[i]);
        if (!fs_read_long(path, &online) || online != 0)
            hwloc_bitmap_set(set, (unsigned)id);
    }
    if (count >= 0)
        fs_list_free(names, count);
    return set;
}

/* Distinct physical_package_id values of the online CPUs; 0 when any is missing or -1 (s390,
 * some ppc64: the kernel does not know the package), so no count is claimed. */
static int sysfs_package_count(void)
{
    hwloc_bitmap_t online = online_cpus(), packages = hwloc_bitmap_alloc();
    int count = 0;
    unsigned cpu;
    hwloc_bitmap_foreach_begin(cpu, online)
    {
        char path[128];
        long id;
        snprintf(path, sizeof path, CPU_DIR "/cpu%u/topology/physical_package_id", cpu);
        if (!fs_read_long(path, &id) || id < 0 || id > 0x7fffffff) {
            count = -1;
            break;
        }
        hwloc_bitmap_set(packages, (unsigned)id);
    }
    hwloc_bitmap_foreach_end();
    if (count == 0)
        count = hwloc_bitmap_weight(packages);
    hwloc_bitmap_free(online);
    hwloc_bitmap_free(packages);
    return count > 0 ? count : 0;
}

/* hwloc drops objects whose CPU sets conflict and says so only on stderr, which
 * HWLOC_HIDE_ERRORS silences: a package it dropped would be a socket count reported as fact.
 * The kernel's own package ids decide whether hwloc's count can be trusted. */
static void cross_check_sockets(struct machine *m)
{
    int sysfs = sysfs_package_count();
    if (sysfs == 0 || m->cpu.sockets == 0 || sysfs == m->cpu.sockets)
        return;
    machine_problem(m, CPU_DIR "/cpu*/topology/physical_package_id",
                    "the online CPUs name %d packages where hwloc counts %d: the socket count is unknown", sysfs,
                    m->cpu.sockets);
    m->cpu.sockets = 0;
}

void probe_topology(struct machine *m)
{
    if (!getenv("HWLOC_HIDE_ERRORS"))
        setenv("HWLOC_HIDE_ERRORS", "2", 1);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    char *xml_buffer = NULL;
    bool loaded = configure_source(m, topo, &xml_buffer) && hwloc_topology_load(topo) == 0;
    free(xml_buffer);
    unsetenv("HWLOC_FSROOT");
    if (!loaded) {
        machine_problem(m, fsroot_get(), "hwloc could not load the CPU topology");
        hwloc_topology_destroy(topo);
        return;
    }
    m->topology = topo;

    struct cpu_info *c = &m->cpu;
    c->sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    cross_check_sockets(m);
    c->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    c->threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    hwloc_bitmap_t usable = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_and(usable, usable, hwloc_topology_get_complete_cpuset(topo));
    c->usable_threads = hwloc_bitmap_weight(usable);
    c->usable_cpus = format_cpulist(usable);
    hwloc_bitmap_free(usable);
    c->model = package_info(topo, "CPUModel");
    c->vendor = package_info(topo, "CPUVendor");
    char *fam = package_info(topo, "CPUFamilyNumber"), *mod = package_info(topo, "CPUModelNumber");
    if (fam)
        c->family = atoi(fam);
    if (mod)
        c->model_number = atoi(mod);
    free(fam);
    free(mod);
    c->arch = package_info(topo, "Architecture");
    c->max_mhz = cpukind_mhz(topo, "FrequencyMaxMHz");
    c->base_mhz = cpukind_mhz(topo, "FrequencyBaseMHz");
}
