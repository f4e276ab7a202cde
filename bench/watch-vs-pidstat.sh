#!/usr/bin/env bash
# The cost of watching (issue 12): the CPU time of `gpuvet watch --interval 1` against pidstat
# (sysstat; `scripts/setup.sh --anchors` installs it) over the same SECONDS (default 60), in PAIRS
# back-to-back pairs (default 3), who goes first alternating, one tool running at a time; each
# side's median and the median of the pair ratios (gpuvet / pidstat). Two rows:
#   machine  gpuvet watch            vs  pidstat -u -d -r 1          both read every process
#   one PID  gpuvet watch --pid PID  vs  pidstat -u -d -r -p PID 1   PID: a sleep this script starts
# They part in the second row by design: gpuvet still reads every /proc/PID each interval, to find
# the job's whole tree (children started after it attached) and the busiest processes outside it
# (HOST_CONTENTION, INPUT_CPU_BOUND), where pidstat -p reads that one process; so gpuvet costs more
# there, and the first row is the like-for-like one. CPU time is the children's user + system time
# (bash's `times`, 1 ms steps); the peak RSS of one run of each comes from GNU time.
# Usage: [PAIRS=3] bench/watch-vs-pidstat.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
seconds=${1:-60}
pairs=${PAIRS:-3}
gpuvet=${GPUVET:-build/gpuvet}
command -v pidstat >/dev/null || { echo "pidstat not found: scripts/setup.sh --anchors installs sysstat"; exit 2; }
out=$(mktemp -d)
sleep $(( (seconds + 5) * pairs * 4 + 60 )) &
target=$!
trap 'kill "$target" 2>/dev/null || true; rm -rf "$out"' EXIT

# cpu_seconds CMD...: the CPU seconds (user + system) CMD and its children used.
cpu_seconds() {
  ( "$@" >/dev/null 2>&1; times ) | awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
                                                    print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}
# row LABEL_GPUVET LABEL_PIDSTAT "GPUVET ARGS" "PIDSTAT ARGS"
row() {
  local g p
  : > "$out/pairs"
  for pair in $(seq "$pairs"); do
    if (( pair % 2 )); then
      g=$(cpu_seconds "$gpuvet" watch --interval 1 --duration "$seconds" $3)
      p=$(cpu_seconds pidstat $4 1 "$seconds")
    else
      p=$(cpu_seconds pidstat $4 1 "$seconds")
      g=$(cpu_seconds "$gpuvet" watch --interval 1 --duration "$seconds" $3)
    fi
    echo "$g $p" >> "$out/pairs"
  done
  printf '%-34s %-34s %9.3f %9.3f %7.2f\n' "$1" "$2" "$(cut -d' ' -f1 "$out/pairs" | median)" \
    "$(cut -d' ' -f2 "$out/pairs" | median)" \
    "$(awk '{ print ($2 > 0 ? $1 / $2 : "inf") }' "$out/pairs" | median)"
}
printf '%s s per run, %s pairs, medians (CPU seconds per run; ratio: median of the pair ratios)\n' "$seconds" "$pairs"
printf '%-34s %-34s %9s %9s %7s\n' gpuvet pidstat "gpuvet s" "pidstat s" ratio
row "watch --interval 1" "pidstat -u -d -r 1" "" "-u -d -r"
row "watch --interval 1 --pid PID" "pidstat -u -d -r -p PID 1" "--pid $target" "-u -d -r -p $target"
/usr/bin/time -f "%M" -o "$out/gpuvet-rss" "$gpuvet" watch --interval 1 --duration 3 >/dev/null 2>&1
/usr/bin/time -f "%M" -o "$out/pidstat-rss" pidstat -u -d -r 1 3 >/dev/null
echo "peak RSS KB: gpuvet watch $(cat "$out/gpuvet-rss"), pidstat $(cat "$out/pidstat-rss") (target: CPU ratio <= 1 on the machine row, RSS < 15 MB)"
