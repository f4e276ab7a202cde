/* llm-infer's tokens/s estimate (sizing/throughput.c) computed by hand for one model on two GPUs,
 * each number from the formula next to it. */
#include <criterion/criterion.h>
#include <math.h>

#include "rules/workload.h"
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
    cr_expect(fabs((got) - (want)) <= 1e-9 * fabs(want), "got %.9g, want %.9g", (double)(got), (double)(want))

/* Llama-3.1-8B (8,030,261,248 parameters; 32 layers x 8 KV heads x 128 head dim), bf16 weights and
 * KV cache, requests of 4,096 tokens of which 2,048 prompt, batch 32, tensor parallelism 1, at the
 * thresholds table's shares (60 % of HBM bandwidth, 76 % of dense tensor FLOPS):
 *   weights            = 8,030,261,248 x 2                       = 16,060,522,496 B
 *   KV per token       = 2 x 32 x 8 x 128 x 2                    = 131,072 B
 *   mean KV length     = 2,048 + 2,048 / 2                       = 3,072 tokens
 *   bytes per step     = weights + 32 x 3,072 x 131,072           = 28,945,424,384 B
 *   memory step        = bytes per step / (HBM GB/s x 1e9 x 0.60)
 *   compute step       = 2 x 8,030,261,248 x 32 / (dense BF16 TFLOPS x 1e12 x 0.76)
 *   decode tokens/s    = 32 / max(memory step, compute step)
 *   prefill tokens/s   = dense BF16 TFLOPS x 1e12 x 0.76 / (2 x 8,030,261,248)
 *   output tokens/s    = 1 / (1 / decode + (2,048 / 2,048) / prefill)
 * H100 SXM5 (3,350 GB/s, 989.4 TFLOPS): memory step 14.40 ms, compute 0.68 ms: memory-bound,
 *   decode 2,222.1, prefill 46,819.4, output 2,121.4 tokens/s.
 * A100 SXM4 80GB (2,039 GB/s, 312 TFLOPS): memory step 23.66 ms, compute 2.17 ms: memory-bound,
 *   decode 1,352.5, prefill 14,764.2, output 1,239.0 tokens/s. */
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
        {"h100-sxm5-80gb", 3350, 989.4, 2222.11, 46819.4, 2121.4},
        {"a100-sxm4-80gb", 2039, 312, 1352.5, 14764.2, 1239.0},
    };
    for (size_t i = 0; i < 2; i++) {
        struct infer_rate_input in = llama_input(&m, cases[i].id);
        struct infer_rate r;
        infer_rate_estimate(&in, &r);
        cr_assert(r.known, "%s: %s", cases[i].id, r.why_unknown);
        cr_expect_eq(r.compute_precision, PREC_BF16);
        double bytes = 8030261248.0 * 2 + 32 * 3072 * 131072.0;
        expect_rel(r.bytes_per_step_per_gpu, 28945424384.0);
        expect_rel(r.bytes_per_step_per_gpu, bytes);
        double memory = bytes / (cases[i].bandwidth_gbs * 1e9 * 0.60);
        double compute = 2 * 8030261248.0 * 32 / (cases[i].dense_tflops * 1e12 * 0.76);
        expect_rel(r.memory_step_s, memory);
        expect_rel(r.compute_step_s, compute);
        cr_expect(!r.compute_bound, "%s: memory-bound at batch 32", cases[i].id);
        double decode = 32 / memory, prefill = cases[i].dense_tflops * 1e12 * 0.76 / (2 * 8030261248.0);
        expect_rel(r.decode_tokens_s, decode);
        expect_rel(r.prefill_tokens_s, prefill);
        expect_rel(r.output_tokens_s, 1 / (1 / decode + 1 / prefill));
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
    in.context = 256;
    in.prompt = 128;
    in.batch = 4000;
    struct infer_rate r;
    infer_rate_estimate(&in, &r);
    cr_assert(r.known);
    cr_expect_eq(r.compute_precision, PREC_FP8);
    cr_expect(r.compute_bound);
    /* 4,000 / (2 x P x 4,000 / (1,979e12 x 0.76)) */
    expect_rel(r.decode_tokens_s, 1979e12 * 0.76 / (2 * 8030261248.0));
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
