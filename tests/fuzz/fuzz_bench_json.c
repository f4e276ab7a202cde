/* libFuzzer target: a saved `gpuvet bench --json` document, as `audit --bench FILE` and
 * `plan --decode-from FILE` read it. Seeds: tests/fixtures/bench/. */
#include <jansson.h>

#include "fuzz_file.h"
#include "model/bench.h"

int fuzz_bench_json_one(const uint8_t *data, size_t size);

int fuzz_bench_json_one(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
    if (!doc)
        return 0;
    struct bench_results b = {0};
    char err[512];
    bench_results_from_json(&b, doc, "fuzz", err, sizeof err);
    bench_results_free(&b);
    json_decref(doc);
    return 0;
}

FUZZ_ENTRY(fuzz_bench_json_one)
