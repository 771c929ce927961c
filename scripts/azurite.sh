#!/usr/bin/env bash
# Azurite's blob service on 127.0.0.1: the Azure Blob Storage server georefresh's az:// backend is tested against
# (it honours If-None-Match: * and If-Match on Put Blob and Put Block List, as Azure does).
#
#   scripts/azurite.sh start   start azurite-blob from node_modules (npm ci installs it); idempotent
#   scripts/azurite.sh stop    stop only the server this script started (pid file under $GEOREFRESH_AZURITE_DIR)
#   scripts/azurite.sh status  exit 0 when the blob endpoint answers
#   scripts/azurite.sh env     print the endpoint and credentials as `export` lines: eval "$(scripts/azurite.sh env)"
#
# Settings (env): GEOREFRESH_AZURITE_DIR (default /tmp/georefresh-azurite), GEOREFRESH_AZURITE_PORT (10000).
# Data lives in memory: a restart starts empty. The account is Azurite's documented development account.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${GEOREFRESH_AZURITE_DIR:-/tmp/georefresh-azurite}
PORT=${GEOREFRESH_AZURITE_PORT:-10000}
ACCOUNT=devstoreaccount1
# Azurite's well-known development key (published in its README); it protects nothing.
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
ENDPOINT="http://127.0.0.1:$PORT/$ACCOUNT"
CONTAINER=georefresh-test
BIN=node_modules/.bin/azurite-blob

# shellcheck source=scripts/daemons.sh
source scripts/daemons.sh

say() { echo "azurite: $*" >&2; }

print_env() {
  cat <<ENV
export AZURITE_ENDPOINT=$ENDPOINT
export AZURE_STORAGE_ACCOUNT=$ACCOUNT
export AZURE_STORAGE_KEY=$KEY
export AZURE_STORAGE_BLOB_ENDPOINT=$ENDPOINT
export GEOREFRESH_TEST_AZURE_CONTAINER=$CONTAINER
ENV
}

# Any HTTP answer counts (an unauthenticated GET gets 400/403): the server is up.
answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; }

start() {
  if answers; then return 0; fi
  [ -x "$BIN" ] || { say "$BIN is missing: run 'npm ci' first"; exit 1; }
  command -v curl >/dev/null || { apt-get install -y -qq curl >/dev/null; }
  stop_pidfiles "$DIR/azurite.pid"
  rm -rf "$DIR"
  mkdir -p "$DIR/log"
  # --skipApiVersionCheck: the SDK may speak a newer service version than this Azurite knows; the calls we
  # make are all old ones. --loose would accept unknown headers silently; we do not want that.
  nohup "$BIN" --blobHost 127.0.0.1 --blobPort "$PORT" --inMemoryPersistence --skipApiVersionCheck \
    --disableProductStyleUrl >"$DIR/log/azurite.log" 2>&1 &
  echo $! >"$DIR/azurite.pid"
  await_ready 60 "$DIR/log" "azurite-blob did not answer on $ENDPOINT"
  # The container README's walk-through names (georefresh doctor --store az://georefresh-test/geo), so it works
  # as written; the tests make their own beside it.
  AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$ACCOUNT;AccountKey=$KEY;BlobEndpoint=$ENDPOINT;" \
    node --input-type=module -e "import { BlobServiceClient } from '@azure/storage-blob';
      await BlobServiceClient.fromConnectionString(process.env.AZURE_STORAGE_CONNECTION_STRING)
        .getContainerClient('$CONTAINER').createIfNotExists();" ||
    { say "could not create container $CONTAINER"; exit 1; }
  say "ready on $ENDPOINT (container $CONTAINER)"
}

case "${1:-}" in
  start) start ;;
  stop) stop_pidfiles "$DIR/azurite.pid" ;;
  status) answers ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
