/* libFuzzer target: a provider's claim file (--claim FILE, JSON). Seeds: tests/fixtures/claims/. */
#include "claims/claims.h"
#include "fuzz_file.h"

int fuzz_claim_one(const uint8_t *data, size_t size);

int fuzz_claim_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    struct claim_set set = {0};
    char *error = NULL;
    if (claim_file_load(path, &set, &error) == 0)
        claim_set_free(&set);
    free(error);
    return 0;
}

FUZZ_ENTRY(fuzz_claim_one)
