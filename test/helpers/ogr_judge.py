"""GDAL (OGR) reads a source file and PROJ (pyproj) reprojects it: the judge the source readers are held to.

argv: path, layer ("" for the first), crs ("" for the file's own), to ("" to pick by datum: NAD83 -> EPSG:4269
under PROJ's null transform, which is what georefresh's NAD83 -> WGS 84 is; else OGC:CRS84), then open options
(KEY=VALUE, e.g. X_POSSIBLE_NAMES=X for a CSV's point columns). Prints
{"features": [{"properties": {...}, "geometry": GeoJSON | null}], "crs": "<what OGR found>"}."""
import json
import sys

from osgeo import gdal, ogr
import pyproj

ogr.UseExceptions()
gdal.UseExceptions()
path, layer_name, given, to = sys.argv[1:5]
ds = gdal.OpenEx(path, gdal.OF_VECTOR, open_options=sys.argv[5:])
layer = ds.GetLayerByName(layer_name) if layer_name else ds.GetLayer(0)
srs = layer.GetSpatialRef()
src = pyproj.CRS.from_user_input(given) if given else pyproj.CRS.from_wkt(srs.ExportToWkt())
if not to:
    to = "EPSG:4269" if "1983" in (src.datum.name if src.datum else "") else "OGC:CRS84"
t = pyproj.Transformer.from_crs(src, pyproj.CRS.from_user_input(to), always_xy=True)


def move(c):
    if c and isinstance(c[0], (int, float)):
        x, y = t.transform(c[0], c[1])
        return [x, y] + list(c[2:3])
    return [move(x) for x in c]


def geometry(g):
    if g is None:
        return None
    j = json.loads(g.ExportToJson())
    return tr(j)


def tr(j):
    if j["type"] == "GeometryCollection":
        return {"type": j["type"], "geometries": [tr(x) for x in j["geometries"]]}
    return {"type": j["type"], "coordinates": move(j["coordinates"]) if j["coordinates"] else []}


defn = layer.GetLayerDefn()
names = [defn.GetFieldDefn(i).GetName() for i in range(defn.GetFieldCount())]
out = []
for f in layer:
    out.append({"properties": {n: f.GetField(n) for n in names}, "geometry": geometry(f.GetGeometryRef())})
print(json.dumps({"features": out, "crs": src.to_string(), "to": to}))
