#include "sizing/models.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sizing/jsonfile.h"
#include "util/i18n.h"
#include "util/suggest.h"

/* Values of each model's published config.json on huggingface.co. */
#define LLAMA(ID, REPO, L, H, A, KV, HD, F, V, TIED)                                                                 \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = KV, .head_dim = HD, .ffn = F, .vocab = V, .tied_embeddings = TIED, .norms_per_layer = 2}
#define QWEN2(ID, REPO, L, H, A, KV, F)                                                                              \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = KV, .head_dim = H / A, .ffn = F, .vocab = 152064, .qkv_bias = true, .norms_per_layer = 2}
/* Gemma-2: four RMSNorms per layer, tied embeddings, every other layer a 4096-token sliding window. */
#define GEMMA2(ID, REPO, L, H, A, KV, HD, F)                                                                         \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = KV, .head_dim = HD, .ffn = F, .vocab = 256000, .tied_embeddings = true,                 \
     .norms_per_layer = 4, .sliding_window = 4096, .sliding_layers = L / 2}

/* Qwen3 dense: no q/k/v biases, an RMSNorm on queries and keys, head_dim 128 (config.json). */
#define QWEN3(ID, REPO, L, H, A, KV, F, TIED)                                                                        \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = KV, .head_dim = 128, .ffn = F, .vocab = 151936, .tied_embeddings = TIED,                \
     .qk_norm = true, .norms_per_layer = 2}
/* Qwen3-MoE: every layer routes to num_experts_per_tok of num_experts experts of moe_intermediate_size, no
 * shared expert (config.json: decoder_sparse_step 1, mlp_only_layers []). */
#define QWEN3_MOE(ID, REPO, L, H, A, KV, F, E, K)                                                                    \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = KV, .head_dim = 128, .ffn = F, .vocab = 151936, .qk_norm = true, .norms_per_layer = 2,  \
     .experts = E, .experts_per_token = K}
/* Mixtral: 8 experts of intermediate_size, 2 per token; sliding_window null in both configs. */
#define MIXTRAL(ID, REPO, L, H, A, F, V)                                                                             \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = H,          \
     .heads = A, .kv_heads = 8, .head_dim = 128, .ffn = F, .vocab = V, .norms_per_layer = 2, .experts = 8,           \
     .experts_per_token = 2}
/* Llama 4 (text_config): one routed expert of 16 (Scout) or 128 (Maverick) plus a shared expert of the
 * same width (intermediate_size 8192); Maverick's interleave_moe_layer_step 2 makes every other layer
 * dense (intermediate_size_mlp 16384). Three of every four layers use chunked attention
 * (attention_chunk_size 8192; every fourth, the NoPE layers of no_rope_layers, attends globally). params
 * counts the text model; the vision encoder (vision_config: 34 layers of 1408, MLP 5632, 14-pixel patches
 * of 336-pixel tiles, adapter and projector of 4096) is counted apart, in vision_params. */
#define LLAMA4(ID, REPO, E, DENSE)                                                                                   \
    {.id = ID, .source = "huggingface.co/" REPO " config.json (text_config)", .has_shape = true, .layers = 48,       \
     .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128, .ffn = 8192, .vocab = 202048, .norms_per_layer = 2, \
     .experts = E, .experts_per_token = 1, .shared_expert_ffn = 8192, .dense_layers = DENSE, .dense_ffn = 16384,     \
     .sliding_window = 8192, .sliding_layers = 36, .chunked_attention = true, .vision_hidden = 1408,                 \
     .vision_ffn = 5632, .vision_layers = 34, .vision_patch = 14, .vision_image = 336, .vision_channels = 3,         \
     .vision_adapter_dim = 4096, .vision_output_dim = 4096}
/* DeepSeek-V3 and R1 (one config.json): multi-head latent attention (q_lora_rank 1536, kv_lora_rank 512,
 * qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128), the first 3 layers dense (first_k_dense_replace,
 * intermediate_size 18432), then 256 routed experts of 2048 (8 per token) and one shared expert. The
 * checkpoint is FP8 (quantization_config fp8, 128 x 128 blocks: their float32 scales add 4 bytes per
 * 16384 weights, not counted); embedding and LM head BF16. The multi-token-prediction module
 * (num_nextn_predict_layers 1: 11.5B of its own and copies of embedding and head, model.layers.61) is
 * counted apart, in mtp_params: engines load it only for speculative decoding. */
#define DEEPSEEK_V3(ID, REPO)                                                                                        \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = 61, .hidden = 7168,     \
     .heads = 128, .kv_heads = 128, .head_dim = 192, .ffn = 2048, .vocab = 129280, .norms_per_layer = 2,             \
     .experts = 256, .experts_per_token = 8, .shared_expert_ffn = 2048, .dense_layers = 3, .dense_ffn = 18432,       \
     .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128,  \
     .checkpoint = "FP8 (e4m3, block scales) linear layers, BF16 embedding and LM head", .expert_weight_bytes = 1,  \
     .embedding_weight_bytes = 2, .other_weight_bytes = 1, .mtp_layers = 1}
/* gpt-oss: experts of intermediate_size 2880 with biases (4 per token), attention with biases, head_dim 64,
 * layer_types alternating sliding_attention (sliding_window 128) and full_attention. The checkpoint's
 * quantization_config is mxfp4 for the experts (4-bit values and one 8-bit scale per 32: 4.25 bits) and
 * keeps self_attn, router, embed_tokens and lm_head in BF16 (modules_to_not_convert). */
#define GPT_OSS(ID, REPO, L, E)                                                                                      \
    {.id = ID, .source = "huggingface.co/" REPO " config.json", .has_shape = true, .layers = L, .hidden = 2880,      \
     .heads = 64, .kv_heads = 8, .head_dim = 64, .ffn = 2880, .vocab = 201088, .qkv_bias = true,                     \
     .norms_per_layer = 2, .experts = E, .experts_per_token = 4, .expert_bias = true, .sliding_window = 128,        \
     .sliding_layers = L / 2, .checkpoint = "MXFP4 experts (4.25 bits per parameter), BF16 rest",                   \
     .expert_weight_bytes = 4.25 / 8, .embedding_weight_bytes = 2, .other_weight_bytes = 2}

static const struct llm_shape builtin[] = {
    LLAMA("llama-2-7b", "meta-llama/Llama-2-7b-hf", 32, 4096, 32, 32, 128, 11008, 32000, false),
    LLAMA("llama-2-13b", "meta-llama/Llama-2-13b-hf", 40, 5120, 40, 40, 128, 13824, 32000, false),
    LLAMA("llama-2-70b", "meta-llama/Llama-2-70b-hf", 80, 8192, 64, 8, 128, 28672, 32000, false),
    LLAMA("llama-3-8b", "meta-llama/Meta-Llama-3-8B", 32, 4096, 32, 8, 128, 14336, 128256, false),
    LLAMA("llama-3-70b", "meta-llama/Meta-Llama-3-70B", 80, 8192, 64, 8, 128, 28672, 128256, false),
    LLAMA("llama-3.1-8b", "meta-llama/Llama-3.1-8B", 32, 4096, 32, 8, 128, 14336, 128256, false),
    LLAMA("llama-3.1-70b", "meta-llama/Llama-3.1-70B", 80, 8192, 64, 8, 128, 28672, 128256, false),
    LLAMA("llama-3.1-405b", "meta-llama/Llama-3.1-405B", 126, 16384, 128, 8, 128, 53248, 128256, false),
    /* Meta's FP8 checkpoint of the 405B: config.json's quantization_config is fbgemm_fp8 (row-wise FP8
     * weights) with modules_to_not_convert listing every self_attn projection, the MLPs of layers 0 and
     * 125 and lm_head; the Llama 3 paper (Dubey et al. 2024, §6.2) says why: FP8 on the feed-forward
     * layers only, not self-attention, not the first and last layers. 81.3 B parameters stay 16-bit:
     * 487.2 GB in all, not the 410.1 GB of FP8 on every linear layer. */
    {.id = "llama-3.1-405b-instruct-fp8", .source = "huggingface.co/meta-llama/Llama-3.1-405B-Instruct-FP8 config.json",
     .has_shape = true, .layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8, .head_dim = 128, .ffn = 53248,
     .vocab = 128256, .norms_per_layer = 2,
     .checkpoint = "FBGEMM FP8 MLPs of layers 1-124; attention, layers 0 and 125, embedding, LM head BF16",
     .expert_weight_bytes = 1, .embedding_weight_bytes = 2, .other_weight_bytes = 1, .attention_weight_bytes = 2,
     .bf16_mlp_layers = 2},
    LLAMA("llama-3.2-1b", "meta-llama/Llama-3.2-1B", 16, 2048, 32, 8, 64, 8192, 128256, true),
    LLAMA("llama-3.2-3b", "meta-llama/Llama-3.2-3B", 28, 3072, 24, 8, 128, 8192, 128256, true),
    QWEN2("qwen2-7b", "Qwen/Qwen2-7B", 28, 3584, 28, 4, 18944),
    QWEN2("qwen2-72b", "Qwen/Qwen2-72B", 80, 8192, 64, 8, 29568),
    QWEN2("qwen2.5-7b", "Qwen/Qwen2.5-7B", 28, 3584, 28, 4, 18944),
    QWEN2("qwen2.5-14b", "Qwen/Qwen2.5-14B", 48, 5120, 40, 8, 13824),
    QWEN2("qwen2.5-32b", "Qwen/Qwen2.5-32B", 64, 5120, 40, 8, 27648),
    QWEN2("qwen2.5-72b", "Qwen/Qwen2.5-72B", 80, 8192, 64, 8, 29568),
    {.id = "mistral-7b", .source = "huggingface.co/mistralai/Mistral-7B-v0.1 config.json", .has_shape = true,
     .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .head_dim = 128, .ffn = 14336, .vocab = 32000,
     .norms_per_layer = 2, .sliding_window = 4096, .sliding_layers = 32},
    LLAMA("mistral-7b-v0.3", "mistralai/Mistral-7B-v0.3", 32, 4096, 32, 8, 128, 14336, 32768, false),
    LLAMA("mistral-nemo-12b", "mistralai/Mistral-Nemo-Base-2407", 40, 5120, 32, 8, 128, 14336, 131072, false),
    GEMMA2("gemma-2-2b", "google/gemma-2-2b", 26, 2304, 8, 4, 256, 9216),
    GEMMA2("gemma-2-9b", "google/gemma-2-9b", 42, 3584, 16, 8, 256, 14336),
    GEMMA2("gemma-2-27b", "google/gemma-2-27b", 46, 4608, 32, 16, 128, 36864),
    LLAMA("llama-3.3-70b", "meta-llama/Llama-3.3-70B-Instruct", 80, 8192, 64, 8, 128, 28672, 128256, false),
    LLAMA4("llama-4-scout", "meta-llama/Llama-4-Scout-17B-16E", 16, 0),
    LLAMA4("llama-4-maverick", "meta-llama/Llama-4-Maverick-17B-128E", 128, 24),
    QWEN3("qwen3-0.6b", "Qwen/Qwen3-0.6B", 28, 1024, 16, 8, 3072, true),
    QWEN3("qwen3-1.7b", "Qwen/Qwen3-1.7B", 28, 2048, 16, 8, 6144, true),
    QWEN3("qwen3-4b", "Qwen/Qwen3-4B", 36, 2560, 32, 8, 9728, true),
    QWEN3("qwen3-8b", "Qwen/Qwen3-8B", 36, 4096, 32, 8, 12288, false),
    QWEN3("qwen3-14b", "Qwen/Qwen3-14B", 40, 5120, 40, 8, 17408, false),
    QWEN3("qwen3-32b", "Qwen/Qwen3-32B", 64, 5120, 64, 8, 25600, false),
    QWEN3_MOE("qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B", 48, 2048, 32, 4, 768, 128, 8),
    QWEN3_MOE("qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B", 94, 4096, 64, 4, 1536, 128, 8),
    DEEPSEEK_V3("deepseek-v3", "deepseek-ai/DeepSeek-V3"),
    DEEPSEEK_V3("deepseek-r1", "deepseek-ai/DeepSeek-R1"),
    MIXTRAL("mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1", 32, 4096, 32, 14336, 32000),
    MIXTRAL("mixtral-8x22b", "mistralai/Mixtral-8x22B-v0.1", 56, 6144, 48, 16384, 32000),
    GPT_OSS("gpt-oss-20b", "openai/gpt-oss-20b", 24, 32),
    GPT_OSS("gpt-oss-120b", "openai/gpt-oss-120b", 36, 128),
};

const char *const llm_builtin_ids[] = {
    "llama-2-7b",   "llama-2-13b",    "llama-2-70b",  "llama-3-8b",   "llama-3-70b",     "llama-3.1-8b",
    "llama-3.1-70b", "llama-3.1-405b", "llama-3.1-405b-instruct-fp8", "llama-3.2-1b", "llama-3.2-3b", "qwen2-7b",        "qwen2-72b",
    "qwen2.5-7b",   "qwen2.5-14b",    "qwen2.5-32b",  "qwen2.5-72b",  "mistral-7b",      "mistral-7b-v0.3",
    "mistral-nemo-12b", "gemma-2-2b", "gemma-2-9b",   "gemma-2-27b",  "llama-3.3-70b", "llama-4-scout",
    "llama-4-maverick", "qwen3-0.6b", "qwen3-1.7b",   "qwen3-4b",     "qwen3-8b",      "qwen3-14b",
    "qwen3-32b",    "qwen3-30b-a3b",  "qwen3-235b-a22b", "deepseek-v3", "deepseek-r1", "mixtral-8x7b",
    "mixtral-8x22b", "gpt-oss-20b",   "gpt-oss-120b", NULL};

bool llm_count_params(struct llm_shape *m)
{
    /* In double: a config.json's fields (each up to 10^7) multiply past int64 long before they
     * are refused; below LLM_MAX_PARAMS every count is an exact integer in a double. */
    double h = m->hidden, q_width = (double)m->heads * m->head_dim, kv_width = (double)m->kv_heads * m->head_dim;
    double attention;
    if (m->kv_lora_rank > 0) {
        /* Multi-head latent attention: queries through a rank-q_lora_rank bottleneck (with its norm),
         * keys and values from a kv_lora_rank latent (with its norm) plus a shared rotary key. */
        double qk = (double)m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim);
        double q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank + (double)m->q_lora_rank * qk : h * qk;
        double kv = h * (m->kv_lora_rank + m->qk_rope_head_dim) + m->kv_lora_rank +
                    (double)m->kv_lora_rank * m->heads * (m->qk_nope_head_dim + m->v_head_dim);
        attention = q + kv + (double)m->heads * m->v_head_dim * h;
        q_width = (double)m->heads * m->v_head_dim;
    } else
        attention = h * q_width + 2 * h * kv_width + q_width * h + (m->qkv_bias ? q_width + 2 * kv_width : 0) +
                    (m->qk_norm ? 2.0 * m->head_dim : 0);
    /* gate, up and down projections (SwiGLU / GeGLU), with gpt-oss's biases */
    double expert = 3 * h * m->ffn + (m->expert_bias ? 2.0 * m->ffn + h : 0);
    double moe_layers = m->experts > 0 ? m->layers - m->dense_layers : 0;
    double dense_mlp = 3 * h * (m->dense_ffn > 0 && m->experts > 0 ? m->dense_ffn : m->ffn);
    double mlp = (m->layers - moe_layers) * dense_mlp, active_mlp = mlp, layer_mlp = dense_mlp;
    if (m->experts > 0) {
        double router = h * m->experts + (m->expert_bias ? m->experts : 0);
        /* A shared expert (Qwen-MoE, DeepSeek, Llama 4) has its own MLP and a one-output gate. */
        double shared = m->shared_expert_ffn > 0 ? 3 * h * m->shared_expert_ffn + h : 0;
        layer_mlp = m->experts * expert + router + shared;
        mlp += moe_layers * layer_mlp;
        active_mlp += moe_layers * (m->experts_per_token * expert + router + shared);
    }
    double norms = m->norms_per_layer * h;
    double embedding = (double)m->vocab * h;
    double outside = embedding + h + (m->tied_embeddings ? 0 : embedding); /* + the final norm */
    double params = outside + m->layers * (attention + norms) + mlp;
    /* DeepSeek-V3's MTP module: a layer like the last, eh_proj (2h x h), enorm, hnorm and the head's
     * norm, and its own embedding and head (README_WEIGHTS.md; model.layers.61.* in the files). */
    double mtp = m->mtp_layers * (attention + norms + layer_mlp + 2 * h * h + 3 * h + 2 * embedding);
    double vision = 0;
    if (m->vision_layers > 0) {
        /* Llama 4's vision model: class embedding, one position embedding per patch and the class,
         * the patch projection, pre and post LayerNorms (weight and bias), layers of q/k/v/o and a
         * two-matrix GELU MLP with biases and two LayerNorms; the adapter (intermediate_size x
         * projector_input_dim, projector_output_dim squared) and the projector to the text model. */
        double v = m->vision_hidden, f = m->vision_ffn;
        double side = m->vision_patch > 0 ? (double)(m->vision_image / m->vision_patch) : 0;
        double layer = 4 * v * v + 4 * v + 2 * v * f + f + v + 4 * v;
        vision = v + (side * side + 1) * v + (double)m->vision_channels * m->vision_patch * m->vision_patch * v +
                 4 * v + m->vision_layers * layer + f * m->vision_adapter_dim +
                 (double)m->vision_output_dim * m->vision_output_dim + (double)m->vision_output_dim * h +
                 (m->vision_projector_bias ? h : 0);
    }
    if (!(params <= LLM_MAX_PARAMS) || !(mtp <= LLM_MAX_PARAMS) || !(vision <= LLM_MAX_PARAMS))
        return false;
    m->mtp_params = (int64_t)mtp;
    m->vision_params = (int64_t)vision;
    m->params = (int64_t)params;
    m->active_params = (int64_t)(outside + m->layers * (attention + norms) + active_mlp);
    m->expert_params = (int64_t)(moe_layers * m->experts * expert);
    m->embedding_params = (int64_t)(m->tied_embeddings ? embedding : 2 * embedding);
    m->attention_params = (int64_t)(m->layers * attention);
    m->dense_mlp_params = m->layers > moe_layers ? (int64_t)dense_mlp : 0;
    /* DeepSpeed's largest module: the embedding (or LM head) for these vocabularies, else one
     * MLP or attention projection. */
    double largest = embedding;
    if (h * m->ffn > largest)
        largest = h * m->ffn;
    if (h * q_width > largest)
        largest = h * q_width;
    m->largest_layer_params = (int64_t)largest;
    return true;
}

double llm_checkpoint_bytes(const struct llm_shape *m)
{
    if (!m->checkpoint[0])
        return 2.0 * (double)m->params;
    double rest = (double)(m->params - m->expert_params - m->embedding_params);
    double bytes = (double)m->expert_params * m->expert_weight_bytes + (double)m->embedding_params * m->embedding_weight_bytes;
    if (m->attention_weight_bytes > 0) {
        bytes += (double)m->attention_params * m->attention_weight_bytes;
        rest -= (double)m->attention_params;
    }
    if (m->bf16_mlp_layers > 0) {
        double mlp16 = (double)m->bf16_mlp_layers * (double)m->dense_mlp_params;
        bytes += mlp16 * 2;
        rest -= mlp16;
    }
    return bytes + rest * m->other_weight_bytes;
}

double llm_disk_bytes(const struct llm_shape *m)
{
    double bytes = llm_checkpoint_bytes(m) + 2.0 * (double)m->vision_params;
    if (m->mtp_params <= 0 || m->mtp_layers <= 0)
        return bytes;
    /* Each MTP layer: its experts and other linear weights at the checkpoint's precision, the
     * 16-bit rest (eh_proj, norms, embedding and head copies) at 2 bytes. */
    double h = m->hidden, per_layer = (double)m->mtp_params / m->mtp_layers;
    double sixteen = 2 * h * h + 3 * h + 2 * (double)m->vocab * h;
    int moe_layers = m->experts > 0 ? m->layers - m->dense_layers : 0;
    double experts = moe_layers > 0 ? (double)m->expert_params / moe_layers : 0;
    double rest = per_layer - sixteen - experts;
    if (!m->checkpoint[0])
        return bytes + 2.0 * (double)m->mtp_params;
    return bytes + m->mtp_layers * (experts * m->expert_weight_bytes + rest * m->other_weight_bytes + sixteen * 2);
}

bool llm_extras_text(const struct llm_shape *m, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t len = 0;
    if (m->mtp_params > 0)
        len += (size_t)snprintf(buf, n,
                                _("the checkpoint also holds a %.3g B-parameter multi-token-prediction module (%.1f GB "
                                  "on disk), which engines load only for speculative decoding (vLLM "
                                  "`--speculative-config '{\"method\": \"deepseek_mtp\"}'`): not in the weights below"),
                                m->mtp_params / 1e9, (llm_disk_bytes(m) - llm_checkpoint_bytes(m)) / 1e9);
    if (m->vision_params > 0 && len < n)
        snprintf(buf + len, n - len,
                 _("%sthe checkpoint also holds a %.2g B-parameter vision encoder (%.1f GB in BF16), which engines "
                   "load to take image input: not in the weights below"),
                 len ? _("; ") : "", m->vision_params / 1e9, 2.0 * m->vision_params / 1e9);
    return buf[0] != '\0';
}

/* The longest context of each built-in model as vLLM derives it from the config.json named in its
 * source: max_position_embeddings (Llama 3.1+'s llama3 rope type keeps it as the extended length),
 * or YaRN's original_max_position_embeddings x factor (DeepSeek-V3: 4096 x 40; gpt-oss: 4096 x 32). */
static const struct {
    const char *id;
    int tokens;
    const char *source;
} builtin_max_context[] = {
    {"llama-2-7b", 4096, "max_position_embeddings"},     {"llama-2-13b", 4096, "max_position_embeddings"},
    {"llama-2-70b", 4096, "max_position_embeddings"},    {"llama-3-8b", 8192, "max_position_embeddings"},
    {"llama-3-70b", 8192, "max_position_embeddings"},    {"llama-3.1-8b", 131072, "max_position_embeddings"},
    {"llama-3.1-70b", 131072, "max_position_embeddings"}, {"llama-3.1-405b", 131072, "max_position_embeddings"},
    {"llama-3.1-405b-instruct-fp8", 131072, "max_position_embeddings"},
    {"llama-3.2-1b", 131072, "max_position_embeddings"}, {"llama-3.2-3b", 131072, "max_position_embeddings"},
    {"qwen2-7b", 131072, "max_position_embeddings"},     {"qwen2-72b", 131072, "max_position_embeddings"},
    {"qwen2.5-7b", 131072, "max_position_embeddings"},   {"qwen2.5-14b", 131072, "max_position_embeddings"},
    {"qwen2.5-32b", 131072, "max_position_embeddings"},  {"qwen2.5-72b", 131072, "max_position_embeddings"},
    {"mistral-7b", 32768, "max_position_embeddings"},    {"mistral-7b-v0.3", 32768, "max_position_embeddings"},
    {"mistral-nemo-12b", 1024000, "max_position_embeddings"}, {"gemma-2-2b", 8192, "max_position_embeddings"},
    {"gemma-2-9b", 8192, "max_position_embeddings"},     {"gemma-2-27b", 8192, "max_position_embeddings"},
    {"llama-3.3-70b", 131072, "max_position_embeddings"}, {"llama-4-scout", 10485760, "max_position_embeddings"},
    {"llama-4-maverick", 1048576, "max_position_embeddings"}, {"qwen3-0.6b", 40960, "max_position_embeddings"},
    {"qwen3-1.7b", 40960, "max_position_embeddings"},    {"qwen3-4b", 40960, "max_position_embeddings"},
    {"qwen3-8b", 40960, "max_position_embeddings"},      {"qwen3-14b", 40960, "max_position_embeddings"},
    {"qwen3-32b", 40960, "max_position_embeddings"},     {"qwen3-30b-a3b", 40960, "max_position_embeddings"},
    {"qwen3-235b-a22b", 40960, "max_position_embeddings"}, {"deepseek-v3", 163840, "rope_scaling yarn: 4096 x factor 40"},
    {"deepseek-r1", 163840, "rope_scaling yarn: 4096 x factor 40"}, {"mixtral-8x7b", 32768, "max_position_embeddings"},
    {"mixtral-8x22b", 65536, "max_position_embeddings"}, {"gpt-oss-20b", 131072, "rope_scaling yarn: 4096 x factor 32"},
    {"gpt-oss-120b", 131072, "rope_scaling yarn: 4096 x factor 32"},
};

/* A model name as people write it, reduced to what tells models apart: the part after the owner
 * ("meta-llama/"), lower case, dots, underscores and spaces as dashes, a dash where letters meet
 * digits ("llama3.1" as "llama-3-1"), and without the words that name a tuning or a file layout of
 * the same shape (Instruct, Chat, -hf, Gemma's -it, Base, Meta-). */
static void canonical_model_name(const char *in, char *out, size_t n)
{
    static const char *const dropped[] = {"instruct", "chat", "hf", "it", "base", "meta"};
    const char *slash = strrchr(in, '/');
    if (slash)
        in = slash + 1;
    char spaced[128];
    size_t k = 0;
    for (size_t i = 0; in[i] && k + 2 < sizeof spaced; i++) {
        char c = (char)tolower((unsigned char)in[i]);
        if (c == '.' || c == '_' || c == ' ')
            c = '-';
        if (k > 0 && isdigit((unsigned char)c) && isalpha((unsigned char)spaced[k - 1]))
            spaced[k++] = '-';
        spaced[k++] = c;
    }
    spaced[k] = '\0';
    size_t len = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *word = strtok_r(spaced, "-", &save); word; word = strtok_r(NULL, "-", &save)) {
        bool drop = false;
        for (size_t d = 0; d < sizeof dropped / sizeof dropped[0]; d++)
            drop |= !strcmp(word, dropped[d]);
        if (!drop && len < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? "-" : "", word);
    }
}

bool llm_builtin_repo(const struct llm_shape *m, char *out, size_t n)
{
    const char *start = strstr(m->source, "huggingface.co/");
    if (!start)
        return false;
    start += strlen("huggingface.co/");
    snprintf(out, n, "%.*s", (int)strcspn(start, " "), start);
    return true;
}

static void builtin_repo(const struct llm_shape *m, char *out, size_t n)
{
    if (!llm_builtin_repo(m, out, n))
        out[0] = '\0';
}

/* The built-in model a name means: its id exactly (any case), else the same canonical name as its id
 * or its Hugging Face repository. -1 when none. */
static int builtin_index(const char *name)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (!strcasecmp(builtin[i].id, name))
            return (int)i;
    if (strlen(name) > 100)
        return -1;
    char want[128], have[128], repo[256];
    canonical_model_name(name, want, sizeof want);
    for (size_t i = 0; want[0] && i < sizeof builtin / sizeof builtin[0]; i++) {
        canonical_model_name(builtin[i].id, have, sizeof have);
        if (!strcmp(want, have))
            return (int)i;
        builtin_repo(&builtin[i], repo, sizeof repo);
        canonical_model_name(repo, have, sizeof have);
        if (!strcmp(want, have))
            return (int)i;
    }
    return -1;
}

const char *llm_builtin_fp8_of(const char *name)
{
    size_t len = strlen(name);
    if (len > 100 || len < 5 || strcasecmp(name + len - 4, "-fp8"))
        return NULL;
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)(len - 4), name);
    int i = builtin_index(base);
    return i < 0 ? NULL : builtin[i].id;
}

const char *llm_builtin_suggestion(const char *name)
{
    if (strlen(name) > 100)
        return NULL;
    enum { N = sizeof builtin / sizeof builtin[0] };
    static char canonical[N][128];
    const char *names[N];
    for (size_t i = 0; i < N; i++) {
        canonical_model_name(builtin[i].id, canonical[i], sizeof canonical[i]);
        names[i] = canonical[i];
    }
    char want[128];
    canonical_model_name(name, want, sizeof want);
    const char *best = closest_name(want, names, N);
    for (size_t i = 0; best && i < N; i++)
        if (names[i] == best)
            return builtin[i].id;
    return NULL;
}

bool llm_builtin(const char *id, struct llm_shape *out)
{
    int i = builtin_index(id);
    if (i < 0)
        return false;
    *out = builtin[i];
    for (size_t k = 0; k < sizeof builtin_max_context / sizeof builtin_max_context[0]; k++)
        if (!strcmp(builtin_max_context[k].id, builtin[i].id)) {
            out->max_context = builtin_max_context[k].tokens;
            snprintf(out->max_context_source, sizeof out->max_context_source, "%s", builtin_max_context[k].source);
        }
    return llm_count_params(out); /* every built-in shape is far below the bound */
}

void llm_from_params(int64_t params, struct llm_shape *out)
{
    *out = (struct llm_shape){.params = params, .active_params = params};
    snprintf(out->id, sizeof out->id, "params");
    snprintf(out->source, sizeof out->source, "--params");
}

/* The range gpuvet takes for each config.json field: about ten times the largest published model's
 * value (Llama-3.1-405B: 126 layers, hidden 16384, MLP 53248; DeepSeek-V3: 256 experts; Gemma 3:
 * a 262144-token vocabulary; Llama 4 Scout: 10485760 positions), so that every product the plan
 * forms stays far inside a double's exact integers and a long. A field the shape divides by starts
 * at 1. Fields not listed take 0 to 10^7. */
struct field_range {
    const char *key;
    int min, max;
};
static const struct field_range field_ranges[] = {
    {"num_hidden_layers", 1, 2048},      {"hidden_size", 1, 262144},
    {"num_attention_heads", 1, 8192},    {"num_key_value_heads", 1, 8192},
    {"head_dim", 1, 8192},               {"intermediate_size", 0, 1048576},
    {"vocab_size", 1, 4194304},          {"max_position_embeddings", 1, 100000000},
    {"n_routed_experts", 0, 65536},      {"num_local_experts", 0, 65536},
    {"num_experts", 0, 65536},           {"num_experts_per_tok", 0, 65536},
    {"moe_intermediate_size", 0, 1048576}, {"shared_expert_intermediate_size", 0, 1048576},
    {"intermediate_size_mlp", 0, 1048576}, {"n_shared_experts", 0, 1000},
    {"q_lora_rank", 0, 262144},          {"kv_lora_rank", 0, 262144},
    {"qk_nope_head_dim", 0, 8192},       {"qk_rope_head_dim", 0, 8192},
    {"v_head_dim", 0, 8192},             {"sliding_window", 0, 100000000},
    {"attention_chunk_size", 0, 100000000}, {"patch_size", 1, 4096},
    {"image_size", 1, 65536},            {"num_channels", 1, 64},
    {"projector_input_dim", 0, 262144},  {"projector_output_dim", 0, 262144},
    {"original_max_position_embeddings", 1, 100000000},
};

static void field_range(const char *key, int *min, int *max)
{
    *min = 0;
    *max = 10000000;
    for (size_t i = 0; i < sizeof field_ranges / sizeof field_ranges[0]; i++)
        if (!strcmp(field_ranges[i].key, key)) {
            *min = field_ranges[i].min;
            *max = field_ranges[i].max;
        }
}

static int int_field(json_t *cfg, const char *path, const char *key, bool required, int fallback, int *out, char *err,
                     size_t errlen)
{
    json_t *v = json_object_get(cfg, key);
    if (!v || json_is_null(v)) {
        if (required) {
            snprintf(err, errlen, _("%s: no \"%s\" in the config"), path, key);
            return -1;
        }
        *out = fallback;
        return 0;
    }
    int min, max;
    field_range(key, &min, &max);
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        snprintf(err, errlen, _("%s: \"%s\" must be an integer from %d to %d (beyond that no published model goes)"),
                 path, key, min, max);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* transformers' per-architecture default for tie_word_embeddings when a config.json leaves it out:
 * LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen2MoeConfig, Qwen3(Moe)Config,
 * GptOssConfig, DeepseekV2/V3Config, Llama4TextConfig: False; GemmaConfig,
 * Gemma2Config and the PretrainedConfig base: True. */
static bool tied_by_default(const char *model_type, bool *known)
{
    static const char *const untied[] = {"llama",       "mistral",     "mixtral", "qwen2",       "qwen2_moe",
                                         "qwen3",       "qwen3_moe",   "gpt_oss", "deepseek_v3", "deepseek_v2",
                                         "llama4_text", "llama4"};
    *known = true;
    for (size_t i = 0; model_type && i < sizeof untied / sizeof untied[0]; i++)
        if (!strcmp(model_type, untied[i]))
            return false;
    if (model_type && (!strcmp(model_type, "gemma") || !strcmp(model_type, "gemma2")))
        return true;
    *known = false;
    return true;
}

/* DeepSeek-V2/V3: n_routed_experts of moe_intermediate_size, n_shared_experts of the same width,
 * the first first_k_dense_replace layers dense (intermediate_size), and multi-head latent attention. */
static int read_deepseek(json_t *cfg, const char *path, struct llm_shape *out, char *err, size_t errlen)
{
    int shared = 0, freq = 1;
    out->dense_ffn = out->ffn;
    if (int_field(cfg, path, "n_routed_experts", true, 0, &out->experts, err, errlen) ||
        int_field(cfg, path, "moe_intermediate_size", true, 0, &out->ffn, err, errlen) ||
        int_field(cfg, path, "n_shared_experts", false, 0, &shared, err, errlen) ||
        int_field(cfg, path, "first_k_dense_replace", false, 0, &out->dense_layers, err, errlen) ||
        int_field(cfg, path, "moe_layer_freq", false, 1, &freq, err, errlen) ||
        int_field(cfg, path, "q_lora_rank", false, 0, &out->q_lora_rank, err, errlen) ||
        int_field(cfg, path, "kv_lora_rank", true, 0, &out->kv_lora_rank, err, errlen) ||
        int_field(cfg, path, "qk_nope_head_dim", true, 0, &out->qk_nope_head_dim, err, errlen) ||
        int_field(cfg, path, "qk_rope_head_dim", true, 0, &out->qk_rope_head_dim, err, errlen) ||
        int_field(cfg, path, "v_head_dim", true, 0, &out->v_head_dim, err, errlen))
        return -1;
    if (freq != 1 || out->dense_layers > out->layers || !out->kv_lora_rank || shared > 1000) {
        snprintf(err, errlen,
                 _("%s: moe_layer_freq other than 1, first_k_dense_replace beyond the layers or kv_lora_rank 0 are "
                   "not modelled; use --params"),
                 path);
        return -1;
    }
    out->shared_expert_ffn = shared * out->ffn;
    out->head_dim = out->qk_nope_head_dim + out->qk_rope_head_dim;
    return 0;
}

/* Llama 4 (text_config): num_local_experts of intermediate_size plus a shared expert of the same
 * width; with interleave_moe_layer_step S only every S-th layer has experts, the others a dense MLP
 * of intermediate_size_mlp. */
static int read_llama4(json_t *cfg, const char *path, struct llm_shape *out, char *err, size_t errlen)
{
    int step = 1;
    if (int_field(cfg, path, "interleave_moe_layer_step", false, 1, &step, err, errlen) ||
        int_field(cfg, path, "intermediate_size_mlp", step > 1, 0, &out->dense_ffn, err, errlen))
        return -1;
    if (step < 1) {
        snprintf(err, errlen, _("%s: \"%s\" must be a positive integer"), path, "interleave_moe_layer_step");
        return -1;
    }
    out->shared_expert_ffn = out->ffn;
    out->dense_layers = out->layers - out->layers / step;
    return 0;
}

/* Mixtral (num_local_experts, intermediate_size per expert) and Qwen-MoE (num_experts,
 * moe_intermediate_size, shared_expert_intermediate_size); DeepSeek and Llama 4 above. */
static int read_experts(json_t *cfg, const char *path, const char *type, struct llm_shape *out, char *err,
                        size_t errlen)
{
    if (json_object_get(cfg, "n_routed_experts")) {
        if (read_deepseek(cfg, path, out, err, errlen))
            return -1;
        goto per_token;
    }
    if (int_field(cfg, path, "num_local_experts", false, 0, &out->experts, err, errlen))
        return -1;
    if (!out->experts) {
        if (int_field(cfg, path, "num_experts", false, 0, &out->experts, err, errlen))
            return -1;
        if (out->experts &&
            (int_field(cfg, path, "moe_intermediate_size", true, 0, &out->ffn, err, errlen) ||
             int_field(cfg, path, "shared_expert_intermediate_size", false, 0, &out->shared_expert_ffn, err, errlen)))
            return -1;
        int step = 1;
        json_t *dense_layers = json_object_get(cfg, "mlp_only_layers");
        if (out->experts && (int_field(cfg, path, "decoder_sparse_step", false, 1, &step, err, errlen) ||
                             step != 1 || json_array_size(dense_layers) > 0)) {
            if (!*err)
                snprintf(err, errlen, _("%s: dense MLP layers among the expert layers (decoder_sparse_step, "
                                      "mlp_only_layers) are not modelled; use --params"),
                         path);
            return -1;
        }
    } else if (type && !strncmp(type, "llama4", 6) && read_llama4(cfg, path, out, err, errlen))
        return -1;
    out->expert_bias = out->experts && type && !strcmp(type, "gpt_oss");
per_token:
    if (out->experts &&
        (int_field(cfg, path, "num_experts_per_tok", true, 0, &out->experts_per_token, err, errlen)))
        return -1;
    if (out->experts && (out->experts_per_token < 1 || out->experts_per_token > out->experts)) {
        snprintf(err, errlen, _("%s: num_experts_per_tok must be 1 to the number of experts (%d)"), path, out->experts);
        return -1;
    }
    return 0;
}

/* The longest context the model takes, as vLLM derives it (vllm/config.py, _get_and_verify_max_len):
 * the smallest of the length fields given, times rope_scaling's factor unless the rope type is
 * llama3, longrope or su (those keep max_position_embeddings as the extended length); YaRN scales
 * original_max_position_embeddings. None given: 0, unknown. */
static int read_max_context(json_t *cfg, const char *path, struct llm_shape *out, char *err, size_t errlen)
{
    static const char *const keys[] = {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                                       "max_sequence_length", "max_seq_length", "seq_len"};
    const char *from = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int v = 0;
        if (!json_object_get(cfg, keys[i]))
            continue;
        if (int_field(cfg, path, keys[i], false, 0, &v, err, errlen))
            return -1;
        if (v > 0 && (!from || v < out->max_context)) {
            out->max_context = v;
            from = keys[i];
        }
    }
    if (!from)
        return 0;
    snprintf(out->max_context_source, sizeof out->max_context_source, "%s", from);
    json_t *rope = json_object_get(cfg, "rope_scaling");
    if (!json_is_object(rope))
        return 0;
    const char *rope_type = json_string_value(json_object_get(rope, "rope_type"));
    if (!rope_type)
        rope_type = json_string_value(json_object_get(rope, "type"));
    if (!rope_type || !strcmp(rope_type, "llama3") || !strcmp(rope_type, "longrope") || !strcmp(rope_type, "su"))
        return 0;
    json_t *f = json_object_get(rope, "factor");
    double factor = json_is_number(f) ? json_number_value(f) : 1;
    if (!(factor >= 1 && factor <= 1024)) {
        snprintf(err, errlen, _("%s: rope_scaling \"factor\" must be a number from 1 to 1024"), path);
        return -1;
    }
    int base = out->max_context;
    if (!strcmp(rope_type, "yarn") &&
        int_field(rope, path, "original_max_position_embeddings", true, 0, &base, err, errlen))
        return -1;
    double scaled = floor(base * factor);
    if (scaled > 100000000) {
        snprintf(err, errlen, _("%s: rope_scaling makes the context %.0f tokens, more than 10^8; check the field"), path,
                 scaled);
        return -1;
    }
    out->max_context = (int)scaled;
    snprintf(out->max_context_source, sizeof out->max_context_source, "rope_scaling %s: %d x factor %g", rope_type,
             base, factor);
    return 0;
}

/* A compressed-tensors checkpoint (llm-compressor's) with FP8 on every linear layer: each config group
 * quantises its weights to 8-bit floats and targets "Linear" (what is left out is its ignore list).
 * Groups of other widths, or of named modules, are not claimed: the checkpoint is then planned as
 * BF16 unless --weights says otherwise. */
static bool compressed_tensors_fp8(const json_t *qcfg)
{
    json_t *groups = json_object_get(qcfg, "config_groups");
    const char *key;
    json_t *group;
    size_t n = 0;
    json_object_foreach(groups, key, group)
    {
        json_t *w = json_object_get(group, "weights"), *targets = json_object_get(group, "targets");
        const char *type = json_string_value(json_object_get(w, "type"));
        if (json_integer_value(json_object_get(w, "num_bits")) != 8 || !type || strcmp(type, "float") ||
            !json_is_array(targets) || json_array_size(targets) != 1 ||
            !json_string_value(json_array_get(targets, 0)) || strcmp(json_string_value(json_array_get(targets, 0)), "Linear"))
            return false;
        n++;
    }
    return n > 0;
}

int llm_from_hf_config(const char *path, struct llm_shape *out, char *err, size_t errlen)
{
    *out = (struct llm_shape){.has_shape = true, .norms_per_layer = 2};
    if (errlen)
        err[0] = '\0';
    json_t *cfg = json_load_named(path, err, errlen);
    if (!cfg)
        return -1;
    int rc = -1;
    if (!json_is_object(cfg)) {
        snprintf(err, errlen, _("%s: expected a JSON object (a Hugging Face config.json)"), path);
        goto done;
    }
    /* Llama 4 and other multimodal checkpoints keep the decoder's fields in text_config, the vision
     * encoder's in vision_config (counted for Llama 4's, model_type llama4_vision_model). */
    json_t *text = json_object_get(cfg, "text_config"), *vision = json_object_get(cfg, "vision_config");
    const char *vision_type = json_string_value(json_object_get(vision, "model_type"));
    if (vision_type && !strcmp(vision_type, "llama4_vision_model")) {
        if (int_field(vision, path, "num_hidden_layers", true, 0, &out->vision_layers, err, errlen) ||
            int_field(vision, path, "hidden_size", true, 0, &out->vision_hidden, err, errlen) ||
            int_field(vision, path, "intermediate_size", true, 0, &out->vision_ffn, err, errlen) ||
            int_field(vision, path, "patch_size", true, 0, &out->vision_patch, err, errlen) ||
            int_field(vision, path, "image_size", true, 0, &out->vision_image, err, errlen) ||
            int_field(vision, path, "num_channels", false, 3, &out->vision_channels, err, errlen) ||
            int_field(vision, path, "projector_input_dim", true, 0, &out->vision_adapter_dim, err, errlen) ||
            int_field(vision, path, "projector_output_dim", true, 0, &out->vision_output_dim, err, errlen))
            goto done;
        out->vision_projector_bias = json_is_true(json_object_get(vision, "multi_modal_projector_bias"));
    }
    if (json_is_object(text) && !json_object_get(cfg, "num_hidden_layers")) {
        json_t *quant = json_object_get(cfg, "quantization_config");
        if (quant && !json_object_get(text, "quantization_config"))
            json_object_set(text, "quantization_config", quant);
        json_incref(text);
        json_decref(cfg);
        cfg = text;
    }
    if (int_field(cfg, path, "num_hidden_layers", true, 0, &out->layers, err, errlen) ||
        int_field(cfg, path, "hidden_size", true, 0, &out->hidden, err, errlen) ||
        int_field(cfg, path, "num_attention_heads", true, 0, &out->heads, err, errlen) ||
        int_field(cfg, path, "num_key_value_heads", false, out->heads, &out->kv_heads, err, errlen) ||
        int_field(cfg, path, "intermediate_size", true, 0, &out->ffn, err, errlen) ||
        int_field(cfg, path, "vocab_size", true, 0, &out->vocab, err, errlen))
        goto done;
    if (!out->layers || !out->hidden || !out->heads || !out->kv_heads || !out->vocab) {
        snprintf(err, errlen, _("%s: layers, hidden size, heads, KV heads and vocabulary must be positive"), path);
        goto done;
    }
    const char *type = json_string_value(json_object_get(cfg, "model_type"));
    /* DeepSeek-V3's multi-token-prediction modules, beside the decoder (README_WEIGHTS.md). */
    if (type && !strncmp(type, "deepseek", 8) &&
        int_field(cfg, path, "num_nextn_predict_layers", false, 0, &out->mtp_layers, err, errlen))
        goto done;
    if (out->mtp_layers > 16) {
        snprintf(err, errlen, _("%s: num_nextn_predict_layers %d: more than 16 multi-token-prediction modules is not a "
                                "published model; check the field"),
                 path, out->mtp_layers);
        goto done;
    }
    if (int_field(cfg, path, "head_dim", false, out->hidden / out->heads, &out->head_dim, err, errlen) ||
        read_experts(cfg, path, type, out, err, errlen) || read_max_context(cfg, path, out, err, errlen))
        goto done;
    if (out->head_dim < 1) { /* hidden_size / num_attention_heads when head_dim is not given */
        snprintf(err, errlen, _("%s: \"%s\" must be an integer from %d to %d (beyond that no published model goes)"),
                 path, "head_dim", 1, 8192);
        goto done;
    }
    if (out->heads % out->kv_heads != 0) {
        snprintf(err, errlen, _("%s: num_attention_heads (%d) is not a multiple of num_key_value_heads (%d)"), path,
                 out->heads, out->kv_heads);
        goto done;
    }
    json_t *tie = json_object_get(cfg, "tie_word_embeddings");
    bool tie_known = true;
    out->tied_embeddings = json_is_boolean(tie) ? json_is_true(tie) : tied_by_default(type, &tie_known);
    bool gemma2 = type && !strcmp(type, "gemma2");
    if (gemma2)
        out->norms_per_layer = 4; /* input, post-attention, pre- and post-feedforward */
    out->qkv_bias = (type && (!strcmp(type, "qwen2") || !strcmp(type, "qwen2_moe"))) ||
                    json_is_true(json_object_get(cfg, "attention_bias"));
    out->qk_norm = type && (!strcmp(type, "qwen3") || !strcmp(type, "qwen3_moe"));
    json_t *use_window = json_object_get(cfg, "use_sliding_window");
    if (!json_is_false(use_window) &&
        int_field(cfg, path, "sliding_window", false, 0, &out->sliding_window, err, errlen))
        goto done;
    /* Llama 4's chunked attention: a token attends within its chunk of attention_chunk_size, on the
     * layers no_rope_layers marks 1 (the RoPE layers; every fourth, NoPE, attends globally). */
    if (type && !strncmp(type, "llama4", 6)) {
        if (int_field(cfg, path, "attention_chunk_size", false, 0, &out->sliding_window, err, errlen))
            goto done;
        json_t *rope = json_object_get(cfg, "no_rope_layers");
        if (out->sliding_window && json_array_size(rope) == (size_t)out->layers) {
            size_t i;
            json_t *v;
            json_array_foreach(rope, i, v) out->sliding_layers += json_is_integer(v) && json_integer_value(v) != 0;
        } else if (out->sliding_window)
            out->sliding_layers = out->layers - out->layers / 4; /* no_rope_layer_interval 4 */
        out->chunked_attention = out->sliding_window > 0;
    }
    /* layer_types (gpt-oss, newer transformers configs) names each layer's attention. */
    json_t *layer_types = json_object_get(cfg, "layer_types");
    if (out->sliding_window && json_array_size(layer_types) == (size_t)out->layers) {
        size_t i;
        json_t *v;
        out->sliding_layers = 0;
        json_array_foreach(layer_types, i, v)
        {
            const char *t = json_string_value(v);
            out->sliding_layers += t && (!strcmp(t, "sliding_attention") || !strcmp(t, "chunked_attention"));
        }
    } else if (out->sliding_window && !out->chunked_attention) {
        /* Gemma-2 alternates local (even) and global layers; Qwen2 slides from max_window_layers on. */
        int first = 0;
        if (type && !strcmp(type, "qwen2") &&
            int_field(cfg, path, "max_window_layers", false, 0, &first, err, errlen))
            goto done;
        out->sliding_layers = gemma2 ? (out->layers + 1) / 2 : first < out->layers ? out->layers - first : 0;
    }
    /* The precision the checkpoint ships in (quantization_config): gpt-oss's mxfp4 experts (4-bit
     * values and an 8-bit scale per 32), DeepSeek-V3's fp8 linear layers. */
    json_t *qcfg = json_object_get(cfg, "quantization_config");
    const char *quant = json_string_value(json_object_get(qcfg, "quant_method"));
    if (quant && !strcmp(quant, "mxfp4") && out->experts) {
        snprintf(out->checkpoint, sizeof out->checkpoint, "MXFP4 experts (4.25 bits per parameter), BF16 rest");
        out->expert_weight_bytes = 4.25 / 8;
        out->embedding_weight_bytes = out->other_weight_bytes = 2;
    } else if (quant && (!strcmp(quant, "fp8") || !strcmp(quant, "fbgemm_fp8") ||
                         (!strcmp(quant, "compressed-tensors") && compressed_tensors_fp8(qcfg)))) {
        out->expert_weight_bytes = out->other_weight_bytes = 1;
        out->embedding_weight_bytes = 2;
        /* The modules left 16-bit: fbgemm_fp8's modules_to_not_convert (Meta's checkpoints list every
         * self_attn projection and the MLPs of the first and last layers), compressed-tensors' ignore. */
        json_t *skip = json_object_get(qcfg, !strcmp(quant, "compressed-tensors") ? "ignore" : "modules_to_not_convert");
        int attention16 = 0, mlp16 = 0;
        for (size_t i = 0; json_is_array(skip) && i < json_array_size(skip); i++) {
            const char *name = json_string_value(json_array_get(skip, i));
            if (name && strstr(name, "self_attn"))
                attention16 = 1;
            else if (name && strstr(name, "mlp.down_proj"))
                mlp16++;
        }
        if (attention16)
            out->attention_weight_bytes = 2;
        if (!out->experts && mlp16 <= out->layers)
            out->bf16_mlp_layers = mlp16;
        snprintf(out->checkpoint, sizeof out->checkpoint, "%s",
                 attention16 ? "FP8 MLP linear layers; attention, embedding and LM head BF16"
                             : "FP8 linear layers, BF16 embedding and LM head");
    }
    const char *base = strrchr(path, '/');
    snprintf(out->id, sizeof out->id, "%s", base ? base + 1 : path);
    snprintf(out->source, sizeof out->source, "%s (model_type %s%s)", path, type ? type : "not given",
             tie_known ? "" : "; tie_word_embeddings not given: transformers' default, tied");
    if (!llm_count_params(out)) {
        snprintf(err, errlen,
                 out->experts ? _("%s: num_hidden_layers %d, hidden_size %d, intermediate_size %d, num_attention_heads "
                                  "%d, head_dim %d, vocab_size %d and the experts make more than %.0e parameters, "
                                  "beyond any model gpuvet plans for (the largest published have about 2e12): check "
                                  "these fields")
                              : _("%s: num_hidden_layers %d, hidden_size %d, intermediate_size %d, num_attention_heads "
                                  "%d, head_dim %d, vocab_size %d make more than %.0e parameters, beyond any model "
                                  "gpuvet plans for (the largest published have about 2e12): check these fields"),
                 path, out->layers, out->hidden, out->ffn, out->heads, out->head_dim, out->vocab, LLM_MAX_PARAMS);
        goto done;
    }
    rc = 0;
done:
    json_decref(cfg);
    return rc;
}

/* KV cache elements of one token in one layer on one GPU of tensor parallelism tp. */
static double kv_elements_per_layer_token(const struct llm_shape *m, int tp)
{
    if (m->kv_lora_rank > 0)
        return (double)m->kv_lora_rank + m->qk_rope_head_dim; /* the latent, whole on every GPU */
    int heads_per_gpu = m->kv_heads / tp > 1 ? m->kv_heads / tp : 1;
    return 2.0 * heads_per_gpu * m->head_dim;
}

int64_t kv_bytes_per_token(const struct llm_shape *m, double bytes_per_element)
{
    return (int64_t)(m->layers * kv_elements_per_layer_token(m, 1) * bytes_per_element);
}

double kv_bytes_per_sequence(const struct llm_shape *m, double bytes_per_element, int context, int tp)
{
    double per_layer_token = kv_elements_per_layer_token(m, tp) * bytes_per_element;
    int window = m->sliding_window && m->sliding_window < context ? m->sliding_window : context;
    int full_layers = m->layers - m->sliding_layers;
    return per_layer_token * ((double)full_layers * context + (double)m->sliding_layers * window);
}

bool tensor_parallel_valid(const struct llm_shape *m, int tp, char *why, size_t whylen)
{
    if (m->heads % tp != 0) {
        snprintf(why, whylen, _("%d attention heads do not divide over tensor parallelism %d (vLLM refuses it)"),
                 m->heads, tp);
        return false;
    }
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0) {
        snprintf(why, whylen, _("%d KV heads neither divide by nor divide tensor parallelism %d (vLLM refuses it)"),
                 m->kv_heads, tp);
        return false;
    }
    return true;
}
