/* libFuzzer target: an offers CSV as `gpuvet cost OFFERS.csv` reads it (the GPU named in each row
 * resolved in data/gpus.csv). Seeds: the offers CSVs in tests/fixtures/plan/. */
#include "builtin/builtin.h"
#include "fuzz_file.h"

int fuzz_offers_one(const uint8_t *data, size_t size);

int fuzz_offers_one(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    const char *path = fuzz_file(data, size, ".csv");
    if (!path)
        return 0;
    char *argv[] = {"cost", "--json", (char *)path, NULL};
    cmd_cost(3, argv);
    fflush(stdout);
    return 0;
}

FUZZ_ENTRY(fuzz_offers_one)
