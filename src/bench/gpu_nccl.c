/* NCCL all-reduce bus bandwidth across the node's GPUs, measured as nccl-tests' all_reduce_perf
 * measures it: in one process, one communicator per GPU (ncclCommInitAll), each all-reduce issued
 * for every GPU inside ncclGroupStart/ncclGroupEnd, a warm-up, then timed batches; the time of an
 * all-reduce of S bytes per GPU gives algbw = S / time, and the bus bandwidth
 * busbw = algbw x 2(n-1)/n, the bytes each GPU's link carries in a ring all-reduce, which is
 * comparable across GPU counts and with the link's own rate (nccl-tests doc/PERFORMANCE.md).
 * The batches are timed by CUDA events on every GPU's stream; the slowest GPU's time counts (the
 * all-reduce ends on every GPU together). Everything runs in one worker under a deadline
 * (util/deadline.h): a communicator that never forms or an all-reduce that never ends costs its
 * budget and names the call. Buffers are in place (sendbuff == recvbuff), one per GPU, a quarter of
 * the GPU's free memory at most. rules/gpu_nccl.c judges the result against the link. */
#include "bench/gpu_nccl.h"
#include "bench/bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nccl.h"
#include "util/deadline.h"
#include "util/gpu_limits.h"
#include "util/i18n.h"
#include "util/sanitize.h"
#include "util/units.h"

#define MAX_RANKS GPU_MAX_PER_NODE
#define NCCL_SIZES 3

/* --quick and the default: the largest all-reduce per GPU, warm-up all-reduces per size, timed
 * batches per size and all-reduces per batch (the median batch gives the figure). */
struct nccl_plan {
    size_t max_bytes;
    int warmups, batches, per_batch;
};

static struct nccl_plan nccl_plan_for(bool quick)
{
    return quick ? (struct nccl_plan){(size_t)(256 * MIB), 2, 3, 3} : (struct nccl_plan){(size_t)GIB, 5, 5, 5};
}

struct nccl_job {
    const struct cuda *api;
    char bus_ids[MAX_RANKS][32];
    int n;
    struct nccl_plan plan;
    json_t *result;
};

static void nccl_job_free(void *p)
{
    struct nccl_job *job = p;
    json_decref(job->result);
    free(job);
}

struct rank {
    int device;
    cu_context context;
    cu_stream stream;
    cu_deviceptr buffer;
    cu_event start, stop;
    nccl_comm comm;
    char bus_id[32];
};

/* A driver or NCCL call, noted while it runs (a deadline names it); on failure err says which. */
#define CU(name, call)                                                                                      \
    do {                                                                                                    \
        cuda_call_begin(name);                                                                              \
        cu_result rc_ = (call);                                                                             \
        cuda_call_done();                                                                                   \
        if (rc_ != CUDA_SUCCESS) {                                                                          \
            i18n_snprintf(err, errlen, "%s: %s (error %d)", name, _(cuda_error(api, rc_)), rc_);            \
            return -1;                                                                                      \
        }                                                                                                   \
    } while (0)
#define NC(name, call)                                                                                      \
    do {                                                                                                    \
        cuda_call_begin(name);                                                                              \
        nccl_result rc_ = (call);                                                                           \
        cuda_call_done();                                                                                   \
        if (rc_ != NCCL_SUCCESS) {                                                                          \
            i18n_snprintf(err, errlen, "%s: %s (NCCL error %d)", name, nccl_error(lib, rc_), rc_);          \
            return -1;                                                                                      \
        }                                                                                                   \
    } while (0)

/* The GPU's context, stream and events; its free memory in *free_bytes. */
static int rank_open(const struct cuda *api, struct rank *r, size_t *free_bytes, char *err, size_t errlen)
{
    size_t total = 0;
    CU("cuDeviceGetByPCIBusId", api->device_by_bus_id(&r->device, r->bus_id));
    CU("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&r->context, r->device));
    CU("cuCtxSetCurrent", api->ctx_set_current(r->context));
    CU("cuMemGetInfo", api->mem_get_info(free_bytes, &total));
    CU("cuStreamCreate", api->stream_create(&r->stream, 1 /* CU_STREAM_NON_BLOCKING */));
    CU("cuEventCreate", api->event_create(&r->start, 0));
    CU("cuEventCreate", api->event_create(&r->stop, 0));
    return 0;
}

static void rank_close(const struct cuda *api, struct rank *r)
{
    if (!r->context)
        return;
    api->ctx_set_current(r->context);
    if (r->stream)
        api->stream_synchronize(r->stream);
    if (r->start)
        api->event_destroy(r->start);
    if (r->stop)
        api->event_destroy(r->stop);
    if (r->stream)
        api->stream_destroy(r->stream);
    if (r->buffer)
        api->mem_free(r->buffer);
    api->primary_ctx_release(r->device);
    r->context = NULL;
}

/* `count` all-reduces of `bytes` on every rank, each one group, queued on the ranks' streams. */
static int all_reduces(const struct nccl *lib, struct rank *ranks, int n, size_t bytes, int count, char *err,
                       size_t errlen)
{
    for (int i = 0; i < count; i++) {
        NC("ncclGroupStart", lib->group_start());
        for (int r = 0; r < n; r++) {
            void *buffer = (void *)(uintptr_t)ranks[r].buffer;
            cuda_call_begin("ncclAllReduce");
            nccl_result rc = lib->all_reduce(buffer, buffer, bytes / sizeof(float), NCCL_FLOAT32, NCCL_SUM,
                                             ranks[r].comm, ranks[r].stream);
            cuda_call_done();
            if (rc != NCCL_SUCCESS) {
                i18n_snprintf(err, errlen, "%s: %s (NCCL error %d)", "ncclAllReduce", nccl_error(lib, rc), rc);
                lib->group_end(); /* the group must close; its own error is the same */
                return -1;
            }
        }
        NC("ncclGroupEnd", lib->group_end());
    }
    return 0;
}

/* Seconds of one all-reduce of `bytes`: the median of the plan's batches, each timed by events on
 * every rank's stream (the slowest rank's time). -1 with err. */
static double time_all_reduce(const struct cuda *api, const struct nccl *lib, struct rank *ranks, int n, size_t bytes,
                              const struct nccl_plan *p, char *err, size_t errlen)
{
    if (all_reduces(lib, ranks, n, bytes, p->warmups, err, errlen))
        return -1;
    double per_batch[16];
    int batches = p->batches < 16 ? p->batches : 16;
    for (int b = 0; b < batches; b++) {
        /* Every stream drained first (as nccl-tests does before it starts its clock): a batch's
         * events bracket its own all-reduces only. */
        for (int r = 0; r < n; r++) {
            CU("cuCtxSetCurrent", api->ctx_set_current(ranks[r].context));
            CU("cuStreamSynchronize", api->stream_synchronize(ranks[r].stream));
        }
        for (int r = 0; r < n; r++) {
            CU("cuCtxSetCurrent", api->ctx_set_current(ranks[r].context));
            CU("cuEventRecord", api->event_record(ranks[r].start, ranks[r].stream));
        }
        if (all_reduces(lib, ranks, n, bytes, p->per_batch, err, errlen))
            return -1;
        for (int r = 0; r < n; r++) { /* every stop queued before the host waits on any */
            CU("cuCtxSetCurrent", api->ctx_set_current(ranks[r].context));
            CU("cuEventRecord", api->event_record(ranks[r].stop, ranks[r].stream));
        }
        double slowest = 0;
        for (int r = 0; r < n; r++) {
            float ms = 0;
            CU("cuCtxSetCurrent", api->ctx_set_current(ranks[r].context));
            CU("cuEventSynchronize", api->event_synchronize(ranks[r].stop));
            CU("cuEventElapsedTime", api->event_elapsed(&ms, ranks[r].start, ranks[r].stop));
            if (ms / 1e3 > slowest)
                slowest = ms / 1e3;
        }
        /* cuEventElapsedTime resolves about 0.5 us (CUDA Driver API reference): an all-reduce that
         * took less than 1 us moved nothing the events could see. */
        if (!(slowest >= 1e-6 * p->per_batch)) {
            i18n_snprintf(err, errlen,
                          "not a measurement: the GPUs' events say %d all-reduces of %zu bytes took %.3g us (a "
                          "library that did not run them, or a timer that does not count)",
                          p->per_batch, bytes, slowest * 1e6);
            return -1;
        }
        per_batch[b] = slowest / p->per_batch;
    }
    for (int i = 1; i < batches; i++) /* insertion sort: a handful of values */
        for (int k = i; k > 0 && per_batch[k] < per_batch[k - 1]; k--) {
            double t = per_batch[k];
            per_batch[k] = per_batch[k - 1];
            per_batch[k - 1] = t;
        }
    return batches % 2 ? per_batch[batches / 2] : (per_batch[batches / 2 - 1] + per_batch[batches / 2]) / 2;
}

/* The communicator over the ranks that opened, the sizes timed; 0 or -1 with err. */
static int measure(const struct cuda *api, const struct nccl *lib, struct rank *ranks, int n,
                   const struct nccl_plan *p, size_t free_min, json_t *out, char *err, size_t errlen)
{
    /* The largest power of two within the plan and a quarter of the tightest GPU's free memory
     * (NCCL's own buffers and the other GPUs' peers take some). */
    size_t largest = (size_t)MIB;
    while (largest * 2 <= p->max_bytes && largest * 2 <= free_min / 4)
        largest *= 2;
    if (largest > free_min / 4) {
        i18n_snprintf(err, errlen, "too little free GPU memory for the all-reduce (%zu MiB on the fullest GPU)",
                      free_min / (size_t)MIB);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        CU("cuCtxSetCurrent", api->ctx_set_current(ranks[r].context));
        CU("cuMemAlloc", api->mem_alloc(&ranks[r].buffer, largest));
    }
    int devices[MAX_RANKS];
    nccl_comm comms[MAX_RANKS] = {0};
    for (int r = 0; r < n; r++)
        devices[r] = ranks[r].device;
    NC("ncclCommInitAll", lib->comm_init_all(comms, n, devices));
    for (int r = 0; r < n; r++)
        ranks[r].comm = comms[r];
    json_t *sizes = json_array();
    json_object_set_new(out, "sizes", sizes);
    double factor = 2.0 * (n - 1) / n; /* nccl-tests' busbw factor for all-reduce */
    for (int s = NCCL_SIZES - 1; s >= 0; s--) {
        size_t bytes = largest >> (3 * s); /* largest/64, largest/8, largest */
        if (bytes < sizeof(float) * (size_t)n)
            continue;
        double seconds = time_all_reduce(api, lib, ranks, n, bytes, p, err, errlen);
        if (seconds <= 0)
            return -1;
        double algbw = bytes / seconds;
        json_array_append_new(sizes, json_pack("{s:I, s:f, s:f, s:f}", "bytes", (json_int_t)bytes, "seconds", seconds,
                                               "algbw_bytes_s", algbw, "busbw_bytes_s", algbw * factor));
        if (s == 0) {
            json_object_set_new(out, "bytes", json_integer((json_int_t)bytes));
            json_object_set_new(out, "busbw_bytes_s", json_real(algbw * factor));
        }
    }
    return 0;
}

static void measure_nccl(void *arg)
{
    struct nccl_job *job = arg;
    const struct cuda *api = job->api;
    char err[512] = "";
    struct nccl lib;
    if (nccl_open(&lib, err, sizeof err)) {
        job->result = json_pack("{s:o}", "skipped", json_text(err));
        return;
    }
    int version = 0;
    cuda_call_begin("ncclGetVersion");
    nccl_result vrc = lib.get_version(&version);
    cuda_call_done();
    job->result = json_pack("{s:s}", "library", lib.name);
    if (vrc == NCCL_SUCCESS && version > 0) {
        char v[32]; /* NCCL_VERSION_CODE: major x 10000 + minor x 100 + patch since 2.9 */
        if (version >= 20900)
            snprintf(v, sizeof v, "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
        else
            snprintf(v, sizeof v, "%d.%d.%d", version / 1000, version / 100 % 10, version % 100);
        json_object_set_new(job->result, "version", json_string(v));
    }
    /* A GPU this process cannot open (hidden by CUDA_VISIBLE_DEVICES, a container's or a Slurm
     * job's device cgroup) is left out of the communicator and named; the others are measured. */
    struct rank ranks[MAX_RANKS];
    memset(ranks, 0, sizeof ranks);
    json_t *left_out = json_array(), *used = json_array();
    int n = 0;
    size_t free_min = SIZE_MAX;
    for (int i = 0; i < job->n; i++) {
        struct rank *r = &ranks[n];
        snprintf(r->bus_id, sizeof r->bus_id, "%s", job->bus_ids[i]);
        size_t free_bytes = 0;
        char why[512] = "";
        if (rank_open(api, r, &free_bytes, why, sizeof why)) {
            rank_close(api, r);
            json_array_append_new(left_out,
                                  json_pack("{s:s, s:o}", "bus_id", job->bus_ids[i], "error", json_text(why)));
            memset(r, 0, sizeof *r);
            continue;
        }
        json_array_append_new(used, json_string(job->bus_ids[i]));
        if (free_bytes < free_min)
            free_min = free_bytes;
        n++;
    }
    json_object_set_new(job->result, "gpus", used);
    if (json_array_size(left_out))
        json_object_set_new(job->result, "gpus_left_out", left_out);
    else
        json_decref(left_out);
    json_object_set_new(job->result, "ranks", json_integer(n));
    if (n < 2) {
        bench_set_text(job->result, "skipped",
                       "fewer than two GPUs CUDA can open (%d of %d): no all-reduce between GPUs", n, job->n);
    } else if (measure(api, &lib, ranks, n, &job->plan, free_min, job->result, err, sizeof err)) {
        json_object_set_new(job->result, "error", json_text(*err ? err : "the all-reduce failed"));
        for (int r = 0; r < n; r++) /* after an error NCCL's own advice: abort, not destroy */
            if (ranks[r].comm) {
                cuda_call_begin("ncclCommAbort");
                lib.comm_abort(ranks[r].comm);
                cuda_call_done();
            }
        for (int r = 0; r < n; r++)
            ranks[r].comm = NULL;
    }
    for (int r = 0; r < n; r++)
        if (ranks[r].comm) {
            cuda_call_begin("ncclCommDestroy");
            lib.comm_destroy(ranks[r].comm);
            cuda_call_done();
        }
    for (int r = 0; r < n; r++)
        rank_close(api, &ranks[r]);
    nccl_close(&lib);
}

json_t *gpu_nccl_run(const struct cuda *api, const char *const *bus_ids, int n, bool quick, bool *hung)
{
    *hung = false;
    if (n < 2)
        return bench_skipped("one GPU: no all-reduce between GPUs");
    struct nccl_job *job = calloc(1, sizeof *job);
    if (!job)
        return bench_skipped("no memory for the all-reduce");
    job->api = api;
    job->n = n < MAX_RANKS ? n : MAX_RANKS;
    job->plan = nccl_plan_for(quick);
    for (int i = 0; i < job->n; i++)
        snprintf(job->bus_ids[i], sizeof job->bus_ids[i], "%s", bus_ids[i]);
    /* NCCL's start-up (a communicator over every GPU: topology, channels, NVLS buffers) plus every
     * all-reduce at 1 GB/s of bus traffic, far below any link. */
    const struct nccl_plan *p = &job->plan;
    double traffic = 0;
    for (int s = 0; s < NCCL_SIZES; s++)
        traffic += (double)(p->max_bytes >> (3 * s)) * (p->warmups + p->batches * p->per_batch) * 2.0;
    double budget = deadline_seconds("GPUVET_DEADLINE_NCCL_S", DEADLINE_NCCL_S) + traffic / 1e9;
    if (deadline_run(measure_nccl, job, nccl_job_free, budget)) {
        json_t *result = job->result ? job->result : bench_skipped("no memory for the all-reduce");
        job->result = NULL;
        nccl_job_free(job);
        return result;
    }
    *hung = true;
    const char *call = cuda_call_in_progress();
    return bench_set_text(json_object(), "error",
                          "no answer from %s in %.3g s: NCCL or the GPUs' driver is hung (see `dmesg` for Xid "
                          "errors; NCCL_DEBUG=INFO says where NCCL waits)",
                          call ? call : "NCCL", budget);
}
