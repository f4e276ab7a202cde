/* libFuzzer target: an `nvidia-smi dmon -s u` log as `cost --util-from LOG` reads it. Seeds:
 * the dmon logs in tests/fixtures/plan/. */
#include "fuzz_file.h"
#include "sizing/utilisation.h"

int fuzz_dmon_one(const uint8_t *data, size_t size);

int fuzz_dmon_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".log");
    if (!path)
        return 0;
    double mean;
    int samples;
    char err[512];
    dmon_mean_sm_utilisation(path, &mean, &samples, err, sizeof err);
    return 0;
}

FUZZ_ENTRY(fuzz_dmon_one)
