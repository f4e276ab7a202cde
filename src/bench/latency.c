/* NUMA latency matrix: a dependent-load chase through a random cyclic permutation of cache lines
 * (lmbench lat_mem_rd / Intel MLC's method), for every (CPU node, memory node) pair. Each load
 * depends on the previous one, so prefetchers and out-of-order execution cannot hide latency. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "util/i18n.h"

#define LINE 64
#define LLC_FACTOR 4
#define MIN_BUFFER (256ull << 20)

struct line {
    struct line *next;
    char pad[LINE - sizeof(struct line *)];
};

/* Sattolo's algorithm gives a single cycle through every line, so the chase visits all of them. */
static bool build_chase(struct line *lines, size_t count)
{
    uint32_t *order = malloc(count * sizeof *order);
    if (!order)
        return false;
    for (size_t i = 0; i < count; i++)
        order[i] = (uint32_t)i;
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = count - 1; i > 0; i--) {
        size_t j = bench_random(&state) % i;
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < count; i++)
        lines[order[i]].next = &lines[order[(i + 1) % count]];
    free(order);
    return true;
}

static double chase_ns(struct line *start, long loads)
{
    struct line *p = start;
    /* Warm the TLB and caches' tags along a part of the cycle first. */
    for (long i = 0; i < loads / 8; i++)
        p = p->next;
    double t0 = bench_now();
    for (long i = 0; i < loads; i++)
        p = p->next;
    double elapsed = bench_now() - t0;
    /* The final pointer must be used, or the compiler may drop the loop. */
    __asm__ volatile("" : : "r"(p));
    return elapsed * 1e9 / (double)loads;
}

static json_t *latency_run(const struct bench_ctx *ctx)
{
    const struct machine *m = ctx->machine;
    if (!m->topology || m->nnodes == 0)
        return bench_skipped("the NUMA layout or hwloc topology is unknown");
    char budget_why[160];
    uint64_t budget = bench_memory_budget(budget_why, sizeof budget_why);
    uint64_t llc_total, llc = bench_llc_bytes(m, &llc_total);
    (void)llc_total;
    uint64_t bytes = LLC_FACTOR * llc;
    if (bytes < MIN_BUFFER)
        bytes = MIN_BUFFER;
    bool capped = budget && bytes > budget;
    if (capped)
        bytes = budget;
    size_t count = bytes / LINE;
    if (count > UINT32_MAX)
        count = UINT32_MAX;
    bytes = count * LINE;
    long loads = ctx->opts->quick ? 2000000 : 10000000;

    int ncpu_nodes = 0;
    int *cpu_nodes = calloc((size_t)m->nnodes, sizeof *cpu_nodes);
    for (int i = 0; i < m->nnodes; i++)
        if (!hwloc_bitmap_iszero(m->nodes[i].cpus))
            cpu_nodes[ncpu_nodes++] = i;
    json_t *matrix = json_array(), *distances = json_array(), *cpu_ids = json_array(), *mem_ids = json_array();
    for (int c = 0; c < ncpu_nodes; c++)
        json_array_append_new(cpu_ids, json_integer(m->nodes[cpu_nodes[c]].id));
    for (int c = 0; c < ncpu_nodes; c++)
        json_array_append_new(matrix, json_array());
    bool error = false;
    for (int mem = 0; mem < m->nnodes && !error; mem++) {
        const struct numa_node *memory_node = &m->nodes[mem];
        json_array_append_new(mem_ids, json_integer(memory_node->id));
        hwloc_bitmap_t nodeset = hwloc_bitmap_alloc();
        hwloc_bitmap_only(nodeset, (unsigned)memory_node->id);
        struct line *lines = NULL;
        /* A node that holds too little memory for the buffer is measured with what fits. */
        size_t node_count = count;
        if (memory_node->memory_known && node_count * LINE > memory_node->memory_bytes / 2)
            node_count = memory_node->memory_bytes / 2 / LINE;
        if (node_count * LINE >= (16u << 20))
            lines = bench_alloc(m, node_count * LINE, nodeset);
        hwloc_bitmap_free(nodeset);
        if (lines) {
            if (!build_chase(lines, node_count))
                error = true;
        }
        for (int c = 0; c < ncpu_nodes; c++) {
            json_t *row = json_array_get(matrix, (size_t)c);
            if (!lines || error) {
                json_array_append_new(row, json_null());
                continue;
            }
            hwloc_bitmap_t pus = bench_core_pus(m, m->nodes[cpu_nodes[c]].cpus);
            int pu = hwloc_bitmap_first(pus);
            hwloc_bitmap_free(pus);
            if (pu < 0 || !bench_pin_thread(m, (unsigned)pu)) {
                json_array_append_new(row, json_null());
                continue;
            }
            json_array_append_new(row, json_real(chase_ns(lines, loads)));
            bench_progress(ctx, (double)(mem * ncpu_nodes + c + 1) / (m->nnodes * ncpu_nodes));
        }
        if (lines)
            bench_free(lines, node_count * LINE);
    }
    /* Leave the calling thread free to run anywhere again. */
    hwloc_set_cpubind(m->topology, hwloc_topology_get_allowed_cpuset(m->topology), HWLOC_CPUBIND_THREAD);
    for (int c = 0; c < ncpu_nodes; c++) {
        const struct numa_node *n = &m->nodes[cpu_nodes[c]];
        json_t *row = json_array();
        for (int k = 0; n->distances && k < m->nnodes; k++)
            json_array_append_new(row, json_integer(n->distances[k]));
        json_array_append_new(distances, n->distances ? row : json_null());
        if (!n->distances)
            json_decref(row);
    }
    free(cpu_nodes);
    if (error) {
        json_decref(matrix);
        json_decref(distances);
        json_decref(cpu_ids);
        json_decref(mem_ids);
        return bench_set_text(json_object(), "error", "could not allocate the permutation");
    }
    json_t *out = json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:b, s:s}", "cpu_nodes", cpu_ids, "memory_nodes", mem_ids,
                            "matrix_ns", matrix, "kernel_distances", distances, "buffer_bytes", (json_int_t)bytes,
                            "loads", (json_int_t)loads, "huge_pages_requested", true, "method",
                            "pointer chase over a random cyclic permutation of 64-byte lines");
    char *note = NULL;
    if (capped && i18n_asprintf(&note, "buffer limited to the memory budget (%s)", _(budget_why)) == 0)
        json_object_set_new(out, "note", json_string(note)); /* the reader's copy: _(note), report/bench_text.c */
    free(note);
    return out;
}

const struct bench_info bench_latency_info = {
    "latency", latency_run, "NUMA latency matrix: pointer chase for every (CPU node, memory node) pair", NULL};
