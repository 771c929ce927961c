/**
 * A refused row is named as the file numbers its features (OGR's FID: a Shapefile's and a FlatGeobuf's from 0, a
 * GeoPackage's fid, a CSV's record from 1, a GeoJSON feature's position), not by the artifact's row, which is in
 * spatial order: a county file whose invalid features OGR finds at FIDs N and M is refused naming N and M, in
 * every format OGR writes it to.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";

/** OGR's FIDs of the features that are not valid (GEOS), for a file. */
const INVALID = `
import json, sys
from osgeo import ogr
ogr.UseExceptions()
ds = ogr.Open(sys.argv[1])
print(json.dumps(sorted(f.GetFID() for f in ds.GetLayer(0) if f.GetGeometryRef() and not f.GetGeometryRef().IsValid())))
`;

let dir: string;

/** Squares far apart (the spatial order shuffles them), two of them bow-ties, in the file's order. */
function feed(): Record<string, unknown> {
  const xs = [-70, -120, -80, -110, -90, -100];
  const square = (x: number, bow: boolean) =>
    bow
      ? [
          [x, 40],
          [x + 1, 41],
          [x + 1, 40],
          [x, 41],
          [x, 40],
        ]
      : [
          [x, 40],
          [x + 1, 40],
          [x + 1, 41],
          [x, 41],
          [x, 40],
        ];
  return {
    type: "FeatureCollection",
    features: xs.map((x, i) => ({
      type: "Feature",
      properties: { name: `county ${i}` },
      geometry: { type: "Polygon", coordinates: [square(x, i === 2 || i === 3)] },
    })),
  };
}

const FORMATS: [string, string, string[]][] = [
  ["shapefile", "counties.shp", ["-f", "ESRI Shapefile"]],
  ["gpkg", "counties.gpkg", ["-f", "GPKG"]],
  ["flatgeobuf", "counties.fgb", ["-f", "FlatGeobuf"]],
  ["csv", "counties.csv", ["-f", "CSV", "-lco", "GEOMETRY=AS_WKT"]],
  ["geojson", "counties.geojson", ["-f", "GeoJSON"]],
];

describe("a refused row names the file's feature as OGR numbers it", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-fids-"));
    mkdirSync(join(dir, "co"));
    writeFileSync(join(dir, "feed.geojson"), JSON.stringify(feed()));
    for (const [, file, args] of FORMATS)
      execFileSync("ogr2ogr", [...args, join(dir, "co", file), join(dir, "feed.geojson")]);
    const datasets = Object.fromEntries(
      FORMATS.map(([name, file]) => [
        name,
        {
          source: { url: `./{region}/${file}`, ...(name === "csv" ? { crs: "EPSG:4326" } : {}) },
          regions: ["co"],
          cadence: "monthly",
        },
      ]),
    );
    writeFileSync(join(dir, "georefresh.config.json"), JSON.stringify({ store: "./data", datasets }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(FORMATS.map(([name, file]) => [name, file]))("%s", async (name, file) => {
    const ogr = JSON.parse(
      execFileSync("/usr/bin/python3", ["-c", INVALID, join(dir, "co", file)], { encoding: "utf8" }),
    ) as number[];
    expect(ogr).toHaveLength(2);
    const r = await runCliHere([
      "backfill",
      "--config",
      join(dir, "georefresh.config.json"),
      "--dataset",
      name,
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
    ]);
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(1);
    expect(out).toMatch(
      new RegExp(`read from \\S*co/${file.replace(".", "\\.")}; features numbered as OGR counts them`),
    );
    const named = [...out.matchAll(/feature (\d+) \(artifact row \d+\): /g)].map((m) => Number(m[1])).sort();
    expect(named, out).toEqual(ogr);
  });
});
