#!/usr/bin/env bash
# One run on a machine with NVIDIA GPUs (issue 4): builds gpuvet, then saves under $OUT
#   nvidia-smi.xml / topo.txt / query.csv   what NVIDIA's tool says
#   audit-load-check.json / .txt / .err     gpuvet audit --load-check (NVML + CUDA)
#   audit-from-xml.json                     gpuvet audit --nvidia-smi nvidia-smi.xml (same facts via XML)
#   bench-pcie.json                         host<->GPU copy rates (bench_pcie_run)
#   compare.txt                             NVML view vs nvidia-smi view, field by field
#   ctest.log, build.log, summary.txt
# Usage: OUT=/some/dir scripts/gpu-check.sh [--quick]
set -uo pipefail
: "${OUT:?set OUT to the folder for the results}"
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

note "date: $(date -u +%FT%TZ)  host: $(uname -nr)"
missing=""
for mod in hwloc jansson libxml-2.0 criterion; do
  pkg-config --exists "$mod" 2>/dev/null || missing="$missing $mod"
done
[ -z "$missing" ] || note "missing pkg-config modules:$missing (scripts/setup.sh installs them)"

tests=ON
pkg-config --exists criterion 2>/dev/null || tests=OFF
if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVET_TESTS=$tests &&
       cmake --build build-gpu -j"$(nproc)"; } >"$OUT/build.log" 2>&1; then
  note "build failed: see build.log"
  tail -20 "$OUT/build.log"
  exit 2
fi
gpuvet=build-gpu/gpuvet
readelf -d "$gpuvet" >"$OUT/readelf.txt" 2>&1
grep -qi 'nvidia\|cuda' "$OUT/readelf.txt" && note "readelf: links NVIDIA libraries (must not)" || note "readelf: nothing NVIDIA"

if command -v nvidia-smi >/dev/null; then
  nvidia-smi -q -x >"$OUT/nvidia-smi.xml" 2>"$OUT/nvidia-smi.err"; note "nvidia-smi -q -x: exit $?"
  nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
  nvidia-smi --query-gpu=pci.bus_id,name,pstate,pcie.link.gen.gpucurrent,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,ecc.mode.current,persistence_mode,mig.mode.current,clocks_event_reasons.active --format=csv >"$OUT/query.csv" 2>&1
  nvidia-smi nvlink -s >"$OUT/nvlink.txt" 2>&1
else
  note "nvidia-smi: not found"
fi

start=$(date +%s.%N)
"$gpuvet" audit --load-check --json >"$OUT/audit-load-check.json" 2>"$OUT/audit-load-check.err"
note "gpuvet audit --load-check --json: exit $? ($(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo ?) s)"
"$gpuvet" audit --load-check --verbose >"$OUT/audit-load-check.txt" 2>&1
if [ -s "$OUT/nvidia-smi.xml" ]; then
  "$gpuvet" audit --nvidia-smi "$OUT/nvidia-smi.xml" --json >"$OUT/audit-from-xml.json" 2>"$OUT/audit-from-xml.err"
  note "gpuvet audit --nvidia-smi: exit $?"
fi

"$gpuvet" bench pcie --json $quick >"$OUT/bench-pcie.json" 2>"$OUT/bench-pcie.err"
note "gpuvet bench pcie --json $quick: exit $?"
"$gpuvet" audit --bench "$OUT/bench-pcie.json" --json >"$OUT/audit-with-bench.json" 2>"$OUT/audit-with-bench.err"
note "gpuvet audit --bench (PCIE_BANDWIDTH_LOW): exit $?"

# NVML's view (audit) against nvidia-smi's (the XML parsed by the same model), per GPU.
python3 - "$OUT" >"$OUT/compare.txt" 2>&1 <<'PY'
import json, sys, os
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:
        print(f"{name}: {e}")
        return None
nvml, xml, bench = load("audit-load-check.json"), load("audit-from-xml.json"), load("bench-pcie.json")
if nvml and xml:
    a = {g["bus_id"]: g for g in nvml["machine"]["gpus"]}
    b = {g["bus_id"]: g for g in xml["machine"]["gpus"]}
    print("GPUs: NVML", sorted(a), "XML", sorted(b))
    for bus in sorted(set(a) & set(b)):
        for key in ("name", "memory_bytes", "persistence_mode", "pstate", "pcie", "ecc", "retired_pages",
                    "remapped_rows", "mig", "clock_events", "temperature_c"):
            if a[bus].get(key) != b[bus].get(key):
                print(f"{bus} {key}: NVML {a[bus].get(key)} | XML {b[bus].get(key)}")
        print(f"{bus} load_check: {a[bus].get('load_check')}")
    for key in ("driver_version", "cuda_version"):
        print(key, nvml["machine"]["nvidia"].get(key), "|", xml["machine"]["nvidia"].get(key))
    print("topology (gpuvet):", nvml["machine"]["nvidia"]["topology"]["matrix"])
    for f in nvml["findings"]:
        if f["area"] in ("gpu", "pcie") and f["severity"] != "pass":
            print(f'{f["severity"]:8} {f["id"]} {f["subject"]}: {f["message"]}')
if isinstance(bench, list):
    for r in bench:
        if "error" in r:
            print("bench", r["bus_id"], "error:", r["error"]); continue
        gb = lambda v: "null" if v is None else f"{v/1e9:.1f}"
        print(f'bench {r["bus_id"]}: H2D {gb(r["h2d_pinned_bytes_s"])} D2H {gb(r["d2h_pinned_bytes_s"])} GB/s pinned, '
              f'{gb(r["h2d_pageable_bytes_s"])}/{gb(r["d2h_pageable_bytes_s"])} pageable, far node {r["far_node"]}: '
              f'{gb(r["far_h2d_pinned_bytes_s"])}; link {gb(r["link_theoretical_bytes_s"])} GB/s, fraction {r["fraction"]}')
elif bench:
    print("bench:", bench)
PY
cat "$OUT/compare.txt" >>"$summary"

if [ "$tests" = ON ]; then
  ctest --test-dir build-gpu --output-on-failure >"$OUT/ctest.log" 2>&1
  note "ctest: exit $? ($(grep -o '[0-9]*% tests passed.*' "$OUT/ctest.log"))"
fi

# gpuvet watch on a real GPU (issue 12): a job whose CPU-side producer is deliberately slow,
# watched with its text view saved (watch.txt) and its timeline (watch.json); nvidia-smi dmon
# records the same seconds for a replay of NVIDIA's own log.
if command -v python3 >/dev/null; then
  command -v nvidia-smi >/dev/null && { nvidia-smi dmon -s pucvmet -c 20 >"$OUT/dmon-pucvmet.log" 2>&1 & }
  "$gpuvet" watch --json "$OUT/watch.json" -- python3 scripts/gpu-slow-producer.py 20 >"$OUT/watch-job.txt" 2>"$OUT/watch.txt"
  note "gpuvet watch -- python3 scripts/gpu-slow-producer.py 20: exit $? ($(tail -1 "$OUT/watch-job.txt"))"
  grep -E '^  (warn|info|fail|unknown) ' "$OUT/watch.txt" | tee -a "$summary"
  wait
  "$gpuvet" watch --replay "$OUT/watch.json" >"$OUT/watch-replay.txt" 2>&1
  note "gpuvet watch --replay watch.json: exit $?"
  if [ -s "$OUT/dmon-pucvmet.log" ]; then
    "$gpuvet" watch --replay "$OUT/dmon-pucvmet.log" >"$OUT/watch-replay-dmon.txt" 2>&1
    note "gpuvet watch --replay dmon-pucvmet.log: exit $?"
  fi
else
  note "gpuvet watch: python3 not found, the GPU job was not run"
fi
