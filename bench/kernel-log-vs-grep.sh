#!/usr/bin/env bash
# Kernel-log reading speed (issue 35): `gpuvet audit --kernel-log FILE` against
# `cat FILE | grep -c 'NVRM: Xid'` (grep through a pipe) on the same generated FILE of SIZE MiB
# (default 1024) in /tmp, in PAIRS back-to-back pairs (default 5), who goes first alternating, one
# at a time, the file in the page cache (a warm-up read first). Prints each side's median wall
# seconds and MB/s and the median of the pair ratios (gpuvet throughput / grep's). The file: a
# GPU server's dmesg as it looks most of the time (network, storage, audit, peermem lines with
# kernel timestamps), one Xid line in 2,000, a boot ("Linux version" at time 0) at the start.
# Usage: [PAIRS=5] [SIZE_MIB=1024] [GPUVET=build/gpuvet] bench/kernel-log-vs-grep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
pairs=${PAIRS:-5}
size_mib=${SIZE_MIB:-1024}
gpuvet=${GPUVET:-build/gpuvet}
log=$(mktemp /tmp/gpuvet-klog-bench-XXXXXX)
trap 'rm -f "$log"' EXIT

awk -v want=$((size_mib * 1048576)) 'BEGIN {
  print "[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024"
  split("mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE|EXT4-fs (md127p3): re-mounted 0f3cd65a-338b-4574-bba3-ecef214e1917 r/w. Quota mode: none.|audit: type=1400 audit(1731650355.491:812): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\" name=\"/proc/1/mountinfo\" pid=4121 comm=\"lxd\"|IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready|nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing|workqueue: ib_cache_event_task [ib_core] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND|systemd-journald[812]: /var/log/journal/4c1d0e: Journal header limits reached or header out-of-date, rotating.|nvme nvme0: I/O 612 QID 7 timeout, completion polled", m, "|")
  t = 5.0; bytes = 0; i = 0
  while (bytes < want) {
    t += 0.000731; i++
    if (i % 2000 == 0)
      line = sprintf("[%12.6f] NVRM: Xid (PCI:0000:%02x:00): 13, pid=%d, name=python3, Graphics Exception: ESR 0x50da30=0x2000c 0x50da34=0x0", t, 16 + i % 8, 1000 + i % 977)
    else
      line = sprintf("[%12.6f] %s", t, m[1 + i % 8])
    print line; bytes += length(line) + 1
  }
}' > "$log"
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null

# "WALL CPU": wall seconds and CPU seconds (user + system, the pipeline's two processes together).
measure() { /usr/bin/time -f '%e %U %S' -o "$log.time" "$@" > /dev/null 2>&1 || true
            awk '{ print $1, $2 + $3 }' "$log.time"; }
run_grep() { measure sh -c "cat '$log' | grep -c 'NVRM: Xid'"; }
run_gpuvet() { measure "$gpuvet" audit --kernel-log "$log" --json --sample 0; }

gw=(); gc=(); vw=(); vc=(); r=()
for ((i = 0; i < pairs; i++)); do
  if ((i % 2 == 0)); then gs=$(run_grep); vs=$(run_gpuvet)
  else vs=$(run_gpuvet); gs=$(run_grep); fi
  gw+=("${gs% *}"); gc+=("${gs#* }"); vw+=("${vs% *}"); vc+=("${vs#* }")
  r+=("$(echo "${gs% *} / ${vs% *}" | bc -l)")
done
rm -f "$log.time"
m() { printf '%s\n' "$@" | median; }
gm=$(m "${gw[@]}"); vm=$(m "${vw[@]}"); gcm=$(m "${gc[@]}"); vcm=$(m "${vc[@]}"); rm_=$(m "${r[@]}")
printf 'file: %d bytes, %d lines, %d Xid lines (grep -c)\n' "$bytes" "$(wc -l < "$log")" "$(grep -c 'NVRM: Xid' "$log")"
printf 'cat | grep -c   median %.3f s wall %6.0f MB/s, %.3f s CPU\n' "$gm" "$(echo "$bytes / $gm / 1000000" | bc -l)" "$gcm"
printf 'gpuvet audit    median %.3f s wall %6.0f MB/s, %.3f s CPU\n' "$vm" "$(echo "$bytes / $vm / 1000000" | bc -l)" "$vcm"
printf 'gpuvet / grep wall throughput, median of %d pairs: %.2f\n' "$pairs" "$rm_"
