"""npm run build:crs-index: writes crs-index/epsg.json from PROJ's own database (pyproj in the GeoPandas venv).

For every EPSG geographic 2D and projected CRS: its name, the proj-string of its projection (datum left out: the
shift to WGS 84 is georefresh's own step), its area of use, its base geographic CRS and its ESRI name (how a `.prj`
names it). For every base geographic CRS: the transformations to WGS 84 that PROJ can run without grid files, in the
order PROJ ranks them, each as a short list of geocentric steps, with its accuracy and area of use, so that
georefresh picks one per point as proj_trans does; and the ones that need a grid, by name, for the refusals.

Per projected CRS also the order PROJ ranks its datum's candidates in there (its area of use filters and sorts
them) and PROJ's own inverse of its projection at three points, which georefresh must reproduce or refuse the CRS.

Run with the venv's python (scripts/test-deps.sh makes it): the output is committed and judged, code by code, by
test/geo/crs-every-code.test.ts against PROJ's readings (npm run build:crs-judge), whose sample is asked of PROJ again
every run, so a PROJ upgrade shows up as a failing test, not a silent drift.
"""

import json
import math
import multiprocessing
import re
import sys
import warnings

warnings.filterwarnings("ignore")

import pyproj  # noqa: E402
import pyproj.list  # noqa: E402
from pyproj import CRS, Transformer  # noqa: E402
from pyproj.database import get_database_metadata, query_crs_info  # noqa: E402
from pyproj.transformer import TransformerGroup  # noqa: E402

WGS84 = CRS.from_epsg(4326)
SKIP = {"unitconvert", "axisswap", "push", "pop", "noop"}


def rounded(v):
    return float(f"{v:.12g}")


def meridian(text):
    """A proj-string prime meridian (degrees, or a name PROJ knows such as "lisbon") in degrees east."""
    text = PRIME_MERIDIANS.get(text, text)
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:d(?:(\d+)')?(?:([\d.]+)\")?)?([EW])?", text.strip())
    if not m:
        return None
    value = float(m.group(1)) + float(m.group(2) or 0) / 60 + float(m.group(3) or 0) / 3600
    return -value if m.group(4) == "W" else value


PRIME_MERIDIANS = pyproj.list.get_prime_meridians_map()


def steps_of(definition, own_pm=0.0):
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
            # The angular unit of the source's own lon/lat: the projection step already gave degrees. A prime
            # meridian here is a longitude rotation (Tokyo 1892 to Korean 1985 turns longitudes by 10.405"): the
            # inverse adds it, the forward takes it away.
            if "pm" in args:
                pm = meridian(args["pm"])
                if pm is None:
                    return None
                # The projection step already took the CRS's own prime meridian (Paris, Bern, Ferro…): what is left
                # is the difference (MGI (Ferro) to MGI turns by 17°39'46.02", not Ferro's 17°40').
                turn = pm - own_pm
                if abs(turn) < 1e-9:
                    continue
                out.append(["geogoffset", rounded(turn * 3600 * (1 if inverse else -1)), 0.0, False])
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
    own_pm = geog.prime_meridian.longitude * geog.prime_meridian.unit_conversion_factor * 180 / math.pi
    ops = []
    for t in group.transformers:
        area = t.area_of_use
        bounds = [rounded(v) for v in area.bounds] if area else [-180, -90, 180, 90]
        name = t.description
        ballpark = "Ballpark geographic offset" in name
        steps = [] if ballpark else steps_of(t.definition, own_pm)
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
    if all(op.get("ballpark") for op in ops) and group.unavailable_operations and geog.area_of_use:
        # With the direct transformation's grid missing, proj_create_crs_to_crs looks through an intermediate CRS
        # (PD/83 to ETRS89 to WGS 84), which the group above does not list: ask PROJ which one it runs.
        w, s, e, n = geog.area_of_use.bounds
        t = Transformer.from_crs(geog, WGS84, always_xy=True)
        t.transform((w + e) / 2 if w <= e else (w + e + 360) / 2, (s + n) / 2)
        try:
            used = t.get_last_used_operation()
        except Exception:  # one candidate only: the transformer is that operation
            used = t
        steps = steps_of(used.definition, own_pm) if "Ballpark" not in used.description else None
        if steps:
            area = used.area_of_use
            ops.insert(0, {"name": re.sub(r"^axis order change \(2D\) \+ | \+ axis order change \(2D\)$", "",
                                          used.description),
                           "accuracy": used.accuracy,
                           "area": [rounded(v) for v in area.bounds] if area else [-180, -90, 180, 90],
                           "steps": steps, "intermediate": True})
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
    args = dict(w[1:].split("=", 1) if "=" in w else (w[1:], "") for w in text.split())
    text = re.sub(r"\s*\+(datum|towgs84|nadgrids|ellps|a|b|rf|R_A|R|type|no_defs|geoidgrids|vunits)(=\S*)?(?=\s|$)", "", " " + text)
    e = crs.ellipsoid
    a, rf = e.semi_major_metre, e.inverse_flattening
    shape = f"+a={rounded(a)} +rf={rounded(rf)}" if rf and rf != float("inf") else f"+a={rounded(a)} +b={rounded(a)}"
    # A method defined on a sphere (Popular Visualisation Pseudo Mercator: a = b = the ellipsoid's a; Lambert
    # Azimuthal Equal Area (Spherical): the authalic radius) keeps the sphere PROJ computes it on.
    if "R" in args:
        shape = f"+a={rounded(float(args['R']))} +b={rounded(float(args['R']))}"
    elif "a" in args and "b" in args and args["a"] == args["b"]:
        shape = f"+a={rounded(float(args['a']))} +b={rounded(float(args['a']))}"
    elif "R_A" in args:
        shape += " +R_A"
    return f"{text.strip()} {shape} +no_defs"


def stripped(description):
    """A CRS-to-WGS 84 operation's name as its datum's: no "Inverse of <projection> + ", no axis order change."""
    name = re.sub(r"^axis order change \(2D\) \+ | \+ axis order change \(2D\)$", "", description)
    if name.startswith("Inverse of ") and " + " in name:
        name = name.split(" + ", 1)[1]
    return re.sub(r" \+ axis order change \(2D\)$", "", name)


def op_order(code, names):
    """The datum's candidates in the order PROJ ranks them for this CRS (its own area of use sorts and filters
    them), as indexes into the datum's list; None where that is the datum's own order."""
    group = TransformerGroup(CRS.from_epsg(code), WGS84, always_xy=True, allow_ballpark=True)
    # A transformation through an intermediate CRS is not in the group: it keeps its place, first.
    order = [i for i, (_, intermediate) in enumerate(names) if intermediate]
    names = [name for name, _ in names]
    for t in group.transformers:
        name = stripped(t.description)
        if name in names and names.index(name) not in order:
            order.append(names.index(name))
    return None if order == list(range(len(names))) else order


def reference(crs):
    """PROJ's own inverse of the CRS's projection at three points of its area (the middle, and 0.2 and 0.8 of the
    way across): x, y as files store them and the Greenwich lon/lat in degrees on the CRS's own datum, which
    georefresh's projection must reproduce."""
    area = crs.area_of_use
    if area is None:
        return None
    w, s, e, n = area.bounds
    if e < w:
        e += 360
    geog = crs.geodetic_crs
    pm = geog.prime_meridian
    pm_deg = pm.longitude * pm.unit_conversion_factor * 180 / math.pi
    unit = geog.coordinate_system.axis_list[0].unit_conversion_factor * 180 / math.pi
    to_crs = Transformer.from_crs(geog, crs, always_xy=True)
    back = Transformer.from_crs(crs, geog, always_xy=True)
    out = []
    for f in (0.5, 0.2, 0.8):
        lon, lat = w + (e - w) * f, s + (n - s) * f
        lon = lon - 360 if lon > 180 else lon
        # The point in the geodetic CRS's own units and meridian, then into the CRS.
        x, y = (lon - pm_deg) / unit, lat / unit
        if not crs.is_geographic:
            x, y = to_crs.transform(x, y)
        back_lon, back_lat = back.transform(x, y)
        if not all(abs(v) < 1e15 for v in (x, y, back_lon, back_lat)):
            continue
        out.append([float(f"{x:.15g}"), float(f"{y:.15g}"), float(f"{back_lon * unit + pm_deg:.15g}"),
                    float(f"{back_lat * unit:.15g}")])
    return out or None


def order_job(item):
    code, names = item
    try:
        return code, op_order(int(code), names)
    except Exception:
        return code, None


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
        try:
            check = reference(crs) if proj else None
        except Exception:
            check = None
        if check:
            entry["check"] = check
        out["crs"][info.code] = entry
        if base is not None and str(base) not in out["datums"]:
            try:
                ops, grids = operations(CRS.from_epsg(base))
            except Exception as error:  # a base PROJ cannot build operations for: recorded, refused at run time
                ops, grids = [], []
                print(f"EPSG:{base}: {error}", file=sys.stderr)
            out["datums"][str(base)] = {"ops": ops, **({"grids": grids} if grids else {})}
    # Per projected CRS, the order PROJ gives its datum's candidates there (two processes: a few minutes).
    jobs = [(code, [(op["name"], op.get("intermediate", False)) for op in out["datums"][str(e["base"])]["ops"]])
            for code, e in out["crs"].items()
            if e["kind"] == "projected" and e["base"] is not None and len(out["datums"][str(e["base"])]["ops"]) > 1]
    with multiprocessing.Pool(2) as pool:
        for code, order in pool.imap(order_job, jobs, chunksize=20):
            if order is not None:
                out["crs"][code]["ops"] = order
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
