#!/usr/bin/env bash
# A single-node Slurm cluster on 127.0.0.1 (Debian's slurm-wlm and munge), for the array-job tests of
# infra/slurm/backfill.sbatch. No systemd here: the daemons are started directly and their pid files kept.
#
#   scripts/slurm.sh start    install (Debian packages) if missing, start munged, slurmctld and slurmd; idempotent
#   scripts/slurm.sh stop     stop only the daemons this script started
#   scripts/slurm.sh status   exit 0 when sinfo answers and the node is idle or busy
#   scripts/slurm.sh env      print SLURM_CONF as an `export` line: eval "$(scripts/slurm.sh env)"
#
# Settings (env): GEOREFRESH_SLURM_DIR (default /tmp/georefresh-slurm), GEOREFRESH_SLURM_PORT (6817; slurmd
# takes the next port), GEOREFRESH_TRANSIENT_EXIT (75, the code Slurm requeues on: RequeueExit).
set -euo pipefail

DIR=${GEOREFRESH_SLURM_DIR:-/tmp/georefresh-slurm}
PORT=${GEOREFRESH_SLURM_PORT:-6817}
TRANSIENT=${GEOREFRESH_TRANSIENT_EXIT:-75}
CONF="$DIR/slurm.conf"
SOCKET="$DIR/munge/munge.socket.2"
NODE=$(hostname -s)

# shellcheck source=scripts/daemons.sh
source "$(dirname "$0")/daemons.sh"

say() { echo "slurm: $*" >&2; }

answers() {
  [ -f "$CONF" ] || return 1
  local state
  state=$(SLURM_CONF="$CONF" timeout 5 sinfo -h -n "$NODE" -o %t 2>/dev/null) || return 1
  case "$state" in idle*|mix*|alloc*|comp*) return 0 ;; *) return 1 ;; esac
}

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then return; fi
  if [ "$(id -u)" != 0 ]; then
    say "Slurm is not installed and this is not root: run 'apt-get install slurm-wlm munge' as root"
    exit 1
  fi
  say "installing slurm-wlm munge (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq slurm-wlm munge >/dev/null
}

write_conf() {
  local cpus
  cpus=$(nproc)
  # cred_expire=10: a requeued task may start again 10 s after it ended, not the default 120 s.
  # proctrack/linuxproc and task/none: no cgroups or systemd here. NoCtldInAddrAny, NoInAddrAny: slurmctld and
  # slurmd bind 127.0.0.1 (SlurmctldHost's and NodeAddr's address), not every interface.
  cat > "$CONF" <<CONFEOF
ClusterName=georefresh
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET,cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
RequeueExit=$TRANSIENT
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
SlurmdTimeout=30
InactiveLimit=0
KillWait=10
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONFEOF
}

start_munge() {
  if pid_alive "$DIR/munge/munged.pid"; then return; fi
  mkdir -p "$DIR/munge"
  [ -f "$DIR/munge/munge.key" ] || head -c 1024 /dev/urandom > "$DIR/munge/munge.key"
  chmod 0400 "$DIR/munge/munge.key"
  chown -R munge:munge "$DIR/munge"
  # The socket's directory must be world-readable, else clients get "Socket is inaccessible".
  chmod 0755 "$DIR/munge"
  runuser -u munge -- munged --socket="$SOCKET" --key-file="$DIR/munge/munge.key" --pid-file="$DIR/munge/munged.pid" \
    --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munged.seed"
}

start() {
  if answers; then return 0; fi
  install_packages
  stop_daemons
  rm -rf "$DIR"
  mkdir -p "$DIR"/{state,spool,run,log}
  write_conf
  start_munge
  SLURM_CONF="$CONF" slurmctld -i -f "$CONF"
  SLURM_CONF="$CONF" slurmd -f "$CONF"
  await_ready 30 "$DIR/log" "the node did not become idle"
  say "ready: SLURM_CONF=$CONF"
}

stop_daemons() { stop_pidfiles "$DIR/run/slurmd.pid" "$DIR/run/slurmctld.pid" "$DIR/munge/munged.pid"; }

case "${1:-}" in
  start) start ;;
  stop) stop_daemons ;;
  status) answers ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
