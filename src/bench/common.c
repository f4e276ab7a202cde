/* What every benchmark needs from the machine: memory it may use, cache sizes, cores to pin to. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "bench/bench.h"
#include "util/fsroot.h"
#include "util/i18n.h"
#include "util/parse.h"

/* Benchmarks leave three quarters of the available memory to everything else on the box. */
#define BENCH_MEMORY_FRACTION 0.25

/* Memory left under this process' cgroup limit (v2 memory.max - memory.current, or v1
 * limit_in_bytes - usage_in_bytes); 0 when no limit applies or it cannot be read. */
static uint64_t cgroup_headroom(void)
{
    char *self = fs_read("/proc/self/cgroup");
    if (!self)
        return 0;
    char v2[512] = "", v1[512] = "";
    for (char *line = strtok(self, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "0::", 3))
            snprintf(v2, sizeof v2, "%s", line + 3);
        char *memory = strstr(line, ":memory:");
        if (memory)
            snprintf(v1, sizeof v1, "%s", memory + 8);
    }
    free(self);
    char *limit = NULL, *usage = NULL;
    if (*v1) {
        /* Inside a container the cgroup is mounted at the root of the hierarchy. */
        limit = fs_readf("/sys/fs/cgroup/memory%s/memory.limit_in_bytes", v1);
        if (limit)
            usage = fs_readf("/sys/fs/cgroup/memory%s/memory.usage_in_bytes", v1);
        else {
            limit = fs_read("/sys/fs/cgroup/memory/memory.limit_in_bytes");
            usage = fs_read("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        }
    } else if (*v2) {
        limit = fs_readf("/sys/fs/cgroup%s/memory.max", !strcmp(v2, "/") ? "" : v2);
        usage = fs_readf("/sys/fs/cgroup%s/memory.current", !strcmp(v2, "/") ? "" : v2);
    }
    uint64_t headroom = 0;
    char *end;
    if (limit && usage && strcmp(limit, "max") != 0) {
        unsigned long long l = strtoull(limit, &end, 10), u = strtoull(usage, NULL, 10);
        /* v1 reports "no limit" as a huge page-aligned number near INT64_MAX. */
        if (*end == '\0' && l < (1ULL << 62) && l > u)
            headroom = l - u;
    }
    free(limit);
    free(usage);
    return headroom;
}

uint64_t bench_memory_budget(char *why, size_t whylen)
{
    uint64_t available = 0;
    char *meminfo = fs_read("/proc/meminfo");
    bool have_available = meminfo && parse_meminfo_bytes(meminfo, "MemAvailable", &available);
    free(meminfo);
    uint64_t cgroup = cgroup_headroom();
    uint64_t from_available = have_available ? (uint64_t)(available * BENCH_MEMORY_FRACTION) : 0;
    uint64_t from_cgroup = (uint64_t)(cgroup * BENCH_MEMORY_FRACTION);
    if (from_cgroup && (!from_available || from_cgroup < from_available)) {
        i18n_snprintf(why, whylen, "%d%% of the %" PRIu64 " MiB left under the cgroup memory limit",
                      (int)(BENCH_MEMORY_FRACTION * 100), cgroup >> 20);
        return from_cgroup;
    }
    if (from_available) {
        i18n_snprintf(why, whylen, "%d%% of MemAvailable (%" PRIu64 " MiB)", (int)(BENCH_MEMORY_FRACTION * 100),
                      available >> 20);
        return from_available;
    }
    snprintf(why, whylen, "%s", N_("neither MemAvailable nor a cgroup limit could be read"));
    return 0;
}

uint64_t bench_llc_bytes(const struct machine *m, uint64_t *total_llc)
{
    *total_llc = 0;
    if (!m->topology)
        return 0;
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(m->topology);
    uint64_t largest = 0;
    /* The last level is the deepest cache type present: L3, else L2. */
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                              HWLOC_OBJ_L2CACHE};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0] && !largest; l++) {
        hwloc_obj_t c = NULL;
        while ((c = hwloc_get_next_obj_by_type(m->topology, levels[l], c))) {
            if (!hwloc_bitmap_intersects(c->cpuset, allowed))
                continue;
            *total_llc += c->attr->cache.size;
            if (c->attr->cache.size > largest)
                largest = c->attr->cache.size;
        }
    }
    return largest;
}

hwloc_bitmap_t bench_core_pus(const struct machine *m, hwloc_const_bitmap_t cpus)
{
    hwloc_bitmap_t out = hwloc_bitmap_alloc();
    if (!m->topology)
        return out;
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(m->topology);
    hwloc_obj_t core = NULL;
    while ((core = hwloc_get_next_obj_by_type(m->topology, HWLOC_OBJ_CORE, core))) {
        hwloc_bitmap_t usable = hwloc_bitmap_dup(core->cpuset);
        hwloc_bitmap_and(usable, usable, allowed);
        if (cpus)
            hwloc_bitmap_and(usable, usable, cpus);
        int first = hwloc_bitmap_first(usable);
        if (first >= 0)
            hwloc_bitmap_set(out, (unsigned)first);
        hwloc_bitmap_free(usable);
    }
    return out;
}

bool bench_pin_thread(const struct machine *m, unsigned pu)
{
    if (!m->topology)
        return false;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, pu);
    bool ok = hwloc_set_cpubind(m->topology, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT) == 0 ||
              hwloc_set_cpubind(m->topology, set, HWLOC_CPUBIND_THREAD) == 0;
    hwloc_bitmap_free(set);
    return ok;
}

#define HUGE_PAGE (2ul << 20)

void *bench_alloc(const struct machine *m, size_t bytes, hwloc_const_bitmap_t nodeset)
{
    /* Over-allocate by one huge page to align, and keep the whole mapping so bench_free finds it. */
    size_t total = bytes + HUGE_PAGE;
    char *raw = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *aligned = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    size_t head = (size_t)(aligned - raw);
    if (head)
        munmap(raw, head);
    if (total - head > bytes)
        munmap(aligned + bytes, total - head - bytes);
    madvise(aligned, bytes, MADV_HUGEPAGE);
    if (nodeset && m->topology &&
        hwloc_set_area_membind(m->topology, aligned, bytes, nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET) != 0 &&
        hwloc_bitmap_weight(nodeset) > 0 && m->nnodes > 1) {
        munmap(aligned, bytes);
        return NULL;
    }
    return aligned;
}

void bench_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

/* GPUVET_TEST_THREAD_LIMIT: benchmark threads alive now, each counted from its creation to its end. */
static atomic_int test_threads_alive;

struct counted_thread {
    void *(*fn)(void *);
    void *arg;
};

static void *run_counted(void *arg)
{
    struct counted_thread t = *(struct counted_thread *)arg;
    free(arg);
    void *result = t.fn(t.arg);
    atomic_fetch_sub(&test_threads_alive, 1);
    return result;
}

int bench_thread_create(pthread_t *id, void *(*fn)(void *), void *arg)
{
    const char *limit = getenv("GPUVET_TEST_THREAD_LIMIT");
    if (!limit || !*limit)
        return pthread_create(id, NULL, fn, arg);
    /* Like RLIMIT_NPROC, the limit is on threads alive at once. */
    if (atomic_fetch_add(&test_threads_alive, 1) >= atoi(limit)) {
        atomic_fetch_sub(&test_threads_alive, 1);
        return EAGAIN; /* what pthread_create returns at RLIMIT_NPROC */
    }
    struct counted_thread *t = malloc(sizeof *t);
    if (!t) {
        atomic_fetch_sub(&test_threads_alive, 1);
        return ENOMEM;
    }
    *t = (struct counted_thread){fn, arg};
    int rc = pthread_create(id, NULL, run_counted, t);
    if (rc) {
        free(t);
        atomic_fetch_sub(&test_threads_alive, 1);
    }
    return rc;
}

json_t *bench_thread_error(int wanted, int err)
{
    return bench_set_text(json_object(), "error", "could not start %d threads: %s", wanted, i18n_error_text(err));
}
