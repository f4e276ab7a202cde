/* For the harnesses whose parser takes a path, as gpuvet's do (every file read goes through
 * fsroot): the input is written to one temporary file, reused for every run, named with the
 * extension the parser expects. Each harness defines fuzz_NAME_one(); built with GPUVET_FUZZ_MAIN
 * (tests/fuzz/CMakeLists.txt) it is also libFuzzer's LLVMFuzzerTestOneInput, and
 * tests/unit/test_fuzz_regressions.c calls it on every kept input. */
#ifndef GPUVET_TESTS_FUZZ_FILE_H
#define GPUVET_TESTS_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_path[256];

static inline void fuzz_file_remove(void) { unlink(fuzz_path); }

/* The path now holding data, or NULL when it could not be written (the run is then skipped). One
 * file per harness and process, removed at exit. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    char *path = fuzz_path;
    if (!path[0]) {
        snprintf(path, sizeof fuzz_path, "%s/gpuvet-fuzz-%ld-%p%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (long)getpid(), (void *)fuzz_path, suffix);
        atexit(fuzz_file_remove);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    size_t written = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || written != size)
        return NULL;
    return path;
}

/* The commands the harnesses run print their reports: not to the fuzzer's terminal. */
static inline void fuzz_quiet(void)
{
    static int done;
    if (!done++ && getenv("GPUVET_FUZZ_VERBOSE") == NULL)
        if (!freopen("/dev/null", "w", stdout))
            done = 0;
}

#ifdef GPUVET_FUZZ_MAIN
#define FUZZ_ENTRY(fn)                                                                             \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                                  \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fn(data, size); }
#else
#define FUZZ_ENTRY(fn)
#endif

#endif
