#!/usr/bin/env bash
# Quick start, step 2: installs what only the tests need (scripts/setup.sh installed what building
# needs), then the whole test suite, once on the normal build and once under AddressSanitizer +
# UndefinedBehaviorSanitizer. Packages with a service (munge, slurmctld, slurmd, prometheus,
# prometheus-node-exporter) are installed so that it neither starts nor is enabled
# (scripts/install-packages.sh); the tests start their own daemons under a temporary folder, in a
# network namespace of their own where they can (loopback only), and stop them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-packages.sh
jobs=$(nproc)

# The unit and CLI tests (Criterion). groff-base renders the man pages in their test (groff -ww);
# test_deb builds the Debian package: dpkg-dev's dpkg-shlibdeps gives it its Depends, and CPack's
# DEB generator runs file(1) to find the binaries to give to dpkg-shlibdeps.
required=(libcriterion-dev groff-base dpkg-dev file
          # the public-corpus tests (scripts/corpus-*.sh): read gpuvet's JSON, unpack the corpus
          jq xz-utils bzip2)
# tests/cli/test_html_report.c opens every `audit --html` page in headless Chromium, screenshots it
# and fails on a console message or a network request the page makes.
required+=(chromium)
# tests/decl/check_gpu_decls.py checks our own NVML and CUDA driver declarations against
# independent sources, bindings generated from NVIDIA's nvml.h (librust-nvml-wrapper-sys-dev) and
# numba's CUDA driver API prototypes (python3-numba).
required+=(librust-nvml-wrapper-sys-dev python3-numba)
# tests/support/html_well_formed.py checks the HTML pages with Python's own parser; python3-yaml
# reads the shipped Kubernetes manifests (tests/cli/test_kubernetes.c).
required+=(python3 python3-yaml)
# po_complete runs xgettext and msgmerge (gettext, in the build list); tmux: the zh_report_layout
# test renders a Chinese report in a real 100-column tmux pane.
required+=(tmux)
# Optional (the test that needs one skips without it). mate-backgrounds: the real photographs
# `gpuvet bench decode` makes its default ImageNet-sized JPEGs from (46 MB; without it decode needs
# --images DIR). clang: the libFuzzer targets, whose runtime (libclang_rt.fuzzer) Debian 12 ships
# apart, in libclang-rt-dev, which clang does not pull in; `CC=clang` sanitizer builds also add
# UBSan's float-cast-overflow check (numbers from files converted to integers), which gcc lacks.
optional=(mate-backgrounds clang libclang-rt-dev)
# tests/integration/slurm-health.sh starts a throw-away Slurm (munged, slurmctld, slurmd; scontrol,
# sinfo and srun from slurm-client), and tests/integration/prom-node-exporter.sh checks the files
# with promtool (prometheus) and serves them with a real node_exporter (curl fetches them). ss
# (iproute2: not in a minimal Debian or its container image) finds free ports.
optional+=(slurmctld slurmd slurm-client munge prometheus prometheus-node-exporter curl iproute2)
# mandoc: test_man also lints every man page with `mandoc -T lint`; lintian: test_deb runs it on the
# built Debian package (no error, no warning allowed).
optional+=(mandoc lintian)
# zsh: test_completion also runs the zsh completion (completion/_gpuvet) case for case with bash's.
optional+=(zsh)
install_packages "${build_packages[@]}" "${required[@]}" -- "${optional[@]}"

./scripts/check-layers.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVET_TESTS=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# The libFuzzer harnesses are not ctest targets: build them and run each for a few seconds from its
# seed corpus, so that a harness that no longer links or a parser that crashes on a real file fails
# here (the long runs on record are tests/fuzz/run-fuzzers.sh 600). Needs clang (optional above).
if command -v clang >/dev/null; then
  cmake --build build --target fuzz_all -j"$jobs" >/dev/null
  tests/fuzz/run-fuzzers.sh 5
fi

cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DGPUVET_SANITIZE=ON -DGPUVET_TESTS=ON >/dev/null
cmake --build build-sanitize -j"$jobs"
# A sanitizer report exits 98 (ASan) or 99 (UBSan): never 0, 1 or 2, the audit's own verdicts, so a
# test that accepts "pass or fail" cannot take a memory error for a verdict.
ASAN_OPTIONS=detect_leaks=1:exitcode=98 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
