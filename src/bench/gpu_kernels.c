/* The kernels of `bench gpu`, in PTX (NVIDIA's virtual ISA, "Parallel Thread Execution ISA"
 * documentation) that the driver compiles for the GPU at hand (cuModuleLoadDataEx), so a machine
 * with only the driver runs them. Written for this project; each loops grid-stride, so any grid
 * covers all the words. PTX 7.0 (CUDA 11.0 drivers and later), target sm_52: the driver JITs it
 * for any newer GPU.
 *
 *   gpuvet_fill(base, words, mask, pattern): word i at address a holds (low32(a) & mask) ^ pattern
 *     (mask all ones: address-in-address, and its complement with pattern all ones; mask 0: the
 *     constant pattern, zeros or ones).
 *   gpuvet_check(base, words, mask, pattern, errors, checked): adds 1 to the 64-bit *errors per
 *     word that does not hold what gpuvet_fill wrote, and the words it read to *checked (one add
 *     per thread), so the host can tell a check that ran over every word from one that never ran.
 *   gpuvet_copy(dst, src, chunks): copies chunks of 16 bytes (vector loads and stores, as
 *     STREAM's Copy on a GPU).
 *   gpuvet_fma(out, iterations): 8 independent FP32 FMA chains per thread, 32 x 8 = 256 FMAs per
 *     iteration (512 flops) beside 3 loop instructions: with 32 FMAs the loop's other
 *     instructions took 4 of every 36 issue slots, which on 128-lane SMs (Ada, Hopper, Blackwell)
 *     capped it at 89 % of the FP32 peak; 256 reach 98.8 %. Each thread stores its sum so nothing
 *     is optimised away. CUDA cores, not tensor cores. */
#include "bench/gpu_kernels.h"

/* fill and check: %rd6 = this thread's first word, %rd7 = the grid's stride (in words). */
#define WORD_INDEX                                                                                 \
    "    mov.u32 %r3, %ctaid.x;\n" \
    "    mov.u32 %r4, %ntid.x;\n" \
    "    mov.u32 %r5, %tid.x;\n" \
    "    mov.u32 %r6, %nctaid.x;\n" \
    "    cvt.u64.u32 %rd3, %r3;\n" \
    "    cvt.u64.u32 %rd4, %r4;\n" \
    "    cvt.u64.u32 %rd5, %r5;\n" \
    "    mad.lo.u64 %rd6, %rd3, %rd4, %rd5;\n" \
    "    cvt.u64.u32 %rd7, %r6;\n" \
    "    mul.lo.u64 %rd7, %rd7, %rd4;\n"

/* fill and check: %rd8 = the word's address (base %rd1), %r7 = its pattern (mask %r1, pattern %r2). */
#define WORD_PATTERN                                                                               \
    "    shl.b64 %rd8, %rd6, 2;\n" \
    "    add.u64 %rd8, %rd8, %rd1;\n" \
    "    cvt.u32.u64 %r7, %rd8;\n" \
    "    and.b32 %r7, %r7, %r1;\n" \
    "    xor.b32 %r7, %r7, %r2;\n"

/* One FMA on each of the 8 chains: x = a x + b. */
#define FMA_8                                                                                      \
    "    fma.rn.f32 %f1, %f1, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f2, %f2, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f3, %f3, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f4, %f4, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f5, %f5, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f6, %f6, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f7, %f7, %f9, %f10;\n"                                                         \
    "    fma.rn.f32 %f8, %f8, %f9, %f10;\n"

#define FMA_64 FMA_8 FMA_8 FMA_8 FMA_8 FMA_8 FMA_8 FMA_8 FMA_8

const char gpu_kernels_ptx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry gpuvet_fill(.param .u64 p_base, .param .u64 p_words, .param .u32 p_mask, .param .u32 p_pattern)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<12>;\n"
    "    ld.param.u64 %rd1, [p_base];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [p_words];\n"
    "    ld.param.u32 %r1, [p_mask];\n"
    "    ld.param.u32 %r2, [p_pattern];\n"
    WORD_INDEX
    "FILL_LOOP:\n"
    "    setp.ge.u64 %p1, %rd6, %rd2;\n"
    "    @%p1 bra FILL_DONE;\n"
    WORD_PATTERN
    "    st.global.u32 [%rd8], %r7;\n"
    "    add.u64 %rd6, %rd6, %rd7;\n"
    "    bra FILL_LOOP;\n"
    "FILL_DONE:\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry gpuvet_check(.param .u64 p_base, .param .u64 p_words, .param .u32 p_mask, .param .u32 p_pattern,\n"
    "    .param .u64 p_errors, .param .u64 p_checked)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<14>;\n"
    "    ld.param.u64 %rd1, [p_base];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [p_words];\n"
    "    ld.param.u32 %r1, [p_mask];\n"
    "    ld.param.u32 %r2, [p_pattern];\n"
    "    ld.param.u64 %rd9, [p_errors];\n"
    "    cvta.to.global.u64 %rd9, %rd9;\n"
    "    ld.param.u64 %rd10, [p_checked];\n"
    "    cvta.to.global.u64 %rd10, %rd10;\n"
    "    mov.u64 %rd11, 0;\n"
    WORD_INDEX
    "CHECK_LOOP:\n"
    "    setp.ge.u64 %p1, %rd6, %rd2;\n"
    "    @%p1 bra CHECK_DONE;\n"
    WORD_PATTERN
    "    ld.global.u32 %r8, [%rd8];\n"
    "    setp.ne.u32 %p2, %r8, %r7;\n"
    "    @%p2 red.global.add.u64 [%rd9], 1;\n"
    "    add.u64 %rd11, %rd11, 1;\n"
    "    add.u64 %rd6, %rd6, %rd7;\n"
    "    bra CHECK_LOOP;\n"
    "CHECK_DONE:\n"
    "    setp.eq.u64 %p1, %rd11, 0;\n"
    "    @!%p1 red.global.add.u64 [%rd10], %rd11;\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry gpuvet_copy(.param .u64 p_dst, .param .u64 p_src, .param .u64 p_chunks)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .b64 %rd<14>;\n"
    "    ld.param.u64 %rd1, [p_dst];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u64 %rd2, [p_src];\n"
    "    cvta.to.global.u64 %rd2, %rd2;\n"
    "    ld.param.u64 %rd3, [p_chunks];\n"
    "    mov.u32 %r1, %ctaid.x;\n"
    "    mov.u32 %r2, %ntid.x;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    mov.u32 %r4, %nctaid.x;\n"
    "    cvt.u64.u32 %rd4, %r1;\n"
    "    cvt.u64.u32 %rd5, %r2;\n"
    "    cvt.u64.u32 %rd6, %r3;\n"
    "    mad.lo.u64 %rd7, %rd4, %rd5, %rd6;\n"
    "    cvt.u64.u32 %rd8, %r4;\n"
    "    mul.lo.u64 %rd8, %rd8, %rd5;\n"
    "COPY_LOOP:\n"
    "    setp.ge.u64 %p1, %rd7, %rd3;\n"
    "    @%p1 bra COPY_DONE;\n"
    "    shl.b64 %rd9, %rd7, 4;\n"
    "    add.u64 %rd10, %rd9, %rd2;\n"
    "    add.u64 %rd11, %rd9, %rd1;\n"
    "    ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd10];\n"
    "    st.global.v4.u32 [%rd11], {%r5, %r6, %r7, %r8};\n"
    "    add.u64 %rd7, %rd7, %rd8;\n"
    "    bra COPY_LOOP;\n"
    "COPY_DONE:\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry gpuvet_fma(.param .u64 p_out, .param .u32 p_iterations)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    .reg .f32 %f<12>;\n"
    "    ld.param.u64 %rd1, [p_out];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    ld.param.u32 %r1, [p_iterations];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.u32 %r5, %r2, %r3, %r4;\n"
    "    cvt.rn.f32.u32 %f1, %r5;\n"
    "    mul.f32 %f1, %f1, 0f33800000;\n" /* 2^-24: small starting values, no overflow */
    "    add.f32 %f2, %f1, 0f3F800000;\n"
    "    add.f32 %f3, %f1, 0f40000000;\n"
    "    add.f32 %f4, %f1, 0f40400000;\n"
    "    add.f32 %f5, %f1, 0f40800000;\n"
    "    add.f32 %f6, %f1, 0f40A00000;\n"
    "    add.f32 %f7, %f1, 0f40C00000;\n"
    "    add.f32 %f8, %f1, 0f40E00000;\n"
    "    mov.f32 %f9, 0f3F7FFFEF;\n"  /* a = 0.999999: x = a x + b stays bounded */
    "    mov.f32 %f10, 0f358637BD;\n" /* b = 1e-6 */
    "    setp.eq.u32 %p1, %r1, 0;\n"
    "    @%p1 bra FMA_DONE;\n"
    "FMA_LOOP:\n"
    FMA_64 FMA_64 FMA_64 FMA_64
    "    sub.u32 %r1, %r1, 1;\n"
    "    setp.ne.u32 %p1, %r1, 0;\n"
    "    @%p1 bra FMA_LOOP;\n"
    "FMA_DONE:\n"
    "    add.f32 %f1, %f1, %f2;\n"
    "    add.f32 %f3, %f3, %f4;\n"
    "    add.f32 %f5, %f5, %f6;\n"
    "    add.f32 %f7, %f7, %f8;\n"
    "    add.f32 %f1, %f1, %f3;\n"
    "    add.f32 %f5, %f5, %f7;\n"
    "    add.f32 %f1, %f1, %f5;\n"
    "    mul.wide.u32 %rd2, %r5, 4;\n"
    "    add.u64 %rd2, %rd2, %rd1;\n"
    "    st.global.f32 [%rd2], %f1;\n"
    "    ret;\n"
    "}\n";
