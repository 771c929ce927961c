"""GeoPandas reads a file georefresh wrote: the analysts' reader our files are held to.

argv: a JSON job {"path", "kind": "parquet" | "file" (pyogrio, e.g. a GeoPackage), "layer", "expected" (an Arrow IPC
file from our own reader: the id column and WKB geometry, plus the columns to compare), "id", "crs" (PROJJSON or a
user string), "bbox" (optional [xmin, ymin, xmax, ymax] for read_parquet(bbox=...))}. Prints one JSON object: rows,
crs_equal, crs (as GeoPandas names it), missing / extra ids, ids whose geometry shapely does not find equal, columns
whose values differ, and the ids read_parquet(bbox=...) returned.
"""
import json
import sys

import geopandas
import pyarrow.ipc
import pyproj
import shapely



def key(v):
    """An id as the test names it: 12.0 (float64 ids) as 12."""
    v = v.item() if hasattr(v, "item") else v
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


job = json.loads(sys.argv[1])
if job["kind"] == "parquet":
    gdf = geopandas.read_parquet(job["path"])
else:
    gdf = geopandas.read_file(job["path"], layer=job.get("layer"), engine="pyogrio")
expected = pyarrow.ipc.open_file(job["expected"]).read_all().to_pandas()
id_col = job["id"]
ours = expected.set_index(id_col)
theirs = gdf.set_index(id_col)
missing = sorted(set(ours.index) - set(theirs.index))
extra = sorted(set(theirs.index) - set(ours.index))
common = ours.index.intersection(theirs.index)
mine_geoms = shapely.from_wkb(ours.loc[common, "geometry"].to_numpy())
their_geoms = theirs.loc[common, theirs.geometry.name].to_numpy()
unequal = [key(i) for i, same in zip(common, shapely.equals(mine_geoms, their_geoms)) if not same]
columns_differing = []
for col in ours.columns:
    if col == "geometry":
        continue
    if col not in theirs.columns:
        columns_differing.append(col + " (absent)")
        continue
    a = ours.loc[common, col].astype(object).tolist()
    b = theirs.loc[common, col].astype(object).tolist()
    if any(x != y and not (x != x and y != y) for x, y in zip(a, b)):  # NaN == NaN here
        columns_differing.append(col)
want = job["crs"]
want_crs = pyproj.CRS.from_json_dict(want) if isinstance(want, dict) else pyproj.CRS.from_user_input(want)
out = {
    "rows": len(gdf),
    "crs": gdf.crs.to_string() if gdf.crs else None,
    "crs_equal": bool(gdf.crs is not None and gdf.crs.equals(want_crs)),
    "missing": [key(m) for m in missing][:20],
    "extra": [key(e) for e in extra][:20],
    "unequal": unequal[:20],
    "unequal_count": len(unequal),
    "columns_differing": columns_differing,
}
if job.get("bbox"):
    picked = geopandas.read_parquet(job["path"], bbox=tuple(job["bbox"]))
    out["bbox_ids"] = sorted(key(i) for i in picked[id_col])
print(json.dumps(out))
