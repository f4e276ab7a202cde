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
# With BASELINE=/path/to/an/older/gpuvet, the two binaries then read the same documents in
# alternating pairs (ROUNDS, default 9): each figure is the median over the rounds, the ratio the
# median of the rounds' own ratios, so a machine whose speed drifts slows both sides alike.
#
# With CALLGRIND=1 (and valgrind installed), the instructions each binary runs for the first 1,000
# documents (500 nodes' audit and bench documents) are counted too: a figure the machine's load
# does not move.
#
# usage: bench/fleet-scale.sh [BUILD_DIR] [NODES]   (defaults: build, 10000; needs ~700 MB in $TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
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

if [ -n "${BASELINE:-}" ]; then
  # Wall seconds and CPU seconds (user + system) of one run: on a shared machine whose page cache
  # cannot hold the documents, the wall time is the disk's; the CPU time is the reader's own.
  once() {
    /usr/bin/time -f "%e %U %S" "$1" fleet --json "$work/docs" 2>&1 >/dev/null | tail -n 1
  }
  for _ in $(seq "${ROUNDS:-9}"); do
    read -r old_wall old_user old_sys < <(once "$BASELINE")
    read -r new_wall new_user new_sys < <(once "$gpuvet")
    echo "$old_wall" >>"$work/old_wall"
    echo "$new_wall" >>"$work/new_wall"
    echo "$old_user + $old_sys" | bc >>"$work/old_cpu"
    echo "$new_user + $new_sys" | bc >>"$work/new_cpu"
    echo "scale=4; $new_wall / $old_wall" | bc >>"$work/ratio_wall"
    echo "scale=4; ($new_user + $new_sys) / ($old_user + $old_sys)" | bc >>"$work/ratio_cpu"
  done
  echo "paired over ${ROUNDS:-9} rounds: wall median baseline $(median <"$work/old_wall") s, this build" \
    "$(median <"$work/new_wall") s (ratio median $(median <"$work/ratio_wall")); CPU median baseline" \
    "$(median <"$work/old_cpu") s, this build $(median <"$work/new_cpu") s (ratio median $(median <"$work/ratio_cpu"))"
fi

if [ -n "${CALLGRIND:-}" ]; then
  mkdir "$work/first1000"
  for i in $(seq -f %05g 1 $((nodes < 500 ? nodes : 500))); do
    ln "$work/docs/gpu$i.json" "$work/docs/gpu$i-bench.json" "$work/first1000/"
  done
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" fleet --json "$work/first1000" 2>&1 >/dev/null |
      sed -n 's/.*Collected : //p'
  }
  line="callgrind over the first $(find "$work/first1000" -name '*.json' | wc -l) documents:"
  line="$line this build $(instructions "$gpuvet") instructions"
  [ -z "${BASELINE:-}" ] || line="$line, baseline $(instructions "$BASELINE")"
  echo "$line"
fi
