#include "sizing/demand.h"

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

double activation_bytes_per_layer(const struct llm_shape *m, int seq, int micro_batch, enum recompute r, bool flash)
{
    double sbh = (double)seq * micro_batch * m->hidden;
    if (r == RECOMPUTE_FULL)
        return 2 * sbh;
    if (r == RECOMPUTE_SELECTIVE || flash)
        return 34 * sbh;
    return sbh * (34 + 5.0 * m->heads * seq / m->hidden);
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
