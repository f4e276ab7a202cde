/* The CUDA driver API (libcuda.so.1) loaded at run time with our own minimal declarations, for
 * the host<->device copies of `audit --load-check` and `bench` (PCIe bandwidth). Versioned names
 * are resolved newest first (cuMemAlloc_v2 before cuMemAlloc), as cuda.h maps the plain ones. */
#ifndef GPUVET_GPU_CUDA_H
#define GPUVET_GPU_CUDA_H

#include <stdbool.h>
#include <stddef.h>

typedef int cu_result;
typedef unsigned long long cu_deviceptr;
typedef struct cu_context_opaque *cu_context;
typedef struct cu_stream_opaque *cu_stream;
typedef struct cu_event_opaque *cu_event;
typedef struct cu_module_opaque *cu_module;
typedef struct cu_function_opaque *cu_function;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_JIT_ERROR_LOG_BUFFER 5            /* cuModuleLoadDataEx options */
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

struct cuda {
    void *library;
    cu_result (*init)(unsigned);
    cu_result (*error_string)(cu_result, const char **);
    cu_result (*device_by_bus_id)(int *, const char *);
    cu_result (*primary_ctx_retain)(cu_context *, int);
    cu_result (*primary_ctx_release)(int);
    cu_result (*ctx_set_current)(cu_context);
    cu_result (*host_alloc)(void **, size_t, unsigned);
    cu_result (*host_alloc_plain)(void **, size_t);
    cu_result (*host_free)(void *);
    cu_result (*mem_alloc)(cu_deviceptr *, size_t);
    cu_result (*mem_free)(cu_deviceptr);
    cu_result (*htod)(cu_deviceptr, const void *, size_t);
    cu_result (*dtoh)(void *, cu_deviceptr, size_t);
    cu_result (*htod_async)(cu_deviceptr, const void *, size_t, cu_stream);
    cu_result (*dtoh_async)(void *, cu_deviceptr, size_t, cu_stream);
    cu_result (*stream_create)(cu_stream *, unsigned);
    cu_result (*stream_query)(cu_stream);
    cu_result (*stream_synchronize)(cu_stream);
    cu_result (*stream_destroy)(cu_stream);
    cu_result (*event_create)(cu_event *, unsigned);
    cu_result (*event_record)(cu_event, cu_stream);
    cu_result (*event_synchronize)(cu_event);
    cu_result (*event_elapsed)(float *, cu_event, cu_event);
    cu_result (*event_destroy)(cu_event);
    /* `bench gpu` only (NULL when the library lacks them; cuda_has_kernels says): device-side
     * copies, peer copies, and kernels of our own compiled from PTX by the driver. */
    cu_result (*device_attribute)(int *, int, int);
    cu_result (*mem_get_info)(size_t *, size_t *);
    cu_result (*dtod_async)(cu_deviceptr, cu_deviceptr, size_t, cu_stream);
    cu_result (*peer_async)(cu_deviceptr, cu_context, cu_deviceptr, cu_context, size_t, cu_stream);
    cu_result (*can_access_peer)(int *, int, int);
    cu_result (*enable_peer_access)(cu_context, int); /* flags: 0 */
    cu_result (*module_load_data_ex)(cu_module *, const void *, unsigned, int *, void **);
    cu_result (*module_unload)(cu_module);
    cu_result (*module_get_function)(cu_function *, cu_module, const char *);
    cu_result (*launch_kernel)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               cu_stream, void **, void **);
};

/* true when c has every call `bench gpu` needs beyond those of cuda_open. */
bool cuda_has_kernels(const struct cuda *c);

/* The driver call in progress ("cuEventSynchronize"), NULL between calls: a caller whose
 * deadline ran out (util/deadline.h) names the call that did not answer. One thread at a time
 * drives the GPUs in gpuvet (bench pcie, the audit's load check), so one slot serves. */
const char *cuda_call_in_progress(void);
/* Notes that `name` runs, until cuda_call_done: for callers of the table's calls (bench gpu). */
void cuda_call_begin(const char *name);
void cuda_call_done(void);
/* Ends the note of a call made since cuda_call_begin and returns its result; a failure puts
 * "name: the driver's text (error N)" in err. CUDA_CALL does both around the call. */
cu_result cuda_call_end(const struct cuda *c, const char *name, cu_result rc, char *err, size_t errlen);
#define CUDA_CALL(c, name, call, err, errlen) (cuda_call_begin(name), cuda_call_end((c), (name), (call), (err), (errlen)))

/* Loads libcuda.so.1 ($GPUVET_CUDA_LIBRARY overrides) and calls cuInit. 0, or -1 with err. */
int cuda_open(struct cuda *c, char *err, size_t errlen);
void cuda_close(struct cuda *c);
const char *cuda_error(const struct cuda *c, cu_result rc);

/* One GPU ready for copies: its primary context made current, a stream, a pinned host buffer
 * and a device buffer of `bytes` each. The pinned buffer lands on the NUMA node the calling
 * thread's memory policy names (bench binds it before). */
struct cuda_gpu {
    const struct cuda *api;
    int device;
    cu_context context;
    cu_stream stream;
    void *pinned;
    cu_deviceptr buffer;
    size_t bytes;
};

int cuda_gpu_open(const struct cuda *c, const char *bus_id, size_t bytes, struct cuda_gpu *g, char *err, size_t errlen);
void cuda_gpu_close(struct cuda_gpu *g);
/* Replaces the pinned buffer by a new one (after the caller changed its memory binding). */
int cuda_gpu_repin(struct cuda_gpu *g, char *err, size_t errlen);

enum cuda_direction { CUDA_H2D, CUDA_D2H };

/* Bytes per second of `repeat` copies of g->bytes, timed by events on the GPU (pinned buffer)
 * or by the wall clock around synchronous copies (host == a pageable buffer). < 0 on error. */
double cuda_copy_rate(struct cuda_gpu *g, enum cuda_direction dir, void *pageable, int repeat, char *err,
                      size_t errlen);

/* Queues `repeat` pinned host-to-device copies without waiting: the load of --load-check. */
int cuda_copies_start(struct cuda_gpu *g, int repeat, char *err, size_t errlen);
/* true once the queued copies are done. */
bool cuda_copies_done(struct cuda_gpu *g);

#endif
