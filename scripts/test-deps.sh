#!/usr/bin/env bash
# Debian packages the test suite uses besides npm's: PROJ through pyproj, the independent judge of the
# PROJJSON we write. (Ceph RGW is installed by scripts/s3-server.sh.) Idempotent; needs root to install.
set -euo pipefail
if /usr/bin/python3 -c "import pyproj" 2>/dev/null; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "test-deps: python3-pyproj is missing; as root run: apt-get install --no-install-recommends python3-pyproj" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends python3-pyproj >/dev/null
/usr/bin/python3 -c "import pyproj"
