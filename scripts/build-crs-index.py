"""npm run build:crs-index: writes crs-index/epsg.json from PROJ's own database (pyproj in the GeoPandas venv).

For every EPSG geographic 2D and projected CRS: its name, the proj-string of its projection (datum left out: the
shift to WGS 84 is georefresh's own step), its area of use, its base geographic CRS and its ESRI name (how a `.prj`
names it). For every base geographic CRS: the transformations to WGS 84 that PROJ can run without grid files, in the
order PROJ ranks them, each as a short list of geocentric steps, with its accuracy and area of use, so that
georefresh picks one per point as proj_trans does; and the ones that need a grid, by name, for the refusals.

Run with the venv's python (scripts/test-deps.sh makes it): the output is committed and checked by
test/geo/crs-index.test.ts against the same PROJ, so a PROJ upgrade shows up as a failing test, not a silent drift.
"""

import json
import re
import sys
import warnings

warnings.filterwarnings("ignore")

import pyproj  # noqa: E402
from pyproj import CRS  # noqa: E402
from pyproj.database import get_database_metadata, query_crs_info  # noqa: E402
from pyproj.transformer import TransformerGroup  # noqa: E402

WGS84 = CRS.from_epsg(4326)
SKIP = {"unitconvert", "axisswap", "push", "pop", "noop"}


def rounded(v):
    return float(f"{v:.12g}")


def steps_of(definition):
    """A PROJ pipeline as georefresh's steps, or None when a step is one georefresh does not run."""
    parts = [s.strip() for s in definition.split(" step ")[1:]] if "proj=pipeline" in definition else [definition]
    out = []
    for part in parts:
        words = part.split()
        inverse = words[0] == "inv"
        args = dict(w.split("=", 1) if "=" in w else (w, "") for w in words if w != "inv")
        name = args.pop("proj", "")
        if name in SKIP:
            continue
        if name == "longlat":
            # The prime meridian and angular unit of the source's own lon/lat: the projection step already gave
            # Greenwich degrees, so nothing is left to do here.
            continue
        if name == "cart":
            out.append(["icart" if inverse else "cart", ellipsoid(args)])
        elif name in ("helmert", "molobadekas"):
            known = {"x", "y", "z", "rx", "ry", "rz", "s", "convention", "px", "py", "pz"}
            rates = {"dx", "dy", "dz", "drx", "dry", "drz", "ds", "t_epoch"}
            if set(args) - known - rates:
                return None
            h = {k: rounded(float(args.get(k, 0))) for k in ("x", "y", "z", "rx", "ry", "rz", "s")}
            step = ["helmert", h, args.get("convention", "position_vector"), inverse]
            if name == "molobadekas":
                step.append({k: rounded(float(args.get(k, 0))) for k in ("px", "py", "pz")})
            if set(args) & rates:
                step = ["helmert-t", h, args.get("convention", "position_vector"), inverse,
                        {k: rounded(float(args.get(k, 0))) for k in sorted(rates)}]
            out.append(step)
        elif name == "geogoffset":
            out.append(["geogoffset", rounded(float(args.get("dlon", 0))), rounded(float(args.get("dlat", 0))), inverse])
        else:
            return None
    return out


ELLPS = {}


def ellipsoid(args):
    if "a" in args:
        a = float(args["a"])
        if "rf" in args:
            return [rounded(a), rounded(float(args["rf"]))]
        if "b" in args:
            b = float(args["b"])
            return [rounded(a), 0 if a == b else rounded(a / (a - b))]
        return [rounded(a), 0]
    name = args.get("ellps", "WGS84")
    if name not in ELLPS:
        e = pyproj.Geod(ellps=name)
        ELLPS[name] = [rounded(e.a), 0 if e.f == 0 else rounded(1 / e.f)]
    return ELLPS[name]


def operations(geog):
    """PROJ's candidates from a geographic CRS to WGS 84 with no grids, in its ranking."""
    group = TransformerGroup(geog, WGS84, always_xy=True, allow_ballpark=True)
    ops = []
    for t in group.transformers:
        area = t.area_of_use
        bounds = [rounded(v) for v in area.bounds] if area else [-180, -90, 180, 90]
        name = t.description
        ballpark = "Ballpark geographic offset" in name
        steps = [] if ballpark else steps_of(t.definition)
        op = {"name": re.sub(r"^axis order change \(2D\) \+ | \+ axis order change \(2D\)$", "", name),
              "accuracy": t.accuracy, "area": bounds}
        if area and "- offshore" in (area.name or ""):
            op["offshore"] = True
        if not area or not area.name or area.name == "unknown":
            op["unknownArea"] = True
        if ballpark:
            op["ballpark"] = True
        elif steps is None:
            op["unsupported"] = t.definition
        else:
            op["steps"] = steps
        ops.append(op)
    grids = sorted({g.short_name for op in group.unavailable_operations for g in op.grids if not g.available})
    return ops, grids


def esri_wkt(crs):
    try:
        return crs.to_wkt("WKT1_ESRI") or ""
    except Exception:
        return ""


def esri_name(wkt):
    m = re.match(r'\s*[A-Z]+\["([^"]*)"', wkt)
    return m.group(1) if m else None


def projection(crs):
    """The proj-string of the CRS's projection on its own ellipsoid, with no datum shift."""
    try:
        text = crs.to_proj4()
    except Exception:
        return None
    if not text:
        return None
    text = re.sub(r"\s*\+(datum|towgs84|nadgrids|ellps|a|b|rf|R|type|no_defs|geoidgrids|vunits)(=\S*)?", "", " " + text)
    e = crs.ellipsoid
    a, rf = e.semi_major_metre, e.inverse_flattening
    shape = f"+a={rounded(a)} +rf={rounded(rf)}" if rf and rf != float("inf") else f"+a={rounded(a)} +b={rounded(a)}"
    return f"{text.strip()} {shape} +no_defs"


def main(target):
    out = {"proj": pyproj.proj_version_str, "epsg": get_database_metadata("EPSG.VERSION"), "crs": {}, "datums": {}}
    infos = query_crs_info(auth_name="EPSG", pj_types=["GEOGRAPHIC_2D_CRS", "PROJECTED_CRS"])
    for info in sorted(infos, key=lambda i: int(i.code)):
        try:
            crs = CRS.from_epsg(int(info.code))
        except Exception:
            continue
        geog = crs.geodetic_crs
        base = geog.to_epsg() if geog else None
        proj = projection(crs)
        area = [rounded(v) for v in crs.area_of_use.bounds] if crs.area_of_use else None
        entry = {"name": crs.name, "kind": "geographic" if crs.is_geographic else "projected", "proj4": proj,
                 "area": area, "base": base}
        if info.deprecated:
            entry["deprecated"] = True
        wkt = esri_wkt(crs)
        esri = esri_name(wkt)
        if esri and esri != crs.name:
            entry["esri"] = esri
        if crs.is_geographic and crs.datum is not None:
            # How a custom CRS's DATUM names this one (PROJ matches a datum by name, EPSG's or ESRI's).
            entry["datum"] = crs.datum.name
            d = re.search(r'DATUM\["([^"]*)"', wkt)
            if d and d.group(1) != crs.datum.name:
                entry["esriDatum"] = d.group(1)
        axes = [a.direction for a in crs.coordinate_system.axis_list][:2] if crs.coordinate_system else []
        if any(a not in ("east", "north") for a in axes):
            entry["axes"] = axes
        out["crs"][info.code] = entry
        if base is not None and str(base) not in out["datums"]:
            try:
                ops, grids = operations(CRS.from_epsg(base))
            except Exception as error:  # a base PROJ cannot build operations for: recorded, refused at run time
                ops, grids = [], []
                print(f"EPSG:{base}: {error}", file=sys.stderr)
            out["datums"][str(base)] = {"ops": ops, **({"grids": grids} if grids else {})}
    others = query_crs_info(auth_name="EPSG", pj_types=["VERTICAL_CRS", "COMPOUND_CRS", "GEOCENTRIC_CRS", "GEOGRAPHIC_3D_CRS"])
    kinds = {"VERTICAL_CRS": "a vertical CRS", "COMPOUND_CRS": "a compound (horizontal + vertical) CRS",
             "GEOCENTRIC_CRS": "a geocentric CRS", "GEOGRAPHIC_3D_CRS": "a geographic 3D CRS"}
    out["others"] = {i.code: kinds[i.type.name] for i in sorted(others, key=lambda i: int(i.code))}
    with open(target, "w", encoding="utf8") as f:
        json.dump(out, f, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
        f.write("\n")
    print(f"{target}: {len(out['crs'])} CRSs, {len(out['datums'])} datums (PROJ {out['proj']}, EPSG {out['epsg']})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "crs-index/epsg.json")
