#!/usr/bin/env bash
# PostgreSQL 15 with PostGIS on loopback: the database server georefresh's PostGIS sink is tested against.
# Debian's packages (postgresql-15, postgresql-15-postgis-3, installed when missing), run as the postgres user
# without systemd: initdb into a scratch directory, pg_ctl, a loopback port and a socket in that directory.
#
#   scripts/postgres.sh start    initdb (first time) and start; idempotent
#   scripts/postgres.sh stop     stop only the server this script started
#   scripts/postgres.sh status   exit 0 when the server accepts connections
#   scripts/postgres.sh env      print PGHOST, PGPORT, PGUSER, PGDATABASE and GEOREFRESH_TEST_POSTGRES_URL as
#                                `export` lines: eval "$(scripts/postgres.sh env)"
#
# Settings (env): GEOREFRESH_POSTGRES_DIR (default /tmp/georefresh-postgres), GEOREFRESH_POSTGRES_PORT (55432).
# The test role trusts loopback connections only (georefresh_pw must give its password); the data directory is scratch (a restart keeps it, `rm` resets).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${GEOREFRESH_POSTGRES_DIR:-/tmp/georefresh-postgres}
PORT=${GEOREFRESH_POSTGRES_PORT:-55432}
BIN=/usr/lib/postgresql/15/bin
DB=georefresh_test
ROLE=georefresh
# The password role's secret: a test fixture, never a real one (test/sinks/sink-password.postgis.test.ts).
PW_ROLE=georefresh_pw
PW_SECRET=never-printed-7f3a

say() { echo "postgres: $*" >&2; }

print_env() {
  cat <<ENV
export PGHOST=127.0.0.1
export PGPORT=$PORT
export PGUSER=$ROLE
export PGDATABASE=$DB
export GEOREFRESH_TEST_POSTGRES_URL=postgresql://$ROLE@127.0.0.1:$PORT/$DB
ENV
}

as_postgres() { runuser -u postgres -- "$@"; }
answers() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" 2>/dev/null; }

install() {
  if [ -x "$BIN/pg_ctl" ] && [ -f /usr/share/postgresql/15/extension/postgis.control ]; then return 0; fi
  say "installing postgresql-15 and postgresql-15-postgis-3 from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-15-postgis-3 >/dev/null
}

start() {
  if answers; then
    password_role
    return 0
  fi
  install
  mkdir -p "$DIR"
  chown postgres:postgres "$DIR"
  if [ ! -f "$DIR/data/PG_VERSION" ]; then
    as_postgres "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
      { say "initdb failed; see $DIR/initdb.log"; tail -n 20 "$DIR/initdb.log" >&2; exit 1; }
  fi
  # Loopback and the directory's own socket only; fsync off: a test server, rebuilt from scratch when lost.
  as_postgres "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    >/dev/null || { say "did not start; see $DIR/postgres.log"; tail -n 20 "$DIR/postgres.log" >&2; exit 1; }
  local psql=(as_postgres psql -h "$DIR" -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" != "1" ]; then
    "${psql[@]}" -d postgres -c "CREATE ROLE $ROLE LOGIN SUPERUSER"
  fi
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE $DB OWNER $ROLE"
  fi
  "${psql[@]}" -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS postgis"
  password_role
  say "ready on 127.0.0.1:$PORT (database $DB, PostGIS $("${psql[@]}" -d "$DB" -c 'SELECT postgis_lib_version()'))"
}

# A second role that must give a password (SCRAM), for the tests of a sink without one or with a wrong one;
# every other role keeps loopback trust.
password_role() {
  local psql=(as_postgres psql -h "$DIR" -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$PW_ROLE'")" != "1" ]; then
    "${psql[@]}" -d postgres -c "SET password_encryption = 'scram-sha-256'; CREATE ROLE $PW_ROLE LOGIN PASSWORD '$PW_SECRET'"
    "${psql[@]}" -d postgres -c "GRANT CREATE ON DATABASE $DB TO $PW_ROLE"
  fi
  local hba="$DIR/data/pg_hba.conf"
  if ! grep -q "^host all $PW_ROLE " "$hba"; then
    sed -i "1i host all $PW_ROLE 127.0.0.1/32 scram-sha-256" "$hba"
    as_postgres "$BIN/pg_ctl" -D "$DIR/data" reload >/dev/null
  fi
}

stop() {
  if [ -f "$DIR/data/postmaster.pid" ]; then as_postgres "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null || true; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) answers ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
