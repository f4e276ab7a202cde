#include "sizing/throughput.h"

#include <stdio.h>
#include <string.h>

#include "util/i18n.h"
#include "util/units.h"

void infer_rate_estimate(const struct infer_rate_input *in, struct infer_rate *out)
{
    memset(out, 0, sizeof *out);
    const struct gpu_spec *g = in->gpu;
    const struct llm_shape *m = in->model;
    int output = in->context - in->prompt;
    /* fp8 weights run FP8 matmuls on GPUs that have them (W8A8); other weight formats are
     * dequantised to 16 bits for the matmul (weight-only quantisation, W4A16/W8A16). An FP8
     * checkpoint that keeps its embedding in BF16 (DeepSeek-V3) averages a little over 1 byte. */
    bool fp8 = in->weight_bytes >= 1 && in->weight_bytes < 1.01;
    out->compute_precision = fp8 && g->dense[PREC_FP8] > 0 ? PREC_FP8 : PREC_BF16;
    if (out->compute_precision == PREC_BF16 && g->dense[PREC_BF16] <= 0)
        out->compute_precision = PREC_FP16; /* Volta and Turing: FP16 tensor cores only */
    /* Per device: a package of two (MI250X) splits its figures between them. */
    double devices = g->devices > 0 ? g->devices : 1, bandwidth = g->mem_bw_gbs / devices;
    out->dense_tflops_per_gpu = g->dense[out->compute_precision] / devices;
    if (g->mem_bw_gbs <= 0 || out->dense_tflops_per_gpu <= 0) {
        snprintf(out->why_unknown, sizeof out->why_unknown,
                 g->mem_bw_gbs <= 0 ? _("the GPU table has no memory bandwidth for %s")
                                    : _("the GPU table has no dense 16-bit tensor figure for %s"),
                 g->id);
        return;
    }
    if (in->batch < 1 || output < 1 || in->tp < 1 || m->active_params <= 0) {
        snprintf(out->why_unknown, sizeof out->why_unknown, "%s",
                 in->batch < 1 ? _("not one request of this context fits") : _("the request generates no tokens"));
        return;
    }
    double weights_per_gpu = (in->weights_total > 0 ? in->weights_total : (double)m->params * in->weight_bytes) / in->tp;
    out->mean_kv_tokens = in->prompt + output / 2.0;
    out->bytes_per_step_per_gpu =
        weights_per_gpu + (double)in->batch * kv_bytes_per_sequence(m, in->kv_bytes, (int)out->mean_kv_tokens, in->tp);
    double flops_per_gpu_s = out->dense_tflops_per_gpu * 1e12 * in->flops_share;
    out->memory_step_s = out->bytes_per_step_per_gpu / (bandwidth * GB * in->bandwidth_share);
    out->compute_step_s = 2.0 * (double)m->active_params * (double)in->batch / in->tp / flops_per_gpu_s;
    out->compute_bound = out->compute_step_s > out->memory_step_s;
    out->decode_tokens_s = (double)in->batch / (out->compute_bound ? out->compute_step_s : out->memory_step_s);
    out->prefill_tokens_s = in->tp * flops_per_gpu_s / (2.0 * (double)m->active_params);
    out->output_tokens_s =
        1.0 / (1.0 / out->decode_tokens_s + ((double)in->prompt / output) / out->prefill_tokens_s);
    out->known = true;
}
