/* `bench gpu --burn`: every GPU loaded at once, as a renter's burn-in loads a node (gpu-burn, DCGM
 * diagnostics levels 2-3): a BF16 GEMM on the tensor cores through cuBLAS (cublasGemmEx, FP32
 * accumulation), one thread per GPU, for --duration seconds, with NVML read every second.
 *
 * Inputs are the same on every GPU: multiples of 1/16 in [-0.5, 0.5]. Every product is then a
 * multiple of 2^-8 and every partial sum of k <= 8192 of them stays below 2^11, so FP32
 * accumulation is exact in any order: every healthy GPU, whatever its architecture or cuBLAS's
 * choice of kernel, returns the same bits. A result that differs from the node's, or a checked
 * entry that differs from the CPU's sum, is a wrong result. The judgement is GPU_BURN_FAILED
 * (rules/gpu_bench.c). */
#include "bench/gpu_burn.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/gpu_clocks.h"
#include "gpu/cublas.h"
#include "gpu/cuda.h"
#include "util/deadline.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/pciaddr.h"
#include "model/gpu.h"
#include "model/kernel_log.h"
#include "util/sanitize.h"

#define MAX_BURN_GPUS 64
/* FP8 tensor cores: compute capability 8.9 (Ada) and later (Hopper 9.0, Blackwell 10.x and 12.x),
 * NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities" (FP8 in the tensor-core table). */
#define FP8_MIN_CC 89

/* One precision's GEMMs on one GPU: how many, their GPU time, and the result's check. */
struct gemm_result {
    bool ran;         /* timed and checked */
    int n;
    long long gemms;
    double seconds;   /* GPU time of the batches, by CUDA events */
    uint64_t checksum;
    int mismatches;   /* checked entries unlike the CPU's */
    char err[512];    /* why it gave no result */
};

struct burn_job {
    const struct cuda *api;
    const struct cublas *blas;
    const struct cublaslt *lt; /* NULL: fp8_why says why FP8 is not run */
    char fp8_why[512];
    struct gpu_clocks clocks; /* NVML, read every second */
    char bus_id[32];
    double seconds;
    /* results */
    atomic_bool done;
    char err[512]; /* the GPU could not be set up: neither GEMM ran */
    int cc;        /* compute capability x 10; 0 unknown */
    struct gemm_result bf16, fp8;
    bool ecc_known;
    unsigned long long ecc_first, ecc_last;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The BF16 inputs: xorshift from a fixed seed, k/16 for k in -8..8, as bfloat16 bits. */
static void fill_inputs(uint16_t *v, size_t count, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        float f = (float)((int)(bench_random(&s) % 17u) - 8) / 16.0f;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        v[i] = (uint16_t)(bits >> 16);
    }
}

/* The FP8 inputs: -1, 0 or 1 in E4M3 (0xb8, 0x00, 0x38). Every partial sum is an integer of at most
 * n <= 8192 = 2^13, exact even in an accumulator of 14 significant bits (Hopper's FP8 tensor cores
 * keep about that many before cuBLASLt promotes to FP32: DeepSeek-V3 technical report, 3.3.2). */
static void fill_fp8_inputs(uint8_t *v, size_t count, uint64_t seed)
{
    static const uint8_t values[3] = {0xb8, 0x00, 0x38};
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++)
        v[i] = values[bench_random(&s) % 3u];
}

static void sample_ecc(struct burn_job *j)
{
    const struct nvml *n = j->clocks.nvml;
    unsigned long long v;
    if (!n || !n->ecc_errors || n->ecc_errors(j->clocks.dev, NVML_ECC_UNCORRECTED, NVML_ECC_VOLATILE, &v) != NVML_SUCCESS)
        return;
    if (!j->ecc_known)
        j->ecc_first = v;
    j->ecc_known = true;
    j->ecc_last = v;
}

static void sample(struct burn_job *j)
{
    cuda_call_begin("NVML's clock, clock-event, temperature, power and ECC queries");
    gpu_clocks_sample(&j->clocks);
    sample_ecc(j);
    cuda_call_done();
}

#define CALL(name, call)                                                                                             \
    do {                                                                                                             \
        if (CUDA_CALL(api, name, call, err, errlen) != CUDA_SUCCESS)                                                 \
            goto out;                                                                                                \
    } while (0)

#define BLAS(name, call)                                                                                             \
    do {                                                                                                             \
        cuda_call_begin(name);                                                                                       \
        cublas_status st_ = (call);                                                                                  \
        cuda_call_done();                                                                                            \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                          \
            i18n_snprintf(err, errlen, "%s failed (cuBLAS status %d)", name, st_);                                   \
            goto out;                                                                                                \
        }                                                                                                            \
    } while (0)

/* The GPU, its buffers and the two libraries' handles, while one thread burns it. */
struct burn_gpu {
    struct burn_job *j;
    cu_stream stream;
    cu_deviceptr a, b, c, scale;
    int n;
    cublas_handle handle;
    cublaslt_handle lt;
    cublaslt_matmul_desc desc;
    cublaslt_layout layout_a, layout_b, layout_c;
};

/* Queues one GEMM: 0, or -1 with err. */
typedef int queue_gemm_fn(struct burn_gpu *g, char *err, size_t errlen);

static int queue_bf16(struct burn_gpu *g, char *err, size_t errlen)
{
    static const float one = 1.0f, zero = 0.0f;
    int n = g->n;
    void *pa = (void *)(uintptr_t)g->a, *pb = (void *)(uintptr_t)g->b, *pc = (void *)(uintptr_t)g->c;
    BLAS("cublasGemmEx", g->j->blas->gemm_ex(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, pa, CUDA_R_16BF, n, pb,
                                             CUDA_R_16BF, n, &zero, pc, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                             CUBLAS_GEMM_DEFAULT));
    return 0;
out:
    return -1;
}

static int queue_fp8(struct burn_gpu *g, char *err, size_t errlen)
{
    static const float one = 1.0f, zero = 0.0f;
    void *pa = (void *)(uintptr_t)g->a, *pb = (void *)(uintptr_t)g->b, *pc = (void *)(uintptr_t)g->c;
    BLAS("cublasLtMatmul", g->j->lt->matmul(g->lt, g->desc, &one, pa, g->layout_a, pb, g->layout_b, &zero, pc,
                                            g->layout_c, pc, g->layout_c, NULL, NULL, 0, g->stream));
    return 0;
out:
    return -1;
}

/* GEMMs for `seconds`, in batches of about 0.2 s (the first one GEMM, which sizes them), each timed
 * by CUDA events on the GPU (the host's own scheduling is not GPU time), NVML read between them once
 * a second. 0, or -1 with err. */
static int timed_gemms(struct burn_gpu *g, queue_gemm_fn *queue, double seconds, struct gemm_result *r, char *err,
                       size_t errlen)
{
    struct burn_job *j = g->j;
    const struct cuda *api = j->api;
    cu_event begin = NULL, end = NULL;
    int rc = -1;
    CALL("cuEventCreate", api->event_create(&begin, 0));
    CALL("cuEventCreate", api->event_create(&end, 0));
    double start = now_s(), next_sample = start + 1, batch_s = 0.2;
    long long batch = 1;
    while (now_s() - start < seconds) {
        CALL("cuEventRecord", api->event_record(begin, g->stream));
        for (long long i = 0; i < batch; i++)
            if (queue(g, err, errlen))
                goto out;
        CALL("cuEventRecord", api->event_record(end, g->stream));
        CALL("cuEventSynchronize", api->event_synchronize(end));
        float ms = 0;
        CALL("cuEventElapsedTime", api->event_elapsed(&ms, begin, end));
        if (!(ms > 0)) { /* 0, negative or NaN: the events saw no work */
            i18n_snprintf(err, errlen, "not a measurement: the GPU's events say %lld GEMMs took %.3g ms", batch, (double)ms);
            goto out;
        }
        double took = ms / 1e3;
        r->seconds += took;
        r->gemms += batch;
        double per = took / (double)batch;
        long long grown = batch * 10; /* at most tenfold: one fast batch must not queue minutes */
        batch = (long long)(batch_s / per);
        if (batch > grown)
            batch = grown;
        if (batch < 1)
            batch = 1;
        if (batch > 1000000)
            batch = 1000000;
        if (now_s() >= next_sample) {
            sample(j);
            next_sample += 1;
        }
    }
    rc = 0;
out:
    if (begin)
        api->event_destroy(begin);
    if (end)
        api->event_destroy(end);
    return rc;
}

/* C back from the GPU: its FNV-1a hash, and `sampled` entries against the CPU's sums. */
static int check_result(struct burn_gpu *g, float *result, double (*entry)(const void *inputs, int n, int row, int col),
                        const void *inputs, struct gemm_result *r, char *err, size_t errlen)
{
    const struct cuda *api = g->j->api;
    size_t elems = (size_t)g->n * (size_t)g->n;
    CALL("cuMemcpyDtoH", api->dtoh(result, g->c, elems * sizeof(float)));
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *bytes = (const unsigned char *)result;
    for (size_t i = 0; i < elems * sizeof(float); i++)
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    r->checksum = h;
    for (unsigned s = 0; s < GPU_BURN_SAMPLES; s++) {
        int row, col;
        gpu_burn_sample(s, g->n, &row, &col);
        r->mismatches += (double)result[(size_t)row + (size_t)col * g->n] != entry(inputs, g->n, row, col);
    }
    r->ran = true;
    return 0;
out:
    return -1;
}

/* C = A B, all column-major, n x n: entry (row, col). */
static double bf16_entry(const void *inputs, int n, int row, int col)
{
    const uint16_t *a = inputs, *b = a + (size_t)n * n;
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += (double)gpu_burn_bf16_value(a[(size_t)row + (size_t)k * n]) * gpu_burn_bf16_value(b[(size_t)k + (size_t)col * n]);
    return sum;
}

/* C = A^T B (A stored k x m, as cuBLASLt's FP8 GEMM wants it): entry (row, col). */
static double fp8_entry(const void *inputs, int n, int row, int col)
{
    const uint8_t *a = inputs, *b = a + (size_t)n * n;
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += (double)gpu_burn_fp8_value(a[(size_t)k + (size_t)row * n]) * gpu_burn_fp8_value(b[(size_t)k + (size_t)col * n]);
    return sum;
}

/* The BF16 GEMM through cuBLAS for `seconds`, then its result checked. */
static void burn_bf16(struct burn_gpu *g, void *host, float *result, double seconds)
{
    struct burn_job *j = g->j;
    const struct cuda *api = j->api;
    char *err = j->bf16.err;
    size_t errlen = sizeof j->bf16.err, elems = (size_t)g->n * (size_t)g->n;
    uint16_t *inputs = host;
    fill_inputs(inputs, elems, 0x9e3779b97f4a7c15ull);
    fill_inputs(inputs + elems, elems, 0xd1b54a32d192ed03ull);
    CALL("cuMemcpyHtoD", api->htod(g->a, inputs, elems * 2));
    CALL("cuMemcpyHtoD", api->htod(g->b, inputs + elems, elems * 2));
    BLAS("cublasCreate_v2", j->blas->create(&g->handle));
    BLAS("cublasSetStream_v2", j->blas->set_stream(g->handle, g->stream));
    if (timed_gemms(g, queue_bf16, seconds, &j->bf16, err, errlen) == 0)
        check_result(g, result, bf16_entry, inputs, &j->bf16, err, errlen);
out:
    return;
}

/* The FP8 GEMM through cuBLASLt (E4M3 A and B, A transposed, FP32 out, compute and scales: the
 * form NVIDIA's cuBLAS guide requires for FP8, "cublasLtMatmul()") for `seconds`, then checked. */
static void burn_fp8(struct burn_gpu *g, void *host, float *result, double seconds)
{
    struct burn_job *j = g->j;
    const struct cuda *api = j->api;
    const struct cublaslt *lt = j->lt;
    char *err = j->fp8.err;
    size_t errlen = sizeof j->fp8.err, elems = (size_t)g->n * (size_t)g->n;
    uint8_t *inputs = host;
    fill_fp8_inputs(inputs, elems, 0x2545f4914f6cdd1dull);
    fill_fp8_inputs(inputs + elems, elems, 0x9fb21c651e98df25ull);
    CALL("cuMemcpyHtoD", api->htod(g->a, inputs, elems));
    CALL("cuMemcpyHtoD", api->htod(g->b, inputs + elems, elems));
    static const float unit_scale = 1.0f;
    CALL("cuMemAlloc", api->mem_alloc(&g->scale, 256));
    CALL("cuMemcpyHtoD", api->htod(g->scale, &unit_scale, sizeof unit_scale));
    void *scale = (void *)(uintptr_t)g->scale;
    int transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    BLAS("cublasLtCreate", lt->create(&g->lt));
    BLAS("cublasLtMatmulDescCreate", lt->desc_create(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    BLAS("cublasLtMatmulDescSetAttribute", lt->desc_set(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    BLAS("cublasLtMatmulDescSetAttribute", lt->desc_set(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    BLAS("cublasLtMatmulDescSetAttribute", lt->desc_set(g->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale));
    BLAS("cublasLtMatmulDescSetAttribute", lt->desc_set(g->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale));
    BLAS("cublasLtMatrixLayoutCreate", lt->layout_create(&g->layout_a, CUDA_R_8F_E4M3, (uint64_t)g->n, (uint64_t)g->n, g->n));
    BLAS("cublasLtMatrixLayoutCreate", lt->layout_create(&g->layout_b, CUDA_R_8F_E4M3, (uint64_t)g->n, (uint64_t)g->n, g->n));
    BLAS("cublasLtMatrixLayoutCreate", lt->layout_create(&g->layout_c, CUDA_R_32F, (uint64_t)g->n, (uint64_t)g->n, g->n));
    if (timed_gemms(g, queue_fp8, seconds, &j->fp8, err, errlen) == 0)
        check_result(g, result, fp8_entry, inputs, &j->fp8, err, errlen);
out:
    return;
}

static void burn_gpu_close(struct burn_gpu *g)
{
    const struct cuda *api = g->j->api;
    if (g->handle)
        g->j->blas->destroy(g->handle);
    if (g->layout_a)
        g->j->lt->layout_destroy(g->layout_a);
    if (g->layout_b)
        g->j->lt->layout_destroy(g->layout_b);
    if (g->layout_c)
        g->j->lt->layout_destroy(g->layout_c);
    if (g->desc)
        g->j->lt->desc_destroy(g->desc);
    if (g->lt)
        g->j->lt->destroy(g->lt);
    if (g->stream)
        api->stream_synchronize(g->stream);
    cu_deviceptr buffers[] = {g->a, g->b, g->c, g->scale};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            api->mem_free(buffers[i]);
    if (g->stream)
        api->stream_destroy(g->stream);
}

static void burn_one(struct burn_job *j)
{
    const struct cuda *api = j->api;
    char *err = j->err;
    size_t errlen = sizeof j->err;
    struct burn_gpu g = {.j = j};
    int device = -1, major = 0, minor = 0;
    cu_context ctx = NULL;
    void *host = NULL;
    float *result = NULL;
    size_t free_bytes = 0, total = 0;
    CALL("cuDeviceGetByPCIBusId", api->device_by_bus_id(&device, j->bus_id));
    CALL("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&ctx, device));
    CALL("cuCtxSetCurrent", api->ctx_set_current(ctx));
    CALL("cuStreamCreate", api->stream_create(&g.stream, 1));
    CALL("cuMemGetInfo", api->mem_get_info(&free_bytes, &total));
    if (api->device_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS &&
        api->device_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS &&
        major > 0 && major < 100 && minor >= 0 && minor < 10)
        j->cc = major * 10 + minor;
    /* A, B (bfloat16) and C (float): 8 n^2 bytes, at most a quarter of the free memory. The FP8 GEMM
     * reuses them (A and B of n^2 bytes). */
    int n = GPU_BURN_MAX_N;
    while (n > 64 && 8.0 * n * n > free_bytes / 4.0)
        n /= 2;
    g.n = j->bf16.n = j->fp8.n = n;
    size_t elems = (size_t)n * (size_t)n;
    if (8.0 * n * n > free_bytes / 4.0) {
        i18n_snprintf(err, errlen, "too little free GPU memory for the GEMM (%zu MiB)", free_bytes >> 20);
        goto out;
    }
    host = malloc(elems * 2 * sizeof(uint16_t));
    result = malloc(elems * sizeof *result);
    if (!host || !result) {
        snprintf(err, errlen, "%s", N_("no memory for the measurement"));
        goto out;
    }
    CALL("cuMemAlloc", api->mem_alloc(&g.a, elems * 2));
    CALL("cuMemAlloc", api->mem_alloc(&g.b, elems * 2));
    CALL("cuMemAlloc", api->mem_alloc(&g.c, elems * sizeof(float)));
    if (j->lt && j->cc > 0 && j->cc < FP8_MIN_CC) {
        i18n_snprintf(j->fp8_why, sizeof j->fp8_why,
                      "compute capability %d.%d has no FP8 tensor cores (8.9 and later: Ada, Hopper, Blackwell)",
                      j->cc / 10, j->cc % 10);
        j->lt = NULL;
    } else if (j->lt && j->cc == 0) {
        snprintf(j->fp8_why, sizeof j->fp8_why, "%s", N_("the driver gave no compute capability"));
        j->lt = NULL;
    }
    sample(j);
    /* Half the time each where the GPU has FP8 tensor cores, else all of it BF16. */
    burn_bf16(&g, host, result, j->lt ? j->seconds / 2 : j->seconds);
    if (j->lt && !j->bf16.err[0])
        burn_fp8(&g, host, result, j->seconds / 2);
    else if (j->lt)
        snprintf(j->fp8_why, sizeof j->fp8_why, "%s", N_("not run: the BF16 GEMM failed first"));
    sample(j);
out:
    burn_gpu_close(&g);
    if (ctx)
        api->primary_ctx_release(device);
    free(host);
    free(result);
    atomic_store(&j->done, true);
}

static void *burn_thread(void *p)
{
    burn_one(p);
    return NULL;
}

/* --- new Xids: the kernel log read before the GPUs start and after they stop ------------------ */

struct xid_watch {
    bool watched;
    const char *why; /* English: why the Xids the burn brought cannot be told */
    struct kernel_log_info before, after;
};

static void xid_watch_begin(struct xid_watch *w, void (*read_kernel_log)(struct kernel_log_info *k))
{
    *w = (struct xid_watch){0};
    kernel_log_init(&w->before);
    kernel_log_init(&w->after);
    w->why = N_("the caller reads no kernel log");
    if (read_kernel_log)
        read_kernel_log(&w->before);
}

/* Whether the second read can tell every line the burn added: both reads whole, no event the
 * table had to drop. */
static void xid_watch_end(struct xid_watch *w, void (*read_kernel_log)(struct kernel_log_info *k))
{
    if (!read_kernel_log)
        return;
    read_kernel_log(&w->after);
    const struct kernel_log_info *unread = !w->before.read ? &w->before : !w->after.read ? &w->after : NULL;
    if (unread)
        w->why = unread->unknown_reason ? unread->unknown_reason : N_("the kernel log could not be read");
    else if (w->before.truncated || w->after.truncated)
        w->why = N_("the kernel log was read only in part (longer than gpuvet reads, or slower than its time bound)");
    else if (w->after.events_dropped > w->before.events_dropped)
        w->why = N_("the kernel log holds more distinct GPU events than gpuvet keeps");
    else
        w->watched = true;
}

static void xid_watch_free(struct xid_watch *w)
{
    kernel_log_free(&w->before);
    kernel_log_free(&w->after);
}

/* Lines of event e (the second read) that the first read did not hold: the rise of its count, or
 * at least one where its last line is another (the ring buffer dropped older lines meanwhile). */
static long lines_new(const struct kernel_log_info *before, const struct klog_event *e)
{
    for (int i = 0; i < before->nevents; i++) {
        const struct klog_event *b = &before->events[i];
        if (b->kind != e->kind || b->code != e->code || strcmp(b->bus_id, e->bus_id))
            continue;
        if (e->count > b->count)
            return e->count - b->count;
        return strcmp(e->last_time, b->last_time) != 0;
    }
    return e->count;
}

/* gpus[].xids_new: the GPU's Xids the burn brought, with the catalogue's class and meaning. */
static json_t *xids_new_json(const struct xid_watch *w, const char *bus_id)
{
    json_t *list = json_array();
    char bus[32];
    if (!pci_address_normalise(bus_id, bus))
        snprintf(bus, sizeof bus, "%s", bus_id);
    for (int i = 0; i < w->after.nevents; i++) {
        const struct klog_event *e = &w->after.events[i];
        long count = e->kind == KLOG_XID && !strcmp(e->bus_id, bus) ? lines_new(&w->before, e) : 0;
        if (count <= 0)
            continue;
        json_t *one = json_pack("{s:i, s:I, s:s}", "code", e->code, "count", (json_int_t)count, "class",
                                klog_class_name(e->klass));
        if (e->meaning)
            json_object_set_new(one, "meaning", json_text(e->meaning));
        if (e->text)
            json_object_set_new(one, "text", json_text(e->text));
        json_object_set_new(one, "last_time", json_string(e->last_time));
        json_array_append_new(list, one);
    }
    return list;
}

/* Each GPU's result against the node's: `same`, the GPUs (of the same n) that returned its result;
 * `best`, the most that any one result of its n got; `tie`, two different results got that many (then
 * neither is the node's). A result with a wrong checked entry is wrong already and has no vote. */
struct vote {
    int same, best;
    bool tie;
};

static void count_votes(const struct gemm_result *const *r, int n, struct vote *v)
{
    bool voter[MAX_BURN_GPUS] = {0};
    for (int i = 0; i < n; i++) {
        v[i] = (struct vote){0};
        voter[i] = r[i] && r[i]->ran && !r[i]->err[0] && r[i]->mismatches == 0;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            v[i].same += voter[i] && voter[k] && r[i]->n == r[k]->n && r[i]->checksum == r[k]->checksum;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            if (r[i] && voter[k] && r[i]->n == r[k]->n && v[k].same > v[i].best)
                v[i].best = v[k].same;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            v[i].tie |= voter[i] && voter[k] && v[i].same > 0 && v[i].same == v[i].best && v[k].same == v[i].best &&
                        r[i]->n == r[k]->n && r[i]->checksum != r[k]->checksum;
}

/* One GEMM's figures: gemm {n, count, seconds}, its rate under rate_key, the result's checksum and
 * checks, and whether it is the node's (null where two results were equally common). */
static void gemm_json(json_t *o, const struct gemm_result *r, const char *rate_key, const struct vote *v)
{
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->checksum);
    double flops = 2.0 * r->n * r->n * (double)r->n * (double)r->gemms;
    json_object_set_new(o, "gemm", json_pack("{s:i, s:I, s:f}", "n", r->n, "count", (json_int_t)r->gemms, "seconds",
                                             r->seconds));
    json_object_set_new(o, rate_key, r->seconds > 0 ? json_real(flops / r->seconds) : json_null());
    json_object_set_new(o, "checksum", json_string(hex));
    json_object_set_new(o, "entries_checked", json_integer(GPU_BURN_SAMPLES));
    json_object_set_new(o, "entries_wrong", json_integer(r->mismatches));
    json_object_set_new(o, "matches_node", v->tie ? json_null() : json_boolean(v->same == v->best));
    json_object_set_new(o, "gpus_compared", json_integer(v->best));
}

/* gpus[].fp8: the FP8 GEMM's figures, {error}, or {unknown} where it was not run (no cuBLASLt, no
 * FP8 tensor cores). */
static json_t *fp8_json(const struct burn_job *j, const struct vote *v)
{
    json_t *o = json_object();
    if (j->fp8.err[0])
        json_object_set_new(o, "error", json_text(j->fp8.err));
    else if (!j->fp8.ran)
        json_object_set_new(o, "unknown", json_text(j->fp8_why[0] ? j->fp8_why : N_("the FP8 GEMM was not run")));
    else
        gemm_json(o, &j->fp8, "flops", v);
    return o;
}

static json_t *gpu_json(const struct burn_job *j, const struct machine *m, const struct gpu_table *table,
                        const struct vote *bf16, const struct vote *fp8, const struct xid_watch *xids)
{
    json_t *o = json_pack("{s:s}", "bus_id", j->bus_id);
    if (xids->watched) /* a hung GPU's Xids too: the driver may have said why */
        json_object_set_new(o, "xids_new", xids_new_json(xids, j->bus_id));
    if (!atomic_load(&j->done)) { /* still inside the driver: nothing of its job may be read */
        const char *call = cuda_call_in_progress();
        return bench_set_text(o, "error", "no answer from %s within the burn's time: the GPU or its driver is hung "
                                          "(see `dmesg` for Xid errors)",
                              call ? call : "the CUDA driver");
    }
    const struct gpu *g = gpu_set_find(&m->gpus, j->bus_id);
    char note[256], why[256];
    const struct gpu_spec *spec = table && g && g->name ? gpu_lookup(table, g->name, note, sizeof note, why, sizeof why) : NULL;
    if (g && g->name)
        json_object_set_new(o, "name", json_string(g->name));
    json_t *spec_json = spec && spec->dense[PREC_BF16] > 0
                            ? json_pack("{s:s, s:f, s:s?}", "id", spec->id, "bf16_dense_flops",
                                        spec->dense[PREC_BF16] * 1e12, "source", spec->source)
                            : json_null();
    if (spec && spec->dense[PREC_BF16] > 0 && spec->dense[PREC_FP8] > 0)
        json_object_set_new(spec_json, "fp8_dense_flops", json_real(spec->dense[PREC_FP8] * 1e12));
    json_object_set_new(o, "spec", spec_json);
    if (j->cc > 0)
        json_object_set_new(o, "compute_capability", json_real(j->cc / 10.0));
    json_object_set_new(o, "while_running", gpu_clocks_json(&j->clocks));
    if (j->ecc_known)
        json_object_set_new(o, "ecc_uncorrected_new", json_integer((json_int_t)(j->ecc_last - j->ecc_first)));
    else if (j->clocks.nvml)
        bench_set_text(o, "ecc_unseen", "NVML gives no volatile uncorrected ECC count for this GPU");
    else
        json_object_set_new(o, "ecc_unseen", json_text(j->clocks.why));
    if (j->err[0] || j->bf16.err[0])
        return json_object_set_new(o, "error", json_text(j->err[0] ? j->err : j->bf16.err)), o;
    gemm_json(o, &j->bf16, "bf16_flops", bf16);
    json_object_set_new(o, "fp8", fp8_json(j, fp8));
    return o;
}

/* The median of the GPUs' figures under key (gpus[].key, or gpus[].sub.key) into burn[median_key]. */
static void set_median(json_t *burn, json_t *list, const char *sub, const char *key, const char *median_key)
{
    double rates[MAX_BURN_GPUS];
    int n = 0;
    size_t i;
    json_t *one;
    json_array_foreach(list, i, one) {
        json_t *r = json_object_get(sub ? json_object_get(one, sub) : one, key);
        if (json_is_number(r) && n < MAX_BURN_GPUS)
            rates[n++] = json_number_value(r);
    }
    if (n > 0)
        json_object_set_new(burn, median_key, json_real(bench_median(rates, n)));
}

json_t *gpu_burn_run(const struct machine *m, const struct cuda *api, struct bench_nvml *nvml, const char *nvml_why,
                     const char *const *targets, int n, double seconds, const struct gpu_table *table,
                     void (*read_kernel_log)(struct kernel_log_info *k), bool *hung_out)
{
    if (n > MAX_BURN_GPUS)
        n = MAX_BURN_GPUS;
    struct cublas *blas = calloc(1, sizeof *blas);
    struct cublaslt *lt = calloc(1, sizeof *lt);
    char err[512], lt_why[512] = "";
    if (!blas || !lt) {
        free(blas);
        free(lt);
        return bench_skipped("no memory for the measurement");
    }
    if (cublas_open(blas, err, sizeof err) != 0) {
        free(blas);
        free(lt);
        json_t *skipped = bench_skipped("%s: the burn-in's GEMM needs cuBLAS (NVIDIA's CUDA toolkit or the "
                                        "nvidia-cublas package)",
                                        err);
        json_object_set_new(skipped, "burn", json_object()); /* a --burn run: GPU_BURN_FAILED says why not */
        return skipped;
    }
    /* FP8 needs cuBLASLt (cublasGemmEx takes no FP8 inputs); without it BF16 is still judged. */
    bool have_lt = cublaslt_open(lt, lt_why, sizeof lt_why) == 0;
    struct burn_job *jobs[MAX_BURN_GPUS] = {0};
    pthread_t threads[MAX_BURN_GPUS];
    bool started[MAX_BURN_GPUS] = {0};
    struct xid_watch xids;
    xid_watch_begin(&xids, read_kernel_log);
    json_t *result = json_object();
    for (int i = 0; i < n; i++) {
        jobs[i] = calloc(1, sizeof *jobs[i]);
        if (!jobs[i])
            continue;
        jobs[i]->api = api;
        jobs[i]->blas = blas;
        jobs[i]->lt = have_lt ? lt : NULL;
        snprintf(jobs[i]->fp8_why, sizeof jobs[i]->fp8_why, "%s", lt_why);
        jobs[i]->seconds = seconds;
        snprintf(jobs[i]->bus_id, sizeof jobs[i]->bus_id, "%s", targets[i]);
        gpu_clocks_begin(&jobs[i]->clocks, nvml, nvml_why, targets[i]);
        int rc = bench_thread_create(&threads[i], burn_thread, jobs[i]);
        if (rc != 0) {
            json_decref(result);
            for (int k = 0; k < i; k++)
                pthread_join(threads[k], NULL);
            for (int k = 0; k <= i; k++)
                free(jobs[k]);
            cublas_close(blas);
            cublaslt_close(lt);
            free(blas);
            free(lt);
            xid_watch_free(&xids);
            return bench_thread_error(n, rc);
        }
        started[i] = true;
    }
    /* The burn's time, plus the driver's start-up allowance and a GEMM batch, before a GPU that has
     * not finished is called hung. */
    double limit = seconds + deadline_seconds("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S) + 5, t0 = now_s();
    bool hung = false;
    for (int i = 0; i < n; i++) {
        while (started[i] && !atomic_load(&jobs[i]->done) && now_s() - t0 < limit)
            nanosleep(&(struct timespec){0, 50000000L}, NULL);
        hung |= started[i] && !atomic_load(&jobs[i]->done);
    }
    xid_watch_end(&xids, read_kernel_log);
    /* The results of each precision and GEMM size compared: the most common one is the node's. A
     * job still inside the driver has no result to read. */
    const struct gemm_result *bf16[MAX_BURN_GPUS] = {0}, *fp8[MAX_BURN_GPUS] = {0};
    for (int i = 0; i < n; i++) {
        bool readable = jobs[i] && atomic_load(&jobs[i]->done);
        bf16[i] = readable && !jobs[i]->err[0] ? &jobs[i]->bf16 : NULL;
        fp8[i] = readable && !jobs[i]->err[0] ? &jobs[i]->fp8 : NULL;
    }
    struct vote bf16_votes[MAX_BURN_GPUS], fp8_votes[MAX_BURN_GPUS];
    count_votes(bf16, n, bf16_votes);
    count_votes(fp8, n, fp8_votes);
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, jobs[i] ? gpu_json(jobs[i], m, table, &bf16_votes[i], &fp8_votes[i], &xids)
                                            : bench_set_text(json_pack("{s:s}", "bus_id", targets[i]), "error",
                                                             "no memory for the measurement"));
    json_t *burn = json_pack("{s:f, s:s, s:o}", "seconds", seconds, "library", blas->name, "gpus", list);
    if (have_lt)
        json_object_set_new(burn, "fp8_library", json_string(lt->name));
    if (xids.watched)
        json_object_set_new(burn, "xids_watched", json_pack("{s:s?, s:s?}", "log", xids.after.source, "format",
                                                            xids.after.format));
    else
        json_object_set_new(burn, "xids_unseen", json_text(xids.why));
    xid_watch_free(&xids);
    set_median(burn, list, NULL, "bf16_flops", "median_bf16_flops");
    set_median(burn, list, "fp8", "flops", "median_fp8_flops");
    if (!json_object_get(burn, "median_bf16_flops"))
        bench_set_text(result, "error", "no GPU could be burnt in: %s (each GPU's entry says why)",
                       json_string_value(json_object_get(json_array_get(list, 0), "error")));
    json_object_set_new(result, "burn", burn);
    for (int i = 0; i < n; i++) {
        if (!started[i])
            free(jobs[i]);
        else if (atomic_load(&jobs[i]->done)) {
            pthread_join(threads[i], NULL);
            free(jobs[i]);
        } else {
            pthread_detach(threads[i]); /* still inside the driver: its job stays allocated */
        }
    }
    *hung_out = hung;
    if (!hung) {
        cublas_close(blas);
        cublaslt_close(lt);
        free(blas);
        free(lt);
    }
    return result;
}
