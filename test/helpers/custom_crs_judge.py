"""Custom (non-EPSG) CRSs of the common projection methods, as WKT1 (GDAL's), WKT2 and PROJJSON, each with PROJ's
readings at nine points (scripts/crs-judge.py's). Run with the GeoPandas venv's python; argv[1] is crs-judge.py.
Prints {name: {"wkt1": …, "wkt2": …, "projjson": …, "points": [...]} | {"error": …}}.
"""

import importlib.util
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from pyproj import CRS  # noqa: E402
from pyproj.aoi import AreaOfUse  # noqa: E402

spec = importlib.util.spec_from_file_location("crs_judge", sys.argv[1])
judge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(judge)

GRS80 = "+ellps=GRS80 +towgs84=0,0,0"
# (name, proj-string, area west, south, east, north): parameters left to their defaults where the method allows.
METHODS = [
    ("lcc-2sp", f"+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=0 +y_0=0 {GRS80}", (-120, 25, -70, 50)),
    ("lcc-2sp-no-origin", f"+proj=lcc +lat_1=33 +lat_2=45 +lon_0=-96 {GRS80}", (-120, 25, -70, 50)),
    ("lcc-1sp", f"+proj=lcc +lat_1=46.5 +lat_0=46.5 +lon_0=3 +k_0=0.9996 +x_0=700000 +y_0=6600000 {GRS80}", (-5, 41, 10, 51)),
    ("tmerc", f"+proj=tmerc +lat_0=0 +lon_0=9 +k=0.9996 +x_0=500000 +y_0=0 {GRS80}", (6, 0, 12, 80)),
    ("tmerc-defaults", f"+proj=tmerc +lon_0=-105 {GRS80}", (-108, 30, -102, 48)),
    ("aea", f"+proj=aea +lat_1=29.5 +lat_2=45.5 +lat_0=23 +lon_0=-96 {GRS80}", (-120, 25, -70, 50)),
    ("merc", f"+proj=merc +lon_0=0 +k=1 {GRS80}", (-170, -70, 170, 70)),
    ("merc-2sp", f"+proj=merc +lat_ts=30 +lon_0=10 {GRS80}", (-170, -70, 170, 70)),
    ("stere-north", f"+proj=stere +lat_0=90 +lat_ts=70 +lon_0=-45 {GRS80}", (-180, 60, 180, 88)),
    ("stere-south", f"+proj=stere +lat_0=-90 +lat_ts=-71 +lon_0=0 {GRS80}", (-180, -88, 180, -60)),
    ("sterea", f"+proj=sterea +lat_0=52.15 +lon_0=5.38 +k=0.9999079 +x_0=155000 +y_0=463000 {GRS80}", (3, 50, 8, 54)),
    ("robin", f"+proj=robin +lon_0=0 {GRS80}", (-179, -85, 179, 85)),
    ("moll", f"+proj=moll +lon_0=0 {GRS80}", (-179, -85, 179, 85)),
    ("eqearth", f"+proj=eqearth +lon_0=0 {GRS80}", (-179, -85, 179, 85)),
    ("sinu", f"+proj=sinu +lon_0=0 {GRS80}", (-179, -85, 179, 85)),
    ("laea", f"+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 {GRS80}", (-10, 35, 30, 70)),
    ("laea-polar", f"+proj=laea +lat_0=90 +lon_0=0 {GRS80}", (-180, 50, 180, 88)),
    ("krovak", "+proj=krovak +lat_0=49.5 +lon_0=24.8333333333333 +alpha=30.2881397527778 +k=0.9999 +ellps=bessel +towgs84=570.8,85.7,462.8,4.998,1.587,5.261,3.56", (12, 48, 22, 51)),
    ("omerc", f"+proj=omerc +lat_0=4 +lonc=102.25 +alpha=323.025796466667 +gamma=323.130102361111 +k=0.99984 +x_0=804671 +y_0=0 {GRS80}", (99, 1, 105, 7)),
    ("eqc", f"+proj=eqc +lat_ts=0 +lon_0=0 {GRS80}", (-179, -85, 179, 85)),
    ("cea", f"+proj=cea +lat_ts=30 +lon_0=0 {GRS80}", (-179, -80, 179, 80)),
    ("aeqd", f"+proj=aeqd +lat_0=40 +lon_0=-100 {GRS80}", (-130, 20, -70, 60)),
    ("cass", f"+proj=cass +lat_0=31.73 +lon_0=35.21 +x_0=170251.555 +y_0=126867.909 {GRS80}", (34, 29, 36, 34)),
    ("poly", f"+proj=poly +lat_0=0 +lon_0=-54 {GRS80}", (-74, -34, -34, 6)),
    ("utm-towgs84", "+proj=utm +zone=32 +ellps=intl +towgs84=-87,-98,-121,0,0,0,0", (6, 40, 12, 60)),
    ("longlat-towgs84", "+proj=longlat +ellps=bessel +towgs84=565.4,50.3,465.6,0,0,0,0", (3, 50, 8, 54)),
]

out = {}
for name, text, (w, s, e, n) in METHODS:
    try:
        crs = CRS.from_proj4(text)
        # A name no EPSG CRS has: read as written, never identified by name.
        renamed = lambda t: t.replace('"unknown"', f'"georefresh custom {name}"', 1)  # noqa: E731
        try:
            wkt1 = renamed(crs.to_wkt("WKT1_GDAL"))
        except Exception:  # noqa: BLE001  (Equal Earth has no WKT1)
            wkt1 = None
        projjson = crs.to_json_dict()
        target = projjson.get("source_crs", projjson)
        target["name"] = f"georefresh custom {name}"
        entry = {
            "wkt1": wkt1,
            "wkt2": renamed(crs.to_wkt("WKT2_2019")),
            "projjson": projjson,
            "points": judge.points_of(crs, AreaOfUse(w, s, e, n, "custom")).get("points", []),
        }
        out[name] = entry
    except Exception as error:  # noqa: BLE001
        out[name] = {"error": str(error)[:200]}
json.dump(out, sys.stdout)
