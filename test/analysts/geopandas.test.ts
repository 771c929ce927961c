/**
 * GeoPandas, the analysts' Python reader, reads every kind of file georefresh writes: GeoParquet 1.1 points and
 * polygons, 2.0 native, a large many-row-group partition with the float32 covering, a config-only source dataset in
 * a projected CRS, and (through pyogrio's GDAL) the GeoPackage the sink writes. For each: the CRS GeoPandas finds is
 * the one we wrote, every row is there, every geometry is equal by shapely, the columns agree, and
 * read_parquet(bbox=…) returns exactly the rows whose boxes meet the query.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableToIPC } from "apache-arrow";
import type { Table } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { wkbSummary } from "../../src/geo/wkb.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import type { GeoParquetFormat } from "../../src/geoparquet/metadata.js";
import { runCliHere } from "../helpers/cli.js";
import { geopandasJudge } from "../helpers/geopandas.js";
import type { GeoPandasVerdict } from "../helpers/geopandas.js";
import { sampleFeatures } from "../helpers/sample.js";
import { writeFixtures } from "../helpers/source-corpus.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "georefresh-geopandas-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BOX: [number, number, number, number] = [-100, 30, -95, 35];

/** Our reader's view of a file, as an Arrow IPC file for the judge: every column but the covering. */
function expectedOf(table: Table, name: string): string {
  const path = join(dir, `${name}.expected.arrow`);
  const keep = table.schema.fields.map((f) => f.name).filter((n) => n !== "bbox");
  writeFileSync(path, tableToIPC(table.select(keep), "file"));
  return path;
}

/** The ids (as strings) of the rows whose geometry's box meets `box`, by our own WKB reader. */
function idsMeeting(table: Table, id: string, box: [number, number, number, number]): string[] {
  const ids = table.getChild(id)!.toArray() as ArrayLike<unknown>;
  const geoms = table.getChild("geometry")!;
  const out: string[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const [xmin, ymin, xmax, ymax] = wkbSummary(geoms.get(i) as Uint8Array).bbox;
    if (xmin <= box[2] && xmax >= box[0] && ymin <= box[3] && ymax >= box[1]) out.push(String(ids[i]));
  }
  return out.sort();
}

function expectAgreement(v: GeoPandasVerdict, rows: number) {
  expect(v.crs_equal, `GeoPandas found CRS ${v.crs}`).toBe(true);
  expect(v.rows).toBe(rows);
  expect({ missing: v.missing, extra: v.extra, unequal: v.unequal }).toEqual({ missing: [], extra: [], unequal: [] });
  expect(v.columns_differing).toEqual([]);
}

async function writeAndJudge(name: string, features: Feature[], format: GeoParquetFormat, rowGroupRows?: number) {
  const { table, stats } = featuresToTable(features);
  const crs = crsFromCode("OGC:CRS84");
  const { bytes } = await writeGeoParquet(table, { crs, idColumn: "id", stats, format, rowGroupRows });
  const path = join(dir, `${name}.parquet`);
  writeFileSync(path, bytes);
  const ours = await readGeoParquet(bytes, path);
  const verdict = await geopandasJudge({
    path,
    kind: "parquet",
    expected: expectedOf(ours.table, name),
    id: "id",
    crs: "OGC:CRS84",
    bbox: BOX,
  });
  return { verdict, ours, wanted: idsMeeting(ours.table, "id", BOX) };
}

describe("GeoPandas reads what georefresh writes", () => {
  const mixed = sampleFeatures(6000);
  it("GeoParquet 1.1 points", async () => {
    const points = mixed.filter((f) => f.geometry?.type === "Point");
    const { verdict, wanted } = await writeAndJudge("points-1.1", points, "geoparquet-1.1", 1024);
    expectAgreement(verdict, points.length);
    expect(wanted.length).toBeGreaterThan(10);
    expect(verdict.bbox_ids).toEqual(wanted);
  });

  it("GeoParquet 1.1 polygons", async () => {
    const polygons = mixed.filter((f) => f.geometry?.type === "Polygon");
    const { verdict, wanted } = await writeAndJudge("polygons-1.1", polygons, "geoparquet-1.1", 1024);
    expectAgreement(verdict, polygons.length);
    expect(wanted.length).toBeGreaterThan(10);
    expect(verdict.bbox_ids).toEqual(wanted);
  });

  it("GeoParquet 2.0, the native GEOMETRY column", async () => {
    const { verdict, wanted, ours } = await writeAndJudge("mixed-2.0", mixed, "geoparquet-2.0", 1024);
    expect(ours.geo.version).toBe("2.0.0");
    expectAgreement(verdict, mixed.length);
    expect(verdict.bbox_ids).toEqual(wanted);
  });

  it("a large partition: many row groups, the float32 covering prunes and GeoPandas filters by it", async () => {
    const large = sampleFeatures(150_000, 7);
    const { verdict, wanted, ours } = await writeAndJudge("large-1.1", large, "geoparquet-1.1");
    expect(ours.footer.rowGroups.length).toBeGreaterThan(1);
    expect(ours.geo.columns.geometry?.covering).toBeDefined();
    expectAgreement(verdict, large.length);
    expect(wanted.length).toBeGreaterThan(500);
    expect(verdict.bbox_ids).toEqual(wanted);
  }, 120_000);

  describe("a config-only source dataset in EPSG:26913, and its GeoPackage sink", () => {
    let artifact: string;
    let table: Table;
    const config = () => join(dir, "source", "georefresh.config.json");
    beforeAll(async () => {
      const root = join(dir, "source");
      mkdirSync(root);
      writeFixtures(root);
      writeFileSync(
        config(),
        JSON.stringify({
          store: "./data",
          datasets: {
            parcels: {
              source: { url: "./parcels-base.geojson", key: "parcel_id" },
              regions: ["weld"],
              cadence: "monthly",
              storageCrs: "EPSG:26913",
            },
          },
        }),
      );
      const run = await runCliHere([
        "run",
        "--dataset",
        "parcels",
        "--region",
        "weld",
        "--date",
        "2026-01-01",
        "--config",
        config(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const urls = await runCliHere(["urls", "parcels", "--latest-date", "--config", config()]);
      artifact = urls.stdout.trim();
      expect(artifact).toMatch(/region=weld\/date=2026-01-01\/[0-9a-f]{16}\.parquet$/);
      table = (await readGeoParquet(new Uint8Array(readFileSync(artifact)), artifact)).table;
    });

    it("GeoPandas finds EPSG:26913, every parcel, equal geometries and columns", async () => {
      const features = JSON.parse(readFileSync(join(dir, "source", "parcels-base.geojson"), "utf8")) as {
        features: unknown[];
      };
      const verdict = await geopandasJudge({
        path: artifact,
        kind: "parquet",
        expected: expectedOf(table, "parcels"),
        id: "parcel_id",
        crs: "EPSG:26913",
      });
      expectAgreement(verdict, features.features.length);
      expect(table.numRows).toBe(features.features.length);
    });

    it("read --format geojson gives lon/lat (RFC 7946), not the stored EPSG:26913", async () => {
      type Fc = { features: { properties: { parcel_id: string }; geometry: { coordinates: unknown } | null }[] };
      const positions = (c: unknown): number[][] =>
        !Array.isArray(c) ? [] : typeof c[0] === "number" ? [c as number[]] : c.flatMap(positions);
      const feed = JSON.parse(readFileSync(join(dir, "source", "parcels-base.geojson"), "utf8")) as Fc;
      const read = await runCliHere(["read", "parcels", "--region", "weld", "--latest-date", "--config", config()]);
      expect(read.code, read.stderr).toBe(0);
      const got = JSON.parse(read.stdout) as Fc;
      expect(got.features).toHaveLength(feed.features.length);
      const byId = new Map(got.features.map((f) => [f.properties.parcel_id, positions(f.geometry?.coordinates)]));
      for (const f of feed.features) {
        const out = byId.get(f.properties.parcel_id) ?? [];
        // Every vertex, to within a micro-degree after EPSG:26913 and back.
        for (const [x, y] of positions(f.geometry?.coordinates))
          expect(
            out.some(([a, b]) => Math.abs(a! - x!) < 1e-6 && Math.abs(b! - y!) < 1e-6),
            f.properties.parcel_id,
          ).toBe(true);
      }
    });

    it("pyogrio (GDAL) reads the GeoPackage the sink writes: same rows, geometries and CRS", async () => {
      const gpkg = join(dir, "parcels.gpkg");
      const sink = await runCliHere(["sink", "parcels", "--to", gpkg, "--config", config()]);
      expect(sink.code, sink.stderr).toBe(0);
      const verdict = await geopandasJudge({
        path: gpkg,
        kind: "file",
        layer: "parcels",
        expected: expectedOf(table, "parcels-gpkg"),
        id: "parcel_id",
        crs: "EPSG:26913",
      });
      expectAgreement(verdict, table.numRows);
    });
  });
});
