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
