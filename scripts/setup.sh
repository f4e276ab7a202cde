#!/usr/bin/env bash
# Quick start, step 1: installs what building and running gpuvet needs and nothing else (Debian 12 /
# Ubuntu 22.04+; what only the tests need is installed by scripts/test.sh), builds gpuvet into
# build/ (without the test suite), and runs `gpuvet audit` on this machine. No package of these
# has a service (scripts/install-packages.sh would keep one from starting all the same).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-packages.sh

# build_packages (scripts/install-packages.sh): the compiler, make, CMake, pkg-config, the libraries
# and msgfmt.
required=("${build_packages[@]}")
# Nice to have, not needed to build: pci.ids names the devices in reports (a data file: 0.24 MB
# to download, 1.3 MB installed).
optional=(pci.ids)
# `scripts/setup.sh --anchors`: the field's own tools that bench/bench-vs-anchors.sh runs beside
# `gpuvet bench` (likwid-bench, fio, tjbench, cyclictest) and jq to read the JSON; stress-ng loads
# the CPUs for its LOAD=cpu storage pairs; sysstat's pidstat runs beside gpuvet watch;
# mate-backgrounds holds the photographs the decode row gives both tools.
anchors=(likwid fio libjpeg-turbo-progs rt-tests jq sysstat stress-ng mate-backgrounds)
[ "${1:-}" = "--anchors" ] && optional+=("${anchors[@]}")
install_packages "${required[@]}" -- "${optional[@]}"

# GPUVET_TESTS=OFF: the unit tests need Criterion, a test dependency (scripts/test.sh turns them on).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVET_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"

# Exit 1 means the audit found a fail on this machine: a result, not a setup error.
status=0
./build/gpuvet audit || status=$?
[ "$status" -le 1 ]
