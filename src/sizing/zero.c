#include "sizing/zero.h"

#include <math.h>
#include <string.h>

static const char *const offload_names[] = {"none", "optimizer", "cpu", "nvme"};

const char *offload_name(enum offload o) { return offload_names[o]; }

bool offload_parse(const char *name, enum offload *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, offload_names[i])) {
            *out = (enum offload)i;
            return true;
        }
    return false;
}

/* The Python computes with ints and floats in a given order; each line below keeps that order
 * (left to right, int() truncation last) so that the bytes match DeepSpeed's. */
void deepspeed_zero2_estimate(int64_t total_params, int gpus_per_node, int nodes, bool cpu_offload,
                              double buffer_factor, int64_t *cpu_mem, int64_t *gpu_mem)
{
    int64_t total_gpus = (int64_t)nodes * gpus_per_node;
    if (cpu_offload) {
        *gpu_mem = 2 * total_params;
        int64_t per_param = 4 * total_gpus > 16 ? 4 * total_gpus : 16;
        *cpu_mem = (int64_t)((double)(total_params * per_param) * buffer_factor);
    } else {
        /* 2 = params_16bit; 18 = 2 grads_16bit + 4 grads_32bit + 4 params_32bit + 8 optimizer states */
        *gpu_mem = 2 * total_params + (int64_t)((double)(18 * total_params) / (double)total_gpus);
        *cpu_mem = (int64_t)((double)(total_params * 4 * gpus_per_node) * buffer_factor);
    }
}

void deepspeed_zero3_estimate(int64_t total_params, int64_t largest_layer_params, int gpus_per_node, int nodes,
                              bool cpu_offload, bool cpu_offload_params, bool zero_init, double buffer_factor,
                              int64_t *cpu_mem, int64_t *gpu_mem, int64_t *largest_layer_memory)
{
    int64_t total_gpus = (int64_t)nodes * gpus_per_node;
    double gpus_factor = 1.0 / nodes;
    *largest_layer_memory = 4 * largest_layer_params;
    double cpu;
    if (cpu_offload) {
        int states = cpu_offload_params ? 18 : 16;
        *gpu_mem = *largest_layer_memory +
                   (cpu_offload_params ? 0 : (int64_t)((double)(2 * total_params) / (double)total_gpus));
        if (zero_init) {
            cpu = (double)(total_params * states) * gpus_factor * buffer_factor;
        } else {
            /* Python's max() keeps the int when it wins: the product then stays exact. */
            double by_rank = 4.0 * gpus_per_node, by_states = states * gpus_factor;
            cpu = by_rank >= by_states ? (double)(total_params * 4 * gpus_per_node) * buffer_factor
                                       : (double)total_params * by_states * buffer_factor;
        }
    } else {
        *gpu_mem = *largest_layer_memory + (int64_t)((double)(18 * total_params) / (double)total_gpus);
        cpu = zero_init ? (double)(largest_layer_params * 4 * gpus_per_node) * buffer_factor
                        : (double)(total_params * 4 * gpus_per_node) * buffer_factor;
    }
    *cpu_mem = (int64_t)cpu;
}

int zero_estimate(int64_t params, int64_t largest_layer_params, const struct zero_config *cfg,
                  struct zero_estimate *out, const char **why)
{
    *out = (struct zero_estimate){0};
    int64_t total_gpus = (int64_t)cfg->nodes * cfg->gpus_per_node, unused;
    if (cfg->stage < 0 || cfg->stage > 3) {
        *why = "ZeRO stage must be 0, 1, 2 or 3";
        return -1;
    }
    if (cfg->offload == OFFLOAD_NVME && cfg->stage != 3) {
        *why = "NVMe offload (ZeRO-Infinity) is available only with ZeRO stage 3 (DeepSpeed config docs)";
        return -1;
    }
    if (cfg->offload != OFFLOAD_NONE && cfg->stage < 2) {
        *why = "DeepSpeed has no memory estimator for offload below ZeRO stage 2; use --zero 2 or 3";
        return -1;
    }
    switch (cfg->stage) {
    case 0:
    case 1:
        /* ZeRO paper §3.1: 2 fp16 params + 2 fp16 grads + 12 fp32 optimizer states; stage 1
         * partitions the 12. Host: DeepSpeed's fp32 model build per local rank (its no-offload
         * term), the same as for stage 2. */
        out->gpu_bytes_per_gpu = cfg->stage == 0 ? 16 * params : 4 * params + (int64_t)(12.0 * params / total_gpus);
        out->cpu_bytes_unbuffered = params * 4 * cfg->gpus_per_node;
        out->cpu_bytes_per_node = (int64_t)((double)out->cpu_bytes_unbuffered * DEEPSPEED_BUFFER_FACTOR);
        out->method = cfg->stage == 0 ? "ZeRO paper: 16 bytes/param per GPU (no DeepSpeed estimator for stage 0)"
                                      : "ZeRO paper: 4P + 12P/N per GPU (no DeepSpeed estimator for stage 1)";
        break;
    case 2:
        deepspeed_zero2_estimate(params, cfg->gpus_per_node, cfg->nodes, cfg->offload != OFFLOAD_NONE,
                                 DEEPSPEED_BUFFER_FACTOR, &out->cpu_bytes_per_node, &out->gpu_bytes_per_gpu);
        deepspeed_zero2_estimate(params, cfg->gpus_per_node, cfg->nodes, cfg->offload != OFFLOAD_NONE, 1.0,
                                 &out->cpu_bytes_unbuffered, &unused);
        out->method = "DeepSpeed estimate_zero2_model_states_mem_needs (stage_1_and_2.py)";
        break;
    default: {
        bool offload = cfg->offload != OFFLOAD_NONE;
        bool offload_params = cfg->offload == OFFLOAD_CPU || cfg->offload == OFFLOAD_NVME;
        deepspeed_zero3_estimate(params, largest_layer_params, cfg->gpus_per_node, cfg->nodes, offload,
                                 offload_params, cfg->zero_init, DEEPSPEED_BUFFER_FACTOR, &out->cpu_bytes_per_node,
                                 &out->gpu_bytes_per_gpu, &out->largest_layer_bytes);
        deepspeed_zero3_estimate(params, largest_layer_params, cfg->gpus_per_node, cfg->nodes, offload,
                                 offload_params, cfg->zero_init, 1.0, &out->cpu_bytes_unbuffered, &unused, &unused);
        out->method = largest_layer_params > 0
                          ? "DeepSpeed estimate_zero3_model_states_mem_needs (stage3.py)"
                          : "DeepSpeed estimate_zero3_model_states_mem_needs (stage3.py) without its largest-layer "
                            "term (unknown with --params): a lower bound";
        if (cfg->offload == OFFLOAD_NVME) {
            /* The states DeepSpeed would hold in host memory go to NVMe instead: 18 bytes/param
             * (fp16 params + fp32 params, grads, momentum, variance), partitioned across nodes.
             * Host memory is then pinned buffers, for which DeepSpeed has no estimator. */
            out->nvme_bytes_per_node = (int64_t)ceil((double)(params * 18) / cfg->nodes);
            out->cpu_bytes_per_node = 0;
            out->cpu_bytes_unbuffered = 0;
            out->method = "DeepSpeed stage3.py estimator; ZeRO-Infinity moves the states to NVMe";
        }
        break;
    }
    }
    return 0;
}
