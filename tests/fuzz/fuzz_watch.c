/* libFuzzer target: a saved timeline as `gpuvet watch --replay FILE` reads it (probe/
 * watch_replay.c: a gpuvet.watch/1 document, or an `nvidia-smi dmon` log when the text does not
 * start with '{'), then the diagnosis and its report. Seeds: tests/fixtures/watch/. */
#include "fuzz_file.h"
#include "rules/rule.h"
#include "probe/watch.h"
#include "report/watch.h"
#include "rules/watch.h"

int fuzz_watch_one(const uint8_t *data, size_t size);

int fuzz_watch_one(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    fuzz_quiet();
    struct watch_timeline w;
    watch_timeline_init(&w);
    char err[1024];
    if (watch_replay_load(path, &w, err, sizeof err) == 0) {
        struct findings diagnosis = {0};
        watch_diagnose(&w, &diagnosis);
        watch_print_diagnosis(stdout, &w, &diagnosis, false);
        findings_free(&diagnosis);
    }
    watch_timeline_free(&w);
    return 0;
}

FUZZ_ENTRY(fuzz_watch_one)
