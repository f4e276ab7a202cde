/* cuBLAS (libcublas.so.13, then .so.12) loaded at run time with our own minimal declarations, for
 * the tensor-core GEMM of `bench gpu --burn`. Names and values as in NVIDIA's cublas_api.h and
 * library_types.h (tests/decl/check_cublas_headers.py compares them where a toolkit is installed). */
#ifndef GPUVET_GPU_CUBLAS_H
#define GPUVET_GPU_CUBLAS_H

#include <stddef.h>

#include "gpu/cuda.h"

typedef int cublas_status;
typedef struct cublas_context_opaque *cublas_handle;

#define CUBLAS_STATUS_SUCCESS 0
#define CUBLAS_OP_N 0
#define CUBLAS_OP_T 1
#define CUBLAS_GEMM_DEFAULT (-1)
#define CUBLAS_COMPUTE_32F 68
#define CUDA_R_32F 0
#define CUDA_R_16BF 14

struct cublas {
    void *library;
    char name[256]; /* the library loaded, "libcublas.so.13" */
    cublas_status (*create)(cublas_handle *);
    cublas_status (*destroy)(cublas_handle);
    cublas_status (*set_stream)(cublas_handle, cu_stream); /* a CUstream is a cudaStream_t */
    cublas_status (*gemm_ex)(cublas_handle, int transa, int transb, int m, int n, int k, const void *alpha,
                             const void *a, int a_type, int lda, const void *b, int b_type, int ldb, const void *beta,
                             void *c, int c_type, int ldc, int compute_type, int algo);
};

/* Loads $GPUVET_CUBLAS_LIBRARY, or libcublas.so.13 then libcublas.so.12. 0, or -1 with err. */
int cublas_open(struct cublas *b, char *err, size_t errlen);
void cublas_close(struct cublas *b);

#endif
