#!/usr/bin/env bash
# Benchmark, not a test: times `gpuvet audit --sample 0` (no benchmarks, no CPU-use sampling) against the commands the
# seed articles run by hand to see the same facts — lscpu, numactl -H, lspci -vv and
# lstopo-no-graphics --whole-io — on this machine, and prints the ratio and peak memory.
# Paired and alternating: each round runs every command once, in turn, so a machine whose speed
# drifts (other work on it) slows both sides of a round alike; each figure is the median over the
# rounds, and each ratio the median of the rounds' own ratios.
# Target (issue 2): gpuvet <= 0.5 x the sum of the four, peak RSS < 20 MB.
# Needs: build/gpuvet (scripts/setup.sh), util-linux, numactl, pciutils, hwloc-nox, time.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${RUNS:-31}
gpuvet=${GPUVET:-./build/gpuvet}
for tool in lscpu numactl lspci lstopo-no-graphics /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install util-linux numactl pciutils hwloc-nox time" >&2; exit 2; }
done
cmds=("lscpu" "numactl -H" "lspci -vv" "lstopo-no-graphics --whole-io" "$gpuvet audit --json --sample 0")
labels=("lscpu" "numactl -H" "lspci -vv" "lstopo-no-graphics --whole-io" "gpuvet audit --json --sample 0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086
for c in "${cmds[@]}"; do $c >/dev/null 2>&1 || true; done  # warm the page cache once
for _ in $(seq "$runs"); do
  sum=0
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2086
    ms=$(once_ms ${cmds[$i]})
    echo "$ms" >>"$tmp/$i"
    [ "$i" -lt 4 ] && sum=$(echo "$sum + $ms" | bc)
    [ "$i" -eq 3 ] && lstopo=$ms
  done
  echo "scale=4; $ms / $sum" | bc >>"$tmp/ratio_sum"
  echo "scale=4; $ms / $lstopo" | bc >>"$tmp/ratio_lstopo"
done

printf '%-34s %10s %12s\n' command median_ms peak_rss_kb
for i in "${!cmds[@]}"; do
  # shellcheck disable=SC2086
  printf '%-34s %10s %12s\n' "${labels[$i]}" "$(median <"$tmp/$i")" "$(peak_kb ${cmds[$i]})"
done
printf 'rounds: %s, alternating; ratios are medians of the rounds'"'"' own ratios\n' "$runs"
printf 'ratio gpuvet / sum of the four: %s (target <= 0.5)\n' "$(median <"$tmp/ratio_sum")"
printf 'ratio gpuvet / lstopo-no-graphics --whole-io: %s\n' "$(median <"$tmp/ratio_lstopo")"
