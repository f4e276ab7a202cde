/* The copy method of cuda-samples' bandwidthTest and DCGM's pcie plugin: large copies queued on
 * one stream, timed by events on the GPU (pinned) or by the wall clock (pageable, synchronous).
 * The host buffers are bound to a NUMA node with hwloc before they are allocated, so "near" and
 * "far" mean where the memory really is. */
#include "bench/bench.h"
#include "bench/pcie.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda.h"
#include "util/deadline.h"
#include "util/i18n.h"
#include "util/pciaddr.h"

#define COPY_BYTES (256u << 20)
#define NVIDIA_VENDOR 0x10de

/* Transfer rate in GT/s of a PCIe generation. */
static double gen_gt_s(int gen)
{
    static const double rates[] = {0, 2.5, 5, 8, 16, 32, 64};
    return gen > 0 && gen <= 6 ? rates[gen] : 0;
}

/* The most the link can carry per direction: the GPU's (system) max generation and width from
 * NVML/nvidia-smi, else the sysfs link's. 0 when unknown. */
static double link_bytes_s(const struct machine *m, const char *bus_id)
{
    const struct gpu *g = gpu_set_find(&m->gpus, bus_id);
    if (g && g->pcie_gen_max > 0 && g->pcie_width_max > 0)
        return pci_link_gb_s(gen_gt_s(g->pcie_gen_max), g->pcie_width_max) * 1e9;
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, bus_id) && m->pci[i].link.known)
            return pci_link_gb_s(m->pci[i].link.max_gt_s, m->pci[i].link.max_width) * 1e9;
    return 0;
}

static int near_node(const struct machine *m, const char *bus_id)
{
    const struct gpu *g = gpu_set_find(&m->gpus, bus_id);
    if (g)
        return gpu_numa_node(m, g);
    for (int i = 0; i < m->npci; i++)
        if (pci_address_same(m->pci[i].bus_id, bus_id))
            return m->pci[i].numa_node;
    return -1;
}

/* The node with CPUs farthest from near (by the kernel's distances), or -1 on one-node hosts. */
static int far_node(const struct machine *m, int near)
{
    const struct numa_node *from = machine_node(m, near);
    int best = -1, best_distance = -1;
    for (int i = 0; i < m->nnodes; i++) {
        const struct numa_node *n = &m->nodes[i];
        if (n->id == near || hwloc_bitmap_iszero(n->cpus) || (n->memory_known && n->memory_bytes == 0))
            continue;
        int d = from && from->distances ? from->distances[i] : 0;
        if (d > best_distance) {
            best = n->id;
            best_distance = d;
        }
    }
    return best;
}

/* Binds the calling thread's CPUs and memory to a node (a worker's own thread: the binding ends
 * with it). */
static bool bind_node(hwloc_topology_t t, int node)
{
    hwloc_obj_t obj = t ? hwloc_get_numanode_obj_by_os_index(t, (unsigned)node) : NULL;
    if (!obj)
        return false;
    if (!hwloc_bitmap_iszero(obj->cpuset))
        hwloc_set_cpubind(t, obj->cpuset, HWLOC_CPUBIND_THREAD);
    return hwloc_set_membind(t, obj->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) == 0;
}

/* One GPU's progress, from its worker to the bar: the worker holds one reference and the caller
 * one; the caller cuts it off (detached) once it stops waiting, so an abandoned worker never reaches
 * the caller's bar, which may be gone. */
struct pcie_progress {
    pthread_mutex_t lock;
    int refs;
    bool detached;
    const struct bench_ctx *ctx;
    double base, span; /* this GPU's share of the benchmark */
};

/* The measurement's steps: warm-up, pinned each way, pageable each way, far node. */
enum { PCIE_STEPS = 6 };

static struct pcie_progress *progress_new(const struct bench_ctx *ctx, double base, double span)
{
    struct pcie_progress *p = ctx && ctx->progress ? calloc(1, sizeof *p) : NULL;
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    p->refs = 1; /* the caller's */
    p->ctx = ctx;
    p->base = base;
    p->span = span;
    return p;
}

static void progress_release(struct pcie_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    int left = --p->refs;
    pthread_mutex_unlock(&p->lock);
    if (left == 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
    }
}

static void progress_detach(struct pcie_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->detached = true;
    pthread_mutex_unlock(&p->lock);
    progress_release(p);
}

/* From the worker: step of PCIE_STEPS done. */
static void progress_step(struct pcie_progress *p, int step)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (!p->detached)
        bench_progress(p->ctx, p->base + p->span * step / PCIE_STEPS);
    pthread_mutex_unlock(&p->lock);
}

static json_t *rate_json(double bytes_s) { return bytes_s > 0 ? json_real(bytes_s) : json_null(); }

/* One GPU's measurement, run in a worker thread under a deadline (util/deadline.h): a GPU that
 * stops answering costs its budget and an error naming the driver call, not a hung bench. The
 * job holds copies of all it reads (the topology too: bindings are per thread, so the worker
 * binds itself), because an abandoned worker outlives the caller's data. */
struct pcie_job {
    const struct cuda *api; /* never closed once a worker was abandoned in it */
    hwloc_topology_t topology;
    char bus_id[PCI_ADDRESS_LEN];
    int near, far;
    double link_bytes_s;
    bool quick;
    struct pcie_progress *progress; /* NULL: no bar */
    json_t *result;
};

static void pcie_job_free(void *p)
{
    struct pcie_job *job = p;
    if (job->topology)
        hwloc_topology_destroy(job->topology);
    progress_release(job->progress);
    json_decref(job->result);
    free(job);
}

static void measure(void *p)
{
    struct pcie_job *job = p;
    int repeat = job->quick ? 3 : 10, pageable_repeat = job->quick ? 2 : 5;
    bool bound = job->near >= 0 && bind_node(job->topology, job->near);
    char err[512] = "";
    struct cuda_gpu g;
    char *pageable = NULL;
    if (cuda_gpu_open(job->api, job->bus_id, COPY_BYTES, &g, err, sizeof err) != 0)
        goto failed;
    /* One copy each way first: the link leaves its idle state and the driver maps the buffers. */
    if (cuda_copy_rate(&g, CUDA_H2D, NULL, 1, err, sizeof err) < 0 || cuda_copy_rate(&g, CUDA_D2H, NULL, 1, err, sizeof err) < 0)
        goto failed;
    progress_step(job->progress, 1);
    double h2d = cuda_copy_rate(&g, CUDA_H2D, NULL, repeat, err, sizeof err);
    progress_step(job->progress, 2);
    double d2h = cuda_copy_rate(&g, CUDA_D2H, NULL, repeat, err, sizeof err);
    progress_step(job->progress, 3);
    if (h2d < 0 || d2h < 0)
        goto failed;
    pageable = malloc(COPY_BYTES);
    if (!pageable) {
        i18n_snprintf(err, sizeof err, "no memory for a %u MiB pageable buffer", COPY_BYTES >> 20);
        goto failed;
    }
    memset(pageable, 0x5a, COPY_BYTES);
    double h2d_pageable = cuda_copy_rate(&g, CUDA_H2D, pageable, pageable_repeat, err, sizeof err);
    progress_step(job->progress, 4);
    double d2h_pageable = cuda_copy_rate(&g, CUDA_D2H, pageable, pageable_repeat, err, sizeof err);
    progress_step(job->progress, 5);
    double far_h2d = -1;
    if (job->far >= 0 && bind_node(job->topology, job->far) && cuda_gpu_repin(&g, err, sizeof err) == 0) {
        cuda_copy_rate(&g, CUDA_H2D, NULL, 1, err, sizeof err);
        far_h2d = cuda_copy_rate(&g, CUDA_H2D, NULL, repeat, err, sizeof err);
    }
    double link = job->link_bytes_s;
    job->result = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "bus_id", job->bus_id, "h2d_pinned_bytes_s",
        rate_json(h2d), "d2h_pinned_bytes_s", rate_json(d2h), "h2d_pageable_bytes_s", rate_json(h2d_pageable),
        "d2h_pageable_bytes_s", rate_json(d2h_pageable), "near_node", bound ? json_integer(job->near) : json_null(),
        "far_node", far_h2d > 0 ? json_integer(job->far) : json_null(), "far_h2d_pinned_bytes_s", rate_json(far_h2d),
        "link_theoretical_bytes_s", rate_json(link), "fraction", link > 0 ? json_real(h2d / link) : json_null());
    goto done;
failed:
    job->result = *err ? json_pack("{s:s, s:s}", "bus_id", job->bus_id, "error", err)
                       : bench_set_text(json_pack("{s:s}", "bus_id", job->bus_id), "error", "the copies failed");
done:
    free(pageable);
    cuda_gpu_close(&g);
}

/* Copies of 256 MiB per GPU: 2 warm-up, 2 x repeat pinned, 2 x pageable_repeat, 1 + repeat far. */
static double copies_per_gpu(bool quick) { return quick ? 2 + 6 + 4 + 4 : 2 + 20 + 10 + 11; }

/* A GPU's budget: the driver's start-up allowance (DEADLINE_CUDA_S) plus its copies at a quarter
 * of the link's rate (1 GB/s, a Gen3 x1 link, when the link is unknown), so a slow link that still
 * answers is measured and a GPU that stopped answering costs a bounded time. */
static double gpu_budget_s(double link_bytes_s, bool quick)
{
    double slow = link_bytes_s > 0 ? link_bytes_s / 4 : 1e9;
    return deadline_seconds("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S) + copies_per_gpu(quick) * COPY_BYTES / slow;
}

/* Measures one GPU under its deadline. false when the driver did not answer: *out then says so,
 * and no later GPU is tried (the driver is likely wedged; each would cost another budget). */
static bool measure_bounded(const struct machine *m, const struct cuda *c, const char *bus_id, bool quick,
                            struct pcie_progress *progress, json_t **out)
{
    struct pcie_job *job = calloc(1, sizeof *job);
    if (!job || (m->topology && hwloc_topology_dup(&job->topology, m->topology) != 0)) {
        free(job);
        progress_detach(progress);
        *out = bench_set_text(json_pack("{s:s}", "bus_id", bus_id), "error", "no memory for the measurement");
        return true;
    }
    job->api = c;
    snprintf(job->bus_id, sizeof job->bus_id, "%s", bus_id);
    job->near = near_node(m, bus_id);
    job->far = job->near >= 0 ? far_node(m, job->near) : -1;
    job->link_bytes_s = link_bytes_s(m, bus_id);
    job->quick = quick;
    job->progress = progress;
    if (progress) /* the worker's reference, given up in pcie_job_free */
        progress->refs++;
    double limit = gpu_budget_s(job->link_bytes_s, quick);
    bool answered = deadline_run(measure, job, pcie_job_free, limit);
    progress_detach(progress);
    if (answered) {
        *out = job->result ? job->result : json_pack("{s:s, s:s}", "bus_id", bus_id, "error", "no memory");
        job->result = NULL;
        pcie_job_free(job);
        return true;
    }
    const char *call = cuda_call_in_progress();
    *out = json_pack("{s:s}", "bus_id", bus_id);
    if (call)
        bench_set_text(*out, "error",
                       "no answer from %s in %.3g s: the GPU or its driver is hung (see `dmesg` for Xid errors)", call,
                       limit);
    else
        bench_set_text(*out, "error",
                       "no answer from the CUDA driver in %.3g s: the GPU or its driver is hung (see `dmesg` for Xid "
                       "errors)",
                       limit);
    return false;
}

int bench_nvidia_targets(const struct machine *m, const char *targets[], int max)
{
    int n = 0;
    for (int i = 0; i < m->gpus.count && n < max; i++)
        targets[n++] = m->gpus.items[i].bus_id;
    for (int i = 0; i < m->npci && n < max; i++)
        if (m->pci[i].vendor_id == NVIDIA_VENDOR && m->pci[i].role == PCI_ROLE_ACCELERATOR &&
            !gpu_set_find(&m->gpus, m->pci[i].bus_id))
            targets[n++] = m->pci[i].bus_id;
    return n;
}

const char bench_no_nvidia_gpu_text[] = N_("no NVIDIA GPU on this machine");

const char *bench_no_nvidia_gpu(const struct machine *m)
{
    const char *targets[256];
    return bench_nvidia_targets(m, targets, 256) == 0 ? bench_no_nvidia_gpu_text : NULL;
}

/* cuInit in a worker: a driver that does not answer even that is a skipped bench, not a hang. */
struct bench_cuda {
    struct cuda api;
    int rc;
    char err[512];
};

static void open_work(void *p)
{
    struct bench_cuda *job = p;
    job->rc = cuda_open(&job->api, job->err, sizeof job->err);
}

static void open_job_free(void *p)
{
    struct bench_cuda *job = p;
    if (job->rc == 0)
        cuda_close(&job->api);
    free(job);
}

const struct cuda *bench_cuda_open(struct bench_cuda **handle, json_t **skipped)
{
    *handle = NULL;
    struct bench_cuda *opened = calloc(1, sizeof *opened);
    if (!opened) {
        *skipped = bench_skipped("no memory for the CUDA driver's state");
        return NULL;
    }
    opened->rc = -1;
    double limit = deadline_seconds("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S);
    if (!deadline_run(open_work, opened, open_job_free, limit)) {
        const char *call = cuda_call_in_progress();
        if (call)
            *skipped = bench_skipped("CUDA driver not usable: no answer from %s in %.3g s", call, limit);
        else
            *skipped = bench_skipped("CUDA driver not usable: no answer from libcuda while it loaded in %.3g s", limit);
        return NULL;
    }
    if (opened->rc != 0) {
        char *why = NULL;
        i18n_asprintf(&why, "CUDA driver not usable: %s", _(opened->err)); /* cuda_open's reason, kept in both */
        *skipped = json_pack("{s:s}", "skipped", why ? why : "");
        free(why);
        free(opened);
        return NULL;
    }
    *handle = opened;
    return &opened->api;
}

void bench_cuda_close(struct bench_cuda *handle, bool answering)
{
    /* An abandoned worker may still be inside the library: it stays loaded until the process ends. */
    if (handle && answering)
        open_job_free(handle);
}

json_t *bench_pcie_run(const struct machine *m, bool quick, const struct bench_ctx *ctx)
{
    const char *targets[256];
    int n = bench_nvidia_targets(m, targets, 256);
    if (n == 0)
        return bench_skipped_msgid(bench_no_nvidia_gpu_text);
    struct bench_cuda *opened;
    json_t *skipped = NULL;
    const struct cuda *api = bench_cuda_open(&opened, &skipped);
    if (!api)
        return skipped;
    json_t *results = json_array();
    bool answering = true;
    const char *hung = NULL;
    for (int i = 0; i < n; i++) {
        json_t *one = NULL;
        if (answering) {
            answering = measure_bounded(m, api, targets[i], quick, progress_new(ctx, (double)i / n, 1.0 / n), &one);
            hung = answering ? NULL : targets[i];
        } else {
            one = bench_set_text(json_pack("{s:s}", "bus_id", targets[i]), "error",
                                 "not measured: the CUDA driver stopped answering on %s", hung);
        }
        json_array_append_new(results, one);
        if (ctx)
            bench_progress(ctx, (double)(i + 1) / n);
    }
    bench_cuda_close(opened, answering);
    return results;
}

static json_t *run_pcie(const struct bench_ctx *ctx) { return bench_pcie_run(ctx->machine, ctx->opts->quick, ctx); }

const struct bench_info bench_pcie_info = {
    "pcie", run_pcie, "host<->GPU copy bandwidth per NVIDIA GPU (pinned/pageable, near/far NUMA node)",
    bench_no_nvidia_gpu};
