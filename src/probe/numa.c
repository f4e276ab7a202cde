/* NUMA nodes from /sys/devices/system/node, read directly so that every value names its file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"

#define NODE_DIR "/sys/devices/system/node"
#define MAX_NODES 1024

static void read_node(struct machine *m, struct numa_node *n)
{
    char path[128];
    n->cpus = hwloc_bitmap_alloc();
    snprintf(path, sizeof path, NODE_DIR "/node%d/cpulist", n->id);
    char *text = fs_read(path);
    bool is_list = text != NULL;
    /* Older kernels list a node's CPUs only as the hex mask `cpumap` (no `cpulist`). */
    if (!text) {
        snprintf(path, sizeof path, NODE_DIR "/node%d/cpumap", n->id);
        text = fs_read(path);
    }
    if (!text) {
        char *why;
        /* TRANSLATORS: a NUMA node's number, then why its files are missing ("not in the recorded tree"). */
        i18n_asprintf(&why, "node%d has neither cpulist nor cpumap (%s): the node's CPUs are unknown", n->id,
                      _(probe_missing_reason()));
        if (why)
            machine_problem_reason(m, NODE_DIR, why);
        free(why);
    } else if (is_list ? !parse_cpulist(text, n->cpus) : !parse_cpumask(text, n->cpus))
        machine_problem(m, path, "is not a %s (\"%.40s\"): the node's CPUs are unknown", is_list ? "cpulist" : "cpumask",
                        text);
    free(text);

    snprintf(path, sizeof path, NODE_DIR "/node%d/meminfo", n->id);
    text = fs_read(path);
    if (!text)
        machine_problem_missing(m, path, probe_missing_reason(), N_("the node's memory is unknown"));
    else if (!(n->memory_known = parse_meminfo_bytes(text, "MemTotal", &n->memory_bytes)))
        machine_problem(m, path, "has no readable MemTotal line: the node's memory is unknown");
    free(text);
}

static void read_distances(struct machine *m, struct numa_node *n)
{
    char path[128];
    snprintf(path, sizeof path, NODE_DIR "/node%d/distance", n->id);
    char *text = fs_read(path);
    if (!text)
        return;
    int row[MAX_NODES];
    int count = parse_int_row(text, row, MAX_NODES);
    if (count != m->nnodes) {
        machine_problem(m, path, "holds %d distances for %d nodes: distances unknown", count, m->nnodes);
    } else {
        n->distances = malloc((size_t)count * sizeof *n->distances);
        if (n->distances)
            memcpy(n->distances, row, (size_t)count * sizeof *row);
    }
    free(text);
}

void probe_numa(struct machine *m)
{
    char **names;
    int count = fs_list(NODE_DIR, &names);
    if (count < 0) {
        machine_problem_missing(m, NODE_DIR, probe_missing_reason(), N_("NUMA layout unknown"));
        return;
    }
    m->nodes = calloc((size_t)count + 1, sizeof *m->nodes);
    for (int i = 0; m->nodes && i < count; i++) {
        char *end;
        if (strncmp(names[i], "node", 4) != 0)
            continue;
        long id = strtol(names[i] + 4, &end, 10);
        if (end == names[i] + 4 || *end || id < 0 || id >= MAX_NODES)
            continue;
        struct numa_node *n = &m->nodes[m->nnodes++];
        n->id = (int)id;
        read_node(m, n);
    }
    fs_list_free(names, count);
    /* fs_list sorts by name (node10 before node2): keep nodes in id order. */
    for (int i = 1; i < m->nnodes; i++)
        for (int j = i; j > 0 && m->nodes[j - 1].id > m->nodes[j].id; j--) {
            struct numa_node t = m->nodes[j];
            m->nodes[j] = m->nodes[j - 1];
            m->nodes[j - 1] = t;
        }
    for (int i = 0; i < m->nnodes; i++)
        read_distances(m, &m->nodes[i]);
}
