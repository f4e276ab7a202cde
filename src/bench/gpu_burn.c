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
#include "util/deadline.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "model/gpu.h"
#include "util/sanitize.h"

#define MAX_BURN_GPUS 64

struct burn_job {
    const struct cuda *api;
    const struct cublas *blas;
    struct gpu_clocks clocks; /* NVML, read every second */
    char bus_id[32];
    double seconds;
    /* results */
    atomic_bool done;
    char err[512];
    int n;
    long long gemms;
    double gemm_seconds;
    uint64_t checksum;
    int mismatches; /* checked entries unlike the CPU's */
    bool ecc_known;
    unsigned long long ecc_first, ecc_last;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The inputs: xorshift from a fixed seed, k/16 for k in -8..8, as bfloat16 bits. */
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
        cuda_call_begin(name);                                                                                       \
        cu_result rc_ = (call);                                                                                      \
        cuda_call_done();                                                                                            \
        if (rc_ != CUDA_SUCCESS) {                                                                                   \
            i18n_snprintf(j->err, sizeof j->err, "%s: %s (error %d)", name, _(cuda_error(api, rc_)), rc_);          \
            goto out;                                                                                                \
        }                                                                                                            \
    } while (0)

#define BLAS(name, call)                                                                                             \
    do {                                                                                                             \
        cuda_call_begin(name);                                                                                       \
        cublas_status st_ = (call);                                                                                  \
        cuda_call_done();                                                                                            \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                          \
            i18n_snprintf(j->err, sizeof j->err, "%s failed (cuBLAS status %d)", name, st_);                         \
            goto out;                                                                                                \
        }                                                                                                            \
    } while (0)

static void burn_one(struct burn_job *j)
{
    const struct cuda *api = j->api;
    const struct cublas *blas = j->blas;
    int device = -1;
    cu_context ctx = NULL;
    cu_stream stream = NULL;
    cublas_handle handle = NULL;
    cu_deviceptr a = 0, b = 0, c = 0;
    uint16_t *host = NULL;
    float *result = NULL;
    size_t free_bytes = 0, total = 0;
    CALL("cuDeviceGetByPCIBusId", api->device_by_bus_id(&device, j->bus_id));
    CALL("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&ctx, device));
    CALL("cuCtxSetCurrent", api->ctx_set_current(ctx));
    CALL("cuStreamCreate", api->stream_create(&stream, 1));
    CALL("cuMemGetInfo", api->mem_get_info(&free_bytes, &total));
    /* A, B (bfloat16) and C (float): 8 n^2 bytes, at most a quarter of the free memory. */
    int n = GPU_BURN_MAX_N;
    while (n > 64 && 8.0 * n * n > free_bytes / 4.0)
        n /= 2;
    j->n = n;
    size_t elems = (size_t)n * (size_t)n;
    if (8.0 * n * n > free_bytes / 4.0) {
        i18n_snprintf(j->err, sizeof j->err, "too little free GPU memory for the GEMM (%zu MiB)", free_bytes >> 20);
        goto out;
    }
    host = malloc(elems * 2 * sizeof *host);
    result = malloc(elems * sizeof *result);
    if (!host || !result) {
        snprintf(j->err, sizeof j->err, "%s", N_("no memory for the measurement"));
        goto out;
    }
    fill_inputs(host, elems, 0x9e3779b97f4a7c15ull);
    fill_inputs(host + elems, elems, 0xd1b54a32d192ed03ull);
    CALL("cuMemAlloc", api->mem_alloc(&a, elems * 2));
    CALL("cuMemAlloc", api->mem_alloc(&b, elems * 2));
    CALL("cuMemAlloc", api->mem_alloc(&c, elems * sizeof(float)));
    CALL("cuMemcpyHtoD", api->htod(a, host, elems * 2));
    CALL("cuMemcpyHtoD", api->htod(b, host + elems, elems * 2));
    BLAS("cublasCreate_v2", blas->create(&handle));
    BLAS("cublasSetStream_v2", blas->set_stream(handle, stream));
    const float one = 1.0f, zero = 0.0f;
    void *pa = (void *)(uintptr_t)a, *pb = (void *)(uintptr_t)b, *pc = (void *)(uintptr_t)c;
    sample(j);
    /* Batches of about 0.2 s (the first one GEMM, which sizes them), NVML read between them once a
     * second; only the batches' time counts as GEMM time. */
    double start = now_s(), next_sample = start + 1, batch_s = 0.2;
    long long batch = 1;
    while (now_s() - start < j->seconds) {
        double t0 = now_s();
        for (long long i = 0; i < batch; i++)
            BLAS("cublasGemmEx", blas->gemm_ex(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, pa, CUDA_R_16BF, n, pb,
                                               CUDA_R_16BF, n, &zero, pc, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                               CUBLAS_GEMM_DEFAULT));
        CALL("cuStreamSynchronize", api->stream_synchronize(stream));
        double took = now_s() - t0;
        j->gemm_seconds += took;
        j->gemms += batch;
        double per = took / (double)batch;
        long long grown = batch * 10; /* at most tenfold: one fast batch must not queue minutes */
        batch = per > 0 ? (long long)(batch_s / per) : grown;
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
    sample(j);
    CALL("cuMemcpyDtoH", api->dtoh(result, c, elems * sizeof(float)));
    /* FNV-1a over C's bytes. */
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *bytes = (const unsigned char *)result;
    for (size_t i = 0; i < elems * sizeof(float); i++)
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    j->checksum = h;
    for (unsigned s = 0; s < GPU_BURN_SAMPLES; s++) {
        int row, col;
        gpu_burn_sample(s, n, &row, &col);
        double want = 0;
        for (int k = 0; k < n; k++)
            want += (double)gpu_burn_bf16_value(host[(size_t)row + (size_t)k * n]) *
                    gpu_burn_bf16_value(host[elems + (size_t)k + (size_t)col * n]);
        j->mismatches += (double)result[(size_t)row + (size_t)col * n] != want;
    }
out:
    if (handle)
        blas->destroy(handle);
    if (stream)
        api->stream_synchronize(stream);
    if (a)
        api->mem_free(a);
    if (b)
        api->mem_free(b);
    if (c)
        api->mem_free(c);
    if (stream)
        api->stream_destroy(stream);
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

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static json_t *gpu_json(const struct burn_job *j, const struct machine *m, const struct gpu_table *table,
                        int matching, int agreeing_max, bool tie)
{
    json_t *o = json_pack("{s:s}", "bus_id", j->bus_id);
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
    json_object_set_new(o, "spec", spec && spec->dense[PREC_BF16] > 0
                                       ? json_pack("{s:s, s:f, s:s?}", "id", spec->id, "bf16_dense_flops",
                                                   spec->dense[PREC_BF16] * 1e12, "source", spec->source)
                                       : json_null());
    json_object_set_new(o, "while_running", gpu_clocks_json(&j->clocks));
    if (j->ecc_known)
        json_object_set_new(o, "ecc_uncorrected_new", json_integer((json_int_t)(j->ecc_last - j->ecc_first)));
    else if (j->clocks.nvml)
        bench_set_text(o, "ecc_unseen", "NVML gives no volatile uncorrected ECC count for this GPU");
    else
        json_object_set_new(o, "ecc_unseen", json_text(j->clocks.why));
    if (j->err[0])
        return json_object_set_new(o, "error", json_text(j->err)), o;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)j->checksum);
    double flops = 2.0 * j->n * j->n * (double)j->n * (double)j->gemms;
    json_object_set_new(o, "gemm", json_pack("{s:i, s:I, s:f}", "n", j->n, "count", (json_int_t)j->gemms, "seconds",
                                             j->gemm_seconds));
    json_object_set_new(o, "bf16_flops", j->gemm_seconds > 0 ? json_real(flops / j->gemm_seconds) : json_null());
    json_object_set_new(o, "checksum", json_string(hex));
    json_object_set_new(o, "entries_checked", json_integer(GPU_BURN_SAMPLES));
    json_object_set_new(o, "entries_wrong", json_integer(j->mismatches));
    /* Whether the result is the one most GPUs of the same size returned; null where no result is. */
    json_object_set_new(o, "matches_node", tie ? json_null() : json_boolean(matching == agreeing_max));
    json_object_set_new(o, "gpus_compared", json_integer(agreeing_max));
    return o;
}

json_t *gpu_burn_run(const struct machine *m, const struct cuda *api, struct bench_nvml *nvml, const char *nvml_why,
                     const char *const *targets, int n, double seconds, const struct gpu_table *table, bool *hung_out)
{
    if (n > MAX_BURN_GPUS)
        n = MAX_BURN_GPUS;
    struct cublas *blas = calloc(1, sizeof *blas);
    char err[512];
    if (!blas)
        return bench_skipped("no memory for the measurement");
    if (cublas_open(blas, err, sizeof err) != 0) {
        free(blas);
        json_t *skipped = bench_skipped("%s: the burn-in's GEMM needs cuBLAS (NVIDIA's CUDA toolkit or the "
                                        "nvidia-cublas package)",
                                        err);
        json_object_set_new(skipped, "burn", json_object()); /* a --burn run: GPU_BURN_FAILED says why not */
        return skipped;
    }
    struct burn_job *jobs[MAX_BURN_GPUS] = {0};
    pthread_t threads[MAX_BURN_GPUS];
    bool started[MAX_BURN_GPUS] = {0};
    json_t *result = json_object();
    for (int i = 0; i < n; i++) {
        jobs[i] = calloc(1, sizeof *jobs[i]);
        if (!jobs[i])
            continue;
        jobs[i]->api = api;
        jobs[i]->blas = blas;
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
            free(blas);
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
    /* The results of each GEMM size compared: the most common one is the node's. */
    int count_same[MAX_BURN_GPUS] = {0}, best_for_n[MAX_BURN_GPUS] = {0};
    bool tie[MAX_BURN_GPUS] = {0};
    /* A result with a wrong checked entry is wrong already and has no vote. */
    bool voter[MAX_BURN_GPUS] = {0};
    for (int i = 0; i < n; i++)
        voter[i] = jobs[i] && atomic_load(&jobs[i]->done) && !jobs[i]->err[0] && jobs[i]->mismatches == 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            count_same[i] += voter[i] && voter[k] && jobs[i]->n == jobs[k]->n && jobs[i]->checksum == jobs[k]->checksum;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            if (jobs[i] && voter[k] && jobs[i]->n == jobs[k]->n && count_same[k] > best_for_n[i])
                best_for_n[i] = count_same[k];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            /* Two different results as common as each other: neither is the node's. */
            tie[i] |= voter[i] && voter[k] && count_same[i] > 0 && count_same[i] == best_for_n[i] &&
                      count_same[k] == best_for_n[i] && jobs[i]->n == jobs[k]->n && jobs[i]->checksum != jobs[k]->checksum;
    json_t *list = json_array();
    double rates[MAX_BURN_GPUS];
    int nrates = 0;
    for (int i = 0; i < n; i++) {
        json_t *one = jobs[i] ? gpu_json(jobs[i], m, table, count_same[i], best_for_n[i], tie[i])
                              : bench_set_text(json_pack("{s:s}", "bus_id", targets[i]), "error",
                                               "no memory for the measurement");
        json_t *r = json_object_get(one, "bf16_flops");
        if (json_is_number(r))
            rates[nrates++] = json_number_value(r);
        json_array_append_new(list, one);
    }
    json_t *burn = json_pack("{s:f, s:s, s:o}", "seconds", seconds, "library", blas->name, "gpus", list);
    if (nrates > 0) {
        qsort(rates, (size_t)nrates, sizeof rates[0], compare_doubles);
        double median = nrates % 2 ? rates[nrates / 2] : (rates[nrates / 2 - 1] + rates[nrates / 2]) / 2;
        json_object_set_new(burn, "median_bf16_flops", json_real(median));
    } else {
        bench_set_text(result, "error", "no GPU could be burnt in: %s (each GPU's entry says why)",
                       json_string_value(json_object_get(json_array_get(list, 0), "error")));
    }
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
        free(blas);
    }
    return result;
}
