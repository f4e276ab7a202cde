#!/usr/bin/env bash
# gpuvet health --slurm against a real Slurm (scripts/slurm-local.sh: munged, slurmctld and three
# slurmd on this host, everything under a temporary folder, non-default ports), started and
# stopped here. A node whose recorded tree has a GPU link narrowed to x8 is drained with a gpuvet
# reason, a clean run resumes it, and a node an admin drained stays drained. Then the README's
# srun recipe for gpuvet fleet (audit --output DIR/%h.json on every node).
# usage: slurm-health.sh GPUVET_BIN FIXTURES_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1 fixtures=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for f in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/scontrol /usr/bin/sinfo; do
  [ -x "$f" ] || skip "$f missing: apt-get install munge slurmctld slurmd slurm-client (scripts/setup.sh does)"
done
command -v ss >/dev/null || skip "ss missing (finds free ports): apt-get install iproute2 (scripts/setup.sh does)"

export SLURM_LOCAL_BASE
SLURM_LOCAL_BASE=$(mktemp -d /tmp/gpuvet-slurm-XXXXXX)
# A port with itself and the next three free (slurmctld, then one per slurmd).
for try in $(seq 50); do
  port=$((20000 + RANDOM % 20000))
  busy=$(ss -Hltn "( sport >= :$port and sport <= :$((port + 3)) )" 2>/dev/null | wc -l)
  [ "$busy" -eq 0 ] && break
done
export SLURM_LOCAL_PORT=$port
cleanup() { "$repo/scripts/slurm-local.sh" down || true; rm -rf "$SLURM_LOCAL_BASE"; }
trap cleanup EXIT
"$repo/scripts/slurm-local.sh" up 3
export SLURM_CONF=$SLURM_LOCAL_BASE/etc/slurm.conf

clean=$fixtures/sysroot/32intel64-2p8co2t+8ve
narrowed=$SLURM_LOCAL_BASE/narrowed
cp -a "$clean" "$narrowed"
echo 8 > "$narrowed/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:04.0/0000:3d:00.0/current_link_width"

failures=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
state() { timeout 10 scontrol show node "$1" | grep -o ' State=[^ ]*' | cut -d= -f2; }
reason() { timeout 10 scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p'; }
drained() { case "$(state "$1")" in *DRAIN*) echo yes ;; *) echo no ;; esac; }
# As slurmd starts HealthCheckProgram: by absolute path, SLURMD_NODENAME set, no PATH or HOME.
health() {  # health NODE TREE [OPTION...] -> prints the first line, sets rc
  local node=$1 tree=$2
  shift 2
  rc=0
  local t0; t0=$(date +%s.%N)
  line=$(env -i SLURM_CONF="$SLURM_CONF" SLURMD_NODENAME="$node" "$bin" health --slurm --sysroot "$tree" "$@" 2>"$SLURM_LOCAL_BASE/err") || rc=$?
  cat "$SLURM_LOCAL_BASE/err"
  echo "gpuvet health --slurm on $node took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s"
}

# 0. The README's fleet recipe through srun: one task per node, each writing --output DIR/%h.json.
#    The three slurmd share this host's name, so the three tasks write the same file at once: the
#    atomic rename leaves one whole document and no temporary file, which gpuvet fleet reads. First,
#    while every node is idle (srun -N 3 would wait for a drained node).
if [ -x /usr/bin/srun ]; then
  audits=$SLURM_LOCAL_BASE/audits
  mkdir "$audits"
  rc=0
  timeout 60 srun -N 3 --ntasks-per-node=1 "$bin" audit --json --sample 0 --sysroot "$clean" \
    --output "$audits/%h.json" 2>/dev/null || rc=$?
  check "srun audit --output: exit status" 0 "$rc"
  check "srun audit --output: the files" "$(hostname -s).json" "$(ls -A "$audits" | tr '\n' ' ' | sed 's/ $//')"
  check "srun audit --output: a whole document" gpuvet.audit/1 \
    "$(jq -r .schema "$audits/$(hostname -s).json" 2>/dev/null || true)"
  rc=0
  "$bin" fleet "$audits" >/dev/null || rc=$?
  check "gpuvet fleet over srun's documents: exit status" 0 "$rc"
else
  echo "skip: srun missing (slurm-client): the srun recipe is not run"
fi

# 1. The narrowed link drains node1 with gpuvet's reason; a clean run resumes it.
health node1 "$narrowed"
check "narrowed link: exit status" 1 "$rc"
check "narrowed link: first line" "gpuvet: FAIL PCIE_LINK_DEGRADED 0000:3d:00.0" "${line:0:44}"
check "node1 drained" yes "$(drained node1)"
check "node1 reason" "gpuvet: PCIE_LINK_DEGRADED 0000:3d:00.0" "$(reason node1)"
health node1 "$narrowed"
check "still failing: exit status" 1 "$rc"
check "node1 still drained" yes "$(drained node1)"
health node1 "$clean"
check "clean: exit status" 0 "$rc"
check "clean: first line" "gpuvet: OK" "$line"
check "node1 resumed" no "$(drained node1)"
check "node1 reason cleared" "" "$(reason node1)"

# 1b. A node that shows 7 of the 8 accelerators it should have (--expect-gpus 8) is drained as
#     GPU_LOST; with all 8 back it is resumed.
seven=$SLURM_LOCAL_BASE/seven
cp -a "$clean" "$seven"
rm "$seven/sys/bus/pci/devices/0000:3d:00.0"
health node1 "$seven" --expect-gpus 8
check "7 of 8 GPUs: exit status" 1 "$rc"
check "7 of 8 GPUs: first line" "gpuvet: FAIL GPU_LOST machine: 7 of the 8 accelerators expected" "${line:0:63}"
check "node1 drained for the lost GPU" yes "$(drained node1)"
check "node1 reason: the lost GPU" "gpuvet: GPU_LOST machine" "$(reason node1)"
health node1 "$clean" --expect-gpus 8
check "8 of 8 GPUs: exit status" 0 "$rc"
check "node1 resumed with 8 GPUs" no "$(drained node1)"

# 2. A node an admin drained stays drained, with the admin's reason, whatever gpuvet finds.
timeout 10 scontrol update NodeName=node2 State=DRAIN Reason="disk replacement"
health node2 "$narrowed"
check "admin-drained, failing: exit status" 1 "$rc"
check "node2 keeps the admin's reason" "disk replacement" "$(reason node2)"
health node2 "$clean"
check "admin-drained, clean: exit status" 0 "$rc"
check "node2 still drained" yes "$(drained node2)"
check "node2 still has the admin's reason" "disk replacement" "$(reason node2)"

# 3. --node names the node when SLURMD_NODENAME is not set; node3 was never touched by the others.
check "node3 untouched so far" no "$(drained node3)"
rc=0
env -i SLURM_CONF="$SLURM_CONF" "$bin" health --slurm --node node3 --sysroot "$narrowed" || rc=$?
check "--node node3: exit status" 1 "$rc"
check "node3 drained" yes "$(drained node3)"
check "node1 not drained by node3's check" no "$(drained node1)"

# 4. As slurmd's own HealthCheckProgram (no arguments, so a wrapper names the tree per node: node1's
#    link is narrowed). slurmd drains node1 through gpuvet; once its tree is clean, it resumes.
timeout 10 scontrol update NodeName=node3 State=RESUME
wrapper=$SLURM_LOCAL_BASE/healthcheck
write_wrapper() {  # write_wrapper TREE_FOR_NODE1
  cat > "$wrapper.new" <<EOW
#!/bin/sh
# slurmd passes no SLURM_CONF: a real cluster reads /etc/slurm/slurm.conf, this one does not.
export SLURM_CONF=$SLURM_CONF
tree=$clean
[ "\$SLURMD_NODENAME" = node1 ] && tree=$1
exec $bin health --slurm --sysroot "\$tree"
EOW
  chmod 755 "$wrapper.new"
  mv "$wrapper.new" "$wrapper"
}
write_wrapper "$narrowed"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n' "$wrapper" >> "$SLURM_CONF"
timeout 10 scontrol reconfigure
wait_for() {  # wait_for NODE yes|no: until drained() says so, at most 20 s
  local deadline=$((SECONDS + 20))
  while [ $SECONDS -lt $deadline ]; do [ "$(drained "$1")" = "$2" ] && return 0; sleep 0.5; done
  return 1
}
wait_for node1 yes || true
check "HealthCheckProgram drained node1" yes "$(drained node1)"
check "HealthCheckProgram's reason on node1" "gpuvet: PCIE_LINK_DEGRADED 0000:3d:00.0" "$(reason node1)"
check "HealthCheckProgram left node3 in service" no "$(drained node3)"
write_wrapper "$clean"
wait_for node1 no || true
check "HealthCheckProgram resumed node1" no "$(drained node1)"
check "HealthCheckProgram left the admin's node2 drained" "disk replacement" "$(reason node2)"

timeout 10 sinfo -R || true
[ $failures -eq 0 ] || { echo "$failures checks failed"; exit 1; }
echo "all Slurm checks passed"
