/* What a checkpoint holds beside the decoder gpuvet counts (sizing/models.c), against the published
 * figures:
 *  - DeepSeek-V3/R1's multi-token-prediction module (num_nextn_predict_layers 1): DeepSeek's
 *    README_WEIGHTS.md gives 671B for the main model and 11.5B of the MTP module's own (one more
 *    MoE layer and eh_proj), beside its copies of the 0.9B embedding and 0.9B head; the
 *    DeepSeek-R1 safetensors (163 files) hold 684,531,386,000 elements in 641.30 GiB, FP8 block
 *    scales (one float32 per 128 x 128 weights, about 41 M) included.
 *  - Llama 4's vision encoder: Meta's model cards give 109B total for Scout and 400B for Maverick;
 *    the text model alone is 107.8B and 400.7B. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sizing/models.h"

#define FIXTURES GPUVET_TEST_SOURCE "/fixtures/plan/"

static struct llm_shape builtin(const char *id)
{
    struct llm_shape m;
    cr_assert(llm_builtin(id, &m), "%s is built in", id);
    return m;
}

Test(model_extras, deepseek_mtp_module_counted_apart_and_on_disk)
{
    struct llm_shape m = builtin("deepseek-v3");
    cr_expect_eq(m.mtp_layers, 1);
    /* README_WEIGHTS.md: 671B main, 11.5B of the MTP module's own. */
    cr_expect(fabs(m.params / 1e9 - 671) < 0.5, "main model %.2f B", m.params / 1e9);
    double own = (double)m.mtp_params - 2.0 * m.vocab * m.hidden; /* less the embedding and head copies */
    cr_expect(fabs(own / 1e9 - 11.5) < 0.15, "MTP module's own %.2f B", own / 1e9);
    /* The R1 files' element count, less about 41 M block scales: within 0.01 %. */
    double total = (double)m.params + (double)m.mtp_params;
    cr_expect(fabs(total / 684531386000.0 - 1) < 1e-4, "checkpoint %.0f parameters", total);
    /* 641.30 GiB of files: within 0.1 % (scales and the BF16 routers are the rest). */
    double disk = llm_disk_bytes(&m), published = 641.30 * 1073741824.0;
    cr_expect(fabs(disk / published - 1) < 1e-3, "disk %.4g bytes, published %.4g", disk, published);
    /* What the engine loads without speculative decoding is the main model only. */
    cr_expect_lt(llm_checkpoint_bytes(&m), disk - 15e9, "the weights leave the MTP module's 15 GB out");
    char text[512];
    cr_expect(llm_extras_text(&m, text, sizeof text));
    cr_expect(strstr(text, "speculative decoding"), "%s", text);

    /* Read from the published config.json, the same. */
    struct llm_shape c;
    char err[512];
    cr_assert_eq(llm_from_hf_config(FIXTURES "deepseek-v3.config.json", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.mtp_layers, 1);
    cr_expect_eq(c.mtp_params, m.mtp_params);
    cr_expect(fabs(llm_disk_bytes(&c) / disk - 1) < 1e-9);
}

Test(model_extras, llama4_vision_encoder_counted_apart)
{
    struct llm_shape scout = builtin("llama-4-scout"), maverick = builtin("llama-4-maverick");
    /* vision_config: 577 position embeddings of 1408, a 3 x 14 x 14 patch projection, 34 layers of
     * 4 x 1408^2 + 2 x 1408 x 5632 with biases and LayerNorms, the adapter and the projector. */
    cr_expect_eq(scout.vision_params, 871932416);
    cr_expect_eq(maverick.vision_params, scout.vision_params, "one encoder for both");
    /* Meta's totals, 109B and 400B, with the encoder; the text model alone is 1.1 % short of 109B. */
    double scout_total = (double)scout.params + scout.vision_params;
    double maverick_total = (double)maverick.params + maverick.vision_params;
    cr_expect(fabs(scout_total / 109e9 - 1) < 0.005, "Scout %.2f B", scout_total / 1e9);
    cr_expect(fabs(maverick_total / 400e9 - 1) < 0.005, "Maverick %.2f B", maverick_total / 1e9);
    cr_expect(fabs(llm_disk_bytes(&scout) - llm_checkpoint_bytes(&scout) - 2.0 * 871932416) < 1, "BF16 on disk");
    char text[512];
    cr_expect(llm_extras_text(&scout, text, sizeof text));
    cr_expect(strstr(text, "vision encoder"), "%s", text);
    /* A dense model carries nothing else. */
    struct llm_shape llama3 = builtin("llama-3-8b");
    cr_expect_eq(llama3.mtp_params + llama3.vision_params, 0);
    cr_expect_eq(llm_disk_bytes(&llama3), llm_checkpoint_bytes(&llama3));
    cr_expect_not(llm_extras_text(&llama3, text, sizeof text));
}

/* A config.json with Llama 4's vision_config: the encoder read from it equals the built-in one. */
Test(model_extras, llama4_vision_config_read)
{
    char path[] = "/tmp/gpuvet-llama4-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("{\"architectures\": [\"Llama4ForConditionalGeneration\"], \"model_type\": \"llama4\",\n"
          " \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 5120, \"intermediate_size\": 8192,\n"
          "  \"intermediate_size_mlp\": 16384, \"num_hidden_layers\": 48, \"num_attention_heads\": 40,\n"
          "  \"num_key_value_heads\": 8, \"head_dim\": 128, \"vocab_size\": 202048, \"num_local_experts\": 16,\n"
          "  \"num_experts_per_tok\": 1, \"interleave_moe_layer_step\": 1, \"attention_chunk_size\": 8192},\n"
          " \"tie_word_embeddings\": false,\n"
          " \"vision_config\": {\"model_type\": \"llama4_vision_model\", \"hidden_size\": 1408, \"image_size\": 336,\n"
          "  \"intermediate_size\": 5632, \"num_hidden_layers\": 34, \"num_attention_heads\": 16, \"num_channels\": 3,\n"
          "  \"patch_size\": 14, \"pixel_shuffle_ratio\": 0.5, \"projector_input_dim\": 4096,\n"
          "  \"projector_output_dim\": 4096, \"vision_output_dim\": 4096, \"multi_modal_projector_bias\": false}}\n",
          f);
    fclose(f);
    struct llm_shape m;
    char err[512];
    cr_assert_eq(llm_from_hf_config(path, &m, err, sizeof err), 0, "%s", err);
    unlink(path);
    cr_expect_eq(m.vision_params, 871932416);
    cr_expect_eq(m.params, builtin("llama-4-scout").params);
    cr_expect_eq(m.mtp_params, 0);
}
