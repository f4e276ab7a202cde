#!/usr/bin/env bash
# `gpuvet fleet` at scale: 10,000 nodes' audit and bench documents generated from real recorded
# ones, then fleet's wall time and peak RSS from `/usr/bin/time -v`. A benchmark, not a test.
#
# The templates are the built gpuvet's own audits of two recorded machines in tests/fixtures (the
# H200 Firecracker VM, and hwloc's 2x Xeon Silver 4108 tree with the SYS-4029GP-TRT2 dmidecode
# text) and the recorded bench document. Each node gets its own host name; a few values vary:
# every 997th H200 node reports an older driver, every 1,010th node (a Silver one) a 4-lane link, and
# memory triad spreads over +-3 % with every 503rd node 10 % low.
#
# usage: bench/fleet-scale.sh [BUILD_DIR] [NODES]   (defaults: build, 10000; needs ~700 MB in $TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nodes=${2:-10000}
gpuvet=$build/gpuvet
fixtures=$build/fixtures/sysroot
[ -x "$gpuvet" ] || { echo "fleet-scale: build gpuvet first ($gpuvet)" >&2; exit 2; }
[ -d "$fixtures/h200-firecracker-vm" ] || ctest --test-dir "$build" -R unpack_fixtures >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuvet-fleet-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/docs"

"$gpuvet" audit --json --sample 0 --sysroot "$fixtures/h200-firecracker-vm" >"$work/h200.json" 2>/dev/null || [ $? -eq 1 ]
"$gpuvet" audit --json --sample 0 --sysroot "$fixtures/32intel64-2p8co2t+8ve" \
  --dmidecode tests/fixtures/dmidecode/supermicro-sys4029gp-trt2-2p-xeon-ddr4-4of24.dmidecode.txt \
  >"$work/silver.json" 2>/dev/null || [ $? -eq 1 ]
start=$(date +%s.%N)
# One awk process writes every file: a shell loop of string substitutions on 80 kB documents
# took minutes. RS is a byte the documents never hold, so each template is one record.
awk -v nodes="$nodes" -v dir="$work/docs" -v triad=13872600000 '
  BEGIN { RS = "\001" }
  FILENAME ~ /h200.json$/ { h200 = $0; next }
  FILENAME ~ /silver.json$/ { silver = $0; next }
  { bench = $0 }
  END {
    for (i = 1; i <= nodes; i++) {
      host = sprintf("gpu%05d", i)
      if (i % 2) {
        doc = h200
        sub(/"hostname": "vm"/, "\"hostname\": \"" host "\"", doc)
        if (i % 997 == 0) sub(/"driver_version": "580.159.04"/, "\"driver_version\": \"570.86.15\"", doc)
      } else {
        doc = silver
        sub(/"hostname": null/, "\"hostname\": \"" host "\"", doc)
        if (i % 1010 == 0) sub(/"current_width": 16/, "\"current_width\": 4", doc)
      }
      file = dir "/" host ".json"; printf "%s", doc > file; close(file)
      spread = (i * 7919) % 61 - 30            # -30..30 per mille
      if (i % 503 == 0) spread = -100
      doc = bench
      sub(/"hostname": "vm"/, "\"hostname\": \"" host "\"", doc)
      sub(/"triad_bytes_s": 1.38726e10/, sprintf("\"triad_bytes_s\": %.0f", triad * (1 + spread / 1000)), doc)
      file = dir "/" host "-bench.json"; printf "%s", doc > file; close(file)
    }
  }' "$work/h200.json" "$work/silver.json" tests/fixtures/bench/vm-epyc-2vcpu-quick.json
echo "generated $nodes audit and $nodes bench documents ($(du -sh "$work/docs" | cut -f1)) in" \
  "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"

sync
for run in 1 2 3; do
  status=0
  /usr/bin/time -v "$gpuvet" fleet --json "$work/docs" >"$work/fleet.json" 2>"$work/time.txt" || status=$?
  [ $status -le 1 ] || { cat "$work/time.txt" >&2; exit 2; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  echo "run $run: fleet over $((2 * nodes)) documents: wall $wall (user $user s, system $sys s), peak RSS $rss KB"
done
grep -m1 '"odd_hosts"' "$work/fleet.json"
