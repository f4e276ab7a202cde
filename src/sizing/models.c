#include "sizing/models.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sizing/jsonfile.h"

/* Values of each model's published config.json on huggingface.co (research/sizing.md §2.4). */
static const struct llm_shape builtin[] = {
    {"llama-2-7b", "huggingface.co/meta-llama/Llama-2-7b-hf config.json", true, 32, 4096, 32, 32, 128, 11008, 32000,
     false, false, 0, 0, 0},
    {"llama-2-13b", "huggingface.co/meta-llama/Llama-2-13b-hf config.json", true, 40, 5120, 40, 40, 128, 13824, 32000,
     false, false, 0, 0, 0},
    {"llama-2-70b", "huggingface.co/meta-llama/Llama-2-70b-hf config.json", true, 80, 8192, 64, 8, 128, 28672, 32000,
     false, false, 0, 0, 0},
    {"llama-3-8b", "huggingface.co/meta-llama/Meta-Llama-3-8B config.json", true, 32, 4096, 32, 8, 128, 14336, 128256,
     false, false, 0, 0, 0},
    {"llama-3-70b", "huggingface.co/meta-llama/Meta-Llama-3-70B config.json", true, 80, 8192, 64, 8, 128, 28672,
     128256, false, false, 0, 0, 0},
    {"qwen2-7b", "huggingface.co/Qwen/Qwen2-7B config.json", true, 28, 3584, 28, 4, 128, 18944, 152064, false, true,
     0, 0, 0},
    {"mistral-7b", "huggingface.co/mistralai/Mistral-7B-v0.1 config.json", true, 32, 4096, 32, 8, 128, 14336, 32000,
     false, false, 4096, 0, 0},
};

const char *const llm_builtin_ids[] = {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b",
                                       "llama-3-70b", "qwen2-7b",   "mistral-7b",  NULL};

void llm_count_params(struct llm_shape *m)
{
    int64_t h = m->hidden, q_width = (int64_t)m->heads * m->head_dim, kv_width = (int64_t)m->kv_heads * m->head_dim;
    int64_t attention = h * q_width + 2 * h * kv_width + q_width * h + (m->qkv_bias ? q_width + 2 * kv_width : 0);
    int64_t mlp = 3 * h * m->ffn; /* gate, up and down projections (SwiGLU) */
    int64_t per_layer = attention + mlp + 2 * h; /* two RMSNorm weights */
    int64_t embedding = (int64_t)m->vocab * h;
    m->params = embedding + m->layers * per_layer + h + (m->tied_embeddings ? 0 : embedding);
    /* DeepSpeed's largest module: the embedding (or LM head) for these vocabularies, else one
     * MLP or attention projection. */
    int64_t largest = embedding;
    if (h * m->ffn > largest)
        largest = h * m->ffn;
    if (h * q_width > largest)
        largest = h * q_width;
    m->largest_layer_params = largest;
}

bool llm_builtin(const char *id, struct llm_shape *out)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (!strcasecmp(builtin[i].id, id)) {
            *out = builtin[i];
            llm_count_params(out);
            return true;
        }
    return false;
}

void llm_from_params(int64_t params, struct llm_shape *out)
{
    *out = (struct llm_shape){.params = params};
    snprintf(out->id, sizeof out->id, "params");
    snprintf(out->source, sizeof out->source, "--params");
}

static int int_field(json_t *cfg, const char *path, const char *key, bool required, int fallback, int *out, char *err,
                     size_t errlen)
{
    json_t *v = json_object_get(cfg, key);
    if (!v || json_is_null(v)) {
        if (required) {
            snprintf(err, errlen, "%s: no \"%s\" in the config", path, key);
            return -1;
        }
        *out = fallback;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > 10000000) {
        snprintf(err, errlen, "%s: \"%s\" must be a positive integer", path, key);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

int llm_from_hf_config(const char *path, struct llm_shape *out, char *err, size_t errlen)
{
    *out = (struct llm_shape){.has_shape = true};
    json_t *cfg = json_load_named(path, err, errlen);
    if (!cfg)
        return -1;
    int rc = -1;
    if (!json_is_object(cfg)) {
        snprintf(err, errlen, "%s: expected a JSON object (a Hugging Face config.json)", path);
        goto done;
    }
    if (json_object_get(cfg, "num_local_experts") || json_object_get(cfg, "num_experts")) {
        snprintf(err, errlen, "%s: a mixture-of-experts model; gpuvet sizes dense decoders only (use --params)", path);
        goto done;
    }
    if (int_field(cfg, path, "num_hidden_layers", true, 0, &out->layers, err, errlen) ||
        int_field(cfg, path, "hidden_size", true, 0, &out->hidden, err, errlen) ||
        int_field(cfg, path, "num_attention_heads", true, 0, &out->heads, err, errlen) ||
        int_field(cfg, path, "num_key_value_heads", false, out->heads, &out->kv_heads, err, errlen) ||
        int_field(cfg, path, "head_dim", false, out->hidden / out->heads, &out->head_dim, err, errlen) ||
        int_field(cfg, path, "intermediate_size", true, 0, &out->ffn, err, errlen) ||
        int_field(cfg, path, "vocab_size", true, 0, &out->vocab, err, errlen))
        goto done;
    if (out->heads % out->kv_heads != 0) {
        snprintf(err, errlen, "%s: num_attention_heads (%d) is not a multiple of num_key_value_heads (%d)", path,
                 out->heads, out->kv_heads);
        goto done;
    }
    /* Llama, Mistral and Qwen2 configs default to untied embeddings. */
    out->tied_embeddings = json_is_true(json_object_get(cfg, "tie_word_embeddings"));
    const char *type = json_string_value(json_object_get(cfg, "model_type"));
    out->qkv_bias = (type && !strcmp(type, "qwen2")) || json_is_true(json_object_get(cfg, "attention_bias"));
    json_t *use_window = json_object_get(cfg, "use_sliding_window");
    if (!json_is_false(use_window) &&
        int_field(cfg, path, "sliding_window", false, 0, &out->sliding_window, err, errlen))
        goto done;
    const char *base = strrchr(path, '/');
    snprintf(out->id, sizeof out->id, "%s", base ? base + 1 : path);
    snprintf(out->source, sizeof out->source, "%s (model_type %s)", path, type ? type : "not given");
    llm_count_params(out);
    rc = 0;
done:
    json_decref(cfg);
    return rc;
}

int64_t kv_bytes_per_token(const struct llm_shape *m, double bytes_per_element)
{
    return (int64_t)(2.0 * m->layers * m->kv_heads * m->head_dim * bytes_per_element);
}
