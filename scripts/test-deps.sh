#!/usr/bin/env bash
# Debian packages the test suite uses besides npm's: PROJ through pyproj, the independent judge of the PROJJSON
# we write, and PROJ's projjson.schema.json (proj-data), which validate checks crs against; chromium, the real browser the report is rendered in (playwright-core drives it; no browser is
# downloaded); GDAL (gdal-bin, python3-gdal), which judges the GeoPackages the sink writes and writes and judges the source readers' corpus; zip, for zipped Shapefile feeds; QGIS (python3-qgis, qgis-providers), which opens what the sinks write as an analyst would. (Ceph RGW is installed by scripts/s3-server.sh, Slurm by scripts/slurm.sh.) Idempotent; needs root
# to install. Also a venv with GeoPandas (below).
set -euo pipefail
# A step that fails says which: a clean-clone CI run once stopped here with nothing on its log.
trap 'echo "test-deps: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
missing=()
/usr/bin/python3 -c "import pyproj" 2>/dev/null || missing+=(python3-pyproj)
[ -f /usr/share/proj/projjson.schema.json ] || missing+=(proj-data) # validate checks crs against PROJ's schema
[ -x "${GEOREFRESH_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v ogrinfo >/dev/null || missing+=(gdal-bin) # judges the GeoPackage sink: ogrinfo, ogr2ogr
/usr/bin/python3 -c "import osgeo_utils.samples.validate_gpkg" 2>/dev/null || missing+=(python3-gdal) # validate_gpkg.py; OGR judges the source readers
command -v zip >/dev/null || missing+=(zip) # zipped Shapefile feeds in the source tests
# QGIS, the analysts' desktop GIS, opens the sinks' GeoPackage and PostGIS table headless (test/analysts/qgis.postgis.test.ts)
/usr/bin/python3 -c "import qgis.core" 2>/dev/null || missing+=(python3-qgis)
[ -f /usr/lib/qgis/plugins/libprovider_postgres.so ] || missing+=(qgis-providers)
/usr/bin/python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv) # the GeoPandas venv below
command -v systemd-analyze >/dev/null || missing+=(systemd) # verifies infra/systemd's units (nothing is started)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test-deps: missing ${missing[*]}; as root run: apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  /usr/bin/python3 -c "import pyproj"
  "${GEOREFRESH_CHROMIUM:-/usr/bin/chromium}" --version >/dev/null
  ogrinfo --version >/dev/null
fi

# GeoPandas (with pyarrow, shapely, pyproj and pyogrio, which carries its own GDAL), the analysts' reader the
# GeoPandas suite holds our files to. Debian's GeoPandas is too old to read GeoParquet 1.1; pip's index here serves
# the wheels offline (pip config list), into a venv of its own.
default_venv=/opt/georefresh/geopandas-venv
[ "$(id -u)" = 0 ] || default_venv="${XDG_CACHE_HOME:-$HOME/.cache}/georefresh/geopandas-venv"
venv="${GEOREFRESH_GEOPANDAS_VENV:-$default_venv}" # test/helpers/geopandas.ts looks in the same places
# DuckDB's Python package too: the README's no-CLI DuckDB line runs with it (test/cli/readme.postgis.test.ts).
if ! "$venv/bin/python" -c "import geopandas, pyarrow, pyogrio, shapely, duckdb" 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  index="$(pip config get global.extra-index-url 2>/dev/null | cut -d' ' -f1 || true)"
  log="$(mktemp)" # pip warns about the index's missing mirror dirs; its output matters only when it fails
  if ! "$venv/bin/pip" install -q --disable-pip-version-check ${index:+--index-url "$index"} geopandas pyarrow pyogrio shapely pyproj duckdb >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  rm -f "$log"
  "$venv/bin/python" -c "import geopandas, pyarrow, pyogrio, shapely, duckdb"
fi

# Argo Workflows' object model (test/infra/manifests.test.ts validates infra/argo with it), installed apart from the
# root package: its only release declares Node >= 22, and would make every `npm ci` on Node 20 warn. It runs here.
argo="$(dirname "$0")/../test/argo-models"
if [ ! -f "$argo/node_modules/@kubernetes-models/argo-workflows/package.json" ]; then
  npm ci --prefix "$argo" --no-audit --no-fund --loglevel=error >/dev/null
fi
