#!/usr/bin/env bash
# A single-node Ceph RADOS Gateway on 127.0.0.1: the S3 server georefresh is tested against, because it
# honours If-None-Match / If-Match (stores that ignore them cannot test promotion).
#
#   scripts/s3-server.sh start   install (Debian packages) if missing, start mon + memstore OSD + radosgw; idempotent
#   scripts/s3-server.sh stop    stop only the daemons this script started (pid files under $GEOREFRESH_RGW_DIR)
#   scripts/s3-server.sh status  exit 0 when the S3 endpoint answers
#   scripts/s3-server.sh env     print the endpoint and credentials as `export` lines: eval "$(scripts/s3-server.sh env)"
#
# Settings (env): GEOREFRESH_RGW_DIR (default /tmp/georefresh-rgw), GEOREFRESH_RGW_PORT (7480),
# GEOREFRESH_MON_PORT (46789). Data lives in memory (memstore): a restart starts empty.
set -euo pipefail

DIR=${GEOREFRESH_RGW_DIR:-/tmp/georefresh-rgw}
MIN_PART=65536
RGW_PORT=${GEOREFRESH_RGW_PORT:-7480}
MON_PORT=${GEOREFRESH_MON_PORT:-46789}
ACCESS_KEY=georefresh-test
SECRET_KEY=georefresh-test-secret-0123456789
BUCKET=georefresh-test
CONF="$DIR/ceph.conf"
ENDPOINT="http://127.0.0.1:$RGW_PORT"

# shellcheck source=scripts/daemons.sh
source "$(dirname "$0")/daemons.sh"

say() { echo "s3-server: $*" >&2; }

print_env() {
  cat <<ENV
export S3_ENDPOINT=$ENDPOINT
export AWS_ENDPOINT_URL_S3=$ENDPOINT
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=us-east-1
export GEOREFRESH_S3_PATH_STYLE=true
export GEOREFRESH_TEST_S3_BUCKET=$BUCKET
export GEOREFRESH_S3_MIN_PART_BYTES=$MIN_PART
ENV
}

answers() { curl -s -o /dev/null --max-time 2 "$ENDPOINT/"; }


install_packages() {
  if command -v radosgw >/dev/null && command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null; then return; fi
  if [ "$(id -u)" != 0 ]; then
    say "Ceph is not installed and this is not root: run 'apt-get install --no-install-recommends ceph-mon ceph-osd radosgw' as root"
    exit 1
  fi
  say "installing ceph-mon ceph-osd radosgw (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw curl >/dev/null
}

write_conf() {
  local fsid=$1
  cat > "$CONF" <<CONFEOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$MON_PORT
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
ms bind msgr2 = false
public addr = 127.0.0.1
cluster addr = 127.0.0.1
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
keyring = $DIR/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
paxos propose interval = 0.01
mon data = $DIR/mon/\$name
osd data = $DIR/osd/\$name
osd objectstore = memstore
memstore device bytes = 4294967296
osd crush update on start = false
osd class update on start = false
err to stderr = false
log to stderr = false

[client.rgw.georefresh]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT tcp_nodelay=1
rgw data = $DIR/rgw
rgw enable usage log = false
rgw dns name = localhost
# Parts of 64 KiB, so the tests' multipart uploads stay small (AWS's minimum is 5 MiB; print_env says this one).
rgw multipart min part size = $MIN_PART
CONFEOF
}

start() {
  if answers; then return 0; fi
  install_packages
  command -v curl >/dev/null || { apt-get install -y -qq curl >/dev/null; }
  stop_daemons
  rm -rf "$DIR"
  mkdir -p "$DIR"/{run,log,mon/mon.a,osd/osd.0,rgw}
  local fsid osd_uuid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$fsid"
  ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --addv a "[v1:127.0.0.1:$MON_PORT]" --fsid "$fsid" "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/keyring"
  ceph-mon -c "$CONF" -i a
  local osd_id
  osd_id=$(timeout 60 ceph -c "$CONF" osd create "$osd_uuid")
  [ "$osd_id" = 0 ] || { say "unexpected osd id '$osd_id'"; exit 1; }
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$osd_uuid" 2>>"$DIR/log/mkfs.log"
  # Placed by hand before the OSD starts: 'crush update on start' races the fsid check.
  timeout 60 ceph -c "$CONF" osd crush add osd.0 1.0 root=default 2>/dev/null
  ceph-osd -c "$CONF" -i 0
  radosgw -c "$CONF" -n client.rgw.georefresh
  await_ready 60 "$DIR/log" "radosgw did not answer on $ENDPOINT"
  timeout 60 radosgw-admin -c "$CONF" -n client.rgw.georefresh user create --uid georefresh --display-name georefresh \
    --access-key "$ACCESS_KEY" --secret "$SECRET_KEY" >/dev/null
  say "ready on $ENDPOINT"
}

stop_daemons() { stop_pidfiles "$DIR/run/client.rgw.georefresh.pid" "$DIR/run/osd.0.pid" "$DIR/run/mon.a.pid"; }

case "${1:-}" in
  start) start ;;
  stop) stop_daemons ;;
  status) answers ;;
  env) print_env ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
