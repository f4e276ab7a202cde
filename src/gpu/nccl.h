/* NCCL (libnccl.so.2) loaded at run time with our own minimal declarations, for the all-reduce of
 * `bench gpu` across the node's GPUs from one process (ncclCommInitAll). Names and values as in
 * NVIDIA's nccl.h (tests/decl/check_nccl_headers.py compares them where a toolkit is installed). */
#ifndef GPUVET_GPU_NCCL_H
#define GPUVET_GPU_NCCL_H

#include <stddef.h>

#include "gpu/cuda.h"

typedef int nccl_result;
typedef struct nccl_comm_opaque *nccl_comm;

#define NCCL_SUCCESS 0          /* ncclSuccess */
#define NCCL_IN_PROGRESS 7      /* ncclInProgress */
#define NCCL_FLOAT32 7          /* ncclFloat32 */
#define NCCL_SUM 0              /* ncclSum */

struct nccl {
    void *library;
    char name[256]; /* the library loaded, "libnccl.so.2" */
    nccl_result (*get_version)(int *);
    const char *(*error_string)(nccl_result);
    nccl_result (*comm_init_all)(nccl_comm *, int ndev, const int *devlist);
    nccl_result (*comm_destroy)(nccl_comm);
    nccl_result (*comm_abort)(nccl_comm);
    nccl_result (*all_reduce)(const void *send, void *recv, size_t count, int datatype, int op, nccl_comm,
                              cu_stream); /* a CUstream is a cudaStream_t */
    nccl_result (*group_start)(void);
    nccl_result (*group_end)(void);
};

/* Loads $GPUVET_NCCL_LIBRARY, or libnccl.so.2. 0, or -1 with err (English: it reaches the JSON). */
int nccl_open(struct nccl *n, char *err, size_t errlen);
void nccl_close(struct nccl *n);
/* NCCL's text for rc ("unhandled cuda error"), or "NCCL error". */
const char *nccl_error(const struct nccl *n, nccl_result rc);

#endif
