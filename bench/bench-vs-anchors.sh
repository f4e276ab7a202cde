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
# Every row holds the same kernel, the same size and the same statistic on both sides, in
# back-to-back pairs with who goes first alternating, and reports each side's median and the
# median of the pair ratios (gpuvet / anchor): a best-of would pick one side's outlier, and pairs
# let a neighbour's burst of load fall on both alike. Memory: ROUNDS pairs; decode: ROUNDS pairs;
# storage on one file 5 x ROUNDS, on own files ROUNDS; jitter 3 x ROUNDS.
#   ONLY="memory decode" bench/bench-vs-anchors.sh   only those rows (memory storage decode jitter)
#
# Anchors (scripts/setup.sh installs them with --anchors):
#   memory   likwid-bench -t stream_mem_avx (or _avx512 / _sse: the vector width gpuvet's kernel
#            has) -w N:<gpuvet's allocated bytes>B:<threads> -i 1, once per timed gpuvet pass  (likwid)
#   storage  fio --rw=read --bs=1M --direct=1 --ioengine=libaio --iodepth=16   (fio)
#            LOAD=cpu: stress-ng --cpu <cores> beside it                  (stress-ng)
#   decode   tjbench FILE.jpg -rgb -benchtime 4 -warmup 1, one core       (libjpeg-turbo-progs)
#   jitter   cyclictest -m -i 1000 -t 1 --laptop, same CPU and duration (rt-tests)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
GPUVET=${GPUVET:-build/gpuvet}
DIR=${1:-.}
JITTER_SECONDS=${JITTER_SECONDS:-20}
ROUNDS=${ROUNDS:-3}
LOAD=${LOAD:-}
ONLY=${ONLY:-memory storage decode jitter}
wanted() { case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
tools=("$GPUVET" jq)
wanted memory && tools+=(likwid-bench python3)
wanted storage && tools+=(fio)
wanted decode && tools+=(tjbench)
wanted jitter && tools+=(cyclictest)
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
# Each row is also printed (to stderr) as soon as it is measured, so a later failure keeps it.
row() { rows+=("$(printf '%-8s %-40s %12s %12s %s' "$@")"); printf '%s\n' "${rows[-1]}" >&2; }

# paired_medians BENCH LABEL PAIRS OURS_CMD ANCHOR_CMD FORMAT: PAIRS back-to-back pairs, who goes
# first alternating, then one row: the median of each side and the median of the pair ratios.
# Every row uses it: a best-of over runs would pick one side's outlier.
# ratios FILE: the pair ratios of FILE's first two columns as "median (min-max)"
ratios() {
  awk '{ print $1 / $2 }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                              printf "%.2f (%.2f-%.2f)", m, v[1], v[NR] }'
}
paired_medians() {
  local bench=$1 label=$2 pairs=$3 ours_cmd=$4 anchor_cmd=$5 format=$6 ours anchor
  : > "$work/pairs"
  for pair in $(seq "$pairs"); do
    if (( pair % 2 )); then ours=$($ours_cmd); anchor=$($anchor_cmd)
    else anchor=$($anchor_cmd); ours=$($ours_cmd); fi
    echo "$ours $anchor" >> "$work/pairs"
  done
  row "$bench" "$label" "$(cut -d' ' -f1 "$work/pairs" | median | xargs printf "$format")" \
      "$(cut -d' ' -f2 "$work/pairs" | median | xargs printf "$format")" "$(ratios "$work/pairs")"
}

# memory: STREAM's triad with non-temporal stores against likwid's stream_mem kernel of the same
# vector width (the same loop: A = B*s + C, no write-allocate traffic), on the same working set
# (gpuvet's three arrays; likwid's -w is the total of its three vectors), thread count and page
# size, and the same statistic: the mean rate over timed passes of the whole working set. gpuvet
# times REPS passes and drops the first (triad_mean_bytes_s); likwid runs for at least a second
# (its own pass count, first pass included: at 1/passes weight). STREAM's best-pass figure has no
# likwid twin (likwid reports no pass on its own, and a one-pass run is a cold first pass), so
# it is not set against likwid's mean. Page size: gpuvet asks for transparent huge pages
# (madvise), likwid does not; where THP is "madvise" gpuvet runs here with THP disabled for its
# process (prctl PR_SET_THP_DISABLE, inherited by exec; no system setting changes), so both use
# 4 KiB pages, as they do under "never"; under "always" both get huge pages.
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
no_thp() { python3 -c 'import ctypes, os, sys
if ctypes.CDLL(None).prctl(41, 1, 0, 0, 0) != 0: sys.exit("prctl(PR_SET_THP_DISABLE) failed")
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
# likwid's MByte/s and passes per thread, as "GB/s passes"
likwid_memory() {
  likwid-bench -t "$kernel" -w "N:${bytes}B:$threads" 2>/dev/null |
    awk '/^MByte\/s:/ { r = $2 / 1000 } /^Iterations per thread:/ { n = $4 } END { print r, n }'
}
ours_memory() {
  if [ "$thp" = madvise ]; then no_thp "$GPUVET" bench memory --json; else "$GPUVET" bench memory --json; fi |
    jq '.benchmarks.memory.triad_mean_bytes_s / 1e9'
}
if wanted memory; then
  echo "memory..." >&2
  "$GPUVET" bench memory --json > "$work/memory.json"
  threads=$(jq '.benchmarks.memory.threads' "$work/memory.json")
  bytes=$(jq '.benchmarks.memory.allocated_bytes' "$work/memory.json")
  passes=$(( $(jq '.benchmarks.memory.repetitions' "$work/memory.json") - 1 ))
  case "$(jq '.benchmarks.memory.vector_bits' "$work/memory.json")" in
    512) kernel=stream_mem_avx512 ;; 256) kernel=stream_mem_avx ;; 128) kernel=stream_mem_sse ;;
    *) echo "gpuvet's memory kernel has no likwid twin: $(jq -r '.benchmarks.memory.kernel' "$work/memory.json")" >&2
       exit 2 ;;
  esac
  [ "$thp" = always ] && pages="huge pages" || pages="4 KiB pages"
  : > "$work/memory-pairs"
  for pair in $(seq "$ROUNDS"); do
    if (( pair % 2 )); then ours=$(ours_memory); anchor=$(likwid_memory)
    else anchor=$(likwid_memory); ours=$(ours_memory); fi
    echo "$ours $anchor" >> "$work/memory-pairs"
  done
  # columns: gpuvet, likwid, likwid's passes
  row memory "triad GB/s vs $kernel, $((bytes >> 20)) MiB, $threads threads, $pages, mean of $passes vs $(cut -d' ' -f3 "$work/memory-pairs" | median) passes" \
      "$(cut -d' ' -f1 "$work/memory-pairs" | median | xargs printf %.2f)" \
      "$(cut -d' ' -f2 "$work/memory-pairs" | median | xargs printf %.2f)" "$(ratios "$work/memory-pairs")"
fi

# storage: 1 MiB O_DIRECT sequential reads at QD16. First both read one file that fio laid out
# (gpuvet --file): the engines alone, in short runs (2 s each side, gpuvet --quick) and many pairs
# so that drift in the host's load falls on both alike. Then each writes and reads its own file in
# DIR for 6 s, as users run them.
if wanted storage; then
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
fi

# decode: the same photo, one core, decode only, to RGB, 4 s of decoding a side (gpuvet's phase
# length; tjbench warms up 1 s first), each side's mean rate over its run. tjbench writes its output
# image next to the input, so both get a private copy.
if wanted decode; then
  echo "decode..." >&2
  "$GPUVET" bench decode --quick --json > "$work/decode-set.json"
  photo=$(ls "$(jq -r '.benchmarks.decode.images.dir' "$work/decode-set.json")"/*.jpg | head -1)
  mkdir "$work/photo"
  cp "$photo" "$work/photo/photo.jpg"
  core=$(taskset -cp $$ | awk -F': ' '{ split($2, c, /[-,]/); print c[1] }')
  ours_decode() {
    "$GPUVET" bench decode --json --images "$work/photo" | jq '.benchmarks.decode.decode_only_mpix_s_per_core'
  }
  tjbench_decode() {
    (cd "$work" && taskset -c "$core" tjbench photo/photo.jpg -rgb -benchtime 4 -warmup 1 |
       awk '/Decompress/ { d = 1 } d && /Throughput/ { print $2; exit }')
  }
  paired_medians decode "decode-only Mpix/s, one core (median)" "$ROUNDS" ours_decode tjbench_decode %.1f
fi

# jitter: wake-up latency p99 of a 1 ms sleep loop, same CPU, same duration. cyclictest's
# histogram (one bucket per microsecond) gives its p99. --laptop keeps cyclictest from writing
# /dev/cpu_dma_latency (it holds C-states off while it runs): gpuvet changes no system setting,
# so the anchor must measure the box as it is too.
if wanted jitter; then
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
fi

printf '%-8s %-40s %12s %12s %s\n' bench metric gpuvet anchor "ratio: median of the pairs (min-max)"
printf '%s\n' "${rows[@]}"
