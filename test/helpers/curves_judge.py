"""OGR linearizes curves: the judge of geo/curves.ts. Prints, for seeded random curves of every kind (arcs either way
round, few and many steps, full circles, lon/lat and metre magnitudes, with and without z), the ISO WKB GDAL writes
and the positions of GetLinearGeometry() with its defaults (what ogr2ogr -nlt CONVERT_TO_LINEAR gives)."""
import json
import math
import random
import sys

from osgeo import ogr

ogr.UseExceptions()
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
NAMES = {2: "LineString", 3: "Polygon", 5: "MultiLineString", 6: "MultiPolygon", 7: "GeometryCollection"}


def flat(g):
    if g.GetGeometryCount() == 0:
        return [c for i in range(g.GetPointCount()) for c in (g.GetPoint(i) if g.Is3D() else g.GetPoint_2D(i))]
    return [c for i in range(g.GetGeometryCount()) for c in flat(g.GetGeometryRef(i))]


def arc(n, metres, z):
    """n points on one circle, each a random turn further the same way round."""
    cx, cy = (random.uniform(2e5, 8e5), random.uniform(4e6, 5e6)) if metres else (random.uniform(-170, 170), random.uniform(-80, 80))
    r = random.uniform(1, 5e4) if metres else random.uniform(1e-4, 5)
    a, way, out = random.uniform(-3, 3), random.choice([1, -1]), []
    for _ in range(n):
        a += way * random.uniform(0.01, 1.5)
        p = "%r %r" % (cx + r * math.cos(a), cy + r * math.sin(a))
        out.append(p + (" %r" % random.uniform(0, 100) if z else ""))
    return out


def curve():
    metres, z = random.random() < 0.5, random.random() < 0.3
    Z = " Z" if z else ""
    kind = random.choice(["arcs", "compound", "polygon", "circle", "multicurve", "multisurface", "collection"])
    if kind == "arcs":
        return "CIRCULARSTRING%s(%s)" % (Z, ",".join(arc(random.choice([3, 5, 7]), metres, z)))
    p = arc(3, metres, z)
    if kind == "compound":
        return "COMPOUNDCURVE%s(CIRCULARSTRING(%s),(%s,%s))" % (Z, ",".join(p), p[-1], arc(1, metres, z)[0])
    if kind == "polygon":
        return "CURVEPOLYGON%s(COMPOUNDCURVE(CIRCULARSTRING(%s),(%s,%s)))" % (Z, ",".join(p), p[-1], p[0])
    if kind == "circle":
        return "CURVEPOLYGON%s(CIRCULARSTRING(%s,%s,%s))" % (Z, p[0], p[1], p[0])
    if kind == "multicurve":
        return "MULTICURVE%s((%s),CIRCULARSTRING(%s))" % (Z, ",".join(arc(2, metres, z)), ",".join(arc(5, metres, z)))
    if kind == "multisurface":
        return "MULTISURFACE%s(CURVEPOLYGON(COMPOUNDCURVE(CIRCULARSTRING(%s),(%s,%s))))" % (Z, ",".join(p), p[-1], p[0])
    return "GEOMETRYCOLLECTION%s(CIRCULARSTRING(%s),POINT(%s))" % (Z, ",".join(p), arc(1, metres, z)[0])


out = []
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
    w = curve()
    g = ogr.CreateGeometryFromWkt(w)
    line = g.GetLinearGeometry()
    out.append({"wkt": w, "wkb": g.ExportToIsoWkb().hex(), "type": NAMES[ogr.GT_Flatten(line.GetGeometryType())],
                "positions": flat(line)})
print(json.dumps(out))
