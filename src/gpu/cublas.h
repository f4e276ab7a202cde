/* cuBLAS (libcublas.so.13, then .so.12) loaded at run time with our own minimal declarations, for
 * the tensor-core GEMM of `bench gpu --burn`. Names and values as in NVIDIA's cublas_api.h and
 * library_types.h (tests/decl/check_cublas_headers.py compares them where a toolkit is installed). */
#ifndef GPUVET_GPU_CUBLAS_H
#define GPUVET_GPU_CUBLAS_H

#include <stddef.h>
#include <stdint.h>

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

/* cuBLASLt (libcublasLt.so.13, then .so.12), for the burn's FP8 GEMM: cublasGemmEx takes no FP8
 * inputs, cublasLtMatmul does (E4M3 A and B, A transposed, FP32 compute and scale). Names and values
 * as in NVIDIA's cublasLt.h (tests/decl/check_cublaslt_headers.py compares them). */
typedef struct cublaslt_context_opaque *cublaslt_handle;
typedef struct cublaslt_matmul_desc_opaque *cublaslt_matmul_desc;
typedef struct cublaslt_layout_opaque *cublaslt_layout;

#define CUDA_R_8F_E4M3 28
#define CUBLASLT_MATMUL_DESC_TRANSA 3
#define CUBLASLT_MATMUL_DESC_TRANSB 4
#define CUBLASLT_MATMUL_DESC_A_SCALE_POINTER 17
#define CUBLASLT_MATMUL_DESC_B_SCALE_POINTER 18

struct cublaslt {
    void *library;
    char name[256]; /* the library loaded, "libcublasLt.so.13" */
    cublas_status (*create)(cublaslt_handle *);
    cublas_status (*destroy)(cublaslt_handle);
    cublas_status (*desc_create)(cublaslt_matmul_desc *, int compute_type, int scale_type);
    cublas_status (*desc_destroy)(cublaslt_matmul_desc);
    cublas_status (*desc_set)(cublaslt_matmul_desc, int attribute, const void *value, size_t size);
    cublas_status (*layout_create)(cublaslt_layout *, int type, uint64_t rows, uint64_t cols, int64_t ld);
    cublas_status (*layout_destroy)(cublaslt_layout);
    /* algo NULL: cuBLASLt's own heuristic picks the kernel (NVIDIA's cuBLAS guide, cublasLtMatmul). */
    cublas_status (*matmul)(cublaslt_handle, cublaslt_matmul_desc, const void *alpha, const void *a, cublaslt_layout,
                            const void *b, cublaslt_layout, const void *beta, const void *c, cublaslt_layout, void *d,
                            cublaslt_layout, const void *algo, void *workspace, size_t workspace_size, cu_stream);
};

/* Loads $GPUVET_CUBLASLT_LIBRARY, or libcublasLt.so.13 then .so.12. 0, or -1 with err. */
int cublaslt_open(struct cublaslt *lt, char *err, size_t errlen);
void cublaslt_close(struct cublaslt *lt);

#endif
