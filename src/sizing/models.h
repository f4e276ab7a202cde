/* Decoder-only transformer shapes: the built-in catalogue, Hugging Face config.json files and
 * bare parameter counts, with the parameter counts derived from the shapes. */
#ifndef GPUVET_SIZING_MODELS_H
#define GPUVET_SIZING_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct llm_shape {
    char id[64];          /* "llama-2-7b", a config file's name, or "params" */
    char source[256];     /* where the shape comes from */
    bool has_shape;       /* false for --params N: only the count is known */
    int layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    bool tied_embeddings; /* the LM head shares the embedding matrix */
    bool qkv_bias;        /* Qwen2 has biases on the q, k and v projections */
    int norms_per_layer;  /* RMSNorm weights per layer: 2 (Llama), 4 (Gemma-2) */
    /* Sliding-window attention: sliding_layers of the layers keep at most sliding_window tokens of
     * KV cache (Mistral-7B-v0.1: all 32 at 4096; Gemma-2: every other layer at 4096). */
    int sliding_window, sliding_layers;
    /* Mixture of experts: experts per layer (0 = dense), experts each token uses, each expert's
     * MLP width (ffn), and a shared expert's width (Qwen-MoE; 0 none). */
    int experts, experts_per_token, shared_expert_ffn;
    /* Layers without experts in a mixture: dense_layers of the layers have a dense MLP of width
     * dense_ffn (DeepSeek-V3: the first 3 at 18432; Llama 4 Maverick: every other at 16384). */
    int dense_layers, dense_ffn;
    bool expert_bias; /* gpt-oss: biases on the expert projections and the router */
    bool qk_norm;     /* Qwen3: an RMSNorm of head_dim on the queries and one on the keys */
    /* Multi-head latent attention (DeepSeek-V2/V3, kv_lora_rank > 0): the KV cache holds, per token
     * and layer, the compressed latent (kv_lora_rank) and the rotary key (qk_rope_head_dim), one copy
     * on every GPU of a tensor-parallel group; heads and kv_heads count the decompressed heads. */
    int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
    /* The sliding layers are Llama 4's chunked attention: a token sees only its own chunk of
     * sliding_window tokens, so those layers keep at most one chunk. */
    bool chunked_attention;
    /* The precision the published checkpoint ships in, when not BF16 for every weight: bytes per
     * parameter of the routed experts, of the embedding and LM head, and of the rest (gpt-oss:
     * MXFP4 experts, 4.25 bits; DeepSeek-V3: FP8 linear layers). checkpoint[0] == 0: none given. */
    char checkpoint[96];
    double expert_weight_bytes, embedding_weight_bytes, other_weight_bytes;
    /* Where the checkpoint keeps more than the linear layers in 16 bits: bytes per parameter of the
     * attention projections (0: as other_weight_bytes), and how many layers keep their MLP in 16
     * bits (Meta's Llama-3.1-405B-Instruct-FP8 quantises only the MLPs of layers 1 to 124: the Llama
     * 3 paper, §6.2, and its config.json's modules_to_not_convert). */
    double attention_weight_bytes;
    int bf16_mlp_layers;
    /* The longest context the model takes (max_position_embeddings and its rope_scaling, as vLLM
     * derives it), and where that number comes from; 0 when the config gives none. */
    int max_context;
    char max_context_source[64];
    int64_t params;        /* total parameters */
    int64_t active_params; /* parameters one token passes through (= params for a dense model) */
    int64_t largest_layer_params; /* largest single module (DeepSpeed's ZeRO-3 term); 0 unknown */
    int64_t expert_params;        /* routed experts' parameters, all layers (0 dense) */
    int64_t embedding_params;     /* embedding + LM head (one matrix when tied) */
    int64_t attention_params;     /* attention projections (and their biases, norms), all layers */
    int64_t dense_mlp_params;     /* one dense layer's MLP (0 for a mixture without dense layers) */
    /* What the checkpoint holds beside the decoder counted above (params leaves them out):
     * DeepSeek-V3/R1's multi-token-prediction module (config num_nextn_predict_layers: one more
     * decoder layer, eh_proj, its norms and its own copies of the embedding and LM head, as
     * model.layers.61.* in the safetensors), which engines load only for speculative decoding
     * (vLLM --speculative-config method deepseek_mtp); and Llama 4's vision encoder, pixel-shuffle
     * adapter and projector (vision_config, BF16), which engines load to take image input. */
    int mtp_layers;
    int vision_hidden, vision_ffn, vision_layers, vision_patch, vision_image, vision_channels;
    int vision_adapter_dim, vision_output_dim; /* projector_input_dim, projector_output_dim */
    bool vision_projector_bias;
    int64_t mtp_params;    /* as stored, the copies of embedding and head included; 0 none */
    int64_t vision_params; /* 0 none */
};

/* The built-in models, by id (case-insensitive), or by the name people write: a Hugging Face
 * repository id with or without its owner and -Instruct/-Chat/-it, dots, dashes and underscores
 * alike ("meta-llama/Llama-3.1-70B-Instruct", "llama3.1-70b"). false when unknown. */
bool llm_builtin(const char *id, struct llm_shape *out);
/* The built-in model whose FP8 checkpoint a name ending in -FP8 names ("Qwen/Qwen3-235B-A22B-FP8":
 * qwen3-235b-a22b, to plan with --weights fp8), or NULL. */
const char *llm_builtin_fp8_of(const char *name);
/* The Hugging Face repository a built-in shape comes from ("meta-llama/Llama-3.1-70B"); false when
 * the source names none. */
bool llm_builtin_repo(const struct llm_shape *m, char *out, size_t n);
/* The built-in id closest to an unknown name by edit distance (a typo's worth), or NULL. */
const char *llm_builtin_suggestion(const char *name);
/* Ids of the built-in models, NULL-terminated. */
extern const char *const llm_builtin_ids[];

/* Reads a Hugging Face config.json (Llama, Mistral, Qwen2/3, Gemma/Gemma-2 and other Llama-shaped
 * decoders; Mixtral, Qwen-MoE and Qwen3-MoE mixtures of experts; gpt-oss; DeepSeek-V2/V3; Llama 4's
 * text_config). Missing or non-integer fields and unsupported architectures are an error naming
 * the file. */
int llm_from_hf_config(const char *path, struct llm_shape *out, char *err, size_t errlen);

/* A model known only by its parameter count (no KV cache or activation figures). */
void llm_from_params(int64_t params, struct llm_shape *out);

/* The most parameters gpuvet plans for: 50 times the largest published models (about 2e12), and
 * far below where bytes of weights, gradients and optimizer states leave int64 or double's exact
 * integers. --params has the same bound. */
#define LLM_MAX_PARAMS 1e14

/* Fills params, active_params and largest_layer_params from the shape; false (and nothing
 * filled) when the shape holds more than LLM_MAX_PARAMS parameters. */
bool llm_count_params(struct llm_shape *m);

/* Bytes of the weights as the checkpoint ships them (the fields above); params × 2 (BF16) for a
 * model that gives no checkpoint precision. */
double llm_checkpoint_bytes(const struct llm_shape *m);
/* Bytes of the checkpoint's files: the weights above, the multi-token-prediction module at the
 * checkpoint's precision (its eh_proj, norms, embedding and head in 16 bits) and the vision
 * encoder in BF16. DeepSeek-V3's FP8 block scales (4 bytes per 128 x 128 weights) are left out. */
double llm_disk_bytes(const struct llm_shape *m);
/* One sentence for people on what the checkpoint holds beyond the counted weights (the MTP
 * module, the vision encoder) and whether engines load it; false (buf "") when nothing. */
bool llm_extras_text(const struct llm_shape *m, char *buf, size_t n);

/* KV cache bytes per token of context, all layers, before any window: 2 (K and V) × layers × KV
 * heads × head dim × bytes per element; multi-head latent attention: layers × (kv_lora_rank +
 * qk_rope_head_dim) × bytes per element. */
int64_t kv_bytes_per_token(const struct llm_shape *m, double bytes_per_element);
/* KV cache bytes of one sequence of `context` tokens on one GPU of a tensor-parallel group of tp:
 * each GPU keeps max(1, KV heads / tp) heads (vLLM replicates them when tp exceeds the KV heads;
 * the latent of multi-head latent attention is whole on every GPU), and sliding-window and chunked
 * layers keep at most the window (chunk). */
double kv_bytes_per_sequence(const struct llm_shape *m, double bytes_per_element, int context, int tp);
/* Whether vLLM accepts tensor parallelism tp for this shape: tp divides the attention heads, and
 * the KV heads divide by tp or tp by them. false with why filled. */
bool tensor_parallel_valid(const struct llm_shape *m, int tp, char *why, size_t whylen);

#endif
