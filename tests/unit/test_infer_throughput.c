/* llm-infer's tokens/s estimate (sizing/throughput.c) computed by hand: the roofline on two GPUs,
 * vLLM's batch caps and chunked prefill, tensor parallelism's all-reduces and their links, and FP8
 * checkpoints that keep attention 16-bit; each number from the formula next to it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rules/workload.h"
#include "sizing/demand.h"
#include "sizing/interconnect.h"
#include "sizing/throughput.h"

static struct gpu_table table;

static void load_table(void)
{
    char err[512];
    cr_assert_eq(gpu_table_load(GPUVET_TEST_SOURCE "/../data/gpus.csv", &table, err, sizeof err), 0, "%s", err);
}
static void free_table(void) { gpu_table_free(&table); }

static const struct gpu_spec *gpu(const char *id)
{
    char note[512], err[512];
    const struct gpu_spec *g = gpu_lookup(&table, id, note, sizeof note, err, sizeof err);
    cr_assert(g, "%s", err);
    return g;
}

/* Llama-3.1-8B on one GPU, bf16 weights and KV cache, 4,096-token requests of which 2,048 prompt,
 * batch 32, at the thresholds table's shares; tests change what they vary. */
static struct infer_rate_input llama_input(const struct llm_shape *m, const char *gpu_id)
{
    const struct thresholds *t = thresholds_for(WL_LLM_INFER);
    return (struct infer_rate_input){.model = m, .gpu = gpu(gpu_id), .tp = 1, .weight_bytes = 2, .kv_bytes = 2,
                                     .context = 4096, .prompt = 2048, .batch = 32,
                                     .bandwidth_share = t->infer_decode_bandwidth_share,
                                     .flops_share = t->infer_prefill_flops_share};
}

#define expect_rel(got, want) \
    cr_expect(fabs((double)(got) - (double)(want)) <= 1e-9 * fabs((double)(want)), "got %.9g, want %.9g", (double)(got), \
              (double)(want))

/* Llama-3.1-8B (8,030,261,248 parameters; 32 layers x 8 KV heads x 128 head dim, 32 query heads),
 * bf16 weights and KV cache, requests of 4,096 tokens of which 2,048 prompt, batch 32, tensor
 * parallelism 1, prefill apart (no token budget), at the thresholds table's shares (60 % of HBM
 * bandwidth, 76 % of dense tensor FLOPS):
 *   weights            = 8,030,261,248 x 2                       = 16,060,522,496 B
 *   KV per token       = 2 x 32 x 8 x 128 x 2                    = 131,072 B
 *   mean KV length     = 2,048 + 2,048 / 2                       = 3,072 tokens
 *   KV read per step   = 32 x 3,072 x 131,072                    = 12,884,901,888 B
 *   bytes per step     = weights + KV                            = 28,945,424,384 B
 *   matmuls            = max(weights / (HBM GB/s x 1e9 x 0.60), 2 x P x 32 / (dense x 1e12 x 0.76))
 *   attention          = max(KV / (HBM x 0.60), 32 x 2 x (4,096 + 4,096) x 32 layers x 3,072 / (dense x 0.75))
 *                        (attention at FlashAttention-3's 75 % of the 16-bit rate, the KV cache's precision)
 *   decode tokens/s    = 32 / (matmuls + attention)
 *   prefill tokens/s   = 1 / (2 x P / (dense x 1e12 x 0.76) + 2 x 8,192 x 32 x 1,024 / (dense x 1e12 x 0.75))
 *                        (causal: half the prompt)
 *   output tokens/s    = 1 / (1 / decode + (2,048 / 2,048) / prefill)
 * H100 SXM5 (3,350 GB/s, 989.4 TFLOPS): weights 7.99 ms + KV 6.41 ms = 14.40 ms: memory-bound,
 *   decode 2,222.1, prefill 45,285.4, output 2,118.2 tokens/s.
 * A100 SXM4 80GB (2,039 GB/s, 312 TFLOPS): 23.66 ms, decode 1,352.5,
 *   prefill 14,280.4, output 1,235.5 tokens/s. */
Test(infer_throughput, llama_3_1_8b_by_hand_on_h100_and_a100, .init = load_table, .fini = free_table)
{
    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-8b", &m));
    cr_assert_eq(m.params, 8030261248LL);
    const struct thresholds *t = thresholds_for(WL_LLM_INFER);
    cr_assert_float_eq(t->infer_decode_bandwidth_share, 0.60, 1e-12);
    cr_assert_float_eq(t->infer_prefill_flops_share, 0.76, 1e-12);
    static const struct {
        const char *id;
        double bandwidth_gbs, dense_tflops, decode, prefill, output;
    } cases[] = {
        {"h100-sxm5-80gb", 3350, 989.4, 2222.11, 45285.4, 2118.2},
        {"a100-sxm4-80gb", 2039, 312, 1352.5, 14280.4, 1235.5},
    };
    for (size_t i = 0; i < 2; i++) {
        struct infer_rate_input in = llama_input(&m, cases[i].id);
        struct infer_rate r;
        infer_rate_estimate(&in, &r);
        cr_assert(r.known, "%s: %s", cases[i].id, r.why_unknown);
        cr_expect_eq(r.compute_precision, PREC_BF16);
        cr_expect(!r.chunked_prefill);
        cr_expect_eq(r.batch_limit, BATCH_BY_MEMORY);
        double weights = 8030261248.0 * 2, kv = 32 * 3072 * 131072.0;
        expect_rel(r.bytes_per_step_per_gpu, 28945424384.0);
        expect_rel(r.bytes_per_step_per_gpu, weights + kv);
        double bytes_s = cases[i].bandwidth_gbs * 1e9 * 0.60, flops_s = cases[i].dense_tflops * 1e12 * 0.76;
        double attention = 32 * 2.0 * 8192 * 32 * 3072;
        expect_rel(r.memory_step_s, (weights + kv) / bytes_s);
        expect_rel(r.compute_step_s, (2 * 8030261248.0 * 32 + attention) / flops_s);
        cr_expect(!r.compute_bound, "%s: memory-bound at batch 32", cases[i].id);
        double attention_s = cases[i].dense_tflops * 1e12 * 0.75;
        expect_rel(r.attention_tflops_per_gpu, cases[i].dense_tflops * 0.75);
        double step = fmax(weights / bytes_s, 2 * 8030261248.0 * 32 / flops_s) + fmax(kv / bytes_s, attention / attention_s);
        expect_rel(r.step_s, step);
        double decode = 32 / step,
               prefill = 1 / (2 * 8030261248.0 / flops_s + 2.0 * 8192 * 32 * 1024 / attention_s);
        expect_rel(r.decode_tokens_s, decode);
        expect_rel(r.prefill_tokens_s, prefill);
        expect_rel(r.output_tokens_s, 1 / (1 / decode + 1 / prefill));
        cr_expect_eq(r.allreduce_step_s, 0, "no all-reduce at tensor parallelism 1");
        /* and the rounded figures of the comment above */
        cr_expect(fabs(r.decode_tokens_s - cases[i].decode) < 0.1, "%s decode %.2f", cases[i].id, r.decode_tokens_s);
        cr_expect(fabs(r.prefill_tokens_s - cases[i].prefill) < 0.1, "%s prefill %.2f", cases[i].id,
                  r.prefill_tokens_s);
        cr_expect(fabs(r.output_tokens_s - cases[i].output) < 0.1, "%s output %.2f", cases[i].id, r.output_tokens_s);
    }
}

/* fp8 weights use the FP8 tensor rate where the GPU has one (H100), BF16 where not (A100); a large
 * batch of short requests makes the step compute-bound. */
Test(infer_throughput, fp8_and_compute_bound, .init = load_table, .fini = free_table)
{
    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-8b", &m));
    struct infer_rate_input in = llama_input(&m, "h100-sxm5-80gb");
    in.weight_bytes = in.kv_bytes = 1;
    in.weights_total = 8030261248.0; /* every weight at 1 B, for the arithmetic */
    in.context = 256;
    in.prompt = 128;
    in.batch = 4000;
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_assert(r.known);
    cr_expect_eq(r.compute_precision, PREC_FP8);
    cr_expect(r.compute_bound);
    /* The matmuls: 2 x P x 4,000 FLOPs at 1,979e12 x 0.76 outlast reading 8 GB of weights; attention
     * reads 4,000 x 192 tokens x 65,536 B of KV cache. */
    double flops_s = 1979e12 * 0.76, bytes_s = 3350e9 * 0.6;
    double linear = 2 * 8030261248.0 * 4000 / flops_s;
    cr_expect(linear > 8030261248.0 / bytes_s);
    double attention = fmax(4000 * 192 * 65536.0 / bytes_s, 4000 * 2.0 * 8192 * 32 * 192 / flops_s);
    expect_rel(r.decode_tokens_s, 4000 / (linear + attention));
    in.gpu = gpu("a100-sxm4-80gb");
    infer_rate_estimate(&in, &r);
    cr_expect_eq(r.compute_precision, PREC_BF16);
}

Test(infer_throughput, unknown_when_nothing_fits_or_nothing_is_generated, .init = load_table, .fini = free_table)
{
    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-8b", &m));
    struct infer_rate_input in = llama_input(&m, "h100-sxm5-80gb");
    in.batch = 0;
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_expect(!r.known);
    cr_expect_str_eq(r.why_unknown, "not one request of this context fits");
    in.batch = 1;
    in.prompt = 4096;
    infer_rate_estimate(&in, &r);
    cr_expect(!r.known);
}

/* Chunked prefill under vLLM's caps: Llama-3.1-8B on one H100 at FP8, 2,048-token prompts and 128
 * output tokens, memory holding 5,000 requests. Each step finishes batch / 128 requests and so takes
 * in batch x 16 prompt tokens: the 8,192-token budget runs 8,192 / 17 = 481.9 sequences (not 1,024,
 * not 5,000), and the step is 8,192 tokens of matmuls at the FP8 rate, plus the decode attention
 * (the larger of reading the KV cache and its FLOPs), plus the prompt chunks' attention FLOPs: those
 * are not hidden behind the decode reads. Attention runs FP8 (the KV cache's precision) at
 * FlashAttention-3's 61 % of the FP8 rate. */
Test(infer_throughput, token_budget_and_max_num_seqs_cap_the_batch, .init = load_table, .fini = free_table)
{
    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-8b", &m));
    struct infer_rate_input in = llama_input(&m, "h100-sxm5-80gb");
    in.weight_bytes = in.kv_bytes = 1;
    in.weights_total = 8030261248.0;
    in.context = 2176;
    in.prompt = 2048;
    in.batch = 5000;
    vllm_batch_defaults(in.gpu, &in.max_seqs, &in.max_batched_tokens);
    cr_assert_eq(in.max_seqs, 1024);
    cr_assert_eq(in.max_batched_tokens, 8192);
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_assert(r.known, "%s", r.why_unknown);
    cr_expect(r.chunked_prefill);
    cr_expect_eq(r.batch_limit, BATCH_BY_TOKEN_BUDGET);
    expect_rel(r.batch, 8192.0 / 17);
    expect_rel(r.tokens_per_step, 8192);
    double flops_s = 1979e12 * 0.76, bytes_s = 3350e9 * 0.6, batch = 8192.0 / 17;
    double linear = fmax(8030261248.0 / bytes_s, 2 * 8030261248.0 * 8192 / flops_s);
    /* decode tokens attend to 2,048 + 64 positions, prompt tokens to 1,024 on average; 8,192 wide */
    double decode_attention = batch * 2 * 8192.0 * 32 * 2112, prompt_attention = batch * 16 * 2 * 8192.0 * 32 * 1024;
    double kv = batch * 2112 * 65536.0, attention_s = 1979e12 * 0.61;
    double step = linear + fmax(kv / bytes_s, decode_attention / attention_s) + prompt_attention / attention_s;
    expect_rel(r.step_s, step);
    expect_rel(r.output_tokens_s, batch / step);
    cr_expect(r.compute_bound);

    /* Short requests: max_num_seqs caps the batch at 1,024 before the budget (1,024 x 2 tokens). */
    in.context = 256;
    in.prompt = 128;
    infer_rate_estimate(&in, &r);
    cr_expect_eq(r.batch_limit, BATCH_BY_MAX_SEQS);
    expect_rel(r.batch, 1024);
    expect_rel(r.tokens_per_step, 2048);
    /* And memory, when it holds fewer. */
    in.batch = 300;
    infer_rate_estimate(&in, &r);
    cr_expect_eq(r.batch_limit, BATCH_BY_MEMORY);
    cr_expect_str_eq(batch_limit_name(BATCH_BY_TOKEN_BUDGET), "max_num_batched_tokens");
}

/* Tensor parallelism 8 on H100 SXM: 2 x 126 all-reduces a step for Llama-3.1-405B, each of tokens x
 * 16,384 x 2 bytes at NCCL's measured 370 GB/s bus bandwidth over NVLink4, 2 x 7/8 of it, + 25 µs.
 * At 300 sequences of 1,000 + 1,000 tokens: 600 tokens a step, 19.7 MB a call, 25 + 93.0 µs,
 * 29.7 ms a step. */
Test(infer_throughput, all_reduces_of_tensor_parallelism_by_hand, .init = load_table, .fini = free_table)
{
    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-405b", &m));
    struct infer_rate_input in = llama_input(&m, "h100-sxm5-80gb");
    const char *link;
    in.tp = 8;
    in.link_gbs = infer_link_gbs(in.gpu, 8, &link);
    cr_assert_float_eq(in.link_gbs, IC_NVLINK_MEASURED_BUSBW_GBS, 1e-9);
    cr_expect_str_eq(link, "NVLink4");
    in.allreduce_latency_s = ALLREDUCE_LATENCY_S;
    in.weight_bytes = in.kv_bytes = 1;
    in.context = 2000;
    in.prompt = 1000;
    in.batch = 300;
    vllm_batch_defaults(in.gpu, &in.max_seqs, &in.max_batched_tokens);
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_assert(r.known, "%s", r.why_unknown);
    expect_rel(r.tokens_per_step, 600);
    expect_rel(r.allreduce_bytes, 600 * 16384 * 2.0);
    double call = 25e-6 + 2 * 7.0 / 8 * 600 * 16384 * 2.0 / 370e9;
    expect_rel(r.allreduce_step_s, 2 * 126 * call);
    cr_expect(fabs(r.allreduce_step_s - 0.02973) < 1e-4, "%.5f s", r.allreduce_step_s);
    /* The step waits for them: without, it is shorter by exactly that. */
    struct infer_rate none;
    in.allreduce_latency_s = 1e-15;
    in.link_gbs = 1e15;
    infer_rate_estimate(&in, &none);
    cr_expect(fabs((r.step_s - none.step_s) - r.allreduce_step_s) < 1e-6);
    /* A group with no link the table knows has no estimate. */
    struct gpu_spec bare = *in.gpu;
    bare.scaleup_link = "none";
    bare.scaleup_gbs_bidir = 0;
    bare.pcie_gen = 0;
    cr_expect_eq(infer_link_gbs(&bare, 8, &link), 0);
    in.gpu = &bare;
    in.link_gbs = 0;
    infer_rate_estimate(&in, &r);
    cr_expect(!r.known);
    /* Left 0, the link and the latency are the table's and ALLREDUCE_LATENCY_S. */
    struct infer_rate given, derived;
    in.gpu = gpu("h100-sxm5-80gb");
    in.link_gbs = IC_NVLINK_MEASURED_BUSBW_GBS;
    in.allreduce_latency_s = ALLREDUCE_LATENCY_S;
    infer_rate_estimate(&in, &given);
    in.link_gbs = in.allreduce_latency_s = 0;
    infer_rate_estimate(&in, &derived);
    expect_rel(derived.allreduce_step_s, given.allreduce_step_s);
}

/* The link an all-reduce crosses and the bus bandwidth NCCL reaches on it (sizing/interconnect.h,
 * the figure plan --offers and cost use): NVLink/NVSwitch on SXM parts (370 GB/s measured on
 * NVLink4), a bridge only for its 2 (H200 NVL: 4) GPUs (115.9 of 300 GB/s measured, scaled to the
 * H200 NVL's 450), else PCIe: 28 GB/s measured on Gen5 x16, half of it on Gen4 x16; MI300X's
 * Infinity Fabric at NVLink4's measured share of its 448 GB/s. */
Test(infer_throughput, all_reduce_links, .init = load_table, .fini = free_table)
{
    static const struct {
        const char *id;
        int tp;
        double gbs;
        const char *link;
    } cases[] = {
        {"h100-sxm5-80gb", 8, IC_NVLINK_MEASURED_BUSBW_GBS, "NVLink4"},
        {"h100-sxm5-80gb", 1, 0, "none"},
        {"h100-pcie-80gb", 2, IC_BRIDGE_MEASURED_BUSBW_GBS, "NVLink4 bridge (2 GPUs)"},
        {"h100-pcie-80gb", 4, IC_PCIE_MEASURED_BUSBW_GBS, "PCIe"},
        {"h200-nvl-141gb", 4, IC_BRIDGE_MEASURED_BUSBW_GBS / IC_BRIDGE_MEASURED_LINK_GBS * 450,
         "NVLink4 bridge (2 or 4 GPUs)"},
        {"l40s-pcie-48gb", 2, IC_PCIE_MEASURED_BUSBW_GBS / 2, "PCIe"},
        {"mi300x-oam-192gb", 8, IC_NVLINK_MEASURED_BUSBW_GBS / IC_NVLINK_MEASURED_LINK_GBS * 448,
         "Infinity Fabric (7 links x 128 GB/s)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *link;
        double got = infer_link_gbs(gpu(cases[i].id), cases[i].tp, &link);
        cr_expect(fabs(got - cases[i].gbs) < 1e-6, "%s tp %d: %.3f GB/s", cases[i].id, cases[i].tp, got);
        cr_expect_str_eq(link, cases[i].link, "%s tp %d", cases[i].id, cases[i].tp);
    }
}

/* vLLM's get_batch_defaults: 1,024 sequences and 8,192 tokens on a GPU of 70 GiB or more that is not
 * an A100; 256 and 2,048 on an A100 80GB and on smaller GPUs. */
Test(infer_throughput, vllm_batch_defaults_by_gpu, .init = load_table, .fini = free_table)
{
    static const struct {
        const char *id;
        long seqs, tokens;
    } cases[] = {
        {"h100-sxm5-80gb", 1024, 8192}, {"h200-sxm-141gb", 1024, 8192}, {"mi300x-oam-192gb", 1024, 8192},
        {"a100-sxm4-80gb", 256, 2048},  {"l40s-pcie-48gb", 256, 2048},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long seqs, tokens;
        vllm_batch_defaults(gpu(cases[i].id), &seqs, &tokens);
        cr_expect_eq(seqs, cases[i].seqs, "%s: %ld", cases[i].id, seqs);
        cr_expect_eq(tokens, cases[i].tokens, "%s: %ld", cases[i].id, tokens);
    }
}

/* Meta's Llama-3.1-405B-Instruct-FP8 keeps attention, the first and last layers' MLPs, the embedding
 * and the LM head in BF16 (config.json modules_to_not_convert; the Llama 3 paper, §6.2):
 *   attention  126 x (2 x 16,384² + 2 x 16,384 x 1,024)    = 71,873,593,344 params x 2 B
 *   MLP 16-bit 2 x 3 x 16,384 x 53,248                      =  5,234,491,392 params x 2 B
 *   embedding and LM head 2 x 128,256 x 16,384              =  4,202,692,608 params x 2 B
 *   the rest (the other 124 MLPs, norms)                    = 324,542,611,456 params x 1 B
 * = 487.2 GB, where FP8 on every linear layer makes 410.1 GB (16 % less). The same from a config.json
 * that lists those modules. */
Test(infer_throughput, meta_fp8_checkpoint_keeps_attention_16_bit)
{
    struct llm_shape meta, plain;
    cr_assert(llm_builtin("llama-3.1-405b-instruct-fp8", &meta));
    cr_assert(llm_builtin("llama-3.1-405b", &plain));
    cr_expect_eq(meta.params, plain.params);
    cr_expect_eq(meta.attention_params, 71873593344LL);
    cr_expect_eq(meta.dense_mlp_params, 3LL * 16384 * 53248);
    double want = 2.0 * (71873593344.0 + 5234491392.0 + 4202692608.0) +
                  (double)(meta.params - 71873593344LL - 5234491392LL - 4202692608LL);
    expect_rel(llm_checkpoint_bytes(&meta), want);
    cr_expect(fabs(llm_checkpoint_bytes(&meta) / 1e9 - 487.2) < 0.05, "%.2f GB", llm_checkpoint_bytes(&meta) / 1e9);

    char path[] = "/tmp/gpuvet-fp8-config-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"num_hidden_layers\": 126, "
               "\"hidden_size\": 16384, \"num_attention_heads\": 128, \"num_key_value_heads\": 8, "
               "\"intermediate_size\": 53248, \"vocab_size\": 128256, \"tie_word_embeddings\": false, "
               "\"quantization_config\": {\"quant_method\": \"fbgemm_fp8\", \"modules_to_not_convert\": [");
    const char *proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    for (int l = 0; l < 126; l++)
        for (int k = 0; k < 4; k++)
            fprintf(f, "\"model.layers.%d.self_attn.%s\", ", l, proj[k]);
    fprintf(f, "\"model.layers.0.mlp.down_proj\", \"model.layers.0.mlp.gate_proj\", \"model.layers.0.mlp.up_proj\", "
               "\"model.layers.125.mlp.down_proj\", \"model.layers.125.mlp.gate_proj\", "
               "\"model.layers.125.mlp.up_proj\", \"lm_head\"]}}");
    fclose(f);
    struct llm_shape cfg;
    char err[512];
    cr_assert_eq(llm_from_hf_config(path, &cfg, err, sizeof err), 0, "%s", err);
    unlink(path);
    cr_expect_eq(cfg.bf16_mlp_layers, 2);
    cr_expect_float_eq(cfg.attention_weight_bytes, 2, 1e-12);
    expect_rel(llm_checkpoint_bytes(&cfg), want);
}

/* A compressed-tensors FP8 checkpoint (llm-compressor: one config group of 8-bit float weights
 * targeting "Linear", ignore ["lm_head"]) is FP8 on every linear layer: 410.1 GB for the 405B's
 * shape, as --weights fp8 plans it. A group of 4-bit weights is not claimed as FP8. */
Test(infer_throughput, compressed_tensors_fp8_config)
{
    static const char *const groups[] = {
        "{\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 8, \"type\": \"float\"}}}",
        "{\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4, \"type\": \"int\"}}}",
    };
    struct llm_shape plain;
    cr_assert(llm_builtin("llama-3.1-405b", &plain));
    for (int g = 0; g < 2; g++) {
        char path[] = "/tmp/gpuvet-ct-config-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fprintf(f,
                "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"num_hidden_layers\": 126, "
                "\"hidden_size\": 16384, \"num_attention_heads\": 128, \"num_key_value_heads\": 8, "
                "\"intermediate_size\": 53248, \"vocab_size\": 128256, \"tie_word_embeddings\": false, "
                "\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": \"float-quantized\", "
                "\"config_groups\": %s, \"ignore\": [\"lm_head\"]}}",
                groups[g]);
        fclose(f);
        struct llm_shape cfg;
        char err[512];
        cr_assert_eq(llm_from_hf_config(path, &cfg, err, sizeof err), 0, "%s", err);
        unlink(path);
        if (g == 0) {
            cr_expect_str_eq(cfg.checkpoint, "FP8 linear layers, BF16 embedding and LM head");
            cr_expect_eq(cfg.attention_weight_bytes, 0);
            /* within the norms' 4.1 MB, which the checkpoint's count puts at a byte */
            double all_linear = infer_weight_bytes(&plain, 1);
            cr_expect(fabs(llm_checkpoint_bytes(&cfg) - all_linear) < 5e6, "%.0f vs %.0f", llm_checkpoint_bytes(&cfg),
                      all_linear);
            cr_expect(fabs(llm_checkpoint_bytes(&cfg) / 1e9 - 410.1) < 0.05, "%.2f GB", llm_checkpoint_bytes(&cfg) / 1e9);
        } else
            cr_expect_str_eq(cfg.checkpoint, "", "4-bit groups are not FP8");
    }
}

/* Attention's matmuls (QK^T, PV) run at the KV cache's precision, not the weights': NVFP4 weights on a
 * B200 run FP4 matmuls, but attention over an FP8 KV cache runs at FlashAttention-3's 61 % of the FP8
 * rate, over a BF16 cache at 75 % of the BF16 rate; an A100 has no FP8, so an FP8 cache runs 16-bit. */
Test(infer_throughput, attention_runs_at_the_kv_cache_precision_never_fp4, .init = load_table, .fini = free_table)
{
    const struct gpu_spec *b200 = gpu("b200-sxm-180gb"), *a100 = gpu("a100-sxm4-80gb");
    cr_assert_gt(b200->dense[PREC_FP8], 0);
    enum precision precision;
    expect_rel(infer_attention_tflops(b200, 1, &precision), b200->dense[PREC_FP8] * 0.61);
    cr_expect_eq(precision, PREC_FP8);
    expect_rel(infer_attention_tflops(b200, 2, &precision), b200->dense[PREC_BF16] * 0.75);
    cr_expect_eq(precision, PREC_BF16);
    expect_rel(infer_attention_tflops(a100, 1, &precision), a100->dense[PREC_BF16] * 0.75);
    cr_expect_eq(precision, PREC_BF16);

    struct llm_shape m;
    cr_assert(llm_builtin("llama-3.1-8b", &m));
    struct infer_rate_input in = llama_input(&m, "b200-sxm-180gb");
    in.weight_bytes = 0.5625; /* NVFP4: 4.5 bits a weight */
    in.kv_bytes = 1;
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_assert(r.known, "%s", r.why_unknown);
    cr_expect(r.fp4_tensor_cores);
    expect_rel(r.dense_tflops_per_gpu, 2 * b200->dense[PREC_FP8]);
    expect_rel(r.attention_tflops_per_gpu, b200->dense[PREC_FP8] * 0.61);
    cr_expect_eq(r.attention_precision, PREC_FP8);
}
