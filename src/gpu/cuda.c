#include "gpu/cuda.h"
#include "gpu/dlsym.h"
#include "util/i18n.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESOLVE(field, ...) DL_RESOLVE(c->library, c->field, __VA_ARGS__)

static _Atomic(const char *) call_in_progress;

const char *cuda_call_in_progress(void) { return atomic_load(&call_in_progress); }
void cuda_call_begin(const char *name) { atomic_store(&call_in_progress, name); }
void cuda_call_done(void) { atomic_store(&call_in_progress, NULL); }

cu_result cuda_call_end(const struct cuda *c, const char *name, cu_result rc, char *err, size_t errlen)
{
    cuda_call_done();
    if (rc != CUDA_SUCCESS)
        i18n_snprintf(err, errlen, "%s: %s (error %d)", name, _(cuda_error(c, rc)), rc);
    return rc;
}

/* Runs one driver call, noting its name while it runs. */
#define DRIVER(name, call) (atomic_store(&call_in_progress, name), driver_returned(call))

static cu_result driver_returned(cu_result rc)
{
    atomic_store(&call_in_progress, NULL);
    return rc;
}

int cuda_open(struct cuda *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *wanted = getenv("GPUVET_CUDA_LIBRARY");
    const char *name = wanted && *wanted ? wanted : "libcuda.so.1";
    i18n_english_begin(); /* the loader's text in English: it reaches the JSON */
    c->library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    const char *loader_error = c->library ? NULL : dlerror();
    char why[512] = "";
    if (loader_error)
        snprintf(why, sizeof why, "%s", loader_error);
    i18n_english_end();
    if (!c->library) {
        /* TRANSLATORS: %s is the library, then the loader's own error text (English). */
        i18n_snprintf(err, errlen, "cannot load %s: %s", name, *why ? why : _("unknown error"));
        return -1;
    }
    RESOLVE(init, "cuInit");
    RESOLVE(error_string, "cuGetErrorString");
    RESOLVE(device_by_bus_id, "cuDeviceGetByPCIBusId");
    RESOLVE(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    RESOLVE(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
    RESOLVE(ctx_set_current, "cuCtxSetCurrent");
    RESOLVE(host_alloc, "cuMemHostAlloc");
    RESOLVE(host_alloc_plain, "cuMemAllocHost_v2", "cuMemAllocHost");
    RESOLVE(host_free, "cuMemFreeHost");
    RESOLVE(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc");
    RESOLVE(mem_free, "cuMemFree_v2", "cuMemFree");
    RESOLVE(htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
    RESOLVE(dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
    RESOLVE(htod_async, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync");
    RESOLVE(dtoh_async, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync");
    RESOLVE(stream_create, "cuStreamCreate");
    RESOLVE(stream_query, "cuStreamQuery");
    RESOLVE(stream_synchronize, "cuStreamSynchronize");
    RESOLVE(stream_destroy, "cuStreamDestroy_v2", "cuStreamDestroy");
    RESOLVE(event_create, "cuEventCreate");
    RESOLVE(event_record, "cuEventRecord");
    RESOLVE(event_synchronize, "cuEventSynchronize");
    RESOLVE(event_elapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    RESOLVE(event_destroy, "cuEventDestroy_v2", "cuEventDestroy");
    RESOLVE(device_attribute, "cuDeviceGetAttribute");
    RESOLVE(mem_get_info, "cuMemGetInfo_v2", "cuMemGetInfo");
    RESOLVE(dtod_async, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync");
    RESOLVE(peer_async, "cuMemcpyPeerAsync");
    RESOLVE(can_access_peer, "cuDeviceCanAccessPeer");
    RESOLVE(enable_peer_access, "cuCtxEnablePeerAccess");
    RESOLVE(module_load_data_ex, "cuModuleLoadDataEx");
    RESOLVE(module_unload, "cuModuleUnload");
    RESOLVE(module_get_function, "cuModuleGetFunction");
    RESOLVE(launch_kernel, "cuLaunchKernel");
    bool complete = c->init && c->device_by_bus_id && c->primary_ctx_retain && c->primary_ctx_release &&
                    c->ctx_set_current && (c->host_alloc || c->host_alloc_plain) && c->host_free && c->mem_alloc &&
                    c->mem_free && c->htod && c->dtoh && c->htod_async && c->dtoh_async && c->stream_create &&
                    c->stream_query && c->stream_synchronize && c->stream_destroy && c->event_create &&
                    c->event_record && c->event_synchronize && c->event_elapsed && c->event_destroy;
    if (!complete) {
        i18n_snprintf(err, errlen, "%s lacks CUDA driver API calls gpuvet needs (a stub or a very old driver)", name);
        cuda_close(c);
        return -1;
    }
    cu_result rc = DRIVER("cuInit", c->init(0));
    if (rc != CUDA_SUCCESS) {
        i18n_snprintf(err, errlen, "cuInit failed: %s (error %d)", _(cuda_error(c, rc)), rc);
        cuda_close(c);
        return -1;
    }
    return 0;
}

bool cuda_has_kernels(const struct cuda *c)
{
    return c->device_attribute && c->mem_get_info && c->dtod_async && c->peer_async && c->can_access_peer &&
           c->enable_peer_access && c->module_load_data_ex && c->module_unload && c->module_get_function &&
           c->launch_kernel;
}

void cuda_close(struct cuda *c)
{
    if (c->library)
        dlclose(c->library);
    c->library = NULL;
}

const char *cuda_error(const struct cuda *c, cu_result rc)
{
    const char *s = NULL;
    if (c->error_string && c->error_string(rc, &s) == CUDA_SUCCESS && s)
        return s;
    switch (rc) {
    case 34: return N_("CUDA stub library loaded instead of the driver's");
    case 35: return N_("driver too old for this CUDA");
    case 100: return N_("no CUDA device");
    case 803: return N_("driver and kernel module versions differ");
    default: return N_("unknown error");
    }
}

#define CHECK(name, call)                                                                          \
    do {                                                                                           \
        cu_result rc_ = DRIVER(name, call);                                                        \
        if (rc_ != CUDA_SUCCESS) {                                                                 \
            i18n_snprintf(err, errlen, "%s: %s (error %d)", name, _(cuda_error(g->api, rc_)), rc_);     \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int alloc_pinned(struct cuda_gpu *g, char *err, size_t errlen)
{
    if (g->api->host_alloc)
        CHECK("cuMemHostAlloc", g->api->host_alloc(&g->pinned, g->bytes, 0));
    else
        CHECK("cuMemAllocHost", g->api->host_alloc_plain(&g->pinned, g->bytes));
    /* Touch every page so the copies time the link, not first-touch faults. */
    memset(g->pinned, 0x5a, g->bytes);
    return 0;
}

int cuda_gpu_open(const struct cuda *c, const char *bus_id, size_t bytes, struct cuda_gpu *g, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->api = c;
    g->device = -1;
    g->bytes = bytes;
    int device = -1;
    CHECK("cuDeviceGetByPCIBusId", c->device_by_bus_id(&device, bus_id));
    CHECK("cuDevicePrimaryCtxRetain", c->primary_ctx_retain(&g->context, device));
    g->device = device; /* from here on cuda_gpu_close releases the context */
    CHECK("cuCtxSetCurrent", c->ctx_set_current(g->context));
    CHECK("cuStreamCreate", c->stream_create(&g->stream, 1 /* CU_STREAM_NON_BLOCKING */));
    CHECK("cuMemAlloc", c->mem_alloc(&g->buffer, bytes));
    return alloc_pinned(g, err, errlen);
}

int cuda_gpu_repin(struct cuda_gpu *g, char *err, size_t errlen)
{
    if (g->pinned)
        DRIVER("cuMemFreeHost", g->api->host_free(g->pinned));
    g->pinned = NULL;
    return alloc_pinned(g, err, errlen);
}

void cuda_gpu_close(struct cuda_gpu *g)
{
    if (g->device < 0)
        return;
    if (g->stream)
        DRIVER("cuStreamSynchronize", g->api->stream_synchronize(g->stream));
    if (g->pinned)
        DRIVER("cuMemFreeHost", g->api->host_free(g->pinned));
    if (g->buffer)
        DRIVER("cuMemFree", g->api->mem_free(g->buffer));
    if (g->stream)
        DRIVER("cuStreamDestroy", g->api->stream_destroy(g->stream));
    DRIVER("cuDevicePrimaryCtxRelease", g->api->primary_ctx_release(g->device));
    g->device = -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int queue_copies(struct cuda_gpu *g, enum cuda_direction dir, int repeat, char *err, size_t errlen)
{
    for (int i = 0; i < repeat; i++) {
        if (dir == CUDA_H2D)
            CHECK("cuMemcpyHtoDAsync", g->api->htod_async(g->buffer, g->pinned, g->bytes, g->stream));
        else
            CHECK("cuMemcpyDtoHAsync", g->api->dtoh_async(g->pinned, g->buffer, g->bytes, g->stream));
    }
    return 0;
}

static double pinned_rate(struct cuda_gpu *g, enum cuda_direction dir, int repeat, char *err, size_t errlen)
{
    cu_event start = NULL, stop = NULL;
    double rate = -1;
    float ms = 0;
    if (DRIVER("cuEventCreate", g->api->event_create(&start, 0)) != CUDA_SUCCESS ||
        DRIVER("cuEventCreate", g->api->event_create(&stop, 0)) != CUDA_SUCCESS) {
        snprintf(err, errlen, "%s", N_("cuEventCreate failed"));
    } else if (DRIVER("cuEventRecord", g->api->event_record(start, g->stream)) == CUDA_SUCCESS &&
               queue_copies(g, dir, repeat, err, errlen) == 0 &&
               DRIVER("cuEventRecord", g->api->event_record(stop, g->stream)) == CUDA_SUCCESS &&
               DRIVER("cuEventSynchronize", g->api->event_synchronize(stop)) == CUDA_SUCCESS &&
               DRIVER("cuEventElapsedTime", g->api->event_elapsed(&ms, start, stop)) == CUDA_SUCCESS && ms > 0) {
        rate = (double)g->bytes * repeat / (ms / 1e3);
    } else if (!*err) {
        snprintf(err, errlen, "%s", N_("timing the pinned copies failed"));
    }
    if (start)
        DRIVER("cuEventDestroy", g->api->event_destroy(start));
    if (stop)
        DRIVER("cuEventDestroy", g->api->event_destroy(stop));
    return rate;
}

double cuda_copy_rate(struct cuda_gpu *g, enum cuda_direction dir, void *pageable, int repeat, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!pageable)
        return pinned_rate(g, dir, repeat, err, errlen);
    double start = now_s();
    for (int i = 0; i < repeat; i++) {
        if (dir == CUDA_H2D)
            CHECK("cuMemcpyHtoD", g->api->htod(g->buffer, pageable, g->bytes));
        else
            CHECK("cuMemcpyDtoH", g->api->dtoh(pageable, g->buffer, g->bytes));
    }
    double seconds = now_s() - start;
    return seconds > 0 ? (double)g->bytes * repeat / seconds : -1;
}

int cuda_copies_start(struct cuda_gpu *g, int repeat, char *err, size_t errlen)
{
    return queue_copies(g, CUDA_H2D, repeat, err, errlen);
}

bool cuda_copies_done(struct cuda_gpu *g)
{
    return DRIVER("cuStreamQuery", g->api->stream_query(g->stream)) != CUDA_ERROR_NOT_READY;
}
