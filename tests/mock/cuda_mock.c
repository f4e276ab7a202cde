/* A stand-in for libcuda.so.1 (built into the same library as the NVML mock, so the two share
 * state): host<->device copies of a simulated 10 GB/s link. Asynchronous copies advance a
 * virtual completion time that events, stream queries and the NVML mock's P-state and link
 * generation follow; synchronous (pageable) copies really copy. The GPUs are the <gpu> elements
 * of $GPUVET_MOCK_NVML_XML, found by PCI bus id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "mock.h"

#define LINK_BYTES_S 10e9
#define NOT_READY 600
#define INVALID_VALUE 1
#define NOT_FOUND 500

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct event {
    double at;
};

static void wait_until(double t)
{
    double left = t - mock_now();
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* Queues a copy: it ends one transfer time after the previous one (or now). */
static void queue(size_t bytes)
{
    double start = mock_busy_until > mock_now() ? mock_busy_until : mock_now();
    mock_busy_until = start + bytes / LINK_BYTES_S;
}

/* The device whose primary context was retained last: the one the calls below work on. */
static int current_device = -1;

/* $GPUVET_MOCK_CUDA_HANG names a driver call that never returns, as on a GPU that stopped
 * answering; with $GPUVET_MOCK_CUDA_HANG_DEVICE (an index) only on that device. */
static void hang_if(const char *call)
{
    const char *hang = getenv("GPUVET_MOCK_CUDA_HANG"), *device = getenv("GPUVET_MOCK_CUDA_HANG_DEVICE");
    if (hang && !strcmp(hang, call) && (!device || atoi(device) == current_device))
        for (;;)
            pause();
}

CUresult cuInit(unsigned flags)
{
    hang_if("cuInit");
    return flags == 0 ? 0 : INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult rc, const char **s)
{
    *s = rc == NOT_FOUND ? "mock: no GPU with that bus id" : "mock error";
    return 0;
}

CUresult cuDeviceGetByPCIBusId(int *device, const char *bus_id)
{
    unsigned want_domain, want_bus, want_dev;
    const char *xml = getenv("GPUVET_MOCK_NVML_XML");
    if (!xml || sscanf(bus_id, "%x:%x:%x", &want_domain, &want_bus, &want_dev) != 3)
        return INVALID_VALUE;
    xmlDoc *doc = xmlReadFile(xml, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        return INVALID_VALUE;
    int index = 0;
    CUresult rc = NOT_FOUND;
    for (xmlNode *g = xmlDocGetRootElement(doc)->children; g && rc != 0; g = g->next) {
        if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "gpu"))
            continue;
        xmlChar *id = xmlGetProp(g, (const xmlChar *)"id");
        unsigned domain, bus, dev;
        if (id && sscanf((const char *)id, "%x:%x:%x", &domain, &bus, &dev) == 3 && domain == want_domain &&
            bus == want_bus && dev == want_dev) {
            *device = index;
            rc = 0;
        }
        xmlFree(id);
        index++;
    }
    xmlFreeDoc(doc);
    return rc;
}

static int contexts;
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    *ctx = &contexts;
    contexts += device >= 0;
    current_device = device;
    hang_if("cuDevicePrimaryCtxRetain");
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device)
{
    contexts -= device >= 0;
    return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return ctx ? 0 : INVALID_VALUE; }
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)flags;
    *p = malloc(bytes);
    return *p ? 0 : 2;
}
CUresult cuMemFreeHost(void *p)
{
    free(p);
    return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t bytes)
{
    void *p = malloc(bytes);
    *d = (CUdeviceptr)(uintptr_t)p;
    return p ? 0 : 2;
}
CUresult cuMemFree_v2(CUdeviceptr d)
{
    free((void *)(uintptr_t)d);
    return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t bytes)
{
    memcpy((void *)(uintptr_t)d, h, bytes);
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t bytes)
{
    memcpy(h, (const void *)(uintptr_t)d, bytes);
    return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t bytes, void *stream)
{
    (void)d, (void)h, (void)stream;
    queue(bytes);
    return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t bytes, void *stream)
{
    (void)d, (void)h, (void)stream;
    queue(bytes);
    return 0;
}
static int streams;
CUresult cuStreamCreate(void **s, unsigned flags)
{
    (void)flags;
    *s = &streams;
    return 0;
}
CUresult cuStreamQuery(void *s)
{
    (void)s;
    return mock_now() < mock_busy_until ? NOT_READY : 0;
}
CUresult cuStreamSynchronize(void *s)
{
    (void)s;
    wait_until(mock_busy_until);
    return 0;
}
CUresult cuStreamDestroy_v2(void *s)
{
    (void)s;
    return 0;
}
CUresult cuEventCreate(struct event **e, unsigned flags)
{
    (void)flags;
    *e = calloc(1, sizeof **e);
    return *e ? 0 : 2;
}
CUresult cuEventRecord(struct event *e, void *s)
{
    (void)s;
    e->at = mock_busy_until > mock_now() ? mock_busy_until : mock_now();
    return 0;
}
CUresult cuEventSynchronize(struct event *e)
{
    hang_if("cuEventSynchronize");
    wait_until(e->at);
    return 0;
}
CUresult cuEventElapsedTime(float *ms, struct event *a, struct event *b)
{
    *ms = (float)((b->at - a->at) * 1e3);
    return 0;
}
CUresult cuEventDestroy_v2(struct event *e)
{
    free(e);
    return 0;
}
