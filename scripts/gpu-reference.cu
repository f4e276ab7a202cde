// Reference figures beside `gpuvet bench gpu`, built with nvcc on the GPU machine by
// scripts/gpu-check.sh (nvcc -O3 -o gpuref scripts/gpu-reference.cu -lcublas -lcublasLt): on each
// GPU, a copy kernel shaped as gpuvet's (16-byte loads and stores, grid-stride), an FP32 FMA loop of
// 256 FMAs per iteration, cuBLAS GEMMs (SGEMM with TF32 off, and BF16 in / FP32 accumulate) and, on
// compute capability 8.9 and later, a cuBLASLt FP8 GEMM (E4M3, TN, FP32 out) with the kernel chosen by
// cublasLtMatmulAlgoGetHeuristic and a 32 MiB workspace, as NVIDIA's LtFp8Matmul sample does; each
// the median of 5 timed runs after a warm-up. Written for this project; not part of the build.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            std::printf("error: %s: %s\n", #call, cudaGetErrorString(e_));                           \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

__global__ void copy16(uint4 *dst, const uint4 *src, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

__global__ void fma256(float *out, unsigned iterations)
{
    float x[8], a = 0.999999f, b = 1e-6f;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 8; k++)
        x[k] = t * 5.96e-8f + k;
    for (unsigned i = 0; i < iterations; i++) {
#pragma unroll
        for (int r = 0; r < 32; r++)
#pragma unroll
            for (int k = 0; k < 8; k++)
                x[k] = fmaf(x[k], a, b);
    }
    out[t] = x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
}

// The median of 5 runs of `run` (after one warm-up), in seconds by events.
template <class F> static double median_seconds(F run)
{
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    run();
    std::vector<double> t;
    for (int i = 0; i < 5; i++) {
        cudaEventRecord(start);
        run();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        t.push_back(ms / 1e3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(t.begin(), t.end());
    return t[2];
}

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    for (int dev = 0; dev < n; dev++) {
        CHECK(cudaSetDevice(dev));
        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, dev));
        char bus[32];
        CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
        size_t bytes = (size_t)1 << 30;
        uint4 *a, *b;
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMemset(a, 1, bytes));
        unsigned blocks = p.multiProcessorCount * 8;
        double copy = median_seconds([&] {
            for (int i = 0; i < 10; i++)
                copy16<<<blocks, 256>>>(b, a, bytes / 16);
        });
        double engines = median_seconds([&] {
            for (int i = 0; i < 10; i++)
                cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
        });
        float *out;
        CHECK(cudaMalloc(&out, (size_t)blocks * 256 * sizeof(float)));
        unsigned iterations = 20000;
        double fma = median_seconds([&] { fma256<<<blocks, 256>>>(out, iterations); });
        cublasHandle_t h;
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
            std::printf("error: cublasCreate failed\n");
            return 1;
        }
        cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH); // SGEMM in FP32, not TF32
        const int m = 8192;
        float *x, *y, *z, one = 1, zero = 0;
        CHECK(cudaMalloc(&x, (size_t)m * m * 4));
        CHECK(cudaMalloc(&y, (size_t)m * m * 4));
        CHECK(cudaMalloc(&z, (size_t)m * m * 4));
        cudaMemset(x, 0, (size_t)m * m * 4);
        cudaMemset(y, 0, (size_t)m * m * 4);
        double sgemm = median_seconds([&] {
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, x, m, y, m, &zero, z, m);
        });
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
        double bf16 = median_seconds([&] {
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, x, CUDA_R_16BF, m, y, CUDA_R_16BF, m, &zero, z,
                         CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        });
        double fp8 = -1;
        if (p.major * 10 + p.minor >= 89) {
            cublasLtHandle_t lt;
            cublasLtMatmulDesc_t desc;
            cublasLtMatrixLayout_t la, lb, lc;
            cublasLtMatmulPreference_t pref;
            cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
            size_t workspace_bytes = (size_t)32 << 20;
            void *workspace;
            CHECK(cudaMalloc(&workspace, workspace_bytes));
            cublasLtCreate(&lt);
            cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
            cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
            cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
            cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, m, m, m);
            cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, m, m, m);
            cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, m, m);
            cublasLtMatmulPreferenceCreate(&pref);
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                                 sizeof workspace_bytes);
            cublasLtMatmulHeuristicResult_t found = {};
            int count = 0;
            if (cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &found, &count) ==
                    CUBLAS_STATUS_SUCCESS && count > 0)
                fp8 = median_seconds([&] {
                    cublasLtMatmul(lt, desc, &one, x, la, y, lb, &zero, z, lc, z, lc, &found.algo, workspace,
                                   workspace_bytes, 0);
                });
            cublasLtMatmulPreferenceDestroy(pref);
            cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
            cublasLtMatmulDescDestroy(desc);
            cublasLtDestroy(lt);
            cudaFree(workspace);
        }
        double flops = 2.0 * m * (double)m * m;
        std::printf("%s %s: reference copy kernel %.0f GB/s, copy engines %.0f GB/s (read + written), FP32 256-FMA "
                    "loop %.1f TFLOPS, cuBLAS SGEMM %.1f TFLOPS, BF16 GEMM %.1f TFLOPS\n",
                    bus, p.name, 2.0 * bytes * 10 / copy / 1e9, 2.0 * bytes * 10 / engines / 1e9,
                    (double)blocks * 256 * 512.0 * iterations / fma / 1e12, flops / sgemm / 1e12, flops / bf16 / 1e12);
        if (fp8 > 0)
            std::printf("%s %s: reference cuBLASLt FP8 GEMM (E4M3, TN, n = %d) %.1f TFLOPS\n", bus, p.name, m,
                        flops / fp8 / 1e12);
        else
            std::printf("%s %s: reference cuBLASLt FP8 GEMM not run (compute capability %d.%d, or no kernel found)\n",
                        bus, p.name, p.major, p.minor);
        cublasDestroy(h);
        cudaFree(a), cudaFree(b), cudaFree(out), cudaFree(x), cudaFree(y), cudaFree(z);
    }
    return 0;
}
