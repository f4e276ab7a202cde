#!/usr/bin/env bash
# Runs `gpuvet bench` beside the field's own tools (Debian packages) on this machine, in one go,
# and prints each pair and their ratio. A benchmark script, not a test: the numbers depend on the
# machine and on what else runs on it.
#
#   bench/bench-vs-anchors.sh [DIR]      DIR: where the storage files go (default: .)
#   GPUVET=build/gpuvet JITTER_SECONDS=20 ROUNDS=3 bench/bench-vs-anchors.sh
#   LOAD=cpu bench/bench-vs-anchors.sh  the storage pairs again under `stress-ng --cpu <cores>`
#                                       started from this shell (CPU contention from the caller's
#                                       own session, where the two tools once parted most)
#
# Memory and decode run ROUNDS times, gpuvet and anchor alternating, and keep the best of each
# side (STREAM's own rule), so a neighbour's burst of load hits both sides alike. Storage and jitter
# run in pairs (storage on one file 5 x ROUNDS, jitter 3 x ROUNDS) and report medians. The ratio column is
# gpuvet / anchor.
#
# Anchors (scripts/setup.sh installs them with --anchors):
#   memory   likwid-bench -t triad_avx (and stream_mem_avx) -w N:1GB:<threads>   (likwid)
#   storage  fio --rw=read --bs=1M --direct=1 --ioengine=libaio --iodepth=16   (fio)
#            LOAD=cpu: stress-ng --cpu <cores> beside it                  (stress-ng)
#   decode   tjbench FILE.jpg, one core                                 (libjpeg-turbo-progs)
#   jitter   cyclictest -m -i 1000 -t 1 --laptop, same CPU and duration (rt-tests)
set -euo pipefail
cd "$(dirname "$0")/.."
GPUVET=${GPUVET:-build/gpuvet}
DIR=${1:-.}
JITTER_SECONDS=${JITTER_SECONDS:-20}
ROUNDS=${ROUNDS:-3}
LOAD=${LOAD:-}
tools=("$GPUVET" likwid-bench fio tjbench cyclictest jq)
case "$LOAD" in
  "") ;;
  cpu) tools+=(stress-ng) ;;
  *) echo "LOAD=$LOAD: only LOAD=cpu is known" >&2; exit 2 ;;
esac
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (scripts/setup.sh --anchors)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
row() { rows+=("$(printf '%-8s %-40s %12s %12s %7s' "$@")"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
best() { awk -v a="${1:-}" -v b="$2" 'BEGIN { if (a == "" || b > a) a = b; print a }'; }

# memory: STREAM triad, one thread per core, against likwid's AVX triad on as many threads (the
# issue's anchor: A = B*C + D, regular stores, likwid counting no write-allocate traffic) and
# against likwid's STREAM triad with non-temporal stores, the kernel gpuvet runs.
echo "memory..." >&2
ours="" likwid="" likwid_stream=""
likwid_gb() { likwid-bench -t "$1" -w "N:1GB:$2" 2>/dev/null | awk '/^MByte\/s:/ { print $2 / 1000 }'; }
for _ in $(seq "$ROUNDS"); do
  "$GPUVET" bench memory --json > "$work/memory.json"
  threads=$(jq '.benchmarks.memory.threads' "$work/memory.json")
  ours=$(best "$ours" "$(jq '.benchmarks.memory.triad_bytes_s / 1e9' "$work/memory.json")")
  likwid=$(best "$likwid" "$(likwid_gb triad_avx "$threads")")
  likwid_stream=$(best "$likwid_stream" "$(likwid_gb stream_mem_avx "$threads")")
done
row memory "triad GB/s ($threads threads) vs triad_avx" "$(printf %.2f "$ours")" "$(printf %.2f "$likwid")" "$(ratio "$ours" "$likwid")"
row memory "triad GB/s vs stream_mem_avx" "$(printf %.2f "$ours")" "$(printf %.2f "$likwid_stream")" "$(ratio "$ours" "$likwid_stream")"

# paired_medians BENCH LABEL PAIRS OURS_CMD ANCHOR_CMD FORMAT: PAIRS back-to-back pairs, who goes
# first alternating, then one row: the median of each side and the median of the pair ratios.
# Storage and jitter swing most between runs on shared or virtual machines (the host's load moves
# them), so they use this: a best-of would pick one side's outlier.
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
paired_medians() {
  local bench=$1 label=$2 pairs=$3 ours_cmd=$4 anchor_cmd=$5 format=$6 ours anchor
  : > "$work/pairs"
  for pair in $(seq "$pairs"); do
    if (( pair % 2 )); then ours=$($ours_cmd); anchor=$($anchor_cmd)
    else anchor=$($anchor_cmd); ours=$($ours_cmd); fi
    echo "$ours $anchor" >> "$work/pairs"
  done
  row "$bench" "$label" "$(cut -d' ' -f1 "$work/pairs" | median | xargs printf "$format")" \
      "$(cut -d' ' -f2 "$work/pairs" | median | xargs printf "$format")" \
      "$(awk '{ print $1 / $2 }' "$work/pairs" | median | xargs printf %.2f)"
}

# storage: 1 MiB O_DIRECT sequential reads at QD16. First both read one file that fio laid out
# (gpuvet --file): the engines alone, in short runs (2 s each side, gpuvet --quick) and many pairs
# so that drift in the host's load falls on both alike. Then each writes and reads its own file in
# DIR for 6 s, as users run them.
echo "storage..." >&2
shared_file="$DIR/.gpuvet-anchor-shared"
trap 'rm -rf "$work" "$shared_file"' EXIT
fio_read() {
  fio --name=gpuvet-anchor --rw=read --bs=1M --direct=1 --ioengine=libaio --iodepth=16 \
      --time_based --output-format=json "$@" | jq '.jobs[0].read.bw_bytes / 1e9'
}
fio --name=gpuvet-anchor --filename="$shared_file" --size=1G --rw=read --create_only=1 > /dev/null
ours_shared() {
  "$GPUVET" bench storage --quick --json --file "$shared_file" | jq '.benchmarks.storage.seq_read_bytes_s / 1e9'
}
fio_shared() { fio_read --filename="$shared_file" --size=1G --runtime=2; }
paired_medians storage "seq read GB/s, one file (median)" $((ROUNDS * 5)) ours_shared fio_shared %.2f
rm -f "$shared_file"
# gpuvet writes 1 GiB, or 10% of the free space when that is less (in whole MiB); fio gets the same.
size=$(df --output=avail -B1 "$DIR" | awk 'NR == 2 { s = int($1 / 10 / 1048576) * 1048576
                                                     print s < 1073741824 ? s : 1073741824 }')
ours_own() {
  "$GPUVET" bench storage --json --dir "$DIR" | jq '.benchmarks.storage.seq_read_bytes_s / 1e9'
}
fio_own() { fio_read --directory="$DIR" --size="$size" --unlink=1 --runtime=6; }
paired_medians storage "seq read GB/s, own files (median)" "$ROUNDS" ours_own fio_own %.2f
# LOAD=cpu: the one-file pairs again while one CPU hog per core runs in this shell's session. The
# hogs are this script's children, stopped by their PID when the pairs are done or the script ends.
if [ "$LOAD" = cpu ]; then
  fio --name=gpuvet-anchor --filename="$shared_file" --size=1G --rw=read --create_only=1 > /dev/null
  stress-ng --cpu "$(nproc)" --timeout 3600 > /dev/null 2>&1 &
  hogs=$!
  trap 'kill "$hogs" 2>/dev/null || true; rm -rf "$work" "$shared_file"' EXIT
  sleep 2
  paired_medians storage "seq read GB/s, one file, CPU hogs" $((ROUNDS * 5)) ours_shared fio_shared %.2f
  kill "$hogs"
  wait "$hogs" 2>/dev/null || true
  trap 'rm -rf "$work" "$shared_file"' EXIT
  rm -f "$shared_file"
fi

# decode: the same photo, one core, decode only. tjbench writes its output image next to the
# input, so both get a private copy.
echo "decode..." >&2
"$GPUVET" bench decode --quick --json > "$work/decode-set.json"
photo=$(ls "$(jq -r '.benchmarks.decode.images.dir' "$work/decode-set.json")"/*.jpg | head -1)
mkdir "$work/photo"
cp "$photo" "$work/photo/photo.jpg"
ours="" tj=""
for _ in $(seq "$ROUNDS"); do
  "$GPUVET" bench decode --json --images "$work/photo" > "$work/decode.json"
  ours=$(best "$ours" "$(jq '.benchmarks.decode.decode_only_mpix_s_per_core' "$work/decode.json")")
  tj=$(best "$tj" "$(cd "$work" && taskset -c 0 tjbench photo/photo.jpg |
                     awk '/Decompress/ { d = 1 } d && /Throughput/ { print $2; exit }')")
done
row decode "decode-only Mpix/s, one core" "$(printf %.1f "$ours")" "$(printf %.1f "$tj")" "$(ratio "$ours" "$tj")"

# jitter: wake-up latency p99 of a 1 ms sleep loop, same CPU, same duration. cyclictest's
# histogram (one bucket per microsecond) gives its p99. --laptop keeps cyclictest from writing
# /dev/cpu_dma_latency (it holds C-states off while it runs): gpuvet changes no system setting,
# so the anchor must measure the box as it is too.
echo "jitter (${JITTER_SECONDS}s per run)..." >&2
cpu=$(( $(nproc) - 1 ))
ours_jitter() {
  "$GPUVET" bench jitter --json --cpu "$cpu" --seconds "$JITTER_SECONDS" | jq '.benchmarks.jitter.p99_us'
}
cyclictest_p99() {
  cyclictest -m -i 1000 -t 1 --laptop -a "$cpu" -D "$JITTER_SECONDS" -q -h 100000 2>/dev/null |
    awk '/^[0-9]/ { n[$1 + 0] = $2; total += $2 }
         /Histogram Overflows/ { over = $4 + 0 }
         END { total += over; want = total * 0.99; sum = 0
               for (us = 0; us < 100000; us++) { sum += n[us]; if (sum >= want) { print us; exit } }
               print 100000 }'
}
paired_medians jitter "p99 wake-up latency us (median)" $((ROUNDS * 3)) ours_jitter cyclictest_p99 %.0f

printf '%-8s %-40s %12s %12s %7s\n' bench metric gpuvet anchor ratio
printf '%s\n' "${rows[@]}"
