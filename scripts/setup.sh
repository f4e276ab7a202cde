#!/usr/bin/env bash
# Quick start, step 1: installs what is missing (Debian 12 / Ubuntu 22.04+), builds gpuvet into
# build/, and runs `gpuvet audit` on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build and test dependencies: the field's own libraries, from the distribution.
# groff-base renders the man pages in their test (groff -ww); build-essential brings dpkg-dev, whose
# dpkg-shlibdeps gives the Debian package its Depends; CPack's DEB generator runs file(1) to find
# the binaries to give to dpkg-shlibdeps (not in a minimal Debian: without it test_deb fails).
required=(build-essential cmake pkg-config libhwloc-dev libjansson-dev libxml2-dev libturbojpeg0-dev
          libcriterion-dev groff-base file
          # the public-corpus tests (scripts/corpus-*.sh): read gpuvet's JSON, unpack the corpus
          jq xz-utils bzip2)
# Test dependency: tests/cli/test_html_report.c opens every `audit --html` page in headless
# Chromium, screenshots it and fails on a console message or a network request the page makes.
required+=(chromium)
# Test dependencies: tests/decl/check_gpu_decls.py checks our own NVML and CUDA driver declarations
# against independent sources, bindings generated from NVIDIA's nvml.h (librust-nvml-wrapper-sys-dev)
# and numba's CUDA driver API prototypes (python3-numba).
required+=(librust-nvml-wrapper-sys-dev python3-numba)
# Test dependency: tests/support/html_well_formed.py checks the HTML pages with Python's own parser.
required+=(python3)
# The Chinese messages (po/): msgfmt compiles po/zh_CN.po at build time, and the po_complete test
# runs xgettext and msgmerge (all three from gettext; libintl itself is part of glibc). tmux: the
# zh_report_layout test renders a Chinese report in a real 100-column tmux pane.
required+=(gettext tmux)
# Nice to have, not needed to build: pci.ids names devices in reports; mate-backgrounds ships the
# real photographs `gpuvet bench decode` makes its default ImageNet-sized JPEGs from (without it,
# decode needs --images DIR). clang: `CC=clang` builds with -DGPUVET_SANITIZE=ON add UBSan's
# float-cast-overflow check (numbers from files converted to integers), which gcc lacks, and build
# the libFuzzer targets, whose runtime (libclang_rt.fuzzer) Debian 12 ships apart, in
# libclang-rt-dev, which clang does not pull in (a distribution without that package is skipped).
optional=(pci.ids mate-backgrounds clang libclang-rt-dev)
# Test dependencies for `gpuvet health --slurm` and `--prom`: tests/integration/slurm-health.sh
# starts a throw-away Slurm (munged, slurmctld, slurmd; scontrol and sinfo from slurm-client), and
# tests/integration/prom-node-exporter.sh checks the files with promtool (prometheus) and serves
# them with a real node_exporter (curl fetches them). Without them those two tests skip. Where
# systemd runs, Debian starts these packages' own services on install; the tests never use those:
# they start their own daemons under a temporary folder, on other ports, which ss (iproute2: not in
# a minimal Debian or its container image) finds free.
optional+=(slurmctld slurmd slurm-client munge prometheus prometheus-node-exporter curl iproute2)
# mandoc: test_man also lints every man page with `mandoc -T lint` (no warning allowed); without it
# only groff -ww checks them.
optional+=(mandoc)
# lintian: tests/cli/test_deb.c runs it on the built Debian package (no error, no warning allowed);
# without it that check is skipped.
optional+=(lintian)
# `scripts/setup.sh --anchors`: the field's own tools that bench/bench-vs-anchors.sh runs beside
# `gpuvet bench` (likwid-bench, fio, tjbench, cyclictest) and jq to read the JSON; stress-ng loads
# the CPUs for its LOAD=cpu storage pairs.
anchors=(likwid fio libjpeg-turbo-progs rt-tests jq sysstat stress-ng) # sysstat: pidstat, beside gpuvet watch
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
