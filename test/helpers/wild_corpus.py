"""Feeds as other tools leave them, written here (no third-party file is copied): GDAL's writers with the options
real feeds carry, and hand-packed bytes where GDAL would tidy what the wild does not (ring orientation, a CSV
header's trailing comma, 64-bit integers past 2^53).

argv: the directory to write under (its `wild/` region folder). Prints the cases as JSON: one per file, each
{dataset, source, judge: {file, layer?, crs?, open?}, id, rows} for a file georefresh must read as OGR does, or
{dataset, source, refuse: <regex>} for one it must refuse, naming the file."""
import json
import os
import struct
import subprocess
import sys

from osgeo import gdal, ogr, osr

ogr.UseExceptions()
gdal.UseExceptions()
root = os.path.join(sys.argv[1], "wild")
os.makedirs(root, exist_ok=True)
cases = []


def path(*p):
    full = os.path.join(root, *p)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    return full


def srs(code):
    s = osr.SpatialReference()
    s.ImportFromEPSG(code)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def layer_of(driver, file, name, code, gtype, fields, rows, lco=None, ds=None):
    """Writes rows [(wkt or None, {field: value})] as a layer; returns the data source (closed unless ds given)."""
    own = ds is None
    if own:
        if os.path.exists(file):
            gdal.GetDriverByName(driver).Delete(file)
        ds = gdal.GetDriverByName(driver).Create(file, 0, 0, 0, gdal.GDT_Unknown)
    lyr = ds.CreateLayer(name, srs(code) if code else None, gtype, options=lco or [])
    for fname, ftype, sub in fields:
        d = ogr.FieldDefn(fname, ftype)
        if sub is not None:
            d.SetSubType(sub)
        lyr.CreateField(d)
    for wkt, props in rows:
        f = ogr.Feature(lyr.GetLayerDefn())
        for k, v in props.items():
            if v is None:
                f.SetFieldNull(k)
            else:
                f.SetField(k, v)
        if wkt is not None:
            f.SetGeometry(ogr.CreateGeometryFromWkt(wkt))
        lyr.CreateFeature(f)
    if own:
        ds = None
    return ds


def case(dataset, url, file, id_, rows, layer=None, judge_crs=None, open_=None, settings=None, **source):
    src = {"url": "./{region}/" + url, **source}
    judge = {"file": "wild/" + file}
    if layer:
        src["layer"] = layer
        judge["layer"] = layer
    if judge_crs:
        judge["crs"] = judge_crs
    if open_:
        judge["open"] = open_
    cases.append({"dataset": dataset, "source": src, "judge": judge, "id": id_, "rows": rows,
                  **({"settings": settings} if settings else {})})


def refuse(dataset, url, pattern, **source):
    cases.append({"dataset": dataset, "source": {"url": "./{region}/" + url, **source}, "refuse": pattern})


# Text in five code pages, as Shapefiles say them: by .cpg (GDAL's ENCODING option writes one), or not at all.
WORDS = {
    "cp1252": ["Zürich – “quoted”", "Œuvre €5", "façade"],
    "cp1251": ["Москва", "Київ", "Беларусь"],
    "cp932": ["東京都", "大阪府", "ｶﾀｶﾅ"],
    "iso-8859-1": ["Ñandú", "Résidentiel", "Ålesund"],
    "utf-8": ["Zürich", "東京都", "Москва"],
}
for enc, words in WORDS.items():
    name = enc.replace("-", "")
    rows = [(f"POINT ({-104.8 + i * 0.01} {40.4 + i * 0.01})", {"fid_": i, "name": w}) for i, w in enumerate(words)]
    fields = [("fid_", ogr.OFTInteger, None), ("name", ogr.OFTString, None)]
    layer_of("ESRI Shapefile", path(f"enc-{name}", "pts.shp"), "pts", 4326, ogr.wkbPoint, fields, rows,
             lco=[f"ENCODING={enc.upper()}"])
    case(f"shp-{name}", f"enc-{name}/pts.shp", f"enc-{name}/pts.shp", "fid_", 3)
# UTF-8 with no .cpg and no language driver byte: GDAL reads it as ISO-8859-1 unless told; so must we, and the
# source's "encoding" says otherwise.
layer_of("ESRI Shapefile", path("utf8-nocpg", "pts.shp"), "pts", 4326, ogr.wkbPoint,
         [("fid_", ogr.OFTInteger, None), ("name", ogr.OFTString, None)],
         [(f"POINT (-104.8 {40.4 + i * 0.01})", {"fid_": i, "name": w}) for i, w in enumerate(WORDS["utf-8"])],
         lco=["ENCODING=UTF-8"])
os.remove(path("utf8-nocpg", "pts.cpg"))
case("shp-utf8-nocpg", "utf8-nocpg/pts.shp", "utf8-nocpg/pts.shp", "fid_", 3)
case("shp-utf8-nocpg-said", "utf8-nocpg/pts.shp", "utf8-nocpg/pts.shp", "fid_", 3, open_=["ENCODING=UTF-8"],
     encoding="utf-8")

# Z, M and ZM, points, lines and polygons; M is a measure, not a position: GeoParquet keeps x, y (and z).
for dim, suffix in (("Z", " Z"), ("M", " M"), ("ZM", " ZM")):
    n = {"Z": 3, "M": 3, "ZM": 4}[dim]

    def pt(x, y, k):
        return " ".join(str(v) for v in [x, y, 1500 + k, 7 + k][:n])

    rows = [
        (f"LINESTRING{suffix} ({pt(-104.8, 40.4, 0)}, {pt(-104.79, 40.41, 1)}, {pt(-104.78, 40.4, 2)})", {"k": 0}),
        (f"MULTILINESTRING{suffix} (({pt(-104.7, 40.4, 0)}, {pt(-104.69, 40.41, 1)}), "
         f"({pt(-104.68, 40.4, 2)}, {pt(-104.67, 40.41, 3)}))", {"k": 1}),
        (None, {"k": 2}),
    ]
    gtype = {"Z": ogr.wkbLineString25D, "M": ogr.wkbLineStringM, "ZM": ogr.wkbLineStringZM}[dim]
    layer_of("ESRI Shapefile", path(f"dim-{dim}", "lines.shp"), "lines", 4326, gtype,
             [("k", ogr.OFTInteger, None)], rows)
    case(f"shp-lines-{dim.lower()}", f"dim-{dim}/lines.shp", f"dim-{dim}/lines.shp", "k", 3)
    ring = f"({pt(-104.8, 40.4, 0)}, {pt(-104.7, 40.4, 1)}, {pt(-104.7, 40.5, 2)}, {pt(-104.8, 40.5, 3)}, {pt(-104.8, 40.4, 0)})"
    hole = f"({pt(-104.78, 40.42, 0)}, {pt(-104.78, 40.48, 1)}, {pt(-104.72, 40.48, 2)}, {pt(-104.72, 40.42, 3)}, {pt(-104.78, 40.42, 0)})"
    gtype = {"Z": ogr.wkbPolygon25D, "M": ogr.wkbPolygonM, "ZM": ogr.wkbPolygonZM}[dim]
    layer_of("ESRI Shapefile", path(f"dim-{dim}", "polys.shp"), "polys", 4326, gtype,
             [("k", ogr.OFTInteger, None)], [(f"POLYGON{suffix} ({ring}, {hole})", {"k": 0}), (None, {"k": 1})])
    case(f"shp-polys-{dim.lower()}", f"dim-{dim}/polys.shp", f"dim-{dim}/polys.shp", "k", 2)
    gtype = {"Z": ogr.wkbPoint25D, "M": ogr.wkbPointM, "ZM": ogr.wkbPointZM}[dim]
    layer_of("ESRI Shapefile", path(f"dim-{dim}", "pts.shp"), "pts", 4326, gtype,
             [("k", ogr.OFTInteger, None)], [(f"POINT{suffix} ({pt(-104.8, 40.4, k)})", {"k": k}) for k in range(3)])
    case(f"shp-points-{dim.lower()}", f"dim-{dim}/pts.shp", f"dim-{dim}/pts.shp", "k", 3)
    gtype = {"Z": ogr.wkbMultiPoint25D, "M": ogr.wkbMultiPointM, "ZM": ogr.wkbMultiPointZM}[dim]
    layer_of("ESRI Shapefile", path(f"dim-{dim}", "mpts.shp"), "mpts", 4326, gtype, [("k", ogr.OFTInteger, None)],
             [(f"MULTIPOINT{suffix} (({pt(-104.8, 40.4, 0)}), ({pt(-104.7, 40.5, 1)}))", {"k": 0})])
    case(f"shp-multipoints-{dim.lower()}", f"dim-{dim}/mpts.shp", f"dim-{dim}/mpts.shp", "k", 1)

# A MultiPatch (a 3D surface, ESRI's): GDAL reads it as polygons; georefresh refuses it, naming the file.
layer_of("ESRI Shapefile", path("multipatch", "patch.shp"), "patch", 4326, ogr.wkbPolygon25D,
         [("k", ogr.OFTInteger, None)],
         [("POLYGON Z ((-104.8 40.4 1, -104.7 40.4 1, -104.7 40.5 2, -104.8 40.4 1))", {"k": 0})],
         lco=["SHPT=MULTIPATCH"])
refuse("shp-multipatch", "multipatch/patch.shp", r"multipatch/patch\.shp.*MultiPatch")


def shapefile_bytes(base, shape_type, records, fields):
    """Hand-packed .shp/.shx/.dbf (no .prj: the case declares its CRS) with records [(content bytes, values)]."""
    def header(length):
        return struct.pack(">i5ii", 9994, 0, 0, 0, 0, 0, length) + struct.pack("<ii", 1000, shape_type) + struct.pack("<8d", -180, -90, 180, 90, 0, 0, 0, 0)

    # Record numbers are 1-based and sequential.
    shp = bytearray()
    shx = bytearray()
    for i, (content, _) in enumerate(records):
        shx += struct.pack(">ii", 50 + len(shp) // 2, len(content) // 2)
        shp += struct.pack(">ii", i + 1, len(content) // 2) + content
    with open(base + ".shp", "wb") as f:
        f.write(header(50 + len(shp) // 2) + shp)
    with open(base + ".shx", "wb") as f:
        f.write(header(50 + len(shx) // 2) + shx)
    width = 1 + sum(w for _, w in fields)
    dbf = struct.pack("<BBBBIHHxxxxxxxxxxxxxxxxxxxx", 3, 126, 1, 1, len(records), 32 + 32 * len(fields) + 1, width)
    for name, w in fields:
        dbf += name.encode().ljust(11, b"\0") + b"N" + b"\0" * 4 + bytes([w, 0]) + b"\0" * 14
    dbf += b"\r"
    for _, values in records:
        dbf += b" " + b"".join(str(v).rjust(w).encode() for (_, w), v in zip(fields, values))
    dbf += b"\x1a"
    with open(base + ".dbf", "wb") as f:
        f.write(dbf)


def polygon_record(rings):
    pts = [p for r in rings for p in r]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    out = struct.pack("<i4dii", 5, min(xs), min(ys), max(xs), max(ys), len(rings), len(pts))
    start = 0
    for r in rings:
        out += struct.pack("<i", start)
        start += len(r)
    for x, y in pts:
        out += struct.pack("<2d", x, y)
    return out


def square(x, y, s, ccw):
    r = [(x, y), (x, y + s), (x + s, y + s), (x + s, y), (x, y)]  # clockwise, as the spec wants a shell
    return r[::-1] if ccw else r


# Rings in either orientation: a counter-clockwise shell alone; a shell and a hole both clockwise; a shell and a
# hole both counter-clockwise; two disjoint shells, one each way (writers outside ESRI's get this wrong).
shapefile_bytes(path("rings", "rings"), 5, [
    (polygon_record([square(-104.8, 40.4, 0.1, True)]), [1]),
    (polygon_record([square(-104.8, 40.4, 0.1, False), square(-104.78, 40.42, 0.02, False)]), [2]),
    (polygon_record([square(-104.8, 40.4, 0.1, True), square(-104.78, 40.42, 0.02, True)]), [3]),
    (polygon_record([square(-104.8, 40.4, 0.01, False), square(-104.7, 40.4, 0.01, True)]), [4]),
], [("k", 4)])
case("shp-rings", "rings/rings.shp", "rings/rings.shp", "k", 4, judge_crs="EPSG:4326", crs="EPSG:4326")

# Odd .prj files: ESRI's StatePlane in US feet (no authority in it), one with a BOM and CRLF, one of PROJ.4 text.
feet = [(f"POINT ({3150000 + i * 1000} {1400000 + i * 1000})", {"k": i}) for i in range(3)]
layer_of("ESRI Shapefile", path("prj-esri-feet", "pts.shp"), "pts", 2231, ogr.wkbPoint, [("k", ogr.OFTInteger, None)], feet)
case("shp-prj-esri-feet", "prj-esri-feet/pts.shp", "prj-esri-feet/pts.shp", "k", 3)
layer_of("ESRI Shapefile", path("prj-bom", "pts.shp"), "pts", 26913, ogr.wkbPoint, [("k", ogr.OFTInteger, None)],
         [(f"POINT ({520000 + i * 100} {4470000 + i * 100})", {"k": i}) for i in range(3)])
with open(path("prj-bom", "pts.prj"), "rb") as f:
    prj = f.read()
with open(path("prj-bom", "pts.prj"), "wb") as f:
    f.write(b"\xef\xbb\xbf" + prj.replace(b",", b",\r\n") + b"\r\n")
case("shp-prj-bom", "prj-bom/pts.shp", "prj-bom/pts.shp", "k", 3)
layer_of("ESRI Shapefile", path("prj-garbage", "pts.shp"), "pts", 26913, ogr.wkbPoint, [("k", ogr.OFTInteger, None)],
         [("POINT (520000 4470000)", {"k": 0})])
with open(path("prj-garbage", "pts.prj"), "w") as f:
    f.write("this is not a CRS")
refuse("shp-prj-garbage", "prj-garbage/pts.shp", r"prj-garbage/pts\.(shp|prj).*(CRS|\.prj)")

# 64-bit integers past 2^53 and every OGR field type, in GeoPackage and FlatGeobuf; empty and null geometries.
BIG = [9007199254740993, -9223372036854775807, 2**62 + 1]
typed_fields = [
    ("fid_", ogr.OFTInteger, None),
    ("big", ogr.OFTInteger64, None),
    ("small", ogr.OFTInteger, ogr.OFSTInt16),
    ("flag", ogr.OFTInteger, ogr.OFSTBoolean),
    ("real", ogr.OFTReal, None),
    ("single", ogr.OFTReal, ogr.OFSTFloat32),
    ("text", ogr.OFTString, None),
    ("day", ogr.OFTDate, None),
    ("stamp", ogr.OFTDateTime, None),
]
typed_rows = [
    ("POINT (-104.8 40.4)", {"fid_": 0, "big": BIG[0], "small": -3, "flag": 1, "real": 0.1, "single": 0.5,
                             "text": "a\nb\t\"c\"", "day": "2026-01-31", "stamp": "2026-01-31T12:34:56Z"}),
    ("POINT EMPTY", {"fid_": 1, "big": BIG[1], "small": 7, "flag": 0, "real": -1e300, "single": 1.25,
                     "text": "", "day": None, "stamp": None}),
    (None, {"fid_": 2, "big": BIG[2], "small": None, "flag": None, "real": None, "single": None, "text": None,
            "day": "1900-02-28", "stamp": "1999-12-31T23:59:59Z"}),
]
layer_of("GPKG", path("typed.gpkg"), "typed", 4326, ogr.wkbPoint, typed_fields, typed_rows)
case("gpkg-typed", "typed.gpkg", "typed.gpkg", "fid_", 3, layer="typed")
# GDAL's FlatGeobuf writer leaves out a feature with no geometry, empty or null: one row of three remains.
layer_of("FlatGeobuf", path("typed.fgb"), "typed", 4326, ogr.wkbPoint, typed_fields, typed_rows)
case("fgb-typed", "typed.fgb", "typed.fgb", "fid_", 1)
empties = [
    ("MULTIPOLYGON (((-104.8 40.4, -104.7 40.4, -104.7 40.5, -104.8 40.4)))", {"fid_": 0}),
    ("POLYGON EMPTY", {"fid_": 1}),
    ("MULTIPOLYGON EMPTY", {"fid_": 2}),
    (None, {"fid_": 3}),
]
layer_of("GPKG", path("empties.gpkg"), "empties", 4326, ogr.wkbMultiPolygon, [("fid_", ogr.OFTInteger, None)], empties)
case("gpkg-empties", "empties.gpkg", "empties.gpkg", "fid_", 4, layer="empties")
layer_of("FlatGeobuf", path("empties.fgb"), "empties", 4326, ogr.wkbUnknown, [("fid_", ogr.OFTInteger, None)], empties)
case("fgb-empties", "empties.fgb", "empties.fgb", "fid_", 1)
# FlatGeobuf with Z and M, rings either way, a hole.
layer_of("FlatGeobuf", path("zm.fgb"), "zm", 4326, ogr.wkbPolygonZM, [("fid_", ogr.OFTInteger, None)], [
    ("POLYGON ZM ((-104.8 40.4 1 9, -104.7 40.4 2 9, -104.7 40.5 3 9, -104.8 40.4 1 9), "
     "(-104.75 40.42 0 0, -104.72 40.42 0 0, -104.72 40.45 0 0, -104.75 40.42 0 0))", {"fid_": 0}),
    ("POLYGON ZM ((-104.8 40.4 1 9, -104.8 40.5 3 9, -104.7 40.5 2 9, -104.8 40.4 1 9))", {"fid_": 1}),
])
case("fgb-zm", "zm.fgb", "zm.fgb", "fid_", 2)

# A GeoPackage of several layers, one without geometry (an attribute table), one in a projected CRS.
ds = gdal.GetDriverByName("GPKG").Create(path("layers.gpkg"), 0, 0, 0, gdal.GDT_Unknown)
layer_of("GPKG", None, "lines", 3857, ogr.wkbLineString, [("fid_", ogr.OFTInteger, None)],
         [("LINESTRING (-11670000 4920000, -11660000 4930000)", {"fid_": 0})], ds=ds)
layer_of("GPKG", None, "lookup", None, ogr.wkbNone, [("code", ogr.OFTString, None)], [(None, {"code": "A"})], ds=ds)
ds = None
case("gpkg-layer-lines", "layers.gpkg", "layers.gpkg", "fid_", 1, layer="lines")
refuse("gpkg-layer-aspatial", "layers.gpkg", r"layers\.gpkg.*lookup.*(geometry|attribute)", layer="lookup")

# GeoJSON properties of every JSON type, mixed across rows; integers past 2^53; empty geometries; rings either way.
feats = [
    {"type": "Feature", "properties": {"fid_": 0, "s": "x", "i": 1, "f": 1.5, "b": True, "n": None,
                                        "big": 9007199254740993, "arr": [1, 2], "sarr": ["a", "b"],
                                        "obj": {"k": [1, {"z": None}]}, "mix": 1},
     "geometry": {"type": "Polygon", "coordinates": [[[-104.8, 40.4], [-104.8, 40.5], [-104.7, 40.5], [-104.8, 40.4]]]}},
    {"type": "Feature", "properties": {"fid_": 1, "s": "", "i": -2, "f": 2, "b": False, "n": None,
                                        "big": -9007199254740993, "arr": [], "sarr": [], "obj": {}, "mix": "one"},
     "geometry": {"type": "Polygon", "coordinates": []}},
    {"type": "Feature", "properties": {"fid_": 2, "s": None, "i": None, "f": None, "b": None, "n": None,
                                        "big": None, "arr": None, "sarr": None, "obj": None, "mix": 2.5},
     "geometry": None},
    {"type": "Feature", "properties": {"fid_": 3},
     "geometry": {"type": "Polygon", "coordinates": [[[-104.8, 40.4], [-104.7, 40.4], [-104.7, 40.5], [-104.8, 40.4]],
                                                     [[-104.75, 40.42], [-104.72, 40.45], [-104.72, 40.42], [-104.75, 40.42]]]}},
]
with open(path("types.geojson"), "w") as f:
    f.write(json.dumps({"type": "FeatureCollection", "features": feats}))
case("geojson-types", "types.geojson", "types.geojson", "fid_", 4)
with open(path("types.geojsons"), "w") as f:
    f.write("".join("\x1e" + json.dumps(x) + "\n" for x in feats))
case("geojsonseq-types", "types.geojsons", "types.geojsons", "fid_", 4)

# CSVs as GDAL and spreadsheets write them: GDAL's AS_XY header ends in a comma; a BOM and CRLF; quoted newlines.
subprocess.run(["ogr2ogr", "-f", "CSV", "-lco", "GEOMETRY=AS_XY", path("xy.csv"), path("typed.gpkg"), "typed",
                "-where", "fid_ = 0"], check=True)
case("csv-gdal-xy", "xy.csv", "xy.csv", "fid_", 1, judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["X_POSSIBLE_NAMES=X", "Y_POSSIBLE_NAMES=Y"], geometry={"x": "X", "y": "Y"})
with open(path("excel.csv"), "wb") as f:
    f.write(b"\xef\xbb\xbfid,name,lon,lat\r\n1,\"two\r\nlines\",-104.8,40.4\r\n2,\"say \"\"hi\"\"\",-104.7,40.5\r\n")
case("csv-excel", "excel.csv", "excel.csv", "id", 2, judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat"], geometry={"x": "lon", "y": "lat"})

with open(path("trailing.csv"), "wb") as f:
    f.write(b"X,Y,id,\n-104.8,40.4,1,\n-104.7,40.5,2,\n")
case("csv-trailing-comma", "trailing.csv", "trailing.csv", "id", 2, judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["X_POSSIBLE_NAMES=X", "Y_POSSIBLE_NAMES=Y"], geometry={"x": "X", "y": "Y"})

# Zero features: a legitimate payload (the plausibility gate decides what it means).
ZERO_OK = {"plausibility": {"minRows": 0}}
layer_of("ESRI Shapefile", path("empty-shp", "none.shp"), "none", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None)], [])
case("shp-zero-features", "empty-shp/none.shp", "empty-shp/none.shp", "k", 0, settings=ZERO_OK)
layer_of("FlatGeobuf", path("none.fgb"), "none", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None)], [])
case("fgb-zero-features", "none.fgb", "none.fgb", "k", 0, settings=ZERO_OK)

# A Triangle is read as the Polygon of its ring (OGR's ForceToPolygon); M in a GeoPackage is dropped.
layer_of("FlatGeobuf", path("triangle.fgb"), "triangle", 4326, ogr.wkbTriangle, [("k", ogr.OFTInteger, None)],
         [("TRIANGLE ((-104.8 40.4, -104.7 40.4, -104.8 40.5, -104.8 40.4))", {"k": 0})])
case("fgb-triangle", "triangle.fgb", "triangle.fgb", "k", 1)
layer_of("GPKG", path("measures.gpkg"), "measures", 4326, ogr.wkbUnknown, [("k", ogr.OFTInteger, None)], [
    ("POINT M (-104.8 40.4 7)", {"k": 0}),
    ("LINESTRING ZM (-104.8 40.4 1500 7, -104.7 40.5 1501 8)", {"k": 1}),
    ("MULTIPOLYGON M (((-104.8 40.4 1, -104.7 40.4 2, -104.7 40.5 3, -104.8 40.4 1)))", {"k": 2}),
])
case("gpkg-measures", "measures.gpkg", "measures.gpkg", "k", 3, layer="measures")

# Curves: read as the straight segments OGR makes of them (GetLinearGeometry, the judge's too), in the three formats
# that hold them; the arcs go both ways, clockwise and not, in lon/lat and in metres, with and without z. Surfaces of
# faces: refused by name, with the ogr2ogr line that converts them.
CURVES = [
    "LINESTRING (-104.8 40.4, -104.7 40.5)",
    "CIRCULARSTRING (-104.8 40.4, -104.75 40.45, -104.7 40.4)",
    "CIRCULARSTRING (-104.7 40.4, -104.75 40.45, -104.8 40.4, -104.85 40.35, -104.9 40.4)",
    "COMPOUNDCURVE (CIRCULARSTRING (-104.8 40.4, -104.75 40.45, -104.7 40.4), (-104.7 40.4, -104.6 40.3))",
    "CURVEPOLYGON (CIRCULARSTRING (-104.8 40.4, -104.7 40.4, -104.8 40.4))",
    "CURVEPOLYGON (COMPOUNDCURVE (CIRCULARSTRING (-104.8 40.4, -104.75 40.35, -104.7 40.4), (-104.7 40.4, -104.8 40.4)),"
    " (-104.78 40.39, -104.72 40.39, -104.75 40.37, -104.78 40.39))",
    "MULTICURVE ((-104.8 40.4, -104.7 40.5), CIRCULARSTRING (-104.6 40.6, -104.55 40.65, -104.5 40.6))",
    "MULTISURFACE (CURVEPOLYGON (COMPOUNDCURVE (CIRCULARSTRING (-104.8 40.4, -104.75 40.45, -104.7 40.4),"
    " (-104.7 40.4, -104.8 40.4))), ((-104.6 40.6, -104.5 40.6, -104.5 40.7, -104.6 40.6)))",
    "CIRCULARSTRING Z (-104.8 40.4 1500, -104.75 40.45 1510, -104.7 40.4 1520)",
]
curve_rows = [(w, {"k": i}) for i, w in enumerate(CURVES)]
layer_of("GPKG", path("curves.gpkg"), "curves", 4326, ogr.wkbUnknown, [("k", ogr.OFTInteger, None)], curve_rows)
case("gpkg-curves", "curves.gpkg", "curves.gpkg", "k", len(CURVES), layer="curves")
layer_of("FlatGeobuf", path("curves.fgb"), "curves", 4326, ogr.wkbUnknown, [("k", ogr.OFTInteger, None)], curve_rows)
case("fgb-curves", "curves.fgb", "curves.fgb", "k", len(CURVES))
collection = [("GEOMETRYCOLLECTION (CIRCULARSTRING (-104.8 40.4, -104.75 40.45, -104.7 40.4), POINT (-104.6 40.5))",
               {"k": 0})]
layer_of("FlatGeobuf", path("curves-collection.fgb"), "c", 4326, ogr.wkbGeometryCollection,
         [("k", ogr.OFTInteger, None)], collection)
case("fgb-curves-collection", "curves-collection.fgb", "curves-collection.fgb", "k", 1)
layer_of("GPKG", path("curves-collection.gpkg"), "c", 4326, ogr.wkbGeometryCollection,
         [("k", ogr.OFTInteger, None)], collection)
case("gpkg-curves-collection", "curves-collection.gpkg", "curves-collection.gpkg", "k", 1, layer="c")
layer_of("GPKG", path("curves-utm.gpkg"), "curves", 26913, ogr.wkbUnknown, [("k", ogr.OFTInteger, None)], [
    ("CIRCULARSTRING (500000 4470000, 500100 4470100, 500200 4470000)", {"k": 0}),
    ("CURVEPOLYGON (CIRCULARSTRING (500000 4470000, 500000 4470500, 500000 4470000))", {"k": 1}),
    ("COMPOUNDCURVE ((499000 4469000, 499500 4469000), CIRCULARSTRING (499500 4469000, 499600 4469100, 499500 4469200))",
     {"k": 2}),
])
case("gpkg-curves-utm", "curves-utm.gpkg", "curves-utm.gpkg", "k", 3, layer="curves")
with open(path("curves.csv"), "w") as f:
    f.write("k,WKT\n" + "".join('%d,"%s"\n' % (i, w) for i, w in enumerate(CURVES)))
case("csv-curves", "curves.csv", "curves.csv", "k", len(CURVES), judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["GEOM_POSSIBLE_NAMES=WKT", "KEEP_GEOM_COLUMNS=NO"], geometry="WKT")
layer_of("GPKG", path("tin.gpkg"), "tin", 4326, ogr.wkbUnknown, [("k", ogr.OFTInteger, None)],
         [("TIN Z (((-104.8 40.4 1, -104.7 40.4 1, -104.8 40.5 1, -104.8 40.4 1)))", {"k": 0})])
refuse("gpkg-tin", "tin.gpkg", r"tin\.gpkg layer tin, feature 1 is a TIN.*-explodecollections", layer="tin")

# GeoJSON as the wild writes it: feature ids (a string id is OGR's field "id"; a property "id" wins), positions
# mixing 2 and 3 numbers (z = 0 where missing, as OGR fills it), a fourth number (a measure, dropped), property
# names of Object.prototype on one feature only, and a text that is one Feature or one Geometry (RFC 7946).
def write_json(name, obj):
    with open(path(name), "w") as f:
        f.write(json.dumps(obj))


def pt(x, y):
    return {"type": "Point", "coordinates": [x, y]}


write_json("ids.geojson", {"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": "a-1", "properties": {"k": 0}, "geometry": pt(-104.8, 40.4)},
    {"type": "Feature", "id": "b-2", "properties": {"k": 1, "id": "kept"}, "geometry": pt(-104.7, 40.4)},
]})
case("geojson-ids", "ids.geojson", "ids.geojson", "k", 2)
write_json("dims.geojson", {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"k": 0},
     "geometry": {"type": "LineString", "coordinates": [[-104.8, 40.4], [-104.7, 40.5, 1500]]}},
    {"type": "Feature", "properties": {"k": 1}, "geometry": {"type": "Point", "coordinates": [-104.8, 40.4, 1500, 7]}},
    {"type": "Feature", "properties": {"k": 2}, "geometry": {"type": "GeometryCollection", "geometries": [
        pt(-104.8, 40.4), {"type": "Point", "coordinates": [-104.7, 40.5, 9]}]}},
]})
case("geojson-mixed-dimensions", "dims.geojson", "dims.geojson", "k", 3)
write_json("prototype-names.geojson", {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"k": 0, "constructor": "c", "toString": "t", "valueOf": "v", "hasOwnProperty": "h"},
     "geometry": pt(-104.8, 40.4)},
    {"type": "Feature", "properties": {"k": 1}, "geometry": pt(-104.7, 40.4)},
]})
case("geojson-prototype-names", "prototype-names.geojson", "prototype-names.geojson", "k", 2)
write_json("one-feature.geojson", {"type": "Feature", "properties": {"k": 0, "name": "alone"}, "geometry": pt(-104.8, 40.4)})
case("geojson-top-feature", "one-feature.geojson", "one-feature.geojson", "k", 1)
write_json("one-geometry.geojson", {"type": "Polygon", "coordinates": [[[-104.8, 40.4], [-104.7, 40.4], [-104.7, 40.5], [-104.8, 40.4]]]})
cases.append({"dataset": "geojson-top-geometry", "source": {"url": "./{region}/one-geometry.geojson"},
              "judge": {"file": "wild/one-geometry.geojson"}, "id": "", "rows": 1})

# CSVs as European spreadsheets and hand edits leave them: ";" between values (OGR detects it from the header),
# a blank line inside.
with open(path("semicolon.csv"), "wb") as f:
    f.write(b"id;name;lon;lat\r\n1;\"a;b\";-104.8;40.4\r\n2;c;-104.7;40.5\r\n")
case("csv-semicolon", "semicolon.csv", "semicolon.csv", "id", 2, judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat"], geometry={"x": "lon", "y": "lat"})
with open(path("blank-line.csv"), "wb") as f:
    f.write(b"id,lon,lat\n1,-104.8,40.4\n\n2,-104.7,40.5\n")
case("csv-blank-line", "blank-line.csv", "blank-line.csv", "id", 2, judge_crs="EPSG:4326", crs="EPSG:4326",
     open_=["X_POSSIBLE_NAMES=lon", "Y_POSSIBLE_NAMES=lat"], geometry={"x": "lon", "y": "lat"})

# .cpg labels as iconv (and so GDAL) spells them; one that holds a downloaded HTML page instead.
for label, enc, word in (("Big-5", "BIG5", "臺北"), ("koi8r", "KOI8-R", "Москва"), ("874", "CP874", "กรุงเทพ")):
    d = "cpg-" + label.lower()
    layer_of("ESRI Shapefile", path(d, "pts.shp"), "pts", 4326, ogr.wkbPoint,
             [("k", ogr.OFTInteger, None), ("name", ogr.OFTString, None)],
             [("POINT (-104.8 40.4)", {"k": 0, "name": word})], lco=[f"ENCODING={enc}"])
    with open(path(d, "pts.cpg"), "w") as f:
        f.write(label)
    case(f"shp-cpg-{label.lower()}", f"{d}/pts.shp", f"{d}/pts.shp", "k", 1)
layer_of("ESRI Shapefile", path("cpg-html", "pts.shp"), "pts", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None)],
         [("POINT (-104.8 40.4)", {"k": 0})])
with open(path("cpg-html", "pts.cpg"), "w") as f:
    f.write("<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>" + "<p>gone</p>" * 300 + "</body></html>")
refuse("shp-cpg-html", "cpg-html/pts.shp", r'cpg-html/pts\.shp: the encoding "<!DOCTYPE.{0,60}… \(\d+ characters: not a code page name\)')

# Damaged .dbf headers: a header length of 0; a record length shorter than its fields (read as empty before).
for name, offset, value in (("dbf-header-0", 8, 0), ("dbf-short-records", 10, 3)):
    layer_of("ESRI Shapefile", path(name, "pts.shp"), "pts", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None)],
             [("POINT (-104.8 40.4)", {"k": 7})])
    with open(path(name, "pts.dbf"), "r+b") as f:
        f.seek(offset)
        f.write(struct.pack("<H", value))
refuse("shp-dbf-header-0", "dbf-header-0/pts.shp", r"dbf-header-0/pts\.shp: its \.dbf header says it is 0 bytes long")
refuse("shp-dbf-short-records", "dbf-short-records/pts.shp",
       r'dbf-short-records/pts\.shp: its \.dbf says a record is 3 bytes, but field "k" ends at byte 10')

# A zip whose .shp inflates past the size its headers declare (was an unhandled 'error' event: the process died).
import zipfile
layer_of("ESRI Shapefile", path("liar", "pts.shp"), "pts", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None)],
         [("POINT (-104.8 40.4)", {"k": 0})])
with zipfile.ZipFile(path("liar.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for ext in ("shp", "shx", "dbf", "prj"):
        z.write(path("liar", "pts." + ext), "pts." + ext)
with open(path("liar.zip"), "r+b") as f:
    b = bytearray(f.read())
    local = b.find(b"PK\x03\x04")
    central = b.find(b"PK\x01\x02")
    struct.pack_into("<I", b, local + 22, 20)
    struct.pack_into("<I", b, central + 24, 20)
    f.seek(0)
    f.write(b)
refuse("zip-entry-longer-than-declared", "liar.zip", r"liar\.zip: entry pts\.shp is damaged \(too many bytes")

# A GeoPackage in WAL mode whose last edit is only in its -wal (GDAL left it uncheckpointed): read as OGR reads it.
gdal.SetConfigOption("OGR_SQLITE_JOURNAL", "WAL")
layer_of("GPKG", path("wal.gpkg"), "wal", 4326, ogr.wkbPoint, [("k", ogr.OFTInteger, None), ("v", ogr.OFTInteger, None)],
         [("POINT (-104.8 40.4)", {"k": 0, "v": 1})])
gdal.SetConfigOption("OGR_SQLITE_JOURNAL", None)
pid = os.fork()
if pid == 0:
    wal = gdal.OpenEx(path("wal.gpkg"), gdal.OF_UPDATE | gdal.OF_VECTOR)
    lyr = wal.GetLayer(0)
    feat = lyr.GetNextFeature()
    feat.SetField("v", 2)
    lyr.SetFeature(feat)
    wal.FlushCache()
    os._exit(0)  # no close: the edit stays in wal.gpkg-wal, as a writer that was killed leaves it
os.waitpid(pid, 0)
os.remove(path("wal.gpkg-shm"))
case("gpkg-wal-edit", "wal.gpkg", "wal.gpkg", "k", 1)

# Text in another code page where the format says UTF-8 (a Windows export of "Saïd"): GDAL passes the bytes through,
# which read as UTF-8 would be U+FFFD in the artifact ("Sa\ufffdd"), published with exit 0. Refused, naming the byte
# (as \xNN) and what to set; the feature and field where the file has them.
LATIN = "Saïd, Zoë".encode("cp1252")
with open(path("cp1252.geojson"), "wb") as f:
    f.write(b'{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"k":0,"name":"' + LATIN
            + b'"},"geometry":{"type":"Point","coordinates":[-104.8,40.4]}}]}')
refuse("geojson-cp1252", "cp1252.geojson", r'cp1252\.geojson: byte 88 \(line 1\) is not UTF-8 \(.*"name":"Sa\\xefd, Zo\\xeb".*set "encoding" on the source')
with open(path("cp1252.geojsonl"), "wb") as f:
    f.write(b'{"type":"Feature","properties":{"k":0},"geometry":{"type":"Point","coordinates":[-104.8,40.4]}}\n')
    f.write(b'{"type":"Feature","properties":{"k":1,"name":"' + LATIN + b'"},"geometry":null}\n')
refuse("geojsonseq-cp1252", "cp1252.geojsonl", r'cp1252\.geojsonl: byte \d+ \(line 2\) is not UTF-8 \(.*Sa\\xefd')
with open(path("cp1252.csv"), "wb") as f:
    f.write(b"k,name,lon,lat\n0,plain,-104.8,40.4\n1,\"" + LATIN + b"\",-104.7,40.5\n")
refuse("csv-cp1252", "cp1252.csv", r'cp1252\.csv: byte \d+ \(line 3\) is not UTF-8 \(.*1,"Sa\\xefd', crs="EPSG:4326",
       geometry={"x": "lon", "y": "lat"})
# GDAL's own writers, fed those bytes: a GeoPackage TEXT and a FlatGeobuf string hold them as they came.
subprocess.run(["ogr2ogr", "-f", "GPKG", path("cp1252.gpkg"), path("cp1252.geojson"), "-nln", "pts"], check=True,
               stderr=subprocess.DEVNULL)
refuse("gpkg-cp1252", "cp1252.gpkg", r'cp1252\.gpkg layer pts, feature 1, column "name": its text is not UTF-8 \(Sa\\xefd, Zo\\xeb\)')
subprocess.run(["ogr2ogr", "-f", "FlatGeobuf", path("cp1252.fgb"), path("cp1252.geojson")], check=True,
               stderr=subprocess.DEVNULL)
refuse("fgb-cp1252", "cp1252.fgb", r'cp1252\.fgb, feature 0, column "name": its text is not UTF-8 \(Sa\\xefd, Zo\\xeb\)')
# A Shapefile whose .cpg says UTF-8 over Latin-1 bytes (the .cpg of another export left beside it).
layer_of("ESRI Shapefile", path("cpg-lies", "pts.shp"), "pts", 4326, ogr.wkbPoint,
         [("k", ogr.OFTInteger, None), ("name", ogr.OFTString, None)],
         [("POINT (-104.8 40.4)", {"k": 0, "name": "plain"}), ("POINT (-104.7 40.5)", {"k": 1, "name": "Saïd, Zoë"})],
         lco=["ENCODING=ISO-8859-1"])
with open(path("cpg-lies", "pts.cpg"), "w") as f:
    f.write("UTF-8")
refuse("shp-cpg-lies", "cpg-lies/pts.shp",
       r'cpg-lies/pts\.shp, feature 1, field "name": its text is not UTF-8 \(Sa\\xefd, Zo\\xeb\), though its \.cpg says so: set "encoding"')

print(json.dumps(cases))
