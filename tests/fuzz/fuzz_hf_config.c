/* libFuzzer target: a Hugging Face config.json as `plan --model-config FILE` reads it. Seeds:
 * the .config.json files in tests/fixtures/plan/. */
#include "fuzz_file.h"
#include "sizing/models.h"

int fuzz_hf_config_one(const uint8_t *data, size_t size);

int fuzz_hf_config_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    struct llm_shape shape;
    char err[512];
    if (llm_from_hf_config(path, &shape, err, sizeof err) == 0)
        kv_bytes_per_token(&shape, 2);
    return 0;
}

FUZZ_ENTRY(fuzz_hf_config_one)
