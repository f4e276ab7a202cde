#!/usr/bin/env bash
# A throw-away Slurm cluster on this host for tests (Debian's slurmctld, slurmd, slurm-client and
# munge), as root, without systemd: several slurmd on one host, each its own node. Config, state,
# logs, pid files, the munge key and socket all live under $SLURM_LOCAL_BASE, so /etc/slurm,
# /etc/munge and a system munged are not touched; the ports are not Slurm's defaults. Only the
# processes this script started (their PIDs in $SLURM_LOCAL_BASE/run/*.ownpid) are ever stopped.
#
# usage: SLURM_LOCAL_BASE=DIR scripts/slurm-local.sh up [NNODES]   # nodes node1..nodeN
#        SLURM_LOCAL_BASE=DIR scripts/slurm-local.sh down
# env:   SLURM_LOCAL_PORT  slurmctld's port (default 16917); slurmd i listens on PORT+i
# Then: export SLURM_CONF=$SLURM_LOCAL_BASE/etc/slurm.conf for scontrol, sinfo, srun.
set -euo pipefail

BASE=${SLURM_LOCAL_BASE:?set SLURM_LOCAL_BASE to a fresh folder}
ETC=$BASE/etc RUN=$BASE/run STATE=$BASE/state LOG=$BASE/log
CTLD_PORT=${SLURM_LOCAL_PORT:-16917}
HOST=$(hostname -s)
export SLURM_CONF=$ETC/slurm.conf

write_conf() {
  local nnodes=$1 cpus mem i
  cpus=$(nproc)
  # RealMemory below MemTotal (MiB), or slurmctld rejects the node for "Low RealMemory".
  mem=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 * 9 / 10 / nnodes ))
  mkdir -p "$ETC" "$RUN" "$STATE/ctld" "$LOG" "$BASE/munge"
  # munged refuses a socket whose folders are not searchable by all (mktemp -d makes 0700).
  chmod 755 "$BASE" "$RUN"
  head -c 1024 /dev/urandom > "$BASE/munge/munge.key"
  chmod 700 "$BASE/munge"
  chmod 400 "$BASE/munge/munge.key"
  cat > "$SLURM_CONF" <<EOF
ClusterName=gpuvettest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$RUN/munge.socket
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/slurmd-%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
# no cgroups and no systemd needed
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
EOF
  # Several slurmd on one host: distinct NodeName and Port, the same NodeHostname.
  for i in $(seq 1 "$nnodes"); do
    mkdir -p "$STATE/slurmd-node$i"
    echo "NodeName=node$i NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((CTLD_PORT + i)) CPUs=$cpus RealMemory=$mem State=UNKNOWN" >> "$SLURM_CONF"
  done
  echo "PartitionName=debug Nodes=node[1-$nnodes] Default=YES MaxTime=INFINITE State=UP" >> "$SLURM_CONF"
}

start_bg() {  # start_bg NAME cmd...: a foreground-mode daemon in its own session, its PID recorded
  local name=$1
  shift
  setsid "$@" >> "$LOG/$name.out" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.ownpid"
}

up() {
  local nnodes=${1:-2} i
  [ -e "$RUN/munged.ownpid" ] && { echo "slurm-local: $BASE is already up" >&2; exit 1; }
  write_conf "$nnodes"
  start_bg munged /usr/sbin/munged -F --key-file="$BASE/munge/munge.key" --socket="$RUN/munge.socket" \
    --pid-file="$RUN/munged.pid" --log-file="$LOG/munged.log" --seed-file="$STATE/munged.seed"
  for i in $(seq 50); do [ -S "$RUN/munge.socket" ] && break; sleep 0.1; done
  start_bg slurmctld /usr/sbin/slurmctld -D -i -f "$SLURM_CONF"
  for i in $(seq 1 "$nnodes"); do
    start_bg "slurmd-node$i" /usr/sbin/slurmd -D -f "$SLURM_CONF" -N "node$i"
  done
  [ -S "$RUN/munge.socket" ] || { echo "slurm-local: munged did not start:" >&2; cat "$LOG/munged.out" >&2; return 1; }
  # Ready when every node is idle (at most 60 s; each sinfo is stopped after 5 s).
  local deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(timeout 5 sinfo -h -o '%t' 2>/dev/null | sort -u)" = "idle" ] && return 0
    sleep 0.2
  done
  echo "slurm-local: the nodes are not idle after 60 s" >&2
  timeout 5 sinfo -N -l >&2 || true
  tail -n 20 "$LOG"/*.log >&2 || true
  return 1
}

stop_pids() {  # SIGTERM each recorded own PID, wait up to 10 s, then SIGKILL what is left
  local f pid pids=() i alive
  for f in "$@"; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    kill -0 "$pid" 2>/dev/null && { kill -TERM "$pid"; pids+=("$pid"); }
    rm -f "$f"
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  for i in $(seq 100); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"; done
  return 0
}

down() {
  stop_pids "$RUN"/slurmd-*.ownpid   # the nodes first, then the controller, then munge
  stop_pids "$RUN"/slurmctld.ownpid
  stop_pids "$RUN"/munged.ownpid
  rm -rf "$ETC" "$RUN" "$STATE" "$LOG" "$BASE/munge"
}

case "${1:-}" in
  up) up "${2:-2}" ;;
  down) down ;;
  *) echo "usage: SLURM_LOCAL_BASE=DIR $0 up [NNODES] | down" >&2; exit 2 ;;
esac
