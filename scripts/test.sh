#!/usr/bin/env bash
# Quick start, step 2: the whole test suite, once on the normal build and once under
# AddressSanitizer + UndefinedBehaviorSanitizer. Run scripts/setup.sh first (dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

./scripts/check-layers.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# The libFuzzer harnesses are not ctest targets: build them and run each for a few seconds from its
# seed corpus, so that a harness that no longer links or a parser that crashes on a real file fails
# here (the long runs on record are tests/fuzz/run-fuzzers.sh 600). Needs clang (setup.sh optional).
if command -v clang >/dev/null; then
  cmake --build build --target fuzz_all -j"$jobs" >/dev/null
  tests/fuzz/run-fuzzers.sh 5
fi

cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DGPUVET_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j"$jobs"
# A sanitizer report exits 98 (ASan) or 99 (UBSan): never 0, 1 or 2, the audit's own verdicts, so a
# test that accepts "pass or fail" cannot take a memory error for a verdict.
ASAN_OPTIONS=detect_leaks=1:exitcode=98 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
