/* libFuzzer target: a saved `gpuvet audit --json` document, as `plan --check FILE` reads it into the
 * machine model (probe/audit_json.c) and judges it (sizing/check.c) against an LLM-training plan for
 * 8 A100s (cores, memory, GPUs, storage and network). Seeds: the audit of each recorded machine in
 * tests/fixtures/sysroot (tests/fuzz/run-fuzzers.sh makes them). */
#include "builtin/builtin.h"
#include "fuzz_file.h"

int fuzz_audit_json_one(const uint8_t *data, size_t size);

int fuzz_audit_json_one(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    const char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    char *argv[] = {"plan", "--workload", "llm-train", "--model", "llama-2-7b", "--gpus", "8xa100-sxm4-80gb",
                    "--check", (char *)path, "--json", NULL};
    cmd_plan(10, argv);
    fflush(stdout);
    return 0;
}

FUZZ_ENTRY(fuzz_audit_json_one)
