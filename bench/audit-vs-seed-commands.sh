#!/usr/bin/env bash
# Benchmark, not a test: times `gpuvet audit` (no benchmarks, no sampling) against the commands the
# seed articles run by hand to see the same facts — lscpu, numactl -H, lspci -vv and
# lstopo-no-graphics --whole-io — on this machine, and prints the ratio and peak memory.
# Target (issue 2): gpuvet <= 0.5 x the sum of the four, peak RSS < 20 MB.
# Needs: build/gpuvet (scripts/setup.sh), util-linux, numactl, pciutils, hwloc-nox, time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
gpuvet=${GPUVET:-./build/gpuvet}
for tool in lscpu numactl lspci lstopo-no-graphics /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install util-linux numactl pciutils hwloc-nox time" >&2; exit 2; }
done

# Mean wall time of a command over $runs runs, in milliseconds.
mean_ms() {
  local start end
  "$@" >/dev/null 2>&1 || true  # warm the page cache once
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1 || true; done
  end=$(date +%s%N)
  echo "scale=2; ($end - $start) / 1000000 / $runs" | bc
}
peak_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

printf '%-34s %10s %12s\n' command mean_ms peak_rss_kb
sum=0
for cmd in "lscpu" "numactl -H" "lspci -vv" "lstopo-no-graphics --whole-io"; do
  # shellcheck disable=SC2086
  ms=$(mean_ms $cmd)
  # shellcheck disable=SC2086
  printf '%-34s %10s %12s\n' "$cmd" "$ms" "$(peak_kb $cmd)"
  sum=$(echo "$sum + $ms" | bc)
done
printf '%-34s %10s\n' "sum of the seed's commands" "$sum"
ours=$(mean_ms "$gpuvet" audit --json)
printf '%-34s %10s %12s\n' "gpuvet audit --json" "$ours" "$(peak_kb "$gpuvet" audit --json)"
printf 'ratio gpuvet / sum: %s (target <= 0.5)\n' "$(echo "scale=3; $ours / $sum" | bc)"
