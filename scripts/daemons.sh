# Sourced by the service scripts (s3-server.sh, slurm.sh): daemons tracked by their pid files.

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pidfiles FILE...: TERM each live daemon, wait up to 5 s, then KILL; remove the pid files.
stop_pidfiles() {
  local pidfile pid
  for pidfile in "$@"; do
    if pid_alive "$pidfile"; then
      pid=$(cat "$pidfile")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

# await_ready SECONDS LOGDIR MESSAGE: poll `answers` every 0.2 s; on timeout print MESSAGE and the logs, exit 1.
await_ready() {
  local tries=$(($1 * 5))
  for _ in $(seq 1 "$tries"); do
    if answers; then return 0; fi
    sleep 0.2
  done
  say "$3 within $1 s; logs in $2"
  tail -n 20 "$2"/*.log >&2 || true
  exit 1
}
