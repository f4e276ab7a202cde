#!/usr/bin/env bash
# Quick start, step 1: installs what is missing (Debian 12 / Ubuntu 22.04+), builds gpuvet into
# build/, and runs `gpuvet audit` on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build and test dependencies: the field's own libraries, from the distribution.
required=(build-essential cmake pkg-config libhwloc-dev libjansson-dev libxml2-dev libturbojpeg0-dev
          libcriterion-dev
          # the public-corpus tests (scripts/corpus-*.sh): read gpuvet's JSON, unpack the corpus
          jq xz-utils bzip2)
# Nice to have, not needed to build: pci.ids names devices in reports; mate-backgrounds ships the
# real photographs `gpuvet bench decode` makes its default ImageNet-sized JPEGs from (without it,
# decode needs --images DIR).
optional=(pci.ids mate-backgrounds)
# `scripts/setup.sh --anchors`: the field's own tools that bench/bench-vs-anchors.sh runs beside
# `gpuvet bench` (likwid-bench, fio, tjbench, cyclictest) and jq to read the JSON.
anchors=(likwid fio libjpeg-turbo-progs rt-tests jq)
[ "${1:-}" = "--anchors" ] && optional+=("${anchors[@]}")

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  for p in "${optional[@]}"; do
    apt-cache show "$p" >/dev/null 2>&1 || missing=("${missing[@]/$p}")
  done
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]}
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

# Exit 1 means the audit found a fail on this machine: a result, not a setup error.
status=0
./build/gpuvet audit || status=$?
[ "$status" -le 1 ]
