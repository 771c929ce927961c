/**
 * GeoJSON out of georefresh winds its rings as RFC 7946 §3.1.6 says (exterior counterclockwise, holes clockwise),
 * judged by shapely's `is_ccw` (GEOS), whatever the source wound them; and `changes --format geojson` is lon/lat
 * like `read`, not the storage CRS (it wrote EPSG:26913 metres as GeoJSON until this test). The shapes themselves
 * are the source's: shapely `equals` to the feed's polygons.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rfc7946Winding } from "../../src/geo/winding.js";
import { runCli } from "../helpers/cli.js";
import { geopandasPython } from "../helpers/geopandas.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-winding-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Wound against the RFC on purpose: exteriors clockwise, the hole counterclockwise.
const cw = (x: number, y: number, d: number) => [
  [x, y],
  [x, y + d],
  [x + d, y + d],
  [x + d, y],
  [x, y],
];
const ccw = (x: number, y: number, d: number) => [
  [x, y],
  [x + d, y],
  [x + d, y + d],
  [x, y + d],
  [x, y],
];
const FEED = {
  type: "FeatureCollection",
  features: [
    {
      type: "Feature",
      properties: { id: "holed" },
      geometry: { type: "Polygon", coordinates: [cw(-104.8, 40.4, 0.02), ccw(-104.795, 40.405, 0.005)] },
    },
    {
      type: "Feature",
      properties: { id: "two" },
      geometry: { type: "MultiPolygon", coordinates: [[cw(-104.7, 40.4, 0.01)], [ccw(-104.68, 40.4, 0.01)]] },
    },
  ],
};

/** shapely's verdict on each feature: rings' orientation, and whether the shape equals the feed's. */
function judge(geojson: string): { id: string; exteriorsCcw: boolean[]; holesCcw: boolean[]; equalsFeed: boolean }[] {
  const script = `
import json, sys
from shapely.geometry import shape
out = json.load(open(sys.argv[1])); feed = {f["properties"]["id"]: shape(f["geometry"]) for f in json.load(open(sys.argv[2]))["features"]}
res = []
for f in out["features"]:
    g = shape(f["geometry"]); polys = list(g.geoms) if g.geom_type == "MultiPolygon" else [g]
    res.append({"id": f["properties"]["id"], "exteriorsCcw": [p.exterior.is_ccw for p in polys],
                "holesCcw": [r.is_ccw for p in polys for r in p.interiors],
                "equalsFeed": bool(g.equals_exact(feed[f["properties"]["id"]].normalize(), 1e-7) or g.normalize().equals_exact(feed[f["properties"]["id"]].normalize(), 1e-7))})
print(json.dumps(sorted(res, key=lambda r: r["id"])))`;
  writeFileSync(join(dir, "out.geojson"), geojson);
  return JSON.parse(
    execFileSync(geopandasPython(), ["-c", script, join(dir, "out.geojson"), join(dir, "weld.geojson")], {
      encoding: "utf8",
    }),
  ) as ReturnType<typeof judge>;
}

const RFC = [
  { id: "holed", exteriorsCcw: [true], holesCcw: [false], equalsFeed: true },
  { id: "two", exteriorsCcw: [true, true], holesCcw: [], equalsFeed: true },
];

beforeAll(async () => {
  writeFileSync(join(dir, "weld.geojson"), JSON.stringify(FEED));
  writeFileSync(
    join(dir, "georefresh.config.json"),
    JSON.stringify({
      store: "./data",
      datasets: {
        parcels: { source: { url: "./{region}.geojson", key: ["id"] }, regions: ["weld"], storageCrs: "EPSG:26913" },
      },
    }),
  );
  const r = await runCli(["backfill", "--dataset", "parcels", "--to", "2026-03-01", "--trailing", "1"], {}, dir);
  expect(r.code, r.stderr).toBe(0);
}, 60_000);

describe("GeoJSON rings as RFC 7946 winds them", () => {
  it("read --format geojson: exteriors counterclockwise, holes clockwise, the feed's shapes", async () => {
    const r = await runCli(["read", "parcels", "--region", "weld", "--latest-date", "--format", "geojson"], {}, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(judge(r.stdout)).toEqual(RFC);
  });

  it("changes --format geojson: the same lon/lat rings, not the storage CRS's metres", async () => {
    const r = await runCli(
      ["changes", "parcels", "--region", "weld", "--date", "2026-03-01", "--format", "geojson"],
      {},
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const xs = (JSON.parse(r.stdout) as { features: { geometry: { coordinates: unknown } }[] }).features
      .flatMap((f) => JSON.stringify(f.geometry.coordinates).match(/-?\d+(\.\d+)?/g) ?? [])
      .map(Number);
    expect(Math.max(...xs.map(Math.abs))).toBeLessThan(180);
    expect(judge(r.stdout)).toEqual(RFC);
  });

  it("a ring already wound right is kept as it is, and a reversed one keeps its first point", () => {
    const right = { type: "Polygon" as const, coordinates: [ccw(0, 0, 1), cw(0.2, 0.2, 0.1)] };
    expect(rfc7946Winding(right)).toEqual(right);
    const wrong = rfc7946Winding({ type: "Polygon", coordinates: [cw(0, 0, 1)] }) as { coordinates: number[][][] };
    expect(wrong.coordinates[0]?.[0]).toEqual([0, 0]);
    expect(wrong.coordinates[0]).toEqual(ccw(0, 0, 1));
  });
});
