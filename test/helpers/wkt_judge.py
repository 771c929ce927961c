"""PROJ's reading of WKT texts: for each, the nine points scripts/crs-judge.py takes for a code (over the area of
use of the EPSG code it was written from), read from the WKT itself as PROJ reads it. Run with the GeoPandas venv's
python; stdin {key: [code, wkt]}, stdout {key: {"points": [...]} | {"error": ...}}.
"""

import importlib.util
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from pyproj import CRS  # noqa: E402

spec = importlib.util.spec_from_file_location("crs_judge", sys.argv[1])
judge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(judge)

out = {}
for key, (code, wkt) in json.load(sys.stdin).items():
    try:
        out[key] = judge.points_of(CRS.from_wkt(wkt), CRS.from_epsg(int(code)).area_of_use)
    except Exception as error:  # PROJ cannot read it either
        out[key] = {"error": str(error)[:200]}
json.dump(out, sys.stdout)
