/* libFuzzer target: a document in a shared fleet folder, as `gpuvet fleet` and `gpuvet compare`
 * read it (fleet/prune.c keeps only what a node needs, fleet.c builds the node), then the fleet's
 * analysis and both commands' text and JSON reports. Seeds: gpuvet's own audits of the recorded
 * machines and the bench documents in tests/fixtures/bench/. */
#include "fleet/fleet.h"
#include "fuzz_file.h"
#include "report/fleet_report.h"

int fuzz_fleet_one(const uint8_t *data, size_t size);

int fuzz_fleet_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    fuzz_quiet();
    struct fleet f;
    fleet_init(&f);
    char why[4096];
    if (fleet_add_path(&f, path, why, sizeof why) == 0 && f.count == 1) {
        struct fleet_analysis a;
        fleet_analyse(&f, 5.0, &a);
        fleet_report_text(stdout, &f, &a);
        fleet_report_json(stdout, &f, &a);
        fleet_analysis_free(&a);
        /* compare: the document against itself (every finding found on the other side). */
        compare_report_text(stdout, &f, &f);
        compare_report_json(stdout, &f, &f);
    }
    fleet_free(&f);
    return 0;
}

FUZZ_ENTRY(fuzz_fleet_one)
