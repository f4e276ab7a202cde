#include "sizing/demand.h"

#include "sizing/finetune.h"

#include <math.h>
#include <string.h>

static const char *const recompute_names[] = {"none", "selective", "full"};

const char *recompute_name(enum recompute r) { return recompute_names[r]; }

bool recompute_parse(const char *name, enum recompute *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, recompute_names[i])) {
            *out = (enum recompute)i;
            return true;
        }
    return false;
}

double activation_bytes_per_token_layer(const struct llm_shape *m)
{
    double h = m->hidden, q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
    double experts = m->experts > 0 ? m->experts_per_token : 1;
    double mlp = 4.0 * m->ffn * experts + 4.0 * m->shared_expert_ffn;
    return 2 * (m->norms_per_layer * h + h + (q + kv) + kv + q + h + mlp);
}

double activation_bytes_per_layer(const struct llm_shape *m, int seq, int micro_batch, enum recompute r, bool flash)
{
    double sb = (double)seq * micro_batch;
    if (r == RECOMPUTE_FULL)
        return 2 * sb * m->hidden;
    double per_token = activation_bytes_per_token_layer(m);
    if (r == RECOMPUTE_SELECTIVE || flash)
        return sb * per_token;
    return sb * (per_token + 5.0 * m->heads * seq);
}

double recompute_working_bytes(const struct llm_shape *m, int seq, int micro_batch, enum recompute r, bool flash)
{
    if (r != RECOMPUTE_FULL)
        return 0;
    return activation_bytes_per_layer(m, seq, micro_batch, RECOMPUTE_NONE, flash) + logits_bytes(m, seq, micro_batch);
}

double infer_profile_forward_bytes(const struct llm_shape *m, int tp, long max_num_batched_tokens)
{
    double tokens = (double)max_num_batched_tokens;
    double experts = m->experts > 0 ? m->experts_per_token : 1;
    double ffn = (double)m->ffn * experts + m->shared_expert_ffn;
    return tokens * 2 * (3 * ffn / tp + 4.0 * m->hidden);
}

double infer_profile_sampler_bytes(const struct llm_shape *m, long max_num_seqs)
{
    return (double)max_num_seqs * m->vocab * VLLM_SAMPLER_BYTES_PER_LOGIT;
}

double infer_profile_peak_bytes(const struct llm_shape *m, int tp, long max_num_seqs, long max_num_batched_tokens)
{
    return fmax(infer_profile_forward_bytes(m, tp, max_num_batched_tokens), infer_profile_sampler_bytes(m, max_num_seqs));
}

double infer_loaded_weight_bytes(const struct llm_shape *m, double checkpoint_bytes, bool as_checkpoint, int tp)
{
    bool mxfp4 = as_checkpoint && m->experts > 0 && m->expert_weight_bytes > 0 && m->expert_weight_bytes < 1 &&
                 m->ffn > 0 && tp > 0;
    if (!mxfp4)
        return checkpoint_bytes;
    double per_gpu = ceil((double)m->ffn / tp), padded = ceil(per_gpu / 256) * 256;
    return checkpoint_bytes + (double)m->expert_params * m->expert_weight_bytes * (padded / per_gpu - 1);
}

double infer_non_torch_bytes(int tp) { return tp > 1 ? VLLM_NON_TORCH_TP_BYTES : VLLM_NON_TORCH_BYTES; }

double infer_weight_bytes(const struct llm_shape *m, double bytes_per_weight)
{
    if (bytes_per_weight >= 2 || !m->has_shape)
        return (double)m->params * bytes_per_weight;
    double linear = (double)llm_linear_params(m);
    return linear * bytes_per_weight + ((double)m->params - linear) * 2;
}

double logits_bytes(const struct llm_shape *m, int seq, int micro_batch)
{
    return (double)micro_batch * seq * m->vocab * 4;
}

void cv_pipeline_demand(double images_s_per_gpu, double images_s_per_core, int gpus_per_node, double image_bytes,
                        struct cv_demand *out)
{
    out->images_s_per_gpu = images_s_per_gpu;
    out->images_s_per_core = images_s_per_core;
    out->cores_per_gpu = (int)ceil(images_s_per_gpu / images_s_per_core) + CORES_PER_TRAINING_PROCESS;
    out->cores_per_node = gpus_per_node * out->cores_per_gpu + CORES_FOR_OS;
    out->read_bytes_s_per_node = images_s_per_gpu * gpus_per_node * image_bytes;
}
