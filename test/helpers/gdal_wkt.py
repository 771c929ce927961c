"""The WKT GDAL writes for EPSG codes: as a GeoPackage or FlatGeobuf stores it (WKT1) and as a .prj (WKT1_ESRI).

Run with Debian's python3 (python3-gdal); prints {code: [wkt1, esri]} (null where GDAL cannot export the code, or its
database, older than PROJ's in the venv, lacks it).
"""

import json
import sys

from osgeo import gdal, osr

gdal.UseExceptions()
out = {}
for code in sys.argv[1:]:
    srs = osr.SpatialReference()
    try:
        srs.ImportFromEPSG(int(code))
    except Exception:
        out[code] = [None, None]
        continue
    pair = []
    for options in ([], ["FORMAT=WKT1_ESRI"]):
        try:
            pair.append(srs.ExportToWkt(options) or None)
        except Exception:
            pair.append(None)
    out[code] = pair
json.dump(out, sys.stdout)
