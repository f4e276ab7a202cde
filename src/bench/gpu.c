/* `bench gpu`: each NVIDIA GPU's own memory bandwidth, a memory test and FP32 compute, then copies
 * between every pair of GPUs, all through the CUDA driver API (dlopen libcuda.so.1) and kernels
 * of our own in PTX that the driver compiles (bench/gpu_kernels.c), so only the driver is needed.
 *
 * Memory bandwidth: a copy kernel over two buffers, counted as STREAM and BabelStream count Copy
 * (bytes read + bytes written), beside the copy engines' cuMemcpyDtoDAsync counted the same way.
 * Memory test: address-in-address and its complement (and, without --quick, all zeros and all
 * ones) written and verified over a share of the free memory (cuMemGetInfo) that fits the time
 * budget, mismatches counted on the GPU. Compute: an FP32 FMA loop on the CUDA cores (not tensor
 * cores). Peers: cuDeviceCanAccessPeer and cuMemcpyPeerAsync each way, timed by events.
 *
 * The rates are judged by `audit --bench` (rules/gpu_bench.c), against the figures of
 * data/gpus.csv copied here and the node's best GPU. Every GPU runs in a worker under a deadline
 * (util/deadline.h): one that stops answering costs its budget and names the call. On Ctrl-C the
 * process ends and the driver frees its contexts and their allocations, as it does for any
 * process that exits; gpuvet holds no GPU memory across processes. */
#include "bench/bench.h"
#include "bench/gpu_burn.h"
#include "bench/gpu_clocks.h"
#include "bench/gpu_kernels.h"
#include "bench/gpu_nccl.h"
#include "bench/pcie.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/cuda.h"
#include "util/deadline.h"
#include "util/gputable.h"
#include "util/i18n.h"
#include "util/sanitize.h"
#include "util/units.h"

#define NVIDIA_VENDOR 0x10de
#define MAX_GPUS GPU_MAX_PER_NODE /* util/gpu_limits.h, through util/gputable.h */
#define THREADS_PER_BLOCK 256u

/* What --quick and the default spend per GPU. */
struct gpu_plan {
    size_t copy_bytes;       /* each of the two bandwidth buffers, at most */
    double memtest_share;    /* of the free memory */
    double memtest_seconds;  /* at the measured bandwidth: sizes the first pass, bounds the repeats */
    int patterns;            /* 2: address and complement; 4: and zeros, ones */
    int memtest_passes;      /* at most: passes over the buffer while time is left */
    double compute_seconds;
    size_t peer_bytes;
    int peer_repeat;
    /* Each rate: a warm-up of warmup_seconds (clocks leave idle, the driver maps the pages), then
     * `batches` timed batches of batch_seconds each; the median batch is the figure. */
    double warmup_seconds, batch_seconds;
    int batches;
};

static struct gpu_plan plan_for(bool quick)
{
    if (quick)
        return (struct gpu_plan){(size_t)(256 * MIB), 0.5, 2.0, 2, 1, 1.0, (size_t)(64 * MIB), 5, 0.25, 0.02, 5};
    return (struct gpu_plan){(size_t)GIB, 0.9, 15.0, 4, 100, 8.0, (size_t)(256 * MIB), 10, 1.0, 0.1, 7};
}

/* cuEventElapsedTime's resolution is "around 0.5 microseconds" (CUDA Driver API reference): a
 * launch that took less than 1 us by the events did no work the events could see. */
#define NO_TIME_PER_LAUNCH_S 1e-6

/* The CUDA error of the last failed CALL on this thread (each GPU is measured on its own worker). */
#define CUDA_ERROR_ECC_UNCORRECTABLE 214
static _Thread_local cu_result failed_rc;

static const struct {
    unsigned mask, pattern;
    const char *name;
} patterns[] = {
    {0xffffffffu, 0, "address"}, {0xffffffffu, 0xffffffffu, "address-complement"}, {0, 0, "zeros"},
    {0, 0xffffffffu, "ones"},
};

struct gpu_job {
    const struct cuda *api;
    struct bench_nvml *nvml; /* NULL: nvml_why says why the clocks are not watched */
    char nvml_why[256];      /* a copy: an abandoned job must not read the caller's stack */
    char bus_id[32];
    struct gpu_plan plan;
    json_t *result;
};

/* One open GPU: its context current on this thread, a stream, the module with our kernels. */
struct gpu_dev {
    const struct cuda *api;
    int device;
    cu_context context;
    cu_stream stream;
    cu_module module;
    cu_function fill, check, copy, fma;
    int sms;
};

/* A driver call, noted while it runs (a deadline names it); on failure err says which. */
#define CALL(name, call)                                                                             \
    do {                                                                                             \
        cu_result rc_ = CUDA_CALL(api, name, call, err, errlen);                                     \
        if (rc_ != CUDA_SUCCESS) {                                                                   \
            failed_rc = rc_;                                                                         \
            return -1;                                                                               \
        }                                                                                            \
    } while (0)

static int dev_open(const struct cuda *api, const char *bus_id, struct gpu_dev *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->api = api;
    d->device = -1;
    int device = -1;
    CALL("cuDeviceGetByPCIBusId", api->device_by_bus_id(&device, bus_id));
    CALL("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&d->context, device));
    d->device = device;
    CALL("cuCtxSetCurrent", api->ctx_set_current(d->context));
    CALL("cuStreamCreate", api->stream_create(&d->stream, 1 /* CU_STREAM_NON_BLOCKING */));
    CALL("cuDeviceGetAttribute", api->device_attribute(&d->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    if (d->sms <= 0 || d->sms > 4096)
        d->sms = 128;
    /* The driver's compiler log: the first run on a new GPU or driver says what it refused. */
    char log[1024] = "";
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    cuda_call_begin("cuModuleLoadDataEx");
    cu_result rc = api->module_load_data_ex(&d->module, gpu_kernels_ptx, 2, options, values);
    cuda_call_done();
    if (rc != CUDA_SUCCESS) {
        log[sizeof log - 1] = '\0';
        for (char *c = log; *c; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
        i18n_snprintf(err, errlen, "cuModuleLoadDataEx: %s (error %d): %s", _(cuda_error(api, rc)), rc,
                      *log ? log : _("the driver gave no compiler log"));
        return -1;
    }
    CALL("cuModuleGetFunction", api->module_get_function(&d->fill, d->module, "gpuvet_fill"));
    CALL("cuModuleGetFunction", api->module_get_function(&d->check, d->module, "gpuvet_check"));
    CALL("cuModuleGetFunction", api->module_get_function(&d->copy, d->module, "gpuvet_copy"));
    CALL("cuModuleGetFunction", api->module_get_function(&d->fma, d->module, "gpuvet_fma"));
    return 0;
}

static void dev_close(struct gpu_dev *d)
{
    if (d->device < 0)
        return;
    const struct cuda *api = d->api;
    api->ctx_set_current(d->context);
    if (d->stream) {
        api->stream_synchronize(d->stream);
        api->stream_destroy(d->stream);
    }
    if (d->module)
        api->module_unload(d->module);
    api->primary_ctx_release(d->device);
    d->device = -1;
}

static int launch(struct gpu_dev *d, cu_function f, unsigned blocks, void **args, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    CALL("cuLaunchKernel", api->launch_kernel(f, blocks, 1, 1, THREADS_PER_BLOCK, 1, 1, 0, d->stream, args, NULL));
    return 0;
}

/* Blocks for a grid-stride kernel: enough to fill every SM. */
static unsigned stride_blocks(const struct gpu_dev *d) { return (unsigned)d->sms * 8u; }

/* Seconds on the GPU of what queue() puts on its stream, timed by events around it. */
struct timing {
    cu_event start, stop;
};

static int timing_begin(struct gpu_dev *d, struct timing *t, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    memset(t, 0, sizeof *t);
    CALL("cuEventCreate", api->event_create(&t->start, 0));
    CALL("cuEventCreate", api->event_create(&t->stop, 0));
    CALL("cuEventRecord", api->event_record(t->start, d->stream));
    return 0;
}

/* Seconds between the events. With clocks, NVML is read every 100 ms until the stream is done: the
 * stop event is recorded first, so the waiting is not GPU time. */
static double timing_end_watched(struct gpu_dev *d, struct timing *t, struct gpu_clocks *clocks, char *err,
                                 size_t errlen)
{
    const struct cuda *api = d->api;
    float ms = 0;
    CALL("cuEventRecord", api->event_record(t->stop, d->stream));
    for (bool busy = clocks != NULL; busy;) {
        cuda_call_begin("NVML's clock, clock-event, temperature and power queries");
        gpu_clocks_sample(clocks);
        cuda_call_done();
        cuda_call_begin("cuStreamQuery");
        busy = api->stream_query(d->stream) == CUDA_ERROR_NOT_READY;
        cuda_call_done();
        if (busy)
            nanosleep(&(struct timespec){0, 100000000L}, NULL);
    }
    CALL("cuEventSynchronize", api->event_synchronize(t->stop));
    CALL("cuEventElapsedTime", api->event_elapsed(&ms, t->start, t->stop));
    if (!(ms > 0)) /* 0, negative or NaN: the events saw no work */
        i18n_snprintf(err, errlen,
                      "not a measurement: the GPU's events say a launch took %.3g us (a driver that did not run the "
                      "kernel, or a timer that does not count)",
                      (double)ms * 1e3);
    return ms > 0 ? ms / 1e3 : -1;
}

static double timing_end(struct gpu_dev *d, struct timing *t, char *err, size_t errlen)
{
    return timing_end_watched(d, t, NULL, err, errlen);
}

static void timing_free(const struct cuda *api, struct timing *t)
{
    if (t->start)
        api->event_destroy(t->start);
    if (t->stop)
        api->event_destroy(t->stop);
    memset(t, 0, sizeof *t);
}

static json_t *rate_json(double v) { return v > 0 ? json_real(v) : json_null(); }

/* {"error": text}: a driver's text may be any bytes (json_text makes them valid UTF-8). */
static json_t *error_json(const char *text) { return json_pack("{s:o}", "error", json_text(*text ? text : "the measurement failed")); }

/* Queues one launch of the work a rate measures; 0, or -1 with err. */
typedef int queue_fn(struct gpu_dev *d, void *arg, char *err, size_t errlen);

/* The median rate (work units per second) of p->batches timed batches of `queue` after a warm-up,
 * each batch sized by a timed probe launch to p->batch_seconds (batch_seconds <= 0: that argument
 * instead). NVML is read into clocks (may be NULL) while the batches run. -1 with err; a launch
 * the events saw take no time is "not a measurement", never a rate. */
static double median_rate(struct gpu_dev *d, queue_fn *queue, void *arg, double work_per_launch, const struct gpu_plan *p,
                          double batch_seconds, struct gpu_clocks *clocks, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    struct timing t = {0};
    double rates[16], result = -1;
    int batches = p->batches < 16 ? p->batches : 16;
    if (timing_begin(d, &t, err, errlen) || queue(d, arg, err, errlen))
        goto out;
    double one = timing_end(d, &t, err, errlen);
    timing_free(api, &t);
    if (one <= 0)
        goto out;
    if (one < NO_TIME_PER_LAUNCH_S) {
        i18n_snprintf(err, errlen,
                      "not a measurement: the GPU's events say a launch took %.3g us (a driver that did not run the "
                      "kernel, or a timer that does not count)",
                      one * 1e6);
        goto out;
    }
    double per_batch = (batch_seconds > 0 ? batch_seconds : p->batch_seconds) / one, warm = p->warmup_seconds / one;
    int launches = per_batch < 1 ? 1 : per_batch > 100000 ? 100000 : (int)per_batch;
    int warmups = warm > 100000 ? 100000 : (int)warm;
    for (int i = 0; i < warmups; i++)
        if (queue(d, arg, err, errlen))
            goto out;
    for (int b = 0; b < batches; b++) {
        if (timing_begin(d, &t, err, errlen))
            goto out;
        for (int i = 0; i < launches; i++)
            if (queue(d, arg, err, errlen))
                goto out;
        double seconds = timing_end_watched(d, &t, clocks, err, errlen);
        timing_free(api, &t);
        if (seconds <= 0)
            goto out;
        if (seconds < NO_TIME_PER_LAUNCH_S * launches) {
            i18n_snprintf(err, errlen, "not a measurement: the GPU's events say %d launches took %.3g us", launches,
                          seconds * 1e6);
            goto out;
        }
        rates[b] = work_per_launch * launches / seconds;
    }
    result = bench_median(rates, batches);
out:
    timing_free(api, &t);
    return result;
}

struct copy_args {
    cu_deviceptr a, b;
    size_t bytes;
    unsigned long long chunks;
};

static int queue_copy_kernel(struct gpu_dev *d, void *arg, char *err, size_t errlen)
{
    struct copy_args *c = arg;
    void *args[] = {&c->b, &c->a, &c->chunks};
    return launch(d, d->copy, stride_blocks(d), args, err, errlen);
}

static int queue_copy_engine(struct gpu_dev *d, void *arg, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    struct copy_args *c = arg;
    CALL("cuMemcpyDtoDAsync", api->dtod_async(c->b, c->a, c->bytes, d->stream));
    return 0;
}

/* Device memory bandwidth: bytes read + written per second, the copy kernel's and the copy
 * engines'. 0 with err on failure. */
static int measure_bandwidth(struct gpu_dev *d, const struct gpu_plan *p, size_t free_bytes, double *kernel_rate,
                             double *engine_rate, size_t *used, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    size_t bytes = p->copy_bytes;
    if (bytes > free_bytes / 8)
        bytes = free_bytes / 8;
    bytes &= ~(size_t)15;
    *used = bytes;
    if (bytes < (size_t)MIB) {
        i18n_snprintf(err, errlen, "too little free GPU memory for the bandwidth test (%zu MiB)",
                      free_bytes / (size_t)MIB);
        return -1;
    }
    struct copy_args c = {0, 0, bytes, bytes / 16};
    int rc = -1;
    cuda_call_begin("cuMemAlloc");
    if (api->mem_alloc(&c.a, bytes) != CUDA_SUCCESS || api->mem_alloc(&c.b, bytes) != CUDA_SUCCESS) {
        cuda_call_done();
        i18n_snprintf(err, errlen, "cuMemAlloc of 2 x %zu MiB failed", bytes / (size_t)MIB);
        goto out;
    }
    cuda_call_done();
    /* Copy counted as STREAM counts it: bytes read + bytes written. */
    *kernel_rate = median_rate(d, queue_copy_kernel, &c, 2.0 * (double)bytes, p, 0, NULL, err, errlen);
    if (*kernel_rate <= 0)
        goto out;
    *engine_rate = median_rate(d, queue_copy_engine, &c, 2.0 * (double)bytes, p, 0, NULL, err, errlen);
    if (*engine_rate <= 0)
        goto out;
    rc = 0;
out:
    cuda_call_done();
    api->stream_synchronize(d->stream);
    if (c.a)
        api->mem_free(c.a);
    if (c.b)
        api->mem_free(c.b);
    if (rc && !*err)
        snprintf(err, errlen, "%s", N_("timing the device copies failed"));
    return rc;
}

/* What the memory test found. */
struct memtest {
    long long errors;           /* words that did not hold their pattern */
    size_t tested;              /* bytes of the buffer */
    int patterns, passes;
    unsigned long long checked; /* words the check kernel says it read, beside words x patterns x passes */
    bool uncorrectable;         /* the driver reported an uncorrectable ECC error (CUDA error 214) */
};

/* The memory test: 0 with *m filled, or -1 with err (and m->uncorrectable where the GPU reported an
 * uncorrectable ECC error). Its own checks: the check kernel counts on the GPU the words it read,
 * which must be every word of every pattern and pass; and a positive control, one word written
 * wrong on purpose after the passes, which the check kernel must count. A libcuda that does
 * nothing, or a check that cannot see, gives no result rather than a clean one. */
static int memory_test(struct gpu_dev *d, const struct gpu_plan *p, double bandwidth, size_t free_bytes,
                       struct memtest *m, char *err, size_t errlen)
{
    const struct cuda *api = d->api;
    /* Each pattern writes the buffer once and reads it once. */
    double by_time = bandwidth > 0 ? bandwidth * p->memtest_seconds / (2.0 * p->patterns) : 0;
    double share = (double)free_bytes * p->memtest_share;
    size_t bytes = (size_t)(by_time > 0 && by_time < share ? by_time : share) & ~(size_t)(MIB - 1);
    cu_deviceptr buffer = 0, counters = 0;
    int rc = -1;
    cu_result r = CUDA_SUCCESS;
    memset(m, 0, sizeof *m);
    failed_rc = CUDA_SUCCESS;
    cuda_call_begin("cuMemAlloc");
    /* Free memory can shrink between cuMemGetInfo and the allocation: halve a few times. */
    for (int tries = 0; tries < 4 && bytes >= MIB && api->mem_alloc(&buffer, bytes) != CUDA_SUCCESS; tries++)
        bytes /= 2, buffer = 0;
    /* errors, checked; the positive control's errors, checked */
    unsigned long long found[4] = {0, 0, 0, 0};
    if (!buffer || api->mem_alloc(&counters, sizeof found) != CUDA_SUCCESS) {
        cuda_call_done();
        i18n_snprintf(err, errlen, "cuMemAlloc of %zu MiB for the memory test failed", bytes / (size_t)MIB);
        goto out;
    }
    cuda_call_done();
    unsigned long long words = bytes / 4;
    cu_deviceptr errors = counters, checked = counters + 8, control_errors = counters + 16, control_checked = counters + 24;
    if ((cuda_call_begin("cuMemcpyHtoD"), r = api->htod(counters, found, sizeof found)) != CUDA_SUCCESS)
        goto failed;
    cuda_call_done();
    /* Passes over the buffer, each with every pattern, while the first pass's time fits in what is left
     * (an intermittent fault shows in some passes only). */
    double start = bench_now(), per_pass = 0;
    while (m->passes < p->memtest_passes && (m->passes == 0 || bench_now() - start + per_pass <= p->memtest_seconds)) {
        for (int i = 0; i < p->patterns; i++) {
            unsigned mask = patterns[i].mask, pattern = patterns[i].pattern;
            void *fill_args[] = {&buffer, &words, &mask, &pattern};
            void *check_args[] = {&buffer, &words, &mask, &pattern, &errors, &checked};
            if (launch(d, d->fill, stride_blocks(d), fill_args, err, errlen) ||
                launch(d, d->check, stride_blocks(d), check_args, err, errlen)) {
                r = failed_rc;
                goto failed;
            }
        }
        if ((cuda_call_begin("cuStreamSynchronize"), r = api->stream_synchronize(d->stream)) != CUDA_SUCCESS)
            goto failed;
        cuda_call_done();
        if (++m->passes == 1)
            per_pass = bench_now() - start;
    }
    /* The positive control: the middle word, which holds the last pattern, written with one bit
     * flipped; the check of that word alone must count it. */
    unsigned long long one = 1, middle = words / 2;
    cu_deviceptr word = buffer + middle * 4;
    unsigned mask = patterns[p->patterns - 1].mask, pattern = patterns[p->patterns - 1].pattern;
    uint32_t wrong = (((uint32_t)word & mask) ^ pattern) ^ 0x10u;
    void *control_args[] = {&word, &one, &mask, &pattern, &control_errors, &control_checked};
    if ((cuda_call_begin("cuMemcpyHtoD"), r = api->htod(word, &wrong, sizeof wrong)) != CUDA_SUCCESS)
        goto failed;
    if (launch(d, d->check, 1, control_args, err, errlen)) {
        r = failed_rc;
        goto failed;
    }
    if ((cuda_call_begin("cuMemcpyDtoH"), r = api->dtoh(found, counters, sizeof found)) != CUDA_SUCCESS)
        goto failed;
    cuda_call_done();
    m->errors = (long long)(found[0] > (unsigned long long)INT64_MAX ? INT64_MAX : found[0]);
    m->tested = bytes;
    m->patterns = p->patterns;
    m->checked = found[1];
    unsigned long long expected = words * (unsigned long long)p->patterns * (unsigned long long)m->passes;
    if (found[1] != expected)
        i18n_snprintf(err, errlen,
                      "not a measurement: the check kernel read %llu words where the test wrote %llu (a driver that "
                      "did not run it, or a kernel cut short)",
                      found[1], expected);
    else if (found[2] != 1 || found[3] != 1)
        i18n_snprintf(err, errlen,
                      "not a measurement: the check kernel did not count a word written wrong on purpose (positive "
                      "control: %llu of 1 found)",
                      found[2]);
    else
        rc = 0;
    goto out;
failed:
    if (r == CUDA_ERROR_ECC_UNCORRECTABLE || failed_rc == CUDA_ERROR_ECC_UNCORRECTABLE) {
        m->uncorrectable = true;
        i18n_snprintf(err, errlen, "the GPU reported an uncorrectable ECC error (CUDA error %d) during the memory test, at %s",
                      CUDA_ERROR_ECC_UNCORRECTABLE, cuda_call_in_progress() ? cuda_call_in_progress() : "cuLaunchKernel");
    } else if (r != CUDA_SUCCESS) {
        i18n_snprintf(err, errlen, "%s failed during the memory test: %s (error %d)",
                      cuda_call_in_progress() ? cuda_call_in_progress() : "a driver call", _(cuda_error(api, r)), r);
    }
out:
    cuda_call_done();
    api->stream_synchronize(d->stream);
    if (buffer)
        api->mem_free(buffer);
    if (counters)
        api->mem_free(counters);
    return rc;
}

struct fma_args {
    cu_deviceptr out;
    unsigned iterations;
    unsigned blocks;
};

static int queue_fma(struct gpu_dev *d, void *arg, char *err, size_t errlen)
{
    struct fma_args *f = arg;
    void *args[] = {&f->out, &f->iterations};
    return launch(d, d->fma, f->blocks, args, err, errlen);
}

/* FP32 FLOPs per second of the FMA loop: the median of the timed batches over p->compute_seconds,
 * NVML read into clocks while they run; -1 with err. */
static double measure_compute(struct gpu_dev *d, const struct gpu_plan *p, struct gpu_clocks *clocks, char *err,
                              size_t errlen)
{
    const struct cuda *api = d->api;
    struct fma_args f = {0, 1024, (unsigned)d->sms * 8u};
    double threads = (double)f.blocks * THREADS_PER_BLOCK;
    struct timing t = {0};
    double rate = -1;
    if ((cuda_call_begin("cuMemAlloc"), api->mem_alloc(&f.out, (size_t)threads * sizeof(float))) != CUDA_SUCCESS) {
        cuda_call_done();
        snprintf(err, errlen, "%s", N_("cuMemAlloc for the compute test failed"));
        return -1;
    }
    cuda_call_done();
    /* A short launch first: its time sizes the timed ones (a launch of about 20 ms each, so that a
     * batch holds several). */
    if (timing_begin(d, &t, err, errlen) || queue_fma(d, &f, err, errlen))
        goto out;
    double probe = timing_end(d, &t, err, errlen);
    timing_free(api, &t);
    if (probe <= 0)
        goto out;
    double wanted = f.iterations * 0.02 / (probe > NO_TIME_PER_LAUNCH_S ? probe : NO_TIME_PER_LAUNCH_S);
    f.iterations = wanted > 1e9 ? 1000000000u : wanted < 1 ? 1u : (unsigned)wanted;
    rate = median_rate(d, queue_fma, &f, threads * GPU_FMA_FLOPS_PER_ITERATION * f.iterations, p,
                       p->compute_seconds / (p->batches > 0 ? p->batches : 1), clocks, err, errlen);
out:
    timing_free(api, &t);
    api->stream_synchronize(d->stream);
    api->mem_free(f.out);
    if (rate < 0 && !*err)
        snprintf(err, errlen, "%s", N_("timing the compute kernel failed"));
    return rate;
}

static void measure_gpu(void *p)
{
    struct gpu_job *job = p;
    const struct cuda *api = job->api;
    char err[512] = "";
    struct gpu_dev d;
    size_t free_bytes = 0, total_bytes = 0, copy_bytes = 0;
    double kernel_rate = 0, engine_rate = 0;
    if (dev_open(api, job->bus_id, &d, err, sizeof err) != 0)
        goto failed;
    cuda_call_begin("cuMemGetInfo");
    cu_result rc = api->mem_get_info(&free_bytes, &total_bytes);
    cuda_call_done();
    if (rc != CUDA_SUCCESS) {
        i18n_snprintf(err, sizeof err, "%s: %s (error %d)", "cuMemGetInfo", _(cuda_error(api, rc)), rc);
        goto failed;
    }
    if (measure_bandwidth(&d, &job->plan, free_bytes, &kernel_rate, &engine_rate, &copy_bytes, err, sizeof err))
        goto failed;
    job->result = json_pack("{s:s, s:{s:o, s:o, s:I}, s:I}", "bus_id", job->bus_id, "memory", "kernel_copy_bytes_s",
                            rate_json(kernel_rate), "engine_copy_bytes_s", rate_json(engine_rate), "buffer_bytes",
                            (json_int_t)copy_bytes, "multiprocessors", (json_int_t)d.sms);
    /* From here on a failure is the failing part's own: what was measured before it stays. */
    struct memtest m;
    json_t *memtest;
    if (memory_test(&d, &job->plan, kernel_rate, free_bytes, &m, err, sizeof err) == 0) {
        json_t *names = json_array();
        for (int i = 0; i < m.patterns; i++)
            json_array_append_new(names, json_string(patterns[i].name));
        memtest = json_pack("{s:I, s:I, s:I, s:o, s:i, s:I, s:I, s:b}", "tested_bytes", (json_int_t)m.tested,
                            "free_bytes", (json_int_t)free_bytes, "total_bytes", (json_int_t)total_bytes, "patterns",
                            names, "passes", m.passes, "errors", (json_int_t)m.errors, "words_checked",
                            (json_int_t)m.checked, "positive_control_detected", 1);
    } else {
        memtest = error_json(err);
        json_object_set_new(memtest, "uncorrectable_ecc", json_boolean(m.uncorrectable));
    }
    json_object_set_new(job->result, "memtest", memtest);
    json_t *compute;
    if (m.uncorrectable) {
        /* After an uncorrectable error every call on the context fails (CUDA Driver API reference,
         * CUDA_ERROR_ECC_UNCORRECTABLE): nothing more can be measured in it. */
        compute = bench_set_text(json_pack("{s:s}", "kind", "fp32-fma-cuda-cores"), "error",
                                 "the GPU reported an uncorrectable ECC error in the memory test, which ends its CUDA context");
    } else {
        *err = '\0';
        struct gpu_clocks *clocks = malloc(sizeof *clocks); /* 1 KiB of samples: not on a worker's stack */
        if (!clocks) {
            compute = error_json(N_("no memory for the measurement"));
        } else {
            cuda_call_begin("nvmlDeviceGetHandleByIndex");
            gpu_clocks_begin(clocks, job->nvml, job->nvml_why, job->bus_id);
            cuda_call_done();
            double flops = measure_compute(&d, &job->plan, clocks, err, sizeof err);
            compute = flops > 0 ? json_pack("{s:o}", "fp32_flops", rate_json(flops)) : error_json(err);
            json_object_set_new(job->result, "while_running", gpu_clocks_json(clocks));
            free(clocks);
        }
        json_object_set_new(compute, "kind", json_string("fp32-fma-cuda-cores"));
    }
    json_object_set_new(job->result, "compute", compute);
    dev_close(&d);
    return;
failed:
    dev_close(&d);
    job->result = json_pack("{s:s, s:o}", "bus_id", job->bus_id, "error",
                            json_text(*err ? err : "the measurement failed"));
}

static void gpu_job_free(void *p)
{
    struct gpu_job *job = p;
    json_decref(job->result);
    free(job);
}

/* A GPU's budget: the driver's start-up allowance (DEADLINE_CUDA_S) plus three times the planned
 * memory test, compute and bandwidth copies (each timed by its own length, not by the GPU's rate). */
static double gpu_budget_s(const struct gpu_plan *p)
{
    double copies = 2 * (p->warmup_seconds + p->batches * p->batch_seconds);
    return deadline_seconds("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S) +
           3 * (p->memtest_seconds + p->compute_seconds + p->warmup_seconds + copies);
}

static json_t *hung_error(const char *bus_id, double limit)
{
    const char *call = cuda_call_in_progress();
    json_t *out = json_pack("{s:s}", "bus_id", bus_id);
    if (call)
        return bench_set_text(out, "error",
                              "no answer from %s in %.3g s: the GPU or its driver is hung (see `dmesg` for Xid errors)",
                              call, limit);
    return bench_set_text(out, "error",
                          "no answer from the CUDA driver in %.3g s: the GPU or its driver is hung (see `dmesg` for "
                          "Xid errors)",
                          limit);
}

/* --- between GPUs -------------------------------------------------------------------------- */

struct peer_job {
    const struct cuda *api;
    char bus_ids[MAX_GPUS][32];
    int n;
    struct gpu_plan plan;
    json_t *result; /* array of pairs, or {error} */
};

static void peer_job_free(void *p)
{
    struct peer_job *job = p;
    json_decref(job->result);
    free(job);
}

struct peer_dev {
    int device;
    cu_context context;
    cu_stream stream;
    cu_deviceptr buffer;
};

static int peer_open(const struct cuda *api, const char *bus_id, size_t bytes, struct peer_dev *d, char *err,
                     size_t errlen)
{
    CALL("cuDeviceGetByPCIBusId", api->device_by_bus_id(&d->device, bus_id));
    CALL("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&d->context, d->device));
    CALL("cuCtxSetCurrent", api->ctx_set_current(d->context));
    CALL("cuStreamCreate", api->stream_create(&d->stream, 1));
    CALL("cuMemAlloc", api->mem_alloc(&d->buffer, bytes));
    return 0;
}

/* Bytes per second of p->peer_repeat copies from a to b, timed by events on a's stream. */
static double peer_rate(const struct cuda *api, struct peer_dev *a, struct peer_dev *b, size_t bytes,
                        const struct gpu_plan *p, char *err, size_t errlen)
{
    cu_event start = NULL, stop = NULL;
    float ms = 0;
    double rate = -1;
    cuda_call_begin("cuCtxSetCurrent");
    if (api->ctx_set_current(a->context) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuMemcpyPeerAsync"); /* one first: the path is set up */
    if (api->peer_async(b->buffer, b->context, a->buffer, a->context, bytes, a->stream) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuEventCreate");
    if (api->event_create(&start, 0) != CUDA_SUCCESS || api->event_create(&stop, 0) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuEventRecord");
    if (api->event_record(start, a->stream) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuMemcpyPeerAsync");
    for (int i = 0; i < p->peer_repeat; i++)
        if (api->peer_async(b->buffer, b->context, a->buffer, a->context, bytes, a->stream) != CUDA_SUCCESS)
            goto out;
    cuda_call_begin("cuEventRecord");
    if (api->event_record(stop, a->stream) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuEventSynchronize");
    if (api->event_synchronize(stop) != CUDA_SUCCESS)
        goto out;
    cuda_call_begin("cuEventElapsedTime");
    if (api->event_elapsed(&ms, start, stop) == CUDA_SUCCESS && ms > 0)
        rate = (double)bytes * p->peer_repeat / (ms / 1e3);
out:
    if (rate < 0)
        i18n_snprintf(err, errlen, "%s failed", cuda_call_in_progress() ? cuda_call_in_progress() : "cuEventElapsedTime");
    cuda_call_done();
    if (start)
        api->event_destroy(start);
    if (stop)
        api->event_destroy(stop);
    return rate;
}

static void measure_peers(void *p)
{
    struct peer_job *job = p;
    const struct cuda *api = job->api;
    struct peer_dev devs[MAX_GPUS];
    memset(devs, 0, sizeof devs);
    for (int i = 0; i < job->n; i++)
        devs[i].device = -1;
    /* A GPU this process cannot open (hidden by CUDA_VISIBLE_DEVICES, a container's or a Slurm job's
     * device cgroup, or out of memory) costs its own pairs only. */
    static _Thread_local char why_not[MAX_GPUS][256];
    size_t bytes = job->plan.peer_bytes;
    int usable = 0;
    for (int i = 0; i < job->n; i++) {
        why_not[i][0] = '\0';
        if (peer_open(api, job->bus_ids[i], bytes, &devs[i], why_not[i], sizeof why_not[i]) == 0)
            usable++;
        else if (!why_not[i][0])
            snprintf(why_not[i], sizeof why_not[i], "%s", "the GPU could not be opened");
    }
    if (usable == 0) {
        job->result = json_pack("{s:o}", "error", json_text(why_not[0]));
        goto out;
    }
    job->result = json_array();
    for (int i = 0; i < job->n; i++)
        for (int j = 0; j < job->n; j++) {
            if (i == j)
                continue;
            if (why_not[i][0] || why_not[j][0]) {
                int k = why_not[i][0] ? i : j;
                json_t *pair = json_pack("{s:s, s:s, s:b}", "from", job->bus_ids[i], "to", job->bus_ids[j],
                                         "peer_access", 0);
                json_array_append_new(
                    job->result, bench_set_text(pair, "error", "not measured: CUDA could not open %s (%s)",
                                                job->bus_ids[k], why_not[k]));
                continue;
            }
            int can = 0;
            char why[512] = "";
            cuda_call_begin("cuDeviceCanAccessPeer");
            cu_result rc = api->can_access_peer(&can, devs[i].device, devs[j].device);
            cuda_call_done();
            if (rc == CUDA_SUCCESS && can) {
                /* i reads/writes j's memory directly from now on (until the context goes). */
                api->ctx_set_current(devs[i].context);
                cuda_call_begin("cuCtxEnablePeerAccess");
                rc = api->enable_peer_access(devs[j].context, 0);
                cuda_call_done();
                if (rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
                    rc = CUDA_SUCCESS;
            }
            json_t *pair = json_pack("{s:s, s:s, s:b}", "from", job->bus_ids[i], "to", job->bus_ids[j],
                                     "peer_access", can != 0);
            double rate = rc == CUDA_SUCCESS ? peer_rate(api, &devs[i], &devs[j], bytes, &job->plan, why, sizeof why) : -1;
            if (rc != CUDA_SUCCESS)
                i18n_snprintf(why, sizeof why, "peer access setup failed: %s (error %d)", _(cuda_error(api, rc)), rc);
            if (rate > 0)
                json_object_set_new(pair, "bytes_s", json_real(rate));
            else
                json_object_set_new(pair, "error", json_text(why));
            json_array_append_new(job->result, pair);
        }
    json_t *size = json_integer((json_int_t)bytes);
    for (size_t k = 0; k < json_array_size(job->result); k++)
        json_object_set(json_array_get(job->result, k), "copy_bytes", size);
    json_decref(size);
out:
    for (int i = 0; i < job->n; i++) {
        if (devs[i].device < 0)
            continue;
        api->ctx_set_current(devs[i].context);
        if (devs[i].stream) {
            api->stream_synchronize(devs[i].stream);
            api->stream_destroy(devs[i].stream);
        }
        if (devs[i].buffer)
            api->mem_free(devs[i].buffer);
        if (devs[i].context)
            api->primary_ctx_release(devs[i].device);
    }
}

/* --- the table's figures and the driver ----------------------------------------------------- */

/* The datasheet's figures for the GPU (data/gpus.csv), beside the measurement: the rules judge
 * against these. */
static void add_spec(json_t *result, const struct gpu_table *table, const struct gpu *g)
{
    char note[256], why[256];
    const struct gpu_spec *spec = table && g && g->name ? gpu_lookup(table, g->name, note, sizeof note, why, sizeof why) : NULL;
    if (g && g->name)
        json_object_set_new(result, "name", json_string(g->name));
    if (!spec) {
        json_object_set_new(result, "spec", json_null());
        return;
    }
    json_object_set_new(result, "spec",
                        json_pack("{s:s, s:o, s:o, s:s?}", "id", spec->id, "mem_bytes_s",
                                  rate_json(spec->mem_bw_gbs * GB), "fp32_flops", rate_json(spec->dense[PREC_FP32] * 1e12),
                                  "source", spec->source));
}

static json_t *bench_gpu_run(const struct machine *m, bool quick, const struct bench_ctx *ctx)
{
    const char *targets[MAX_GPUS];
    int n = bench_nvidia_targets(m, targets, MAX_GPUS);
    if (n == 0)
        return bench_skipped_msgid(bench_no_nvidia_gpu_text);
    struct bench_cuda *opened;
    json_t *skipped = NULL;
    const struct cuda *api = bench_cuda_open(&opened, &skipped);
    if (!api)
        return skipped;
    if (!cuda_has_kernels(api)) {
        bench_cuda_close(opened, true);
        return bench_skipped("the CUDA driver lacks the calls bench gpu needs (module loading, kernel launches, "
                             "peer copies): a stub or a very old driver");
    }
    struct gpu_table table;
    char table_err[256];
    bool have_table = gpu_table_load_default(&table, table_err, sizeof table_err) == 0;
    struct gpu_plan plan = plan_for(quick);
    char nvml_why[256] = "";
    struct bench_nvml *nvml = bench_nvml_open(nvml_why, sizeof nvml_why);
    if (ctx->opts->burn) {
        bool hung = false;
        json_t *burn = gpu_burn_run(m, api, nvml, nvml_why, targets, n,
                                    ctx->opts->burn_seconds > 0 ? ctx->opts->burn_seconds : GPU_BURN_DEFAULT_SECONDS,
                                    have_table ? &table : NULL, ctx->opts->read_kernel_log, &hung);
        if (have_table)
            gpu_table_free(&table);
        bench_cuda_close(opened, !hung);
        bench_nvml_close(nvml, !hung);
        return burn;
    }
    json_t *list = json_array();
    bool answering = true;
    const char *hung = NULL;
    for (int i = 0; i < n; i++) {
        json_t *one;
        if (!answering) {
            one = bench_set_text(json_pack("{s:s}", "bus_id", targets[i]), "error",
                                 "not measured: the CUDA driver stopped answering on %s", hung);
        } else {
            struct gpu_job *job = calloc(1, sizeof *job);
            if (!job) {
                one = bench_set_text(json_pack("{s:s}", "bus_id", targets[i]), "error", "no memory for the measurement");
            } else {
                job->api = api;
                job->nvml = nvml;
                snprintf(job->nvml_why, sizeof job->nvml_why, "%s", nvml_why);
                snprintf(job->bus_id, sizeof job->bus_id, "%s", targets[i]);
                job->plan = plan;
                double budget = gpu_budget_s(&plan);
                if (deadline_run(measure_gpu, job, gpu_job_free, budget)) {
                    one = job->result ? job->result : json_pack("{s:s, s:s}", "bus_id", targets[i], "error", "no memory");
                    job->result = NULL;
                    gpu_job_free(job);
                } else {
                    one = hung_error(targets[i], budget);
                    answering = false;
                    hung = targets[i];
                }
            }
        }
        add_spec(one, have_table ? &table : NULL, gpu_set_find(&m->gpus, targets[i]));
        json_array_append_new(list, one);
        bench_progress(ctx, (i + 1.0) / (n + 1.0));
    }
    if (have_table)
        gpu_table_free(&table);
    json_t *result = json_pack("{s:o}", "gpus", list);
    size_t measured = 0;
    for (size_t i = 0; i < json_array_size(list); i++)
        measured += !json_object_get(json_array_get(list, i), "error");
    if (measured == 0) {
        json_t *first = json_array_get(list, 0);
        bench_set_text(result, "error", "no GPU could be measured: %s (%s; each GPU's entry says why)",
                       json_string_value(json_object_get(first, "error")), targets[0]);
    }
    if (n < 2) {
        bench_set_text(result, "pairs_skipped", "one GPU: no pair to copy between");
    } else if (!answering) {
        bench_set_text(result, "pairs_skipped", "not measured: the CUDA driver stopped answering on %s", hung);
    } else {
        struct peer_job *job = calloc(1, sizeof *job);
        if (job) {
            job->api = api;
            job->n = n;
            job->plan = plan;
            for (int i = 0; i < n; i++)
                snprintf(job->bus_ids[i], sizeof job->bus_ids[i], "%s", targets[i]);
            double pairs = (double)n * (n - 1);
            /* Each pair's copies at 1 GB/s, far below any link, plus the driver's allowance. */
            double budget = deadline_seconds("GPUVET_DEADLINE_CUDA_S", DEADLINE_CUDA_S) +
                            pairs * (plan.peer_repeat + 1) * (double)plan.peer_bytes / 1e9;
            if (deadline_run(measure_peers, job, peer_job_free, budget)) {
                json_t *r = job->result;
                if (json_is_array(r))
                    json_object_set(result, "pairs", r);
                else
                    json_object_set(result, "pairs_error", json_object_get(r, "error"));
                peer_job_free(job);
            } else {
                json_t *e = hung_error("", budget);
                json_object_set(result, "pairs_error", json_object_get(e, "error"));
                json_decref(e);
                answering = false;
            }
        }
    }
    /* All GPUs together: NCCL's all-reduce (bench/gpu_nccl.c). */
    if (answering) {
        bool nccl_hung = false;
        json_object_set_new(result, "nccl", gpu_nccl_run(api, targets, n, quick, &nccl_hung));
        answering = !nccl_hung;
    } else if (hung) {
        json_object_set_new(result, "nccl", bench_skipped("not measured: the CUDA driver stopped answering on %s", hung));
    } else {
        json_object_set_new(result, "nccl", bench_skipped_msgid(N_("not measured: the CUDA driver stopped answering "
                                                                   "during the copies between GPUs")));
    }
    bench_cuda_close(opened, answering);
    bench_nvml_close(nvml, answering);
    return result;
}

static json_t *run_gpu(const struct bench_ctx *ctx) { return bench_gpu_run(ctx->machine, ctx->opts->quick, ctx); }

const struct bench_info bench_gpu_info = {
    "gpu", run_gpu,
    "per NVIDIA GPU: device memory bandwidth, a memory test, FP32 FMA compute; copies between every GPU pair",
    bench_no_nvidia_gpu};
