/* A stand-in for libcuda.so.1 (built into the same library as the NVML mock, so the two share
 * state): host<->device copies of a simulated 10 GB/s link. Asynchronous copies advance a
 * virtual completion time that events, stream queries and the NVML mock's P-state and link
 * generation follow, so event-timed (pinned) rates are exactly the link's whatever the host's
 * load; synchronous (pageable) copies really copy. The GPUs are the <gpu> elements
 * of $GPUVET_MOCK_NVML_XML, found by PCI bus id. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "mock.h"

#include "bench/gpu_burn.h"    /* the entries of the burn's product it checks */
#include "bench/gpu_kernels.h" /* the FMA loop's flops per iteration */

#define LINK_BYTES_S 10e9
#define NOT_READY 600
#define INVALID_VALUE 1
#define NOT_FOUND 500

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct event {
    double at;
};

/* The GPU's own work (kernels, device and peer copies) queued after an event runs back to back from
 * that event until the host next waits (a synchronize), as a real stream runs event, kernels,
 * event: the host's own time between its calls (long under a sanitizer or on a loaded machine,
 * against kernels of a fraction of a millisecond here) is not GPU time. Negative: no such run
 * open. Asynchronous PCIe copies (queue) run the same way: a host descheduled between two
 * cuMemcpyAsync calls must not show up as a slower link (tests assert the simulated rate). */
static double idle_event_at = -1;

static void wait_until(double t)
{
    double left = t - mock_now();
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* Queues a copy: it ends one transfer time after the previous one, the event it follows, or now. */
static void queue(size_t bytes)
{
    double start = idle_event_at >= 0 ? idle_event_at : mock_now();
    if (start < mock_busy_until)
        start = mock_busy_until;
    mock_busy_until = start + bytes / LINK_BYTES_S;
}

static void note_bus(int device, const char *bus_id);

/* The device whose primary context this thread retained or made current last: the one the calls
 * below work on (a CUDA context is current per thread; the burn drives every GPU at once). */
static _Thread_local int current_device = -1;

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
/* $GPUVET_MOCK_CUDA_ERROR_TEXT: the driver's text for every error but NOT_FOUND (a test gives
 * bytes that are not UTF-8). */
CUresult cuGetErrorString(CUresult rc, const char **s)
{
    const char *text = getenv("GPUVET_MOCK_CUDA_ERROR_TEXT");
    *s = rc == NOT_FOUND ? "mock: no GPU with that bus id" : text ? text : "mock error";
    return 0;
}

static bool knob_set(const char *name, int device);
/* $GPUVET_MOCK_GPU_ECC=busid: that GPU's memory has an uncorrectable error that its first memory
 * check meets; from then on, as on a real GPU, every call on its context returns
 * CUDA_ERROR_ECC_UNCORRECTABLE (214), the error a kernel hit being sticky. */
#define ECC_UNCORRECTABLE 214
static bool ecc_failed[64];
static CUresult sticky(void);
/* $GPUVET_MOCK_CUDA_NOOP=1: a libcuda that answers every call with success and does nothing: its
 * kernels take no time and write nothing, its events are 1 ns apart (=zero: 0 ms apart). */
static bool noop(void) { return getenv("GPUVET_MOCK_CUDA_NOOP") != NULL; }

/* $GPUVET_MOCK_GPU_HIDDEN=busid[,busid]: GPUs CUDA does not see (CUDA_VISIBLE_DEVICES, a
 * container's or a Slurm job's device cgroup), though NVML and sysfs list them. */
static bool hidden(const char *bus_id)
{
    const char *v = getenv("GPUVET_MOCK_GPU_HIDDEN");
    return v && bus_id && strstr(v, bus_id) != NULL;
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
            bus == want_bus && dev == want_dev && !hidden(bus_id)) {
            *device = index;
            note_bus(index, bus_id);
            rc = 0;
        }
        xmlFree(id);
        index++;
    }
    xmlFreeDoc(doc);
    return rc;
}

#define MAX_DEVICES 64
/* A context is a pointer into this array: its index is the device. */
static char context_of[MAX_DEVICES];
static int contexts;
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    if (device < 0 || device >= MAX_DEVICES)
        return INVALID_VALUE;
    *ctx = &context_of[device];
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
CUresult cuCtxSetCurrent(void *ctx)
{
    if (!ctx)
        return INVALID_VALUE;
    current_device = (int)((char *)ctx - context_of);
    return 0;
}
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
    if (!noop())
        memcpy((void *)(uintptr_t)d, h, bytes);
    return sticky();
}
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t bytes)
{
    if (!noop())
        memcpy(h, (const void *)(uintptr_t)d, bytes);
    return sticky();
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
static void blas_wait(void);
static void gemm_queue(double *busy_until, double seconds);
CUresult cuStreamSynchronize(void *s)
{
    (void)s;
    blas_wait();
    wait_until(mock_busy_until);
    idle_event_at = -1;
    return sticky();
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
/* The simulated time of this thread's GEMMs (cuBLAS and cuBLASLt stand-ins below), from the first
 * handle it creates: events the burn records between GEMMs read it, so the rate the burn measures is
 * exactly the simulated one, however the host schedules its threads. Negative: no handle yet. */
static _Thread_local double gemm_clock = -1;

CUresult cuEventRecord(struct event *e, void *s)
{
    (void)s;
    if (gemm_clock >= 0) {
        e->at = gemm_clock;
        return 0;
    }
    double now = mock_now();
    if (idle_event_at >= 0) {
        e->at = mock_busy_until > idle_event_at ? mock_busy_until : idle_event_at;
        return 0;
    }
    e->at = mock_busy_until > now ? mock_busy_until : now;
    if (mock_busy_until <= now)
        idle_event_at = now;
    return 0;
}
CUresult cuEventSynchronize(struct event *e)
{
    hang_if("cuEventSynchronize");
    if (gemm_clock >= 0) { /* the burn's GEMMs: their real-time pacing */
        blas_wait();
        return sticky();
    }
    wait_until(e->at);
    idle_event_at = -1;
    return sticky();
}
CUresult cuEventElapsedTime(float *ms, struct event *a, struct event *b)
{
    *ms = !noop() ? (float)((b->at - a->at) * 1e3) : strcmp(getenv("GPUVET_MOCK_CUDA_NOOP"), "zero") ? 1e-6f : 0.0f;
    return sticky();
}
CUresult cuEventDestroy_v2(struct event *e)
{
    free(e);
    return 0;
}

/* --- bench gpu: device memory, kernels, peers --------------------------------------------------
 * Device memory is host memory (the pointers are malloc's). Our PTX kernels are recognised by
 * name and run here in C over that memory: gpuvet_fill and gpuvet_check really write and verify
 * the patterns, gpuvet_copy really copies; each advances the simulated GPU time by the bytes it
 * moved at $GPUVET_MOCK_GPU_MEM_BW (bytes/s read + written, default 700e9), gpuvet_fma by its
 * flops at $GPUVET_MOCK_GPU_FLOPS (default 25e12). Knobs, each "busid:value[,busid:value]":
 *   GPUVET_MOCK_GPU_SLOW=busid:factor   that GPU runs at factor x the rates (0.8: 20 % slower)
 *   GPUVET_MOCK_GPU_BAD_MEMORY=busid:n  n words of its memory flip a bit after every write
 *   GPUVET_MOCK_GPU_NO_PEER=busid[,busid]  no peer access to or from it (copies go through the
 *                                      host, at the simulated PCIe rate)
 *   GPUVET_MOCK_GPU_BLIND=busid         its check kernel counts the words it checked but no mismatch
 *                                      (a checker that cannot see: the positive control catches it)
 *   GPUVET_MOCK_GPU_SHORT_CHECK=busid   its check kernel reads only the first half of the words
 * $GPUVET_MOCK_GPU_FREE_MIB (default 64) is the free memory cuMemGetInfo reports. */

static char bus_of[MAX_DEVICES][32];

/* Remembers which bus id a device index is (cuDeviceGetByPCIBusId found it). */
static void note_bus(int device, const char *bus_id)
{
    if (device >= 0 && device < MAX_DEVICES)
        snprintf(bus_of[device], sizeof bus_of[device], "%s", bus_id);
}

static bool same_bus(const char *a, const char *b)
{
    unsigned d1, b1, s1, d2, b2, s2;
    return sscanf(a, "%x:%x:%x", &d1, &b1, &s1) == 3 && sscanf(b, "%x:%x:%x", &d2, &b2, &s2) == 3 && d1 == d2 &&
           b1 == b2 && s1 == s2;
}

/* The value $name gives device's bus id ("busid:value" items), or NULL. */
static const char *knob(const char *name, int device, char *buf, size_t size)
{
    const char *v = getenv(name);
    if (!v || device < 0 || device >= MAX_DEVICES || !bus_of[device][0])
        return NULL;
    char list[1024];
    snprintf(list, sizeof list, "%s", v);
    char *save = NULL;
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':');
        /* "busid" alone (NO_PEER), or "busid:value": a bus id has two colons itself. */
        int colons = 0;
        for (char *c = item; *c; c++)
            colons += *c == ':';
        const char *value = "";
        if (colons >= 3 && colon) {
            *colon = '\0';
            value = colon + 1;
        }
        if (same_bus(item, bus_of[device])) {
            snprintf(buf, size, "%s", value);
            return buf;
        }
    }
    return NULL;
}

static bool knob_set(const char *name, int device)
{
    char buf[64];
    return knob(name, device, buf, sizeof buf) != NULL;
}

static CUresult sticky(void)
{
    return current_device >= 0 && current_device < 64 && ecc_failed[current_device] ? ECC_UNCORRECTABLE : 0;
}

static double rate(const char *name, double fallback)
{
    const char *v = getenv(name);
    double r = v && *v ? atof(v) : fallback;
    char buf[64];
    const char *slow = knob("GPUVET_MOCK_GPU_SLOW", current_device, buf, sizeof buf);
    if (slow && atof(slow) > 0)
        r *= atof(slow);
    return r;
}

/* Host work that stands for GPU work: the simulated clock does not see its time. */
static double host_work_began;
static void host_work_begin(void) { host_work_began = mock_now(); }
static void host_work_end(void) { mock_host_seconds += mock_now() - host_work_began; }

static void busy_for(double seconds)
{
    double now = mock_now();
    double start = idle_event_at >= 0 ? idle_event_at : now;
    if (start < mock_busy_until)
        start = mock_busy_until;
    mock_busy_until = start + seconds;
}

void mock_gpu_busy_for(double seconds) { busy_for(seconds); }

/* 4 multiprocessors; compute capability $GPUVET_MOCK_GPU_CC (default 8.6, the A5000's: no FP8). */
CUresult cuDeviceGetAttribute(int *value, int attribute, int device)
{
    (void)device;
    const char *cc = getenv("GPUVET_MOCK_GPU_CC");
    int major = 8, minor = 6;
    if (cc && sscanf(cc, "%d.%d", &major, &minor) != 2)
        major = minor = 0;
    *value = attribute == 16 ? 4 : attribute == 75 ? major : attribute == 76 ? minor : 0;
    return 0;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    const char *v = getenv("GPUVET_MOCK_GPU_FREE_MIB");
    *free_bytes = (size_t)(v && *v ? atof(v) : 64) << 20;
    *total = *free_bytes * 2;
    return 0;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void *stream)
{
    (void)stream;
    (void)dst, (void)src; /* nothing reads what the bandwidth copies wrote: only their time is simulated */
    if (!noop())
        busy_for(2.0 * bytes / rate("GPUVET_MOCK_GPU_MEM_BW", 700e9));
    return sticky();
}

static bool peer_ok(int a, int b)
{
    char buf[8];
    return !knob("GPUVET_MOCK_GPU_NO_PEER", a, buf, sizeof buf) && !knob("GPUVET_MOCK_GPU_NO_PEER", b, buf, sizeof buf);
}

CUresult cuDeviceCanAccessPeer(int *can, int device, int peer)
{
    *can = device != peer && peer_ok(device, peer);
    return 0;
}

CUresult cuCtxEnablePeerAccess(void *peer, int flags)
{
    int device = (int)((char *)peer - context_of);
    return flags != 0 || !peer_ok(current_device, device) ? INVALID_VALUE : 0;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx, size_t bytes, void *stream)
{
    (void)stream;
    int to = (int)((char *)dst_ctx - context_of), from = (int)((char *)src_ctx - context_of);
    host_work_begin();
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    host_work_end();
    /* Through the host without peer access: down one link and up the other. */
    double r = peer_ok(from, to) ? rate("GPUVET_MOCK_GPU_PEER_BW", 20e9) : LINK_BYTES_S / 2;
    /* $GPUVET_MOCK_GPU_PEER_SLOW=busid:factor: copies to or from that GPU at factor x the rate (a GPU on
     * a slower link than the others). */
    char buf[64];
    const char *slow = knob("GPUVET_MOCK_GPU_PEER_SLOW", from, buf, sizeof buf);
    if (!slow)
        slow = knob("GPUVET_MOCK_GPU_PEER_SLOW", to, buf, sizeof buf);
    if (slow && atof(slow) > 0)
        r *= atof(slow);
    busy_for(bytes / r);
    return 0;
}

struct function {
    char name[32];
};
static struct function functions[8];
static int nfunctions;
static int modules;
static char *module_image; /* the PTX last loaded */

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values)
{
    /* Only PTX text: what the driver would compile; a refusal fills the error log option. */
    if (!image || strncmp((const char *)image, ".version ", 9) != 0 || getenv("GPUVET_MOCK_CUDA_BAD_PTX")) {
        for (unsigned i = 0; i + 1 < n; i++)
            if (options[i] == 5 && options[i + 1] == 6)
                snprintf(values[i], (size_t)(uintptr_t)values[i + 1], "ptxas fatal   : mock refuses this PTX");
        return 218; /* CUDA_ERROR_INVALID_PTX */
    }
    free(module_image);
    module_image = strdup((const char *)image);
    *module = &modules;
    return 0;
}

CUresult cuModuleUnload(void *module)
{
    if (module != &modules)
        return INVALID_VALUE;
    free(module_image); /* gpuvet unloads the library after: nothing may stay allocated here */
    module_image = NULL;
    return 0;
}

CUresult cuModuleGetFunction(struct function **f, void *module, const char *name)
{
    (void)module;
    char entry[64];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (!module_image || !strstr(module_image, entry))
        return NOT_FOUND; /* CUDA_ERROR_NOT_FOUND: the module has no such kernel */
    for (int i = 0; i < nfunctions; i++)
        if (!strcmp(functions[i].name, name)) {
            *f = &functions[i];
            return 0;
        }
    if (nfunctions == 8)
        return NOT_FOUND;
    snprintf(functions[nfunctions].name, sizeof functions[nfunctions].name, "%s", name);
    *f = &functions[nfunctions++];
    return 0;
}

/* Where the injected bad words of this device are: spread over the buffer. */
static void corrupt(uint32_t *words, unsigned long long n)
{
    char buf[32];
    const char *bad = knob("GPUVET_MOCK_GPU_BAD_MEMORY", current_device, buf, sizeof buf);
    long long count = bad ? atoll(bad) : 0;
    for (long long i = 0; i < count && (unsigned long long)i < n; i++)
        words[(unsigned long long)i * (n / (unsigned long long)count)] ^= 0x10u; /* one stuck bit */
}

CUresult cuLaunchKernel(struct function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **args, void **extra)
{
    (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)stream, (void)extra;
    hang_if("cuLaunchKernel");
    if (!f || !args)
        return INVALID_VALUE;
    if (sticky())
        return sticky();
    if (noop())
        return 0;
    double mem_bw = rate("GPUVET_MOCK_GPU_MEM_BW", 700e9);
    host_work_begin();
    if (!strcmp(f->name, "gpuvet_fill") || !strcmp(f->name, "gpuvet_check")) {
        uint32_t *base = (uint32_t *)(uintptr_t) * (CUdeviceptr *)args[0];
        unsigned long long n = *(unsigned long long *)args[1];
        uint32_t mask = *(uint32_t *)args[2], pattern = *(uint32_t *)args[3];
        bool fill = !strcmp(f->name, "gpuvet_fill");
        unsigned long long *errors = fill ? NULL : (unsigned long long *)(uintptr_t) * (CUdeviceptr *)args[4];
        unsigned long long *checked = fill ? NULL : (unsigned long long *)(uintptr_t) * (CUdeviceptr *)args[5];
        bool blind = knob_set("GPUVET_MOCK_GPU_BLIND", current_device);
        if (!fill && n > 1 && knob_set("GPUVET_MOCK_GPU_SHORT_CHECK", current_device))
            n /= 2; /* a check kernel cut short: it reads half the words */
        for (unsigned long long i = 0; i < n; i++) {
            uint32_t want = ((uint32_t)(uintptr_t)&base[i] & mask) ^ pattern;
            if (fill)
                base[i] = want;
            else if (base[i] != want && !blind)
                ++*errors;
        }
        if (fill)
            corrupt(base, n);
        else
            *checked += n;
        if (!fill && knob_set("GPUVET_MOCK_GPU_ECC", current_device))
            ecc_failed[current_device] = true; /* shows at the next synchronisation, as a kernel's error does */
        host_work_end();
        busy_for(4.0 * n / mem_bw);
    } else if (!strcmp(f->name, "gpuvet_copy")) {
        unsigned long long chunks = *(unsigned long long *)args[2]; /* only its time: nothing reads the copy */
        host_work_end();
        busy_for(2.0 * 16 * chunks / mem_bw);
    } else if (!strcmp(f->name, "gpuvet_fma")) {
        float *out = (float *)(uintptr_t) * (CUdeviceptr *)args[0];
        unsigned iterations = *(unsigned *)args[1];
        double threads = (double)gx * bx;
        for (unsigned long long t = 0; t < (unsigned long long)threads; t++)
            out[t] = (float)iterations;
        host_work_end();
        busy_for(threads * GPU_FMA_FLOPS_PER_ITERATION * iterations / rate("GPUVET_MOCK_GPU_FLOPS", 25e12));
    } else {
        host_work_end();
        return NOT_FOUND;
    }
    return 0;
}

/* --- cuBLAS (libcublas.so.13): the burn-in's GEMM ------------------------------------------- */

/* A handle works on the device current when it was created, as cuBLAS's does. The product is
 * written once (the burn's inputs never change): zeros, but the entries the burn checks on the CPU
 * (gpu_burn_sample) summed from the inputs. $GPUVET_MOCK_GPU_WRONG=busid: that GPU's result has
 * the first checked entry off by one (busid:unchecked: an entry the CPU does not check);
 * $GPUVET_MOCK_GPU_XID=busid:code logs an Xid for it (log_xid). The GEMM takes 2mnk / $GPUVET_MOCK_GPU_BF16_FLOPS (default 80e12, times
 * $GPUVET_MOCK_GPU_SLOW's factor) of real time, slept in steps of at least 1 ms. */
struct mock_blas {
    int device;
    bool written;
    double busy_until, flops_s;
};

/* $GPUVET_MOCK_GPU_XID=busid:code: the driver's Xid line for that GPU is appended to the kernel log
 * the tests give gpuvet ($GPUVET_TEST_KERNEL_LOG) at the GPU's first GEMM, as the driver prints one
 * while a GPU fails under load. */
static void log_xid(int device, int code)
{
    const char *path = getenv("GPUVET_TEST_KERNEL_LOG");
    unsigned domain, bus, dev;
    if (!path || sscanf(bus_of[device], "%x:%x:%x", &domain, &bus, &dev) != 3)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    fprintf(f, "[ 9000.%06d] NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=4242, name=gpuvet, %s\n", device, domain, bus, dev,
            code, code == 79 ? "GPU has fallen off the bus." : "Ch 00000008, intr 10000000. MMU Fault");
    fclose(f);
}

/* The wall-clock time this thread's GEMMs end: cuStreamSynchronize waits for it. */
static _Thread_local double blas_busy_until;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* $name (flops/s, default fallback) times that device's $GPUVET_MOCK_GPU_SLOW factor. */
static double gemm_rate(const char *name, double fallback, int device)
{
    const char *v = getenv(name);
    double r = v && *v ? atof(v) : fallback;
    char buf[64];
    const char *slow = knob("GPUVET_MOCK_GPU_SLOW", device, buf, sizeof buf);
    if (slow && atof(slow) > 0)
        r *= atof(slow);
    return r;
}

int cublasCreate_v2(struct mock_blas **h)
{
    *h = calloc(1, sizeof **h);
    if (!*h)
        return 3; /* CUBLAS_STATUS_ALLOC_FAILED */
    (*h)->device = current_device;
    if (gemm_clock < 0)
        gemm_clock = 0;
    return 0;
}
int cublasDestroy_v2(struct mock_blas *h)
{
    free(h);
    return 0;
}
int cublasSetStream_v2(struct mock_blas *h, void *stream)
{
    (void)h, (void)stream;
    return 0;
}
int cublasGemmEx(struct mock_blas *h, int transa, int transb, int m, int n, int k, const void *alpha, const void *a,
                 int a_type, int lda, const void *b, int b_type, int ldb, const void *beta, void *c, int c_type, int ldc,
                 int compute_type, int algo)
{
    (void)alpha, (void)beta, (void)algo;
    if (transa != 0 || transb != 0 || a_type != 14 || b_type != 14 || c_type != 0 || compute_type != 68 || m != n ||
        n != k || lda != m || ldb != k || ldc != m || m <= 0)
        return 7; /* CUBLAS_STATUS_INVALID_VALUE: the stand-in knows only the burn's call */
    if (!h->written) {
        const uint16_t *pa = a, *pb = b;
        float *pc = c;
        memset(pc, 0, (size_t)m * (size_t)n * sizeof *pc);
        for (unsigned s = 0; s < GPU_BURN_SAMPLES; s++) {
            int row, col;
            gpu_burn_sample(s, n, &row, &col);
            float sum = 0;
            for (int l = 0; l < k; l++)
                sum += gpu_burn_bf16_value(pa[(size_t)row + (size_t)l * lda]) * gpu_burn_bf16_value(pb[(size_t)l + (size_t)col * ldb]);
            pc[(size_t)row + (size_t)col * ldc] = sum;
        }
        char how[64];
        if (knob("GPUVET_MOCK_GPU_XID", h->device, how, sizeof how))
            log_xid(h->device, atoi(how));
        if (knob("GPUVET_MOCK_GPU_WRONG", h->device, how, sizeof how) && strcmp(how, "fp8")) {
            int row, col;
            gpu_burn_sample(0, n, &row, &col);
            pc[!strcmp(how, "unchecked") ? (size_t)m * (size_t)n - 1 : (size_t)row + (size_t)col * ldc] += 1;
        }
        h->written = true;
    }
    if (!(h->flops_s > 0)) /* once: the host's own time per call should stay far below the GEMM's */
        h->flops_s = gemm_rate("GPUVET_MOCK_GPU_BF16_FLOPS", 80e12, h->device);
    gemm_queue(&h->busy_until, 2.0 * m * (double)n * k / h->flops_s);
    return 0;
}

/* One GEMM of `seconds` on this thread's simulated clock (what events read), and in real time, queued
 * after the last one: the host sleeps while the queue is over about 1 ms, as a stream's. */
static void gemm_queue(double *busy_until, double seconds)
{
    gemm_clock += seconds;
    double now = wall_now(), start = *busy_until > now ? *busy_until : now;
    *busy_until = start + seconds;
    blas_busy_until = *busy_until;
    if (*busy_until - now > 1e-3)
        blas_wait();
}

static void blas_wait(void)
{
    double left = blas_busy_until - wall_now();
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* --- cuBLASLt (libcublasLt.so.13): the burn-in's FP8 GEMM ------------------------------------ */

/* The stand-in knows only the burn's FP8 call, in the form NVIDIA's cuBLAS guide requires for FP8
 * (E4M3 A and B, A transposed, B not, FP32 compute and scale, dimensions multiples of 16); anything
 * else is CUBLAS_STATUS_NOT_SUPPORTED (15). The product is written once: zeros but the checked
 * entries; $GPUVET_MOCK_GPU_WRONG=busid:fp8 puts the first one off by one. Each matmul takes
 * 2mnk / $GPUVET_MOCK_GPU_FP8_FLOPS (default 160e12, times the GPU's slow factor). */
struct mock_lt {
    int device;
    bool written;
    double busy_until, flops_s;
};
struct mock_lt_desc {
    int compute, scale, transa, transb;
    const void *a_scale, *b_scale;
};
struct mock_lt_layout {
    int type;
    uint64_t rows, cols;
    int64_t ld;
};

int cublasLtCreate(struct mock_lt **h)
{
    *h = calloc(1, sizeof **h);
    if (!*h)
        return 3;
    (*h)->device = current_device;
    if (gemm_clock < 0)
        gemm_clock = 0;
    return 0;
}
int cublasLtDestroy(struct mock_lt *h)
{
    free(h);
    return 0;
}
int cublasLtMatmulDescCreate(struct mock_lt_desc **d, int compute, int scale)
{
    *d = calloc(1, sizeof **d);
    if (!*d)
        return 3;
    (*d)->compute = compute;
    (*d)->scale = scale;
    return 0;
}
int cublasLtMatmulDescDestroy(struct mock_lt_desc *d)
{
    free(d);
    return 0;
}
int cublasLtMatmulDescSetAttribute(struct mock_lt_desc *d, int attribute, const void *value, size_t size)
{
    if ((attribute == 3 || attribute == 4) && size == sizeof(int))
        memcpy(attribute == 3 ? &d->transa : &d->transb, value, size);
    else if ((attribute == 17 || attribute == 18) && size == sizeof(void *))
        memcpy(attribute == 17 ? &d->a_scale : &d->b_scale, value, size);
    else
        return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    return 0;
}
int cublasLtMatrixLayoutCreate(struct mock_lt_layout **l, int type, uint64_t rows, uint64_t cols, int64_t ld)
{
    *l = calloc(1, sizeof **l);
    if (!*l)
        return 3;
    **l = (struct mock_lt_layout){type, rows, cols, ld};
    return 0;
}
int cublasLtMatrixLayoutDestroy(struct mock_lt_layout *l)
{
    free(l);
    return 0;
}
int cublasLtMatmul(struct mock_lt *h, struct mock_lt_desc *d, const void *alpha, const void *a,
                   struct mock_lt_layout *la, const void *b, struct mock_lt_layout *lb, const void *beta, const void *c,
                   struct mock_lt_layout *lc, void *out, struct mock_lt_layout *ld, const void *algo, void *workspace,
                   size_t workspace_size, void *stream)
{
    (void)alpha, (void)beta, (void)algo, (void)workspace, (void)workspace_size, (void)stream, (void)c;
    if (d->compute != 68 || d->scale != 0 || d->transa != 1 || d->transb != 0 || la->type != 28 || lb->type != 28 ||
        lc->type != 0 || ld->type != 0 || la->rows % 16 || la->cols % 16 || lb->cols % 16 || la->rows != lb->rows ||
        la->ld != (int64_t)la->rows || lb->ld != (int64_t)lb->rows || la->cols != la->rows || lb->cols != lb->rows)
        return 15;
    int n = (int)la->cols, k = (int)la->rows;
    if (!h->written) {
        const uint8_t *pa = a, *pb = b;
        float *pd = out;
        memset(pd, 0, (size_t)n * (size_t)n * sizeof *pd);
        for (unsigned s = 0; s < GPU_BURN_SAMPLES; s++) {
            int row, col;
            gpu_burn_sample(s, n, &row, &col);
            float sum = 0;
            for (int l = 0; l < k; l++)
                sum += gpu_burn_fp8_value(pa[(size_t)l + (size_t)row * k]) * gpu_burn_fp8_value(pb[(size_t)l + (size_t)col * k]);
            pd[(size_t)row + (size_t)col * n] = sum;
        }
        char how[64];
        if (knob("GPUVET_MOCK_GPU_WRONG", h->device, how, sizeof how) && !strcmp(how, "fp8")) {
            int row, col;
            gpu_burn_sample(0, n, &row, &col);
            pd[(size_t)row + (size_t)col * n] += 1;
        }
        h->written = true;
    }
    if (!(h->flops_s > 0))
        h->flops_s = gemm_rate("GPUVET_MOCK_GPU_FP8_FLOPS", 160e12, h->device);
    gemm_queue(&h->busy_until, 2.0 * n * (double)n * k / h->flops_s);
    return 0;
}
