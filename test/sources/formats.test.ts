import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { rfc7946Winding } from "../../src/geo/winding.js";
import { positions, readRows } from "../helpers/geojson-rows.js";
import type { Geometry, Row } from "../helpers/geojson-rows.js";
import { writeCorpus } from "../helpers/source-corpus.js";

const JUDGE = fileURLToPath(new URL("../helpers/ogr_judge.py", import.meta.url));

/** One corpus file as a config-only dataset, and how the judge reads the same file. */
interface Case {
  dataset: string;
  source: Record<string, unknown>;
  /** The judge's layer, CRS (for files that say none) and target CRS. */
  judge: { file: string; layer?: string; crs?: string; to?: string; open?: string[] };
  id: string;
  rows: number;
}

const CASES: Case[] = [
  {
    dataset: "shp-zip",
    source: { url: "./weld/{region}.zip".replace("weld/{region}", "{region}/parcels") },
    judge: { file: "weld/zip/feed/parcels.shp" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "shp-ldid",
    source: { url: "./{region}/ldid/parcels.shp" },
    judge: { file: "weld/ldid/parcels.shp" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "shp-cpg-utf8",
    source: { url: "./{region}/utf8/parcels.shp" },
    judge: { file: "weld/utf8/parcels.shp" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "gpkg",
    source: { url: "./{region}/parcels.gpkg", layer: "parcels" },
    judge: { file: "weld/parcels.gpkg", layer: "parcels" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "gpkg-3d",
    source: { url: "./{region}/parcels.gpkg", layer: "points3d" },
    judge: { file: "weld/parcels.gpkg", layer: "points3d" },
    id: "name",
    rows: 8,
  },
  {
    dataset: "gpkg-mixed",
    source: { url: "./{region}/parcels.gpkg", layer: "mixed" },
    judge: { file: "weld/parcels.gpkg", layer: "mixed" },
    id: "name",
    rows: 4,
  },
  {
    dataset: "fgb",
    source: { url: "./{region}/parcels.fgb" },
    judge: { file: "weld/parcels.fgb" },
    id: "parcel_id",
    rows: 29,
  },
  {
    dataset: "geojson",
    source: { url: "./{region}/parcels.geojson" },
    judge: { file: "weld/parcels.geojson" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "geojsonseq",
    source: { url: "./{region}/parcels.geojsons" },
    judge: { file: "weld/parcels.geojsons" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "csv-wkt",
    source: {
      url: "./{region}/parcels.csv",
      crs: "EPSG:26913",
      columns: {
        parcel_id: "parcel_id",
        zoning: "zoning",
        acres: { name: "acres", type: "float64" },
        units: { name: "units", type: "int32" },
        owner: "owner",
      },
    },
    judge: { file: "weld/parcels.csv", crs: "EPSG:26913" },
    id: "parcel_id",
    rows: 30,
  },
  {
    dataset: "csv-xy",
    source: {
      url: "./{region}/points.csv",
      crs: "EPSG:4326",
      geometry: { x: "X", y: "Y", z: "Z" },
      columns: { name: "name", depth: { name: "depth", type: "int32" } },
    },
    judge: {
      file: "weld/points.csv",
      crs: "OGC:CRS84",
      open: ["X_POSSIBLE_NAMES=X", "Y_POSSIBLE_NAMES=Y", "Z_POSSIBLE_NAMES=Z"],
    },
    id: "name",
    rows: 8,
  },
];

let dir: string;

function judge(c: Case): Row[] {
  const out = execFileSync(
    "/usr/bin/python3",
    [JUDGE, join(dir, c.judge.file), c.judge.layer ?? "", c.judge.crs ?? "", c.judge.to ?? "", ...(c.judge.open ?? [])],
    {
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
    },
  );
  return (JSON.parse(out) as { features: Row[] }).features;
}

const ours = (dataset: string) => readRows(dataset, join(dir, "georefresh.config.json"), "weld");

describe("a dataset from config alone reads each format as GDAL does (corpus written by ogr2ogr, judged by OGR + PROJ)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sources-"));
    writeCorpus(dir);
    const datasets = Object.fromEntries(
      CASES.map((c) => [c.dataset, { source: c.source, regions: ["weld"], cadence: "monthly" }]),
    );
    writeFileSync(join(dir, "georefresh.config.json"), JSON.stringify({ store: "./data", datasets }));
    for (const c of CASES) {
      const r = await runCliHere([
        "backfill",
        "--config",
        join(dir, "georefresh.config.json"),
        "--dataset",
        c.dataset,
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
      ]);
      expect(r.stderr, c.dataset).toBe("");
      expect(r.code, `${c.dataset}: ${r.stdout}`).toBe(0);
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(CASES.map((c) => [c.dataset, c] as const))(
    "%s: same rows, attributes and coordinates (1e-9°)",
    async (_, c) => {
      // Our GeoJSON winds rings as RFC 7946 says (test/geo/winding.test.ts); OGR's keeps the file's order.
      const theirs = judge(c).map((f) => ({ ...f, geometry: rfc7946Winding(f.geometry as never) as Geometry }));
      const mine = await ours(c.dataset);
      expect(mine).toHaveLength(c.rows);
      expect(theirs).toHaveLength(c.rows);
      const byId = new Map(mine.map((f) => [String(f.properties[c.id]), f]));
      let worst = 0;
      for (const t of theirs) {
        const m = byId.get(String(t.properties[c.id]));
        expect(m, String(t.properties[c.id])).toBeDefined();
        const row = m as Row;
        // CSV values are text to GDAL; ours are typed by the source's "columns".
        const expected = Object.fromEntries(
          Object.entries(t.properties)
            .filter(([k]) => !["X", "Y", "Z", "WKT"].includes(k))
            .map(([k, v]) => [k, c.dataset.startsWith("csv") && v !== null ? String(v) : v]),
        );
        const actual = Object.fromEntries(
          Object.entries(row.properties).map(([k, v]) => [
            k,
            c.dataset.startsWith("csv") && v !== null ? String(v) : v,
          ]),
        );
        expect(actual).toEqual(expected);
        if (t.geometry === null) {
          // GeoParquet has no null geometry: a missing one is an empty one.
          expect(positions(row.geometry)).toEqual([]);
          continue;
        }
        expect(row.geometry?.type).toBe(t.geometry.type);
        const a = positions(row.geometry);
        const b = positions(t.geometry);
        expect(a.length).toBe(b.length);
        a.forEach((p, i) => {
          const q = b[i] as number[];
          expect(p.length).toBe(q.length);
          p.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - (q[k] as number)))));
        });
      }
      expect(worst).toBeLessThan(1e-9);
    },
  );
});
