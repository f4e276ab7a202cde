# shellcheck shell=bash
# What the bench/ scripts share (sourced after they cd to the repository root, never run): one
# command's wall time, the median of a column of figures, a command's peak memory. Each script
# pairs and alternates its own rounds; these are the measurements inside them.

# once_ms CMD...: wall milliseconds of one run of CMD (its output discarded, its exit status ignored).
once_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / 1000000" | bc
}

# median: the median of the numbers on standard input, one a line (the mean of the middle two when
# they are even in number).
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# peak_kb CMD...: the peak resident set size of one run of CMD in KB (GNU time).
peak_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
