#!/usr/bin/env bash
# gpuvet health --slurm against a real Slurm (scripts/slurm-local.sh: munged, slurmctld and three
# slurmd on this host, everything under a temporary folder, non-default ports), started and
# stopped here. A node whose recorded tree has a GPU link narrowed to x8 is drained with a gpuvet
# reason, a clean run resumes it, and a node an admin drained stays drained; as slurmd's own
# HealthCheckProgram (no SLURM_CONF in its environment), syslog, sinfo -R, and as a Prolog. Then the
# docs/fleet.md's srun recipe for gpuvet fleet (audit --output DIR/%h.json on every node).
# usage: slurm-health.sh GPUVET_BIN FIXTURES_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1 fixtures=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for f in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/scontrol /usr/bin/sinfo; do
  [ -x "$f" ] || skip "$f missing: apt-get install munge slurmctld slurmd slurm-client (scripts/test.sh does)"
done
command -v ss >/dev/null || skip "ss missing (finds free ports): apt-get install iproute2 (scripts/test.sh does)"
# Ports: Slurm 22.05 has no option to bind slurmctld or slurmd to loopback alone, so the test
# re-runs itself in a network namespace of its own (unshare(1)): its only interface is loopback,
# and the daemons' listening ports exist nowhere else. Slurm resolves with AI_ADDRCONFIG, which
# glibc answers only when an IPv4 address other than 127.0.0.1 is configured (getaddrinfo(3),
# glibc's check_pf.c), so the namespace's loopback also gets 192.0.2.1/32 (TEST-NET-1, RFC 5737,
# never routed). Where no namespace can be made (a container without CAP_SYS_ADMIN), the test runs
# on the host's network: random high ports of every interface for its minute, behind munge with a
# throw-away key (a request without a credential from that key is refused), and says so.
if [ -z "${GPUVET_SLURM_TEST_NETNS:-}" ] && command -v unshare >/dev/null && command -v ip >/dev/null &&
   unshare --net true 2>/dev/null; then
  export GPUVET_SLURM_TEST_NETNS=private
  exec unshare --net bash -c 'ip link set lo up && ip addr add 192.0.2.1/32 dev lo && exec "$@"' \
    slurm-health "$(realpath "$0")" "$@"
fi
if [ "${GPUVET_SLURM_TEST_NETNS:-}" = private ]; then
  interfaces=$(ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
  [ "$interfaces" = "lo " ] || { echo "FAIL: the test's network namespace has interfaces: $interfaces"; exit 1; }
  echo "slurm-health: in a private network namespace (loopback only): no port is open outside it"
else
  echo "slurm-health: no private network namespace here; Slurm listens on the host's interfaces while the test runs"
fi

export SLURM_LOCAL_BASE
SLURM_LOCAL_BASE=$(mktemp -d /tmp/gpuvet-slurm-XXXXXX)
# A port with itself and the next three free (slurmctld, then one per slurmd).
for try in $(seq 50); do
  port=$((20000 + RANDOM % 20000))
  busy=$(ss -Hltn "( sport >= :$port and sport <= :$((port + 3)) )" 2>/dev/null | wc -l)
  [ "$busy" -eq 0 ] && break
done
export SLURM_LOCAL_PORT=$port
# syslog: where there is no /dev/log (a container), a listener of our own takes gpuvet's messages
# there for the checks below, and is removed with everything else.
syslog_file=$SLURM_LOCAL_BASE/syslog
syslog_pid=""
if [ ! -e /dev/log ] && command -v python3 >/dev/null; then
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(8192) + b"\n")
' "$syslog_file" &
  syslog_pid=$!
  for i in $(seq 50); do [ -e "$syslog_file.ready" ] && break; sleep 0.1; done
  [ -e "$syslog_file.ready" ] || { kill "$syslog_pid" 2>/dev/null; syslog_pid=""; }
fi
cleanup() {
  "$repo/scripts/slurm-local.sh" down || true
  if [ -n "$syslog_pid" ]; then kill "$syslog_pid" 2>/dev/null || true; wait "$syslog_pid" 2>/dev/null || true; rm -f /dev/log; fi
  rm -rf "$SLURM_LOCAL_BASE"
}
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

# 0. docs/fleet.md's fleet recipe through srun: one task per node, each writing --output DIR/%h.json.
#    The three slurmd share this host's name, so the three tasks write the same file at once: the
#    atomic rename leaves one whole document and no temporary file, which gpuvet fleet reads. First,
#    while every node is idle (srun -N 3 would wait for a drained node).
if [ -x /usr/bin/srun ]; then
  audits=$SLURM_LOCAL_BASE/audits
  mkdir "$audits"
  # %h is the audited machine's name: the recorded tree's, given one here.
  named=$SLURM_LOCAL_BASE/named
  cp -a "$clean" "$named"
  mkdir -p "$named/proc/sys/kernel" && echo gpu01.example.org > "$named/proc/sys/kernel/hostname"
  rc=0
  timeout 60 srun -N 3 --ntasks-per-node=1 "$bin" audit --json --sample 0 --sysroot "$named" \
    --output "$audits/%h.json" 2>/dev/null || rc=$?
  check "srun audit --output: exit status" 0 "$rc"
  check "srun audit --output: the files" "gpu01.json" "$(ls -A "$audits" | tr '\n' ' ' | sed 's/ $//')"
  check "srun audit --output: a whole document" gpuvet.audit/1 \
    "$(jq -r .schema "$audits/gpu01.json" 2>/dev/null || true)"
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
check "node1 reason" "gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0" "$(reason node1)"
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
check "node1 reason: the lost GPU" "gpuvet:GPU_LOST machine" "$(reason node1)"
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
write_wrapper() {  # write_wrapper TREE_FOR_NODE1 [exec|child]
  # As deployed: slurmd gives it only SLURMD_NODENAME (no SLURM_CONF, no PATH), and this cluster's
  # slurm.conf is not /etc/slurm/slurm.conf: gpuvet finds the file slurmd runs with, whether it is
  # slurmd's child (exec) or its grandchild (a shell that waits for it).
  cat > "$wrapper.new" <<EOW
#!/bin/sh
tree=$clean
[ "\$SLURMD_NODENAME" = node1 ] && tree=$1
${2-exec} $bin health --slurm --sysroot "\$tree"
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
check "HealthCheckProgram's reason on node1" "gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0" "$(reason node1)"
check "HealthCheckProgram left node3 in service" no "$(drained node3)"
write_wrapper "$clean" ""
wait_for node1 no || true
check "HealthCheckProgram resumed node1" no "$(drained node1)"
check "HealthCheckProgram left the admin's node2 drained" "disk replacement" "$(reason node2)"

# sinfo -R shows 20 characters of a reason: "gpuvet:" and the rule; a wider format shows it all.
write_wrapper "$narrowed"
wait_for node1 yes || true
check "sinfo -R: the first 20 characters" "gpuvet:PCIE_LINK_DEG" \
  "$(timeout 10 sinfo -R -h -n node1 | cut -c1-20)"
check "sinfo -R -o '%60E %N'" "gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0 node1" \
  "$(timeout 10 sinfo -R -h -n node1 -o '%60E %N' | tr -s ' ')"
timeout 10 sinfo -R -o '%60E %19H %N' || true

# 5. syslog: the drain, and a check that could not reach the controller (scontrol's error, with the
#    slurm.conf it read), where an administrator looks; stderr is not logged by slurmd.
if [ -n "$syslog_pid" ]; then
  rc=0
  env -i SLURM_CONF="$SLURM_LOCAL_BASE/no-such.conf" "$bin" health --slurm --node node3 --sysroot "$clean" 2>/dev/null || rc=$?
  check "unreadable slurm.conf: exit status" 2 "$rc"
  sleep 0.5
  logged() { grep -c "$1" "$syslog_file" 2>/dev/null || true; }
  check "syslog: the drain, ident gpuvet, LOG_DAEMON|LOG_WARNING" yes \
    "$([ "$(logged '^<28>.*gpuvet\[[0-9]*\]: health --slurm: node node1 drained: gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0')" -gt 0 ] && echo yes || echo no)"
  check "syslog: the error, LOG_DAEMON|LOG_ERR, naming the slurm.conf" yes \
    "$([ "$(logged "^<27>.*gpuvet\[[0-9]*\]: health --slurm: with slurm.conf $SLURM_LOCAL_BASE/no-such.conf (from SLURM_CONF): scontrol show node node3: ")" -gt 0 ] && echo yes || echo no)"
  [ $failures -eq 0 ] || cat "$syslog_file"
else
  echo "skip: /dev/log exists (a real syslog): the syslog checks are not run here (journalctl -t gpuvet shows them)"
fi

# 6. The per-job check (docs/health.md's Prolog recipe): slurmd runs the Prolog before each job on each of
#    its nodes; gpuvet health --slurm fails there on node1, which drains it with gpuvet's reason and
#    makes Slurm abort the job; on a clean node the job runs. HealthCheckProgram is taken out first.
if [ -x /usr/bin/srun ]; then
  sed -i '/^HealthCheck/d' "$SLURM_CONF"
  prolog=$SLURM_LOCAL_BASE/prolog
  cat > "$prolog" <<EOP
#!/bin/sh
tree=$clean
[ "\$SLURMD_NODENAME" = node1 ] && tree=$narrowed
exec $bin health --slurm --sysroot "\$tree"
EOP
  chmod 755 "$prolog"
  echo "Prolog=$prolog" >> "$SLURM_CONF"
  timeout 10 scontrol reconfigure
  timeout 10 scontrol update NodeName=node1 State=RESUME
  wait_for node1 no || true
  rc=0
  timeout 60 srun -w node3 -N 1 true 2>/dev/null || rc=$?
  check "Prolog: a job on a clean node runs" 0 "$rc"
  rc=0
  timeout 60 srun -w node1 -N 1 true 2>/dev/null || rc=$?
  check "Prolog: the job on node1 does not run" yes "$([ "$rc" -ne 0 ] && echo yes || echo no)"
  wait_for node1 yes || true
  check "Prolog: node1 drained with gpuvet's reason" "gpuvet:PCIE_LINK_DEGRADED 0000:3d:00.0" "$(reason node1)"
fi

timeout 10 sinfo -R || true
[ $failures -eq 0 ] || { echo "$failures checks failed"; exit 1; }
echo "all Slurm checks passed"
