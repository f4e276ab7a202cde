#!/usr/bin/env bash
# One run on a machine with NVIDIA GPUs: builds gpuvet (or uses a prebuilt tree), then saves
#   nvidia-smi.xml / topo.txt / query.csv   what NVIDIA's tool says
#   audit-load-check.json / .txt / .err     gpuvet audit --load-check (NVML + CUDA)
#   audit-from-xml.json                     gpuvet audit --nvidia-smi nvidia-smi.xml (same facts via XML)
#   bench-pcie.json                         host<->GPU copy rates (bench_pcie_run)
#   bench-gpu-quick.json / bench-gpu.json   bench gpu --quick and (without --quick) the default:
#                                           memory bandwidth, memory test, FP32, pairs; .txt, .err,
#                                           audit-bench-gpu.json (GPU_* rules), torch-anchor.txt,
#                                           gpu-reference.txt (nvcc-built references, gpu-reference.cu),
#                                           nccl-tests.txt (all_reduce_perf beside gpuvet's NCCL figure)
#   bench-gpu-burn.json                     bench gpu --burn --duration 30 (cuBLAS BF16 and cuBLASLt FP8 GEMMs on every GPU),
#                                           audit-bench-gpu-burn.json (GPU_BURN_FAILED)
#   compare.txt                             NVML view vs nvidia-smi view, field by field
#   snapshot.tar.gz                         gpuvet snapshot of the machine (a recorded GPU server)
#   dmesg.txt, journal-k.txt, nvrm-lines.txt, audit-kernel-log.json   the kernel log and its verdicts
#   balance-compare.txt                     plan's balance model: predicted vs measured images/s of
#                                           a real decode + copy + ResNet-50 loop (gpu-balance-loop.py)
#   ctest.log, build.log, summary.txt
# Everything lands in $OUT/gpu-check/ and, packed, in $OUT/gpu-check.tar.gz (the device tool
# brings back at most 8 files), with summary.txt beside it.
# Usage: OUT=/some/dir scripts/gpu-check.sh [--quick] [--prebuilt BUILD_DIR [--libs DIR]]
#   --prebuilt: a build tree made elsewhere at the same absolute path (machines with no -dev
#   packages); --libs: a folder of the shared libraries it needs (put on LD_LIBRARY_PATH).
set -uo pipefail
: "${OUT:?set OUT to the folder for the results}"
cd "$(dirname "$0")/.."
quick="" prebuilt="" libs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick="--quick" ;;
    --prebuilt) prebuilt="$2"; shift ;;
    --libs) libs="$(cd "$2" && pwd)"; shift ;;
    *) echo "gpu-check.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# The carried libraries serve gpuvet and its tests only, not nvidia-smi or python3.
with_libs() { if [ -n "$libs" ]; then LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; else "$@"; fi; }
final_out="$OUT"
OUT="$final_out/gpu-check"
mkdir -p "$OUT"
pack() {
  cp "$OUT/summary.txt" "$final_out/summary.txt" 2>/dev/null
  tar czf "$final_out/gpu-check.tar.gz" -C "$final_out" gpu-check && rm -rf "$OUT"
}
trap pack EXIT
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

note "date: $(date -u +%FT%TZ)  host: $(uname -nr)"
build=build-gpu
if [ -n "$prebuilt" ]; then
  build="$prebuilt"
  with_libs "$build/gpuvet" --version >"$OUT/build.log" 2>&1 || { note "prebuilt $build/gpuvet does not run:"; cat "$OUT/build.log"; exit 2; }
  tests=OFF
  [ -f "$build/CTestTestfile.cmake" ] && [ -d "$build/tests" ] && tests=ON
else
  missing=""
  for mod in hwloc jansson libxml-2.0 criterion; do
    pkg-config --exists "$mod" 2>/dev/null || missing="$missing $mod"
  done
  [ -z "$missing" ] || note "missing pkg-config modules:$missing (scripts/setup.sh installs them)"
  tests=ON
  pkg-config --exists criterion 2>/dev/null || tests=OFF
  if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUVET_TESTS=$tests &&
         cmake --build "$build" -j"$(nproc)"; } >"$OUT/build.log" 2>&1; then
    note "build failed: see build.log"
    tail -20 "$OUT/build.log"
    exit 2
  fi
fi
gv() { with_libs "$build/gpuvet" "$@"; }
readelf -d "$build/gpuvet" >"$OUT/readelf.txt" 2>&1
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
gv audit --load-check --json >"$OUT/audit-load-check.json" 2>"$OUT/audit-load-check.err"
note "gpuvet audit --load-check --json: exit $? ($(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo ?) s)"
gv audit --load-check --verbose >"$OUT/audit-load-check.txt" 2>&1
if [ -s "$OUT/nvidia-smi.xml" ]; then
  gv audit --nvidia-smi "$OUT/nvidia-smi.xml" --json >"$OUT/audit-from-xml.json" 2>"$OUT/audit-from-xml.err"
  note "gpuvet audit --nvidia-smi: exit $?"
fi
# The faults around the GPUs (issue 24): NVLink state and counters, the NVSwitch fabric, AER of the
# GPUs and their ports, InfiniBand counters and GPUDirect (with --nodes 2). A lone PCIe GPU has no
# NVLink and no NVSwitch: NVML's link and fabric calls are only seen answering "not supported", and
# the NVLink text file of `nvidia-smi nvlink -s` is empty there; the findings say what was judged.
nvidia-smi nvlink -e >"$OUT/nvlink-e.txt" 2>&1
nvidia-smi -q -d FABRIC >"$OUT/fabric.txt" 2>&1
gv audit --sample 0 --nodes 2 --json >"$OUT/audit-faults.json" 2>"$OUT/audit-faults.err"
note "gpuvet audit --nodes 2 (faults): exit $?"
python3 - "$OUT/audit-faults.json" >>"$summary" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rules = ("GPU_NVLINK_DOWN", "GPU_NVLINK_ERRORS", "GPU_FABRIC_NOT_READY", "PCIE_AER_ERRORS", "NET_IB_ERRORS", "NET_GPUDIRECT")
seen = set()
for f in doc["findings"]:
    if f["id"] in rules:
        seen.add(f["id"])
        print(f'faults: {f["severity"]:8} {f["id"]} {f["subject"]}: {f["message"]}')
for g in doc["machine"].get("gpus") or []:
    print(f'faults: {g["bus_id"]} nvlinks {None if g["nvlinks"] is None else len(g["nvlinks"])} of {g.get("nvlinks_expected")}, fabric {g.get("fabric")}')
for r in rules:
    if r not in seen:
        print(f"faults: {r}: no finding (nothing of that kind on this machine)")
PY
if [ -s "$OUT/nvidia-smi.xml" ] && grep -q "Link 0" "$OUT/nvlink.txt" 2>/dev/null; then
  gv audit --nvidia-smi "$OUT/nvidia-smi.xml" --nvidia-smi "$OUT/nvlink.txt" --json >"$OUT/audit-from-nvlink-text.json" \
    2>"$OUT/audit-from-nvlink-text.err"
  note "gpuvet audit --nvidia-smi XML --nvidia-smi nvlink.txt: exit $?"
fi

gv bench pcie --json $quick >"$OUT/bench-pcie.json" 2>"$OUT/bench-pcie.err"
note "gpuvet bench pcie --json $quick: exit $?"
gv audit --bench "$OUT/bench-pcie.json" --json >"$OUT/audit-with-bench.json" 2>"$OUT/audit-with-bench.err"
note "gpuvet audit --bench (PCIE_BANDWIDTH_LOW): exit $?"

# bench gpu: never run on a GPU before this script (README): the quick run always, the default one
# too without --quick; each GPU's figures against the table's go into the summary.
gpu_runs="quick"
[ -n "$quick" ] || gpu_runs="quick default"
for run in $gpu_runs; do
  name=bench-gpu; flag=""
  [ "$run" = quick ] && { name=bench-gpu-quick; flag="--quick"; }
  t0=$(date +%s)
  gv bench gpu $flag --json >"$OUT/$name.json" 2>"$OUT/$name.err"
  note "gpuvet bench gpu $flag --json: exit $? in $(( $(date +%s) - t0 )) s"
  python3 - "$OUT/$name.json" >>"$summary" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["benchmarks"]["gpu"]
if "skipped" in r or "error" in r:
    print("  bench gpu:", r.get("skipped") or r.get("error"))
for g in r.get("gpus", []):
    if "error" in g:
        print("  %s error: %s" % (g["bus_id"], g["error"])); continue
    spec = g.get("spec") or {}
    m, c, t = g["memory"], g.get("compute", {}), g.get("memtest", {})
    pct = lambda v, p: "%.0f%%" % (100 * v / p) if v and p else "?"
    memtest = ("memtest error: %s" % t["error"] if "error" in t else
               "memtest %.1f of %.1f GiB, %d errors, %d words checked, positive control %s" % (
                   t["tested_bytes"] / 2**30, t["free_bytes"] / 2**30, t["errors"], t.get("words_checked", -1),
                   t.get("positive_control_detected")))
    print("  %s %s: copy kernel %.0f GB/s (%s of %s GB/s), copy engines %.0f GB/s; FP32 %s; %s" % (
          g["bus_id"], g.get("name"), (m["kernel_copy_bytes_s"] or 0) / 1e9,
          pct(m["kernel_copy_bytes_s"], spec.get("mem_bytes_s")), (spec.get("mem_bytes_s") or 0) / 1e9,
          (m["engine_copy_bytes_s"] or 0) / 1e9,
          "error: %s" % c["error"] if "error" in c else "%.1f TFLOPS (%s of %.1f)" % (
              (c.get("fp32_flops") or 0) / 1e12, pct(c.get("fp32_flops"), spec.get("fp32_flops")),
              (spec.get("fp32_flops") or 0) / 1e12), memtest))
for p in r.get("pairs", []):
    print("  %s -> %s: peer %s, %s" % (p["from"], p["to"], p["peer_access"],
          "%.1f GB/s" % (p["bytes_s"] / 1e9) if "bytes_s" in p else p.get("error")))
PY
done
gv bench gpu --quick >"$OUT/bench-gpu-quick.txt" 2>&1
gv audit --bench "$OUT/bench-gpu-quick.json" --json >"$OUT/audit-bench-gpu.json" 2>"$OUT/audit-bench-gpu.err"
note "gpuvet audit --bench bench-gpu-quick.json: exit $?; GPU rules: $(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(", ".join("%s %s %s" % (f["id"], f["subject"], f["severity"]) for f in d["findings"]
      if f["id"] in ("GPU_MEMORY_BW_LOW","GPU_COMPUTE_LOW","GPU_MEMORY_ERRORS","GPU_P2P_LOW","GPU_NCCL_LOW")))' "$OUT/audit-bench-gpu.json" 2>&1)"
# NCCL's all-reduce (GPU_NCCL_LOW): gpuvet's bus bandwidth per size, from each bench gpu run above,
# beside nccl-tests' all_reduce_perf over the same GPUs where this machine has it (its "busbw"
# column is the same formula, algbw x 2(n-1)/n).
for run in $gpu_runs; do
  name=bench-gpu; [ "$run" = quick ] && name=bench-gpu-quick
  note "gpuvet NCCL all-reduce ($name.json): $(python3 -c '
import json,sys
n=json.load(open(sys.argv[1]))["benchmarks"]["gpu"].get("nccl") or {}
if "skipped" in n or "error" in n: print(n.get("skipped") or n.get("error")); raise SystemExit
print("NCCL %s over %d GPUs: " % (n.get("version"), n.get("ranks", 0)) + ", ".join(
    "%d MiB %.1f GB/s busbw" % (s["bytes"] >> 20, s["busbw_bytes_s"] / 1e9) for s in n.get("sizes", [])))' "$OUT/$name.json" 2>&1)"
done
note "GPU_NCCL_LOW: $(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print("; ".join("%s: %s" % (f["severity"], f["message"]) for f in d["findings"] if f["id"] == "GPU_NCCL_LOW"))' "$OUT/audit-bench-gpu.json" 2>&1)"
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
allreduce=$(command -v all_reduce_perf || ls /usr/local/bin/all_reduce_perf /opt/nccl-tests/build/all_reduce_perf \
            /usr/local/nccl-tests/build/all_reduce_perf 2>/dev/null | head -1)
if [ "${ngpus:-0}" -lt 2 ]; then
  note "nccl-tests reference: one GPU here, no all-reduce between GPUs"
elif [ -n "$allreduce" ]; then
  timeout 120 "$allreduce" -b 16M -e 1G -f 8 -g "$ngpus" >"$OUT/nccl-tests.txt" 2>&1
  note "nccl-tests all_reduce_perf -b 16M -e 1G -f 8 -g $ngpus (exit $?):"
  grep -E '^ +[0-9]+ |Avg bus bandwidth' "$OUT/nccl-tests.txt" | sed 's/^/  /' | tee -a "$summary"
else
  note "nccl-tests reference: no all_reduce_perf on this machine (gpuvet's figure above stands alone)"
fi
# bench gpu --burn: every GPU at once, 30 s of the cuBLAS BF16 GEMM (15 s each of BF16 and the
# cuBLASLt FP8 GEMM where the GPU has FP8), new Xids from the kernel log, then GPU_BURN_FAILED.
t0=$(date +%s)
gv bench gpu --burn --duration 30 --json >"$OUT/bench-gpu-burn.json" 2>"$OUT/bench-gpu-burn.err"
note "gpuvet bench gpu --burn --duration 30 --json: exit $? in $(( $(date +%s) - t0 )) s"
python3 - "$OUT/bench-gpu-burn.json" >>"$summary" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["benchmarks"]["gpu"]
if "skipped" in r or "error" in r:
    print("  bench gpu --burn:", r.get("skipped") or r.get("error"))
b = r.get("burn") or {}
for g in b.get("gpus", []):
    if "error" in g:
        print("  %s burn error: %s" % (g["bus_id"], g["error"])); continue
    peak = (g.get("spec") or {}).get("bf16_dense_flops")
    print("  %s burn: BF16 GEMM n=%d %.1f TFLOPS (%s of %s), %d of %d entries wrong, matches node %s, ECC new %s, %s" % (
          g["bus_id"], g["gemm"]["n"], (g.get("bf16_flops") or 0) / 1e12,
          "%.0f%%" % (100 * g["bf16_flops"] / peak) if peak and g.get("bf16_flops") else "?",
          "%.0f" % (peak / 1e12) if peak else "?", g["entries_wrong"], g["entries_checked"], g["matches_node"],
          g.get("ecc_uncorrected_new", g.get("ecc_unseen")), g.get("while_running")))
    fp8, fp8_peak = g.get("fp8") or {}, (g.get("spec") or {}).get("fp8_dense_flops")
    if fp8.get("flops"):
        print("  %s burn: FP8 GEMM (cuBLASLt) %.1f TFLOPS (%s of %s), %d of %d entries wrong, matches node %s" % (
              g["bus_id"], fp8["flops"] / 1e12, "%.0f%%" % (100 * fp8["flops"] / fp8_peak) if fp8_peak else "?",
              "%.0f" % (fp8_peak / 1e12) if fp8_peak else "?", fp8["entries_wrong"], fp8["entries_checked"],
              fp8["matches_node"]))
    else:
        print("  %s burn: FP8 not measured: %s" % (g["bus_id"], fp8.get("error") or fp8.get("unknown")))
    print("  %s burn: new Xids %s" % (g["bus_id"], g.get("xids_new", "not watched: %s" % b.get("xids_unseen"))))
PY
gv audit --bench "$OUT/bench-gpu-burn.json" --json >"$OUT/audit-bench-gpu-burn.json" 2>>"$OUT/bench-gpu-burn.err"
note "gpuvet audit --bench bench-gpu-burn.json: exit $?; $(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(", ".join("%s %s %s" % (f["id"], f["subject"], f["severity"]) for f in d["findings"] if f["id"] == "GPU_BURN_FAILED"))' "$OUT/audit-bench-gpu-burn.json" 2>&1)"
# The field's own figure on the same GPU, where PyTorch is installed: FP32 matmul (TF32 off) and a
# device copy counted read + written, as bench gpu counts it.
python3 - >"$OUT/torch-anchor.txt" 2>&1 <<'PY'
import time
try:
    import torch
except ImportError:
    print("torch: not installed"); raise SystemExit
torch.backends.cuda.matmul.allow_tf32 = False
for i in range(torch.cuda.device_count()):
    d = torch.device("cuda", i)
    a = torch.randn(8192, 8192, device=d); b = torch.randn(8192, 8192, device=d)
    torch.matmul(a, b); torch.cuda.synchronize(d)
    t = time.time(); n = 10
    for _ in range(n): torch.matmul(a, b)
    torch.cuda.synchronize(d); fp32 = 2 * 8192**3 * n / (time.time() - t)
    x = torch.empty(2**28, device=d); y = torch.empty_like(x); y.copy_(x); torch.cuda.synchronize(d)
    t = time.time()
    for _ in range(20): y.copy_(x)
    torch.cuda.synchronize(d); bw = 2 * x.numel() * 4 * 20 / (time.time() - t)
    print("cuda:%d %s: torch.matmul FP32 %.1f TFLOPS, copy_ %.0f GB/s (read + written)" % (i, torch.cuda.get_device_name(d), fp32 / 1e12, bw / 1e9))
PY
note "torch anchor: $(tr '\n' ';' <"$OUT/torch-anchor.txt")"
# References built here with nvcc (scripts/gpu-reference.cu): a copy kernel of gpuvet's shape, the
# copy engines, a 256-FMA FP32 loop and cuBLAS SGEMM / BF16 GEMM, beside gpuvet's figures above.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
  t0=$(date +%s)
  if "$nvcc" -O3 -o "$OUT/gpuref" scripts/gpu-reference.cu -lcublas -lcublasLt >"$OUT/gpuref-build.log" 2>&1; then
    "$OUT/gpuref" >"$OUT/gpu-reference.txt" 2>&1
    note "nvcc reference (exit $?, $(( $(date +%s) - t0 )) s with the build):"
    sed 's/^/  /' "$OUT/gpu-reference.txt" | tee -a "$summary"
  else
    note "nvcc reference: the build failed (gpuref-build.log)"
  fi
else
  note "nvcc reference: no nvcc on this machine (build scripts/gpu-reference.cu elsewhere with nvcc -O3 -lcublas -lcublasLt)"
fi

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

# The idle view, how long a plain audit takes, a recorded tree of this GPU server, and the host
# benchmarks on a real server's cores.
start=$(date +%s.%N)
gv audit --verbose >"$OUT/audit-idle.txt" 2>&1
note "gpuvet audit (idle): exit $? ($(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo ?) s)"
gv audit --sample 0 --json >"$OUT/audit-idle.json" 2>"$OUT/audit-idle.err"
gv snapshot "$OUT/snapshot" >"$OUT/snapshot.log" 2>&1
note "gpuvet snapshot: exit $?"
gv audit --sysroot "$OUT/snapshot" --sample 0 --json >"$OUT/audit-replay.json" 2>"$OUT/audit-replay.err"
note "gpuvet audit --sysroot snapshot: exit $?"
gv bench memory latency --quick --json >"$OUT/bench-host.json" 2>"$OUT/bench-host.err"
note "gpuvet bench memory latency --quick: exit $?"

# The fast health check with live NVML (Slurm allows 60 s), the Prometheus files with dcgm-style GPU
# labels, and the HTML page of a real GPU server.
start=$(date +%s.%N)
env -i "$(command -v env)" ${libs:+LD_LIBRARY_PATH=$libs} "$PWD/$build/gpuvet" health --prom "$OUT/health.prom" \
  >"$OUT/health.txt" 2>"$OUT/health.err"
note "gpuvet health (env -i): exit $? ($(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo ?) s): $(head -1 "$OUT/health.txt")"
gv audit --sample 0 --load-check --prom "$OUT/audit.prom" --html "$OUT/audit.html" --markdown "$OUT/audit.md" \
  >/dev/null 2>"$OUT/audit-html.err"
note "gpuvet audit --html --markdown --prom: exit $?"
gv bench pcie --quick --prom "$OUT/bench-pcie.prom" >/dev/null 2>&1
note "gpuvet bench pcie --prom: exit $?; $(grep -c '^gpuvet_' "$OUT/bench-pcie.prom" 2>/dev/null) samples"

if [ "$tests" = ON ]; then
  with_libs ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -R "${CTEST_REGEX:-.}" >"$OUT/ctest.log" 2>&1
  note "ctest: exit $? ($(grep -o '[0-9]*% tests passed.*' "$OUT/ctest.log"))"
fi

# The GPU's own faults (issue 24): the live kernel log's GPU lines (as root, and as nobody where
# kernel.dmesg_restrict=1: unknown with the reason), the same log saved and given back with
# --kernel-log in dmesg and journalctl forms, the snapshot's recorded log, and the GPU count
# against --expect-gpus (the real count passes, one more fails). The NVRM lines are kept.
xid_of() {  # xid_of FILE.json -> the GPU_XID_ERRORS and GPU_LOST findings, one line each
  python3 -c 'import json,sys
for f in json.load(open(sys.argv[1])).get("findings", []):
    if f["id"] in ("GPU_XID_ERRORS", "GPU_LOST"): print(f["severity"], f["id"], f["subject"] + ":", f["message"][:120])' "$1" 2>/dev/null | head -5
}
dmesg >"$OUT/dmesg.txt" 2>&1
journalctl -k -b --no-pager -o short-iso >"$OUT/journal-k.txt" 2>&1
grep -E 'NVRM|nvidia|SXid' "$OUT/dmesg.txt" | tail -50 >"$OUT/nvrm-lines.txt"
note "kernel log: $(wc -l <"$OUT/dmesg.txt") dmesg lines, $(grep -c 'Xid' "$OUT/dmesg.txt") with Xid; dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)"
gv audit --sample 0 --json >"$OUT/audit-kernel-log.json" 2>/dev/null
note "gpuvet audit (live /dev/kmsg): exit $?"; xid_of "$OUT/audit-kernel-log.json" | while read -r l; do note "  $l"; done
for saved in dmesg.txt journal-k.txt; do
  gv audit --kernel-log "$OUT/$saved" --json >"$OUT/audit-$saved.json" 2>"$OUT/audit-$saved.err"
  note "gpuvet audit --kernel-log $saved: exit $?"; xid_of "$OUT/audit-$saved.json" | while read -r l; do note "  $l"; done
done
if [ -d "$OUT/snapshot" ]; then
  note "snapshot kernel-log.txt: $(wc -l <"$OUT/snapshot/kernel-log.txt" 2>/dev/null || echo missing) lines"
  xid_of "$OUT/audit-replay.json" | while read -r l; do note "  replay: $l"; done
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups "$build/gpuvet" audit --sample 0 --json >"$OUT/audit-nobody.json" 2>/dev/null
  xid_of "$OUT/audit-nobody.json" | while read -r l; do note "  as nobody: $l"; done
fi
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$ngpus" -gt 0 ]; then
  gv health --expect-gpus "$ngpus" >"$OUT/health-expect.txt" 2>&1
  note "gpuvet health --expect-gpus $ngpus: exit $? ($(head -1 "$OUT/health-expect.txt"))"
  gv health --expect-gpus "$((ngpus + 1))" >"$OUT/health-expect-more.txt" 2>&1
  note "gpuvet health --expect-gpus $((ngpus + 1)): exit $? (1 expected: $(head -1 "$OUT/health-expect-more.txt"))"
fi

# gpuvet watch on a real GPU (issue 12): a job whose CPU-side producer is deliberately slow,
# watched with its live view saved (watch.txt) and its timeline (watch.json), whose replay
# (watch-replay.txt) is the diagnosis; nvidia-smi dmon records the same seconds for a replay of
# NVIDIA's own log.
if command -v python3 >/dev/null; then
  command -v nvidia-smi >/dev/null && { nvidia-smi dmon -s pucvmet -c 20 >"$OUT/dmon-pucvmet.log" 2>&1 & }
  gv watch --json --output "$OUT/watch.json" -- python3 scripts/gpu-slow-producer.py 20 >"$OUT/watch-job.txt" 2>"$OUT/watch.txt"
  note "gpuvet watch -- python3 scripts/gpu-slow-producer.py 20: exit $? ($(tail -1 "$OUT/watch-job.txt"))"
  wait
  gv watch --replay "$OUT/watch.json" >"$OUT/watch-replay.txt" 2>&1
  note "gpuvet watch --replay watch.json: exit $?"
  grep -E '^  (warn|info|fail|unknown) ' "$OUT/watch-replay.txt" | tee -a "$summary"
  if [ -s "$OUT/dmon-pucvmet.log" ]; then
    gv watch --replay "$OUT/dmon-pucvmet.log" >"$OUT/watch-replay-dmon.txt" 2>&1
    note "gpuvet watch --replay dmon-pucvmet.log: exit $?"
  fi
else
  note "gpuvet watch: python3 not found, the GPU job was not run"
fi

# The balance model against a real loop (issue 15): gpuvet plan predicts the images/s of one GPU
# fed by this machine's CPU (bench decode on the same JPEGs, bench memory and storage), once with
# the GPU table's ResNet-50 rate and once with the rate measured here on resident data; the loop
# then measures the decode stage alone (loader-only) and the whole decode + copy + compute
# pipeline with as many workers as the model counts decode cores (cores - 1 - 4).
if command -v python3 >/dev/null && command -v nvidia-smi >/dev/null; then
  loop=scripts/gpu-balance-loop.py
  images="$OUT/balance-images"
  python3 "$loop" make-images "$images" 256 >"$OUT/balance-loop.txt" 2>&1
  if grep -q '^RESULT make-images' "$OUT/balance-loop.txt"; then
    gv bench memory storage --quick --json --dir "$OUT" >"$OUT/balance-bench-host.json" 2>"$OUT/balance-bench.err"
    gv bench decode --quick --json --images "$images" >"$OUT/balance-bench-decode.json" 2>>"$OUT/balance-bench.err"
    mean_bytes=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["benchmarks"]["decode"]["images"]["mean_bytes"]))' "$OUT/balance-bench-decode.json" 2>/dev/null)
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    cores=$(lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    workers=$(( cores - 5 > 1 ? cores - 5 : 1 ))
    python3 "$loop" gpu-only 30 >>"$OUT/balance-loop.txt" 2>&1
    gpu_rate=$(awk '$2 == "gpu-only" {print $3}' "$OUT/balance-loop.txt")
    plan_args=(plan --workload cv-train --gpus "1x$gpu_name" --image-bytes "${mean_bytes:-115000}" --check
               --bench "$OUT/balance-bench-host.json" --bench "$OUT/balance-bench-decode.json" --json)
    gv "${plan_args[@]}" >"$OUT/balance-plan.json" 2>"$OUT/balance-plan.err"
    [ -n "$gpu_rate" ] && gv "${plan_args[@]}" --img-rate "$gpu_rate" >"$OUT/balance-plan-gpu-measured.json" 2>>"$OUT/balance-plan.err"
    python3 "$loop" loader-only "$images" 30 "$workers" >>"$OUT/balance-loop.txt" 2>&1
    python3 "$loop" pipeline "$images" 60 "$workers" >>"$OUT/balance-loop.txt" 2>&1
    python3 - "$OUT" "$workers" >"$OUT/balance-compare.txt" 2>&1 <<'PY'
import json, os, sys
out, workers = sys.argv[1], sys.argv[2]
measured = {}
for line in open(os.path.join(out, "balance-loop.txt")):
    f = line.split()
    if len(f) == 3 and f[0] == "RESULT":
        measured[f[1]] = float(f[2])
def predicted(name):
    try:
        b = json.load(open(os.path.join(out, name)))["plan"]["balance"]
    except Exception as e:
        print(f"{name}: {e}")
        return None
    stages = {s["name"]: s["capacity"] for s in b["stages"]}
    print(f"{name}: bottleneck {b['bottleneck']} at {b['rate_per_node']:.0f} images/s; "
          + ", ".join(f"{k} {v:.0f}" for k, v in stages.items() if v is not None))
    return b, stages
print(f"decode workers: {workers}")
table = predicted("balance-plan.json")
gpu = predicted("balance-plan-gpu-measured.json")
for mode in ("gpu-only", "loader-only", "pipeline"):
    print(f"measured {mode}: {measured.get(mode, 'not run')} images/s")
if table and "loader-only" in measured:
    print(f"decode stage: predicted {table[1]['cpu_decode']:.0f}, measured {measured['loader-only']:.0f} images/s")
for label, p in (("table GPU rate", table), ("measured GPU rate", gpu)):
    if p and "pipeline" in measured:
        print(f"pipeline ({label}): predicted {p[0]['rate_per_node']:.0f} ({p[0]['bottleneck']}), "
              f"measured {measured['pipeline']:.0f} images/s ({measured['pipeline'] / p[0]['rate_per_node']:.2f}x)")
PY
    cat "$OUT/balance-compare.txt" >>"$summary"
  else
    note "balance loop: $(tail -1 "$OUT/balance-loop.txt")"
  fi
else
  note "balance loop: python3 or nvidia-smi not found, not run"
fi
