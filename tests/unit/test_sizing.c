/* The sizing formulas against published numbers: DeepSpeed's documented examples and the
 * research notes' figures, the models' published parameter counts, KV cache per token. */
#include <criterion/criterion.h>
#include <math.h>

#include "rules/workload.h"
#include "sizing/demand.h"
#include "sizing/models.h"
#include "sizing/zero.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static struct llm_shape builtin_model(const char *id)
{
    struct llm_shape m;
    cr_assert(llm_builtin(id, &m), "%s is built in", id);
    return m;
}

/* Published totals (model cards / safetensors metadata on huggingface.co). */
Test(sizing, parameter_counts_match_published_totals)
{
    struct {
        const char *id;
        int64_t params;
    } cases[] = {
        {"llama-2-7b", 6738415616}, {"llama-2-13b", 13015864320}, {"llama-2-70b", 68976648192},
        {"llama-3-8b", 8030261248}, {"llama-3-70b", 70553706496}, {"qwen2-7b", 7615616512},
        {"mistral-7b", 7241732096},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(builtin_model(cases[i].id).params, cases[i].params, "%s: %lld", cases[i].id,
                     (long long)builtin_model(cases[i].id).params);
}

/* research/sizing.md §2.4: 512, 800, 320, 128, 320, 56, 128 KiB per token in fp16. */
Test(sizing, kv_cache_per_token)
{
    struct {
        const char *id;
        int kib;
    } cases[] = {{"llama-2-7b", 512}, {"llama-2-13b", 800}, {"llama-2-70b", 320}, {"llama-3-8b", 128},
                 {"llama-3-70b", 320}, {"qwen2-7b", 56},    {"mistral-7b", 128}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct llm_shape m = builtin_model(cases[i].id);
        cr_expect_eq(kv_bytes_per_token(&m, 2), cases[i].kib * 1024LL, "%s", cases[i].id);
        cr_expect_eq(kv_bytes_per_token(&m, 1), cases[i].kib * 512LL, "%s fp8 halves it", cases[i].id);
    }
}

/* DeepSpeed docs (memory.rst) worked example: t5-3b, 2851M params, 32M largest layer, 1 node x 8
 * GPUs; the estimator prints x/2**30 with two decimals. */
Test(sizing, deepspeed_docs_t5_3b_example)
{
    const int64_t params = 2851598336, largest = 32899072;
    int64_t cpu, gpu, layer;
    deepspeed_zero2_estimate(params, 8, 1, true, 1.5, &cpu, &gpu);
    cr_expect_float_eq(round(cpu / GIB * 100) / 100, 127.48, 1e-9);
    cr_expect_float_eq(round(gpu / GIB * 100) / 100, 5.31, 1e-9);
    deepspeed_zero2_estimate(params, 8, 1, false, 1.5, &cpu, &gpu);
    cr_expect_float_eq(round(cpu / GIB * 100) / 100, 127.48, 1e-9);
    deepspeed_zero3_estimate(params, largest, 8, 1, true, true, true, 1.5, &cpu, &gpu, &layer);
    cr_expect_float_eq(round(cpu / GIB * 100) / 100, 71.71, 1e-9);
    cr_expect_float_eq(round(gpu / GIB * 100) / 100, 0.12, 1e-9);
    deepspeed_zero3_estimate(params, largest, 8, 1, true, false, true, 1.5, &cpu, &gpu, &layer);
    cr_expect_float_eq(round(cpu / GIB * 100) / 100, 63.74, 1e-9);
    cr_expect_float_eq(round(gpu / GIB * 100) / 100, 0.79, 1e-9);
    deepspeed_zero3_estimate(params, largest, 8, 1, false, false, true, 1.5, &cpu, &gpu, &layer);
    cr_expect_float_eq(round(cpu / GIB * 100) / 100, 1.47, 1e-9);
    cr_expect_float_eq(round(gpu / GIB * 100) / 100, 6.10, 1e-9);
}

/* research/sizing.md §1: 7B ZeRO-2 offload on 1 GPU 168 GB host / 14 GB GPU; 8 GPUs 336 GB;
 * 13B 312 GB; 70B 1680 GB and 140 GB per GPU. */
Test(sizing, deepspeed_zero2_offload_research_numbers)
{
    int64_t cpu, gpu;
    deepspeed_zero2_estimate(7000000000, 1, 1, true, 1.5, &cpu, &gpu);
    cr_expect_eq(cpu, 168000000000LL);
    cr_expect_eq(gpu, 14000000000LL);
    deepspeed_zero2_estimate(7000000000, 8, 1, true, 1.5, &cpu, &gpu);
    cr_expect_eq(cpu, 336000000000LL);
    deepspeed_zero2_estimate(13000000000, 1, 1, true, 1.5, &cpu, &gpu);
    cr_expect_eq(cpu, 312000000000LL);
    deepspeed_zero2_estimate(70000000000, 1, 1, true, 1.5, &cpu, &gpu);
    cr_expect_eq(cpu, 1680000000000LL);
    cr_expect_eq(gpu, 140000000000LL);
}

/* Llama-2-70B (68.98B, largest module 262M): ZeRO-3 param+optimizer offload 1862 GB per node,
 * optimizer only on 8 GPUs 1656 GB and 18.3 GB per GPU, no offload 13 GB host and 156 GB GPU. */
Test(sizing, deepspeed_zero3_llama_2_70b)
{
    struct llm_shape m = builtin_model("llama-2-70b");
    cr_expect_eq(m.largest_layer_params, 262144000);
    struct zero_config cfg = {.stage = 3, .offload = OFFLOAD_CPU, .zero_init = true, .gpus_per_node = 8, .nodes = 1};
    struct zero_estimate e;
    const char *why;
    cr_assert_eq(zero_estimate(m.params, m.largest_layer_params, &cfg, &e, &why), 0);
    cr_expect_eq(llround(e.cpu_bytes_per_node / 1e9), 1862);
    cr_expect_eq(llround(e.cpu_bytes_unbuffered / 1e9), 1242, "the 1.5 buffer is shown apart");
    cr_expect_lt(e.gpu_bytes_per_gpu, 1500000000LL);
    cfg.offload = OFFLOAD_OPTIMIZER;
    cr_assert_eq(zero_estimate(m.params, m.largest_layer_params, &cfg, &e, &why), 0);
    /* 1655.4 GB; the notes round the 68.98B count up to 1656. */
    cr_expect_lt(fabs(e.cpu_bytes_per_node / 1e9 - 1656), 1.0);
    cr_expect_eq(llround(e.gpu_bytes_per_gpu / 1e8), 183);
    cfg.offload = OFFLOAD_NONE;
    cr_assert_eq(zero_estimate(m.params, m.largest_layer_params, &cfg, &e, &why), 0);
    cr_expect_eq(llround(e.cpu_bytes_per_node / 1e9), 13);
    cr_expect_eq(llround(e.gpu_bytes_per_gpu / 1e9), 156);
}

Test(sizing, zero_rejects_unsupported_combinations)
{
    struct zero_estimate e;
    const char *why = NULL;
    struct zero_config cfg = {.stage = 2, .offload = OFFLOAD_NVME, .zero_init = true, .gpus_per_node = 1, .nodes = 1};
    cr_expect_eq(zero_estimate(7000000000, 0, &cfg, &e, &why), -1);
    cr_expect(strstr(why, "stage 3"));
    cfg = (struct zero_config){.stage = 3, .offload = OFFLOAD_NONE, .zero_init = true, .gpus_per_node = 1, .nodes = 1};
    cr_expect_eq(zero_estimate(7000000000, 0, &cfg, &e, &why), -1, "ZeRO-3 without the largest layer");
}

/* research/sizing.md §2.3, Llama-2-7B shape, s = 4096, b = 1: 3.03 GiB per layer without
 * recompute, 97 GiB for 32 layers, 17 GiB with FlashAttention/selective, 1 GiB full recompute. */
Test(sizing, activations_korthikanti)
{
    struct llm_shape m = builtin_model("llama-2-7b");
    cr_expect_float_eq(round(activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_NONE, false) / GIB * 100) / 100, 3.03,
                       1e-9);
    cr_expect_eq(llround(32 * activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_NONE, false) / GIB), 97);
    cr_expect_eq(llround(32 * activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_NONE, true) / GIB), 17);
    cr_expect_eq(llround(32 * activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_SELECTIVE, false) / GIB), 17);
    cr_expect_eq(llround(32 * activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_FULL, false) / GIB), 1);
}

/* SPEC: ~5-8 cores per A100 at 2,470 img/s; research: 8 GPUs with n(workers+1)+4. The numbers are
 * the thresholds table's, and `gpuvet plan` and the audit's CPU_CORES_PER_GPU count the same. */
Test(sizing, cv_pipeline_cores)
{
    const struct thresholds *t = thresholds_for(WL_CV_TRAIN);
    struct cv_demand d;
    cv_pipeline_demand(t->cv_reference_img_s, t->cv_decode_images_s_per_core, 8, t->cv_image_bytes, &d);
    cr_expect_eq(d.cores_per_gpu, 7, "ceil(2470 / 460) decode cores + the training process");
    cr_expect_eq(d.cores_per_gpu, cv_cores_per_accelerator(t, t->cv_reference_img_s));
    cr_expect_eq(cv_cores_per_accelerator(t, 4400), (int)ceil(4400 / 460.0) + 1);
    cr_expect_eq(d.cores_per_node, 8 * d.cores_per_gpu + 4);
    cr_expect_float_eq(d.read_bytes_s_per_node, 2470.0 * 8 * 147.9e9 / 1281167, 1);
}
