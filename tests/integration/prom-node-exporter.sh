#!/usr/bin/env bash
# --prom FILE against Prometheus' own tools: `promtool check metrics` accepts the files of audit,
# health and bench, and a real prometheus-node-exporter, started here on a loopback port with
# --collector.textfile.directory, serves them (fetched with curl from 127.0.0.1 only).
# usage: prom-node-exporter.sh GPUVET_BIN FIXTURES_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1 fixtures=$2
skip() { echo "SKIP: $*"; exit 77; }
promtool=$(command -v promtool || true)
exporter=$(command -v prometheus-node-exporter || true)
[ -n "$promtool" ] || skip "promtool missing: apt-get install prometheus (scripts/test.sh does)"
[ -n "$exporter" ] || skip "prometheus-node-exporter missing: apt-get install prometheus-node-exporter (scripts/test.sh does)"
command -v curl >/dev/null || skip "curl missing"
command -v ss >/dev/null || skip "ss missing (finds a free port): apt-get install iproute2 (scripts/test.sh does)"

dir=$(mktemp -d /tmp/gpuvet-prom-XXXXXX)
exporter_pid=
cleanup() { [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
mkdir "$dir/textfile"

narrowed=$dir/narrowed
cp -a "$fixtures/sysroot/32intel64-2p8co2t+8ve" "$narrowed"
echo 8 > "$narrowed/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width"
rc=0; "$bin" audit --sysroot "$narrowed" --sample 0 --prom "$dir/textfile/gpuvet-audit.prom" > /dev/null || rc=$?
[ $rc -eq 1 ] || { echo "FAIL: audit exit $rc"; exit 1; }
rc=0; "$bin" health --sysroot "$fixtures/sysroot/h200-firecracker-vm" --prom "$dir/textfile/gpuvet-health.prom" || rc=$?
[ $rc -eq 0 ] || { echo "FAIL: health exit $rc"; exit 1; }
"$bin" bench jitter --seconds 0.3 --prom "$dir/textfile/gpuvet-bench.prom" > /dev/null

failures=0
for f in "$dir"/textfile/*.prom; do
  if out=$("$promtool" check metrics < "$f" 2>&1); then
    echo "ok: promtool check metrics accepts $(basename "$f")${out:+ ($out)}"
  else
    echo "FAIL: promtool check metrics on $(basename "$f"): $out"; failures=$((failures + 1))
  fi
done

# A free loopback port for the exporter.
for try in $(seq 50); do
  port=$((20000 + RANDOM % 20000))
  [ "$(ss -Hltn "( sport = :$port )" 2>/dev/null | wc -l)" -eq 0 ] && break
done
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$dir/textfile" > "$dir/exporter.log" 2>&1 &
exporter_pid=$!
metrics=
for i in $(seq 50); do
  metrics=$(curl -sf --max-time 2 "http://127.0.0.1:$port/metrics") && break
  sleep 0.2
done
[ -n "$metrics" ] || { echo "FAIL: node_exporter did not answer on 127.0.0.1:$port"; cat "$dir/exporter.log"; exit 1; }

expect() {  # expect DESCRIPTION LINE: the exporter serves exactly this sample line
  if grep -qxF "$2" <<<"$metrics"; then echo "ok: $1"; else echo "FAIL: $1: no line $2"; failures=$((failures + 1)); fi
}
expect "no textfile scrape error" "node_textfile_scrape_error 0"
expect "the audit's fail" 'gpuvet_finding{command="audit",rule="PCIE_LINK_DEGRADED",severity="fail",subject="0000:3d:00.0"} 1'
expect "the audit's verdict" 'gpuvet_verdict{command="audit",verdict="fail"} 1'
expect "health's verdict" 'gpuvet_verdict{command="health",verdict="pass"} 1'
expect "the H200 with dcgm-exporter's labels" 'gpuvet_gpu_info{UUID="GPU-73c875d3-52f8-d69d-d97f-d85545bd5967",command="health",gpu="0",model_name="NVIDIA H200",pci_bus_id="00000000:00:06.0"} 1'
grep -q '^gpuvet_bench_wakeup_lateness_seconds{command="bench",cpu="[0-9]*",stat="p99"} ' <<<"$metrics" \
  && echo "ok: the bench's p99 in seconds" || { echo "FAIL: no bench p99"; failures=$((failures + 1)); }
grep -q '^gpuvet_last_run_timestamp_seconds{command="bench"} ' <<<"$metrics" \
  && echo "ok: the run's time" || { echo "FAIL: no timestamp"; failures=$((failures + 1)); }

[ $failures -eq 0 ] || { echo "$failures checks failed"; grep gpuvet <<<"$metrics" | head -50; exit 1; }
echo "all Prometheus checks passed"
