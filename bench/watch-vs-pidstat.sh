#!/usr/bin/env bash
# The cost of watching (issue 12): CPU time and peak RSS of `gpuvet watch --interval 1` against
# `pidstat -u -d -r 1` (sysstat; `scripts/setup.sh --anchors` installs it), both over the same
# SECONDS (default 60), side by side, each under GNU time. Both read every process of /proc each
# second: pidstat for its per-process table, gpuvet for the job tree and the busiest outsiders.
# Usage: bench/watch-vs-pidstat.sh [SECONDS] [gpuvet watch arguments, e.g. --pid PID]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
gpuvet=${GPUVET:-build/gpuvet}
command -v pidstat >/dev/null || { echo "pidstat not found: scripts/setup.sh --anchors installs sysstat"; exit 2; }
out=$(mktemp -d)
/usr/bin/time -f "%U %S %M" -o "$out/gpuvet" "$gpuvet" watch --interval 1 --duration "$seconds" "$@" >/dev/null &
/usr/bin/time -f "%U %S %M" -o "$out/pidstat" pidstat -u -d -r 1 "$seconds" >/dev/null &
wait
read -r gu gs gm <"$out/gpuvet"
read -r pu ps pm <"$out/pidstat"
printf '%-28s %10s %12s\n' tool "CPU s" "peak RSS KB"
printf '%-28s %10.2f %12d\n' "gpuvet watch --interval 1" "$(echo "$gu + $gs" | bc)" "$gm"
printf '%-28s %10.2f %12d\n' "pidstat -u -d -r 1" "$(echo "$pu + $ps" | bc)" "$pm"
echo "ratio of CPU time gpuvet/pidstat: $(echo "scale=2; ($gu + $gs) / ($pu + $ps)" | bc)  (target <= 1; RSS target < 15 MB)"
rm -rf "$out"
