#include "sizing/finetune.h"

#include <string.h>

static const char *const finetune_names[] = {"none", "lora", "qlora"};

const char *finetune_name(enum finetune f) { return finetune_names[f]; }

bool finetune_parse(const char *name, enum finetune *out)
{
    for (int i = 1; i < 3; i++)
        if (!strcmp(name, finetune_names[i])) {
            *out = (enum finetune)i;
            return true;
        }
    return false;
}

/* Embeddings, an untied LM head, the final norm, each layer's norms, MoE routers and QKV biases. */
static int64_t outside_linear_params(const struct llm_shape *m)
{
    int64_t h = m->hidden, q = (int64_t)m->heads * m->head_dim, kv = (int64_t)m->kv_heads * m->head_dim;
    int64_t embedding = (int64_t)m->vocab * h;
    return embedding + (m->tied_embeddings ? 0 : embedding) + h +
           (int64_t)m->layers *
               (m->norms_per_layer * h + (m->experts > 0 ? h * m->experts : 0) + (m->qkv_bias ? q + 2 * kv : 0));
}

int64_t llm_linear_params(const struct llm_shape *m) { return m->params - outside_linear_params(m); }

void finetune_estimate(const struct llm_shape *m, enum finetune kind, int rank, bool attention_only,
                       struct finetune_estimate *out)
{
    int64_t h = m->hidden, q = (int64_t)m->heads * m->head_dim, kv = (int64_t)m->kv_heads * m->head_dim, f = m->ffn;
    int64_t experts = m->experts > 0 ? m->experts : 1;
    /* LoRA: an adapted d_in x d_out matrix gains B (d_in x r) and A (r x d_out). */
    int64_t attention = rank * ((h + q) + (h + kv) + (h + kv) + (q + h));
    int64_t per_layer = attention_only ? rank * ((h + q) + (h + kv)) : attention + experts * rank * 3 * (h + f);
    out->adapter_params = m->layers * per_layer;
    int64_t outside_linears = outside_linear_params(m);
    out->quantized_params = llm_linear_params(m);
    /* QLoRA quantizes the linear layers' weights; embeddings, LM head, norms, biases and the router
     * stay in bf16. */
    out->frozen_bytes = kind == FINETUNE_QLORA
                            ? out->quantized_params * QLORA_BITS_PER_PARAM / 8 + 2.0 * outside_linears
                            : 2.0 * m->params;
    out->adapter_bytes = (double)out->adapter_params * ADAPTER_BYTES_PER_PARAM;
}
