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
    int sliding_window;   /* tokens a sequence's KV cache is capped at; 0 none (Mistral-7B-v0.1: 4096) */
    int64_t params;       /* total parameters */
    int64_t largest_layer_params; /* largest single module (DeepSpeed's ZeRO-3 term); 0 unknown */
};

/* The built-in models, by id (case-insensitive). false when unknown. */
bool llm_builtin(const char *id, struct llm_shape *out);
/* Ids of the built-in models, NULL-terminated. */
extern const char *const llm_builtin_ids[];

/* Reads a Hugging Face config.json (Llama, Mistral, Qwen2 and other Llama-shaped decoders).
 * Missing or non-integer fields and mixture-of-experts configs are an error naming the file. */
int llm_from_hf_config(const char *path, struct llm_shape *out, char *err, size_t errlen);

/* A model known only by its parameter count (no KV cache or activation figures). */
void llm_from_params(int64_t params, struct llm_shape *out);

/* Fills params and largest_layer_params from the shape. */
void llm_count_params(struct llm_shape *m);

/* KV cache bytes per token: 2 (K and V) × layers × KV heads × head dim × bytes per element. */
int64_t kv_bytes_per_token(const struct llm_shape *m, double bytes_per_element);

#endif
