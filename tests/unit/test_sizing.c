/* The sizing formulas against published numbers: DeepSpeed's documented examples and the
 * research notes' figures, the models' published parameter counts, KV cache per token. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "rules/workload.h"
#include "sizing/demand.h"
#include "sizing/finetune.h"
#include "sizing/models.h"
#include "sizing/zero.h"


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
        /* Added models: the safetensors total of each repository (total_size / 2 bytes). */
        {"llama-3.1-8b", 8030261248}, {"llama-3.1-70b", 70553706496}, {"llama-3.1-405b", 405853388800},
        {"llama-3.2-1b", 1235814400}, {"llama-3.2-3b", 3212749824}, {"qwen2-72b", 72706203648},
        {"qwen2.5-7b", 7615616512}, {"qwen2.5-14b", 14770033664}, {"qwen2.5-32b", 32763876352},
        {"qwen2.5-72b", 72706203648}, {"mistral-7b-v0.3", 7248023552}, {"mistral-nemo-12b", 12247782400},
        {"gemma-2-2b", 2614341888}, {"gemma-2-9b", 9241705984}, {"gemma-2-27b", 27227128320},
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
    /* --params: no largest layer; ZeRO-3 is still estimated, without that term, and says so. */
    cr_expect_eq(zero_estimate(7000000000, 0, &cfg, &e, &why), 0, "ZeRO-3 without the largest layer");
    cr_expect(strstr(e.method, "lower bound"), "%s", e.method);
    cr_expect_eq(e.largest_layer_bytes, 0);
}

/* Korthikanti et al. 2022 count GPT's block as 34·s·b·h (with dropout masks, 4h MLP). Counted the
 * same way, Llama-2-7B's block (no dropout, SwiGLU at 11008 = 2.6875h, 2 RMSNorms) keeps 2 B x
 * (2h norms + h + 2h q,k + h v + h o-input + h MLP input + 4 x 2.6875h) = 37.5·h per token; with
 * eager attention Korthikanti's 5·a·s²·b score term comes on top. s = 4096, b = 1. */
Test(sizing, activations_derived_from_the_architecture)
{
    struct llm_shape m = builtin_model("llama-2-7b");
    cr_expect_float_eq(activation_bytes_per_token_layer(&m) / m.hidden, 37.5, 1e-12);
    double sbh = 4096.0 * 4096;
    cr_expect_float_eq(activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_NONE, true), 37.5 * sbh, 1);
    cr_expect_float_eq(activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_SELECTIVE, false), 37.5 * sbh, 1);
    cr_expect_float_eq(activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_NONE, false),
                       37.5 * sbh + 5.0 * 32 * 4096 * 4096, 1);
    cr_expect_float_eq(activation_bytes_per_layer(&m, 4096, 1, RECOMPUTE_FULL, false), 2 * sbh, 1);
    /* GQA shrinks k and v: Llama-3-8B (8 of 32 KV heads, 14336 = 3.5h MLP): 2 x (2 + 1 + 1.25 + 0.25
     * + 1 + 1 + 14) = 41 h. */
    struct llm_shape l3 = builtin_model("llama-3-8b");
    cr_expect_float_eq(activation_bytes_per_token_layer(&l3) / l3.hidden, 41.0, 1e-12);
}

/* Mixtral-8x7B (its published config.json): 46.7B parameters, 12.9B active per token (Mistral AI's
 * announcement: "46.7B total parameters but only uses 12.9B parameters per token"). */
Test(sizing, mixture_of_experts_total_and_active)
{
    char err[512];
    struct llm_shape m;
    cr_assert_eq(llm_from_hf_config(GPUVET_TEST_SOURCE "/fixtures/plan/mixtral-8x7b.config.json", &m, err, sizeof err),
                 0, "%s", err);
    cr_expect_eq(m.experts, 8);
    cr_expect_eq(m.experts_per_token, 2);
    cr_expect_eq(llround(m.params / 1e8), 467, "%lld", (long long)m.params);
    cr_expect_eq(llround(m.active_params / 1e8), 129, "%lld", (long long)m.active_params);
}

/* vLLM keeps max(1, KV heads / tp) KV heads per GPU and refuses a tp that does not divide the
 * attention heads (vllm/config.py verify_with_parallel_config, get_num_kv_heads). */
Test(sizing, tensor_parallel_kv_heads)
{
    struct llm_shape q = builtin_model("qwen2-7b"); /* 28 heads, 4 KV heads */
    char why[256];
    cr_expect(!tensor_parallel_valid(&q, 8, why, sizeof why), "28 heads over 8 GPUs");
    cr_expect(tensor_parallel_valid(&q, 4, why, sizeof why));
    cr_expect(tensor_parallel_valid(&q, 2, why, sizeof why));
    struct llm_shape l = builtin_model("llama-3-70b"); /* 64 heads, 8 KV heads */
    double one = kv_bytes_per_sequence(&l, 2, 1000, 1);
    cr_expect_float_eq(one, 2.0 * 80 * 8 * 128 * 2 * 1000, 1);
    cr_expect_float_eq(kv_bytes_per_sequence(&l, 2, 1000, 8), one / 8, 1, "one KV head per GPU");
    cr_expect_float_eq(kv_bytes_per_sequence(&l, 2, 1000, 16), one / 8, 1, "replicated past 8: still one per GPU");
    cr_expect(tensor_parallel_valid(&l, 16, why, sizeof why));
}

/* Gemma-2 alternates local layers (4096-token window) and global ones (google/gemma-2-9b's config:
 * sliding_window 4096; transformers' Gemma2 makes every even layer sliding): at 8192 tokens, 21
 * layers keep 8192 and 21 keep 4096. Mistral-7B-v0.1's window caps every layer. */
Test(sizing, sliding_window_layers)
{
    struct llm_shape g = builtin_model("gemma-2-9b");
    cr_expect_eq(g.sliding_layers, 21);
    double per_layer_token = 2.0 * 8 * 256 * 2;
    cr_expect_float_eq(kv_bytes_per_sequence(&g, 2, 8192, 1), per_layer_token * (21 * 8192.0 + 21 * 4096.0), 1);
    cr_expect_float_eq(kv_bytes_per_sequence(&g, 2, 2048, 1), per_layer_token * 42 * 2048.0, 1);
    struct llm_shape m = builtin_model("mistral-7b");
    cr_expect_float_eq(kv_bytes_per_sequence(&m, 2, 32768, 1), (double)kv_bytes_per_token(&m, 2) * 4096, 1);
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

/* LoRA adds r x (d_in + d_out) per adapted matrix (Hu et al. 2021). PEFT's
 * print_trainable_parameters on Llama-2-7B: r = 8 on q_proj and v_proj, "trainable params:
 * 4,194,304"; on every linear layer, "trainable params: 19,988,480". QLoRA stores NF4 with double
 * quantization at 4 + 0.127 bits per parameter (Dettmers et al. 2023, §3). */
Test(sizing, lora_adapters_and_qlora_bits)
{
    struct llm_shape m = builtin_model("llama-2-7b");
    struct finetune_estimate e;
    finetune_estimate(&m, FINETUNE_LORA, 8, true, &e);
    cr_expect_eq(e.adapter_params, 4194304);
    cr_expect_float_eq(e.frozen_bytes, 2.0 * m.params, 1, "LoRA: the frozen weights in bf16");
    finetune_estimate(&m, FINETUNE_LORA, 8, false, &e);
    cr_expect_eq(e.adapter_params, 19988480);
    cr_expect_float_eq(e.adapter_bytes, 19988480.0 * 16, 1, "fp32 weight, gradient, Adam m and v");
    cr_expect_eq(llround(QLORA_BITS_PER_PARAM * 1000), 4127);
    finetune_estimate(&m, FINETUNE_QLORA, 8, false, &e);
    /* Embedding and LM head (2 x 32000 x 4096) and the norms stay in bf16; the rest is NF4. */
    int64_t bf16_params = 2LL * 32000 * 4096 + 32 * 2 * 4096 + 4096;
    cr_expect_eq(e.quantized_params, m.params - bf16_params);
    cr_expect_float_eq(e.frozen_bytes, e.quantized_params * QLORA_BITS_PER_PARAM / 8 + 2.0 * bf16_params, 1);
}

/* Full recompute keeps each layer's input, 2·s·b·h: huggingface/transformers PR #48444 measured
 * exactly that on an H100 (Qwen3 shape, bf16, 8 layers x hidden 1024 x 8k tokens: 128.0 MB resident
 * after the forward, "layers x seq x hidden x 2"). While the backward pass runs it still holds one
 * layer re-materialised whole (Korthikanti et al.'s per-layer count, FlashAttention: no s x s
 * scores) and the fp32 logits' gradient beside the logits. */
Test(sizing, full_recompute_holds_one_layer_and_the_logits_gradient)
{
    struct llm_shape m = builtin_model("llama-3.1-8b");
    struct llm_shape small = m;
    small.hidden = 1024;
    cr_expect_eq(8 * activation_bytes_per_layer(&small, 8192, 1, RECOMPUTE_FULL, true), 128.0 * 1024 * 1024);
    cr_expect_eq(recompute_working_bytes(&m, 32768, 1, RECOMPUTE_NONE, true), 0);
    cr_expect_eq(recompute_working_bytes(&m, 32768, 1, RECOMPUTE_SELECTIVE, true), 0);
    double layer = activation_bytes_per_layer(&m, 32768, 1, RECOMPUTE_NONE, true);
    double logits = 32768.0 * 128256 * 4; /* b·s·V·4, Llama 3's 128,256-token vocabulary */
    cr_expect_eq(logits_bytes(&m, 32768, 1), logits);
    cr_expect_eq(recompute_working_bytes(&m, 32768, 1, RECOMPUTE_FULL, true), layer + logits);
    /* At 32k tokens the working set outweighs the 32 checkpoints: counting only those misses most
     * of what full recompute holds. */
    double checkpoints = m.layers * activation_bytes_per_layer(&m, 32768, 1, RECOMPUTE_FULL, true);
    cr_expect_gt(layer + logits, checkpoints);
}

/* The models added for issue 30, against the totals their publishers state (model cards on
 * huggingface.co, Meta's and Mistral AI's announcements, OpenAI's gpt-oss model card, DeepSeek's
 * README_WEIGHTS.md), rounded as they round them. Where a publisher leaves the input embedding out
 * of its active count (gpt-oss, DeepSeek-V3) or its total (Qwen3's "non-embedding"), so does the
 * comparison. */
Test(sizing, new_models_match_published_totals)
{
    struct {
        const char *id;
        double total, active, scale; /* billions; scale: the published figure's last digit */
        bool without_embeddings;    /* the publisher's figure leaves the embedding matrices out */
        bool active_without_input;  /* the active figure leaves the input embedding out */
    } cases[] = {
        /* Qwen3 model cards: "Number of Parameters (Non-Embedding)" */
        {"qwen3-0.6b", 0.44, 0.44, 0.01, true, false},
        {"qwen3-1.7b", 1.4, 1.4, 0.1, true, false},
        {"qwen3-4b", 3.6, 3.6, 0.1, true, false},
        {"qwen3-8b", 6.95, 6.95, 0.01, true, false},
        {"qwen3-14b", 13.2, 13.2, 0.1, true, false},
        {"qwen3-32b", 31.2, 31.2, 0.1, true, false},
        /* Qwen3 MoE cards: 30.5B total, 3.3B activated; 235B total, 22B activated */
        {"qwen3-30b-a3b", 30.5, 3.3, 0.1, false, false},
        {"qwen3-235b-a22b", 235, 22, 1, false, false},
        /* DeepSeek-V3 README_WEIGHTS.md: main model 671B, 36.6B activated "including 0.9B for the
         * output Head" (the input embedding not counted) */
        {"deepseek-v3", 671, 36.6, 0.1, false, true},
        {"deepseek-r1", 671, 36.6, 0.1, false, true},
        /* Mistral AI: 46.7B total, 12.9B per token; Mixtral 8x22B: 141B, 39B */
        {"mixtral-8x7b", 46.7, 12.9, 0.1, false, false},
        {"mixtral-8x22b", 141, 39, 1, false, false},
        /* OpenAI's gpt-oss model card: 116.83B total, 5.13B active; 20.91B, 3.61B */
        {"gpt-oss-120b", 116.83, 5.13, 0.01, false, true},
        {"gpt-oss-20b", 20.91, 3.61, 0.01, false, true},
        /* Meta: Llama 4 Maverick 400B total, 17B active; Scout 17B active (its 109B total counts
         * the vision encoder too, which is not modelled: the text model is 108B) */
        {"llama-4-maverick", 400, 17, 1, false, false},
        {"llama-4-scout", 108, 17, 1, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct llm_shape m = builtin_model(cases[i].id);
        double emb = (double)m.vocab * m.hidden;
        double total = (double)m.params - (cases[i].without_embeddings ? (double)m.embedding_params : 0);
        double active = (double)m.active_params - (cases[i].without_embeddings ? (double)m.embedding_params
                                                   : cases[i].active_without_input ? emb
                                                                                    : 0);
        /* within one unit of the published figure's last digit */
        cr_expect(fabs(total / 1e9 - cases[i].total) <= cases[i].scale, "%s total %.4gB", cases[i].id, total / 1e9);
        cr_expect(fabs(active / 1e9 - cases[i].active) <= cases[i].scale, "%s active %.4gB", cases[i].id,
                  active / 1e9);
        cr_expect(m.params >= m.active_params && (m.experts > 0) == (m.params > m.active_params), "%s", cases[i].id);
    }
}

/* KV cache per token from the configs' arithmetic. DeepSeek-V3's multi-head latent attention keeps
 * kv_lora_rank + qk_rope_head_dim = 576 elements per layer (the DeepSeek-V2 paper's (d_c + d_h^R) l;
 * 70,272 bytes in BF16, the ~70 KB per token SGLang's and vLLM's MLA write-ups give), not 2 x 128
 * heads x 192, and the same on every GPU of a tensor-parallel group. */
Test(sizing, kv_cache_per_token_new_models)
{
    struct {
        const char *id;
        int64_t bytes; /* BF16, every layer at full context */
    } cases[] = {
        {"deepseek-v3", 61LL * (512 + 64) * 2},    {"gpt-oss-120b", 2LL * 36 * 8 * 64 * 2},
        {"gpt-oss-20b", 2LL * 24 * 8 * 64 * 2},    {"llama-4-scout", 2LL * 48 * 8 * 128 * 2},
        {"qwen3-32b", 2LL * 64 * 8 * 128 * 2},     {"qwen3-235b-a22b", 2LL * 94 * 4 * 128 * 2},
        {"mixtral-8x22b", 2LL * 56 * 8 * 128 * 2}, {"qwen3-0.6b", 2LL * 28 * 8 * 128 * 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct llm_shape m = builtin_model(cases[i].id);
        cr_expect_eq(kv_bytes_per_token(&m, 2), cases[i].bytes, "%s: %lld", cases[i].id,
                     (long long)kv_bytes_per_token(&m, 2));
    }
    struct llm_shape d = builtin_model("deepseek-v3");
    cr_expect_eq(kv_bytes_per_token(&d, 2), 70272);
    cr_expect_float_eq(kv_bytes_per_sequence(&d, 2, 1000, 8), kv_bytes_per_sequence(&d, 2, 1000, 1), 1,
                       "the latent is whole on every GPU");
    cr_expect_float_eq(kv_bytes_per_sequence(&d, 1, 1000, 1), 1000.0 * 61 * 576, 1, "FP8 KV cache: one byte");
}

/* Windowed layers stop growing: gpt-oss alternates 128-token sliding windows and full attention
 * (layer_types), Llama 4 attends in 8192-token chunks on 3 of every 4 layers (attention_chunk_size,
 * no_rope_layers), Gemma-2 alternates a 4096-token window. */
Test(sizing, windowed_and_chunked_layers_stop_growing)
{
    struct llm_shape g = builtin_model("gpt-oss-120b");
    cr_expect_eq(g.sliding_layers, 18);
    double per_layer_token = 2.0 * 8 * 64 * 2;
    cr_expect_float_eq(kv_bytes_per_sequence(&g, 2, 131072, 1), per_layer_token * (18 * 131072.0 + 18 * 128.0), 1);
    cr_expect_float_eq(kv_bytes_per_sequence(&g, 2, 100, 1), per_layer_token * 36 * 100.0, 1, "inside the window");
    struct llm_shape l = builtin_model("llama-4-maverick");
    cr_expect(l.chunked_attention);
    cr_expect_eq(l.sliding_layers, 36);
    double l_layer_token = 2.0 * 8 * 128 * 2;
    cr_expect_float_eq(kv_bytes_per_sequence(&l, 2, 1048576, 1), l_layer_token * (12 * 1048576.0 + 36 * 8192.0), 1);
    struct llm_shape gemma = builtin_model("gemma-2-27b");
    cr_expect_eq(gemma.sliding_layers, 23);
    cr_expect_eq(gemma.sliding_window, 4096);
}

/* Weight bytes as the checkpoints ship: gpt-oss's MXFP4 experts (4-bit values, an 8-bit scale per 32:
 * 4.25 bits) and BF16 rest make OpenAI's model-card checkpoint sizes, 60.8 GiB and 12.8 GiB, and
 * gpt-oss-120b fits one 80 GB GPU as OpenAI states; DeepSeek-V3's FP8 linear layers make about
 * 1 byte per parameter; a BF16 model is 2 bytes per parameter. */
Test(sizing, checkpoint_weight_bytes)
{
    struct llm_shape big = builtin_model("gpt-oss-120b"), small = builtin_model("gpt-oss-20b");
    cr_expect_eq(llround(llm_checkpoint_bytes(&big) / GIB * 10), 607, "%.2f GiB (card: 60.8)",
                 llm_checkpoint_bytes(&big) / GIB);
    cr_expect(fabs(llm_checkpoint_bytes(&big) / GIB - 60.8) / 60.8 < 0.005);
    cr_expect_eq(llround(llm_checkpoint_bytes(&small) / GIB * 10), 128, "%.2f GiB (card: 12.8)",
                 llm_checkpoint_bytes(&small) / GIB);
    cr_expect(llm_checkpoint_bytes(&big) + kv_bytes_per_sequence(&big, 2, 4096, 1) < 0.9 * 80e9 - 1e9,
              "fits one 80 GB GPU at vLLM's 90%% with a request of 4096 tokens");
    /* experts: 36 layers x 128 x (3 x 2880 x 2880 + 2 x 2880 + 2880) */
    cr_expect_eq(big.expert_params, 36LL * 128 * (3LL * 2880 * 2880 + 3 * 2880));
    struct llm_shape d = builtin_model("deepseek-v3");
    double per_param = llm_checkpoint_bytes(&d) / (double)d.params;
    cr_expect(per_param > 1 && per_param < 1.01, "%.4f bytes per parameter", per_param);
    struct llm_shape q = builtin_model("qwen3-8b");
    cr_expect_float_eq(llm_checkpoint_bytes(&q), 2.0 * q.params, 1);
}

/* --model-config reads the new architectures as the built-in table has them: gpt-oss's layer_types
 * and mxfp4 quantization_config, DeepSeek-V3's MLA, dense first layers and fp8, Llama 4's text_config,
 * chunked attention (no_rope_layers) and shared expert, Qwen3-MoE's q/k norms. */
Test(sizing, new_architecture_configs_match_builtin)
{
    const char *ids[][2] = {{"gpt-oss-120b", "gpt-oss-120b.config.json"},
                            {"deepseek-v3", "deepseek-v3.config.json"},
                            {"llama-4-scout", "llama-4-scout.config.json"},
                            {"qwen3-30b-a3b", "qwen3-30b-a3b.config.json"}};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char path[512], err[512];
        snprintf(path, sizeof path, "%s/fixtures/plan/%s", GPUVET_TEST_SOURCE, ids[i][1]);
        struct llm_shape c, b = builtin_model(ids[i][0]);
        cr_assert_eq(llm_from_hf_config(path, &c, err, sizeof err), 0, "%s", err);
        cr_expect_eq(c.params, b.params, "%s: %lld", ids[i][0], (long long)c.params);
        cr_expect_eq(c.active_params, b.active_params, "%s: %lld", ids[i][0], (long long)c.active_params);
        cr_expect_eq(kv_bytes_per_token(&c, 2), kv_bytes_per_token(&b, 2), "%s", ids[i][0]);
        cr_expect_eq(c.sliding_layers, b.sliding_layers, "%s", ids[i][0]);
        cr_expect_eq(c.sliding_window, b.sliding_window, "%s", ids[i][0]);
        cr_expect_float_eq(llm_checkpoint_bytes(&c), llm_checkpoint_bytes(&b), 1, "%s", ids[i][0]);
    }
}
