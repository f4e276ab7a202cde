#!/usr/bin/env bash
# Benchmark, not a test: `gpuvet audit --json --sample 0` on this machine against
# `lstopo-no-graphics --whole-io` (hwloc's own walk of the same sysfs), paired and alternating: each
# round runs both (and BASELINE's gpuvet, when given, for a before/after), so a machine whose speed
# drifts slows every side of a round alike; each figure is the median over the rounds, each ratio
# the median of the rounds' own ratios. Goal (issue 39): gpuvet <= 1.0 x lstopo.
# usage: [RUNS=31] [GPUVET=build/gpuvet] [BASELINE=/path/to/older/gpuvet] bench/startup-vs-lstopo.sh
# Needs: hwloc-nox (lstopo-no-graphics), bc.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
runs=${RUNS:-31}
gpuvet=${GPUVET:-./build/gpuvet}
command -v lstopo-no-graphics >/dev/null || { echo "missing lstopo-no-graphics: apt-get install hwloc-nox" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

lstopo-no-graphics --whole-io >/dev/null 2>&1; "$gpuvet" audit --json --sample 0 >/dev/null 2>&1 || true # warm the cache
for _ in $(seq "$runs"); do
  l=$(once_ms lstopo-no-graphics --whole-io)
  g=$(once_ms "$gpuvet" audit --json --sample 0)
  echo "$l" >>"$tmp/lstopo"
  echo "$g" >>"$tmp/gpuvet"
  echo "scale=4; $g / $l" | bc >>"$tmp/ratio"
  if [ -n "${BASELINE:-}" ]; then
    b=$(once_ms "$BASELINE" audit --json --sample 0)
    echo "$b" >>"$tmp/baseline"
    echo "scale=4; $b / $l" | bc >>"$tmp/ratio_baseline"
  fi
done
echo "over $runs paired rounds: lstopo-no-graphics --whole-io median $(median <"$tmp/lstopo") ms;" \
  "gpuvet audit median $(median <"$tmp/gpuvet") ms, ratio median $(median <"$tmp/ratio")"
if [ -n "${BASELINE:-}" ]; then
  echo "baseline $BASELINE: audit median $(median <"$tmp/baseline") ms, ratio median $(median <"$tmp/ratio_baseline")"
fi
