#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS (default 60) at the lowest CPU priority, one after another,
# from a seed corpus of the real fixture files. Crashes land in build/fuzz/crashes/NAME/: copy each
# into tests/fuzz/regressions/NAME/ (test_fuzz_regressions replays them) and fix the parser.
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS] [NAME...]   (after: make -C build fuzz_all)
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(nvsmi dmidecode claim bench_json audit_json offers hf_config dmon mo kernel_log smbios fleet
    watch mo_format)
out=build/fuzz
fixtures=tests/fixtures

seed() { # NAME FILE...: the corpus folder of one target
    local dir=$out/corpus/$1
    shift
    mkdir -p "$dir"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/"; done
}
seed nvsmi $fixtures/nvidia-smi/*.xml $fixtures/nvidia-smi/*.txt # -q -x XML and -q text
seed dmidecode $fixtures/dmidecode/*.txt
seed claim $fixtures/claims/*.json
seed bench_json $fixtures/bench/*.json
seed offers $fixtures/plan/*.csv
seed hf_config $fixtures/plan/*.config.json
seed dmon $fixtures/plan/*.log
seed kernel_log tests/corpus/kernel-log/*.log
seed mo build/locale/zh_CN/LC_MESSAGES/gpuvet.mo # the catalogue the build compiled
seed smbios $fixtures/dmi-raw/17-* tests/fuzz/regressions/smbios/*
seed fleet $fixtures/bench/*.json
seed watch $fixtures/watch/*
# A translation of each msgid fuzz_mo_format picks (its first byte): the real ones and %-heavy ones.
mkdir -p $out/corpus/mo_format
printf '\000gpuvet: 未知命令“%%s”；你是不是想用 %%s？\n' > $out/corpus/mo_format/0
printf '\001；%%2$d 个内存槽位中 %%1$d 个空闲' > $out/corpus/mo_format/1
printf '\002 在每通道 %%d 条内存时%%.0s' > $out/corpus/mo_format/2
printf '\003%%s：%%.1f GB/s（已复制 %%zu MiB）' > $out/corpus/mo_format/3
printf '\004%%llu 字节，%%*d%%%%' > $out/corpus/mo_format/4
printf '\005没有转换 %%s%%n' > $out/corpus/mo_format/5
# Audit documents: gpuvet's own audit of each recorded machine (unpacked by ctest's unpack_fixtures).
mkdir -p $out/corpus/audit_json
for tree in build/fixtures/sysroot/*/; do
    [ -d "$tree" ] || continue
    ./build/gpuvet audit --json --sample 0 --sysroot "$tree" > "$out/corpus/audit_json/$(basename "$tree").json" 2>/dev/null
done
cp $out/corpus/audit_json/*.json $out/corpus/fleet/ 2>/dev/null # fleet and compare read audits too

# nvidia-smi XML: a dictionary of the element names real output uses, so that mutations keep finding
# the parser's paths instead of breaking the XML.
grep -oh '<[a-z_0-9]*>' $fixtures/nvidia-smi/*.xml | sort -u | sed 's/.*/"&"/' > $out/nvsmi.dict

failed=0
for name in "${names[@]}"; do
    bin=$out/fuzz_$name
    [ "$name" = smbios ] && bin=build/fuzz_smbios
    [ -x "$bin" ] || { echo "$name: $bin not built (make -C build fuzz_all)"; failed=1; continue; }
    mkdir -p "$out/crashes/$name"
    log=$out/$name.log
    dict=()
    [ -f "$out/$name.dict" ] && dict=(-dict="$out/$name.dict")
    nice -n 19 "$bin" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$name/" "$out/corpus/$name" > "$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    crashes=$(ls "$out/crashes/$name" | wc -l)
    echo "$name: ${seconds} s, exit $status, ${runs:-?} runs, ${cov:-cov ?}, $crashes crash file(s)"
    [ "$status" -eq 0 ] || failed=1
done
# Non-zero when a target was missing or stopped on a finding (its input is in crashes/NAME/).
exit $failed
