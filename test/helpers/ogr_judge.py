"""GDAL (OGR) reads a source file and PROJ (pyproj) reprojects it: the judge the source readers are held to.

argv: path, layer ("" for the first), crs ("" for the file's own), to ("" to pick by datum: NAD83 -> EPSG:4269
under PROJ's null transform, which is what georefresh's NAD83 -> WGS 84 is; else OGC:CRS84), then open options
(KEY=VALUE, e.g. X_POSSIBLE_NAMES=X for a CSV's point columns). Prints
{"features": [{"properties": {...}, "geometry": GeoJSON | null (an empty one too)}], "types": {name: [OGR type,
subtype]}, "crs": "<what OGR found>"}; dates are ISO 8601, integers past 2^53 their digits as text."""
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
    if g is None or g.IsEmpty():
        return None
    if ogr.GT_Flatten(g.GetGeometryType()) == ogr.wkbTriangle:
        # GeoJSON has no Triangle: OGR's own conversion makes it the Polygon of its ring.
        g = ogr.ForceToPolygon(g)
    if g.HasCurveGeometry():
        # GeoJSON has no arcs: OGR's own linearization (ogr2ogr -nlt CONVERT_TO_LINEAR's) makes them lines.
        g = g.GetLinearGeometry()
    j = json.loads(g.ExportToJson())
    return tr(j)


def tr(j):
    if j["type"] == "GeometryCollection":
        return {"type": j["type"], "geometries": [tr(x) for x in j["geometries"]]}
    return {"type": j["type"], "coordinates": move(j["coordinates"]) if j["coordinates"] else []}


def value(f, i, kind):
    """A field as JSON: dates in ISO 8601, an integer past 2^53 as its digits (JSON readers would round it)."""
    if not f.IsFieldSetAndNotNull(i):
        return None
    if kind in (ogr.OFTDate, ogr.OFTDateTime):
        y, mo, d, h, mi, sec, tz = f.GetFieldAsDateTime(i)
        day = "%04d-%02d-%02d" % (y, mo, d)
        if kind == ogr.OFTDate:
            return day
        zone = "" if tz in (0, 1) else "Z" if tz == 100 else "%+03d:%02d" % divmod((tz - 100) * 15, 60)
        return "%sT%02d:%02d:%06.3f%s" % (day, h, mi, sec, zone)
    v = f.GetField(i)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53:
        return str(v)
    return v


defn = layer.GetLayerDefn()
fields = [defn.GetFieldDefn(i) for i in range(defn.GetFieldCount())]
types = {d.GetName(): [ogr.GetFieldTypeName(d.GetType()), ogr.GetFieldSubTypeName(d.GetSubType())] for d in fields}
out = []
for f in layer:
    props = {d.GetName(): value(f, i, d.GetType()) for i, d in enumerate(fields)}
    out.append({"properties": props, "geometry": geometry(f.GetGeometryRef())})
print(json.dumps({"features": out, "types": types, "crs": src.to_string(), "to": to}))
