"""npm run build:crs-judge: PROJ's own readings of every CRS in crs-index/epsg.json, for test/geo/crs-every-code.test.ts.

For each EPSG code, nine points spread over its area of use (0.2, 0.5 and 0.8 of its width and height), each as the
x/y PROJ puts it at in the CRS (from WGS 84) and the WGS 84 lon/lat PROJ reads that x/y back as (always_xy, no grid
files, as a machine without PROJ_NETWORK has), with whether PROJ fell back to its ballpark there. Written gzipped to
test/fixtures/crs-judge.json.gz; the test re-asks PROJ for a sample of codes every run, so the file cannot go stale
against the PROJ that judges it.

    python scripts/crs-judge.py                 # every code, two processes: about three minutes
    python scripts/crs-judge.py 4267 28992      # the named codes, as JSON on stdout (what the test's resample runs)
"""

import gzip
import json
import multiprocessing
import sys
import warnings

warnings.filterwarnings("ignore")
import pyproj  # noqa: E402
from pyproj import CRS, Transformer  # noqa: E402
from pyproj.database import get_database_metadata  # noqa: E402

FRACTIONS = (0.2, 0.5, 0.8)
OUT = "test/fixtures/crs-judge.json.gz"


def points(code):
    return points_of(CRS.from_epsg(code))


def points_of(crs, area=None):
    """Nine points of the CRS's area (or the given one): x/y in the CRS, PROJ's WGS 84 reading, ballpark or not."""
    area = area or crs.area_of_use
    if area is None:
        return {"error": "no area of use"}
    w, s, e, n = area.bounds
    if e < w:
        e += 360
    geographic = crs.is_geographic
    to_crs = None if geographic else Transformer.from_crs(crs.geodetic_crs, crs, always_xy=True)
    to_wgs = Transformer.from_crs(crs, 4326, always_xy=True)
    out = []
    for fx in FRACTIONS:
        for fy in FRACTIONS:
            lon = w + (e - w) * fx
            lat = s + (n - s) * fy
            lon = lon - 360 if lon > 180 else lon
            # The area's lon/lat taken as the CRS's own (a datum apart is metres): a point well inside it.
            x, y = (lon, lat) if geographic else to_crs.transform(lon, lat)
            if not (abs(x) < 1e15 and abs(y) < 1e15):
                continue
            lon2, lat2 = to_wgs.transform(x, y)
            if not (abs(lon2) <= 180 and abs(lat2) <= 90):
                continue
            try:
                used = to_wgs.get_last_used_operation().description
            except Exception:  # one candidate only: the transformer is that operation
                used = to_wgs.description
            out.append([float(f"{x:.15g}"), float(f"{y:.15g}"), lon2, lat2, 1 if "Ballpark" in used else 0])
    return {"points": out}


def judged(code):
    try:
        return str(code), points(code)
    except Exception as error:  # PROJ itself cannot: the test counts it apart
        return str(code), {"error": str(error)[:200]}


def main():
    meta = {"proj": pyproj.proj_version_str, "epsg": get_database_metadata("EPSG.VERSION")}
    if len(sys.argv) > 1:
        json.dump({**meta, "codes": dict(judged(int(c)) for c in sys.argv[1:])}, sys.stdout)
        return
    with open("crs-index/epsg.json") as f:
        codes = sorted(int(c) for c in json.load(f)["crs"])
    with multiprocessing.Pool(2) as pool:
        result = dict(pool.imap(judged, codes, chunksize=20))
    with gzip.GzipFile(OUT, "wb", mtime=0) as f:
        f.write(json.dumps({**meta, "codes": result}, separators=(",", ":")).encode())
    print(f"{OUT}: {len(result)} codes, PROJ {meta['proj']}, EPSG {meta['epsg']}")


if __name__ == "__main__":
    main()
