#!/usr/bin/env bash
# Checks gpuvet's verdicts against the hand labels of tests/corpus/labels.tsv: every label is run
# through `gpuvet audit --json` and each mismatch is printed with file, check, expected, got and
# the label's reasoning.
#
#   scripts/corpus-labels.sh [--bin build/gpuvet] [--corpus tests/corpus] [--strict]
#                            [--write-known]
#
# Without --strict, mismatches listed in tests/corpus/labels-known-mismatches.tsv (what today's
# rules still get wrong) are reported but tolerated; any other mismatch fails. --strict tolerates
# none. --write-known rewrites that list from this run. Exit: 0 ok, 1 mismatches, 2 bad usage or
# gpuvet could not run on a labelled file.
#
# Checks (column 3 of labels.tsv): a rule ID (the file's worst finding of that rule: pass, info,
# unknown, warn, fail; "absent" when the rule reported nothing), or a fact of machine: channels
# (populated channels per socket, "6,6"), dimms (RAM modules), pmem (persistent modules),
# sockets, numa_cpu_nodes (NUMA nodes with CPUs), accelerators, gpus (NVIDIA GPUs described),
# vm (true/false/null), channel_rule_applies (false when MEM_CHANNELS_UNDERPOPULATED's evidence
# says the per-socket rule does not apply: a front-side-bus CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/gpuvet corpus=tests/corpus strict=0 write_known=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    --write-known) write_known=1; shift ;;
    *) sed -n 2,20p "$0" >&2; exit 2 ;;
  esac
done
labels=$corpus/labels.tsv known=$corpus/labels-known-mismatches.tsv
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}abort_on_error=1:print_stacktrace=1"
[ -x "$bin" ] || { echo "corpus-labels: $bin: no gpuvet binary (build it first)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$corpus/dmidecode.tar.xz"

# The value of each check (check TAB value lines), as one jq program over the audit document.
facts='
  def worst($id): [.findings[] | select(.id == $id) | .severity] as $s
    | if ($s | length) == 0 then "absent"
      else ["fail", "warn", "unknown", "info", "pass"] | map(select(. as $v | $s | index($v))) | .[0]
      end;
  def count($x): if $x == null then "null" else ($x | length | tostring) end;
  . as $doc | $checks | split(" ") | map(. as $c | {($c): (
    if $c == "channels" then ([$doc.machine.memory.sockets[]? | .populated_channels // "?" | tostring] | join(","))
    elif $c == "dimms" then count($doc.machine.memory.dimms)
    elif $c == "pmem" then count($doc.machine.memory.persistent_modules)
    elif $c == "sockets" then ($doc.machine.cpu.sockets | tostring)
    elif $c == "numa_cpu_nodes" then ([$doc.machine.numa_nodes[]? | select((.cpus // "") != "")] | length | tostring)
    elif $c == "accelerators" then count($doc.machine.accelerators)
    elif $c == "gpus" then count($doc.machine.gpus)
    elif $c == "vm" then ($doc.machine.virtualization.vm | tostring)
    elif $c == "channel_rule_applies" then ([$doc.findings[] | select(.id == "MEM_CHANNELS_UNDERPOPULATED")
      | .evidence.rule_applies] | if index(false) then "false" else "true" end)
    else ($doc | worst($c)) end)}) | add
  | to_entries[] | [.key, (if .value == "" then "none" else .value end)] | @tsv'

status=0 checked=0 mismatches=0 tolerated=0
: >"$work/mismatches.tsv"
while IFS=$'\t' read -r kind file; do
  case "$kind" in
    dmidecode) args=(--dmidecode "$work/dmidecode/$file") ;;
    nvidia-smi) args=(--nvidia-smi "$corpus/nvidia-smi/$file") ;;
    sysroot)
      mkdir -p "$work/sysroot/$file"
      tar -C "$work/sysroot/$file" -xjf "$corpus/sysroot/$file.tar.bz2"
      args=(--sysroot "$(find "$work/sysroot/$file" -maxdepth 2 -type d -name sys -printf '%h\n' | head -1)") ;;
    *) echo "corpus-labels: $labels: unknown kind '$kind'" >&2; exit 2 ;;
  esac
  rc=0
  "$bin" audit --json --sample 0 "${args[@]}" >"$work/audit.json" 2>"$work/stderr" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "corpus-labels: gpuvet exit $rc on $kind $file: $(head -c 300 "$work/stderr")" >&2
    exit 2
  fi
  checks=$(awk -F'\t' -v k="$kind" -v f="$file" '$1 == k && $2 == f { print $3 }' "$labels" | sort -u | tr '\n' ' ')
  jq --arg checks "${checks% }" -r "$facts" "$work/audit.json" >"$work/got.tsv"
  awk -F'\t' -v k="$kind" -v f="$file" 'FNR == NR { got[$1] = $2; next }
    $1 == k && $2 == f { n++; if (got[$3] != $4) print $1 "\t" $2 "\t" $3 "\t" $4 "\t" got[$3] "\t" $5 }
    END { print n > "/dev/stderr" }' "$work/got.tsv" "$labels" >>"$work/mismatches.tsv" 2>"$work/n"
  checked=$((checked + $(cat "$work/n")))
done < <(awk -F'\t' '!/^#/ && NF >= 4 && $1 != "kind" { print $1 "\t" $2 }' "$labels" | awk '!seen[$0]++')

while IFS=$'\t' read -r kind file check expected got reason; do
  mismatches=$((mismatches + 1))
  if [ "$strict" = 0 ] && [ -f "$known" ] &&
     awk -F'\t' -v k="$kind" -v f="$file" -v c="$check" -v g="$got" \
       '$1 == k && $2 == f && $3 == c && $4 == g { found = 1 } END { exit !found }' "$known"; then
    tolerated=$((tolerated + 1)); mark="known"
  else
    status=1; mark="NEW"
  fi
  printf '%-5s %s %s %s: expected %s, got %s -- %s\n' "$mark" "$kind" "$file" "$check" "$expected" "$got" "$reason"
done <"$work/mismatches.tsv"

# Known mismatches that now match: the rules improved; the list should shrink with them.
if [ -f "$known" ]; then
  awk -F'\t' 'FNR == NR { now[$1 "\t" $2 "\t" $3 "\t" $5] = 1; next }
    !/^#/ && !(($1 "\t" $2 "\t" $3 "\t" $4) in now) { printf "fixed %s %s %s (was %s): drop it from %s\n", $1, $2, $3, $4, FILENAME }' \
    "$work/mismatches.tsv" "$known"
fi
if [ "$write_known" = 1 ]; then
  { printf '# kind\tfile\tcheck\tgot today (expected: labels.tsv); written by scripts/corpus-labels.sh --write-known\n'
    cut -f1-3,5 "$work/mismatches.tsv"; } >"$known"
  status=0
fi
echo "labels: $checked checks, $((checked - mismatches)) match, $mismatches mismatch ($tolerated known, $((mismatches - tolerated)) new)"
exit "$status"
