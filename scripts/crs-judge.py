"""PROJ's own readings for the every-code CRS test (test/geo/crs-every-code.test.ts): for each EPSG code on stdin,
points inside its area of use, as x/y in the CRS and as the lon/lat PROJ transforms them to (WGS 84, always_xy, no
grid files). Also, with --wkt, the WKT GDAL writes for the code: the ESRI `.prj` of its Shapefile driver and the
WKT1 of a GeoPackage's gpkg_spatial_ref_sys."""

import json
import sys
import warnings

warnings.filterwarnings("ignore")
from pyproj import CRS, Transformer  # noqa: E402

FRACTIONS = (0.2, 0.5, 0.8)


def points(code):
    crs = CRS.from_epsg(code)
    area = crs.area_of_use
    if area is None:
        return {"error": "no area of use"}
    w, s, e, n = area.bounds
    if e < w:
        e += 360
    to_crs = Transformer.from_crs(4326, crs, always_xy=True)
    to_wgs = Transformer.from_crs(crs, 4326, always_xy=True)
    out = []
    for fx in FRACTIONS:
        for fy in FRACTIONS:
            lon = w + (e - w) * fx
            lat = s + (n - s) * fy
            lon = lon - 360 if lon > 180 else lon
            x, y = to_crs.transform(lon, lat)
            if not (abs(x) < 1e15 and abs(y) < 1e15):
                continue
            lon2, lat2 = to_wgs.transform(x, y)
            if abs(lon2) <= 180 and abs(lat2) <= 90:
                out.append([x, y, lon2, lat2])
    return {"points": out}


def main():
    codes = json.load(sys.stdin)
    result = {}
    for code in codes:
        try:
            result[str(code)] = points(code)
        except Exception as error:  # PROJ itself cannot: the test counts it apart
            result[str(code)] = {"error": str(error)[:200]}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
