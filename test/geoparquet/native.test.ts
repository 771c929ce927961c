/**
 * GeoParquet 2.0 output: the footer codec is lossless, the geometry column is Parquet's native GEOMETRY with
 * per-row-group geospatial statistics, DuckDB prunes row groups on them, and hyparquet (a second, independent
 * reader) decodes the statistics and the geometries.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { footerFacts } from "../../src/geoparquet/footer-facts.js";
import { joinFooter, splitFooter } from "../../src/geoparquet/footer.js";
import { validateGeoParquetFile } from "../../src/geoparquet/validate.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { field } from "../../src/geoparquet/thrift.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { chunkMetas, editFooter } from "../helpers/footer-edit.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-native-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 100 × 200 grid of points, 0.1° apart: 20 row groups of 1024 rows, each a compact patch after sorting. */
const features: Feature[] = Array.from({ length: 20_000 }, (_, i) => ({
  geometry: { type: "Point", coordinates: [(i % 100) * 0.1, Math.floor(i / 100) * 0.05] },
  properties: { id: i, name: `n${i % 7}` },
}));
const BOX = "POLYGON((0 0, 1 0, 1 0.2, 0 0.2, 0 0))";
const inBox = features.filter((f) => {
  const [x, y] = (f.geometry as { coordinates: number[] }).coordinates;
  return (x as number) <= 1 && (y as number) <= 0.2;
}).length;

async function write(format: "geoparquet-1.1" | "geoparquet-2.0", crs = "OGC:CRS84") {
  const { table, stats } = featuresToTable(features);
  return writeGeoParquet(table, { crs: crsFromCode(crs), idColumn: "id", stats, rowGroupRows: 1024, format });
}

/** Overwrites the geometry pages of every row group whose statistics miss the box: a reader that reads one fails. */
function corruptOutside(bytes: Uint8Array, boxes: { xmin: number; xmax: number; ymin: number; ymax: number }[]) {
  const out = new Uint8Array(bytes);
  let corrupted = 0;
  for (const { group, path, meta } of chunkMetas(splitFooter(bytes).metadata)) {
    const b = boxes[group];
    if (path.join(".") !== "geometry" || !b || (b.xmin <= 1 && b.xmax >= 0 && b.ymin <= 0.2 && b.ymax >= 0)) continue;
    const start = Number(field(meta, 9));
    out.fill(0xff, start + 16, start + Number(field(meta, 7)));
    corrupted++;
  }
  return { bytes: out, corrupted };
}

describe("GeoParquet 2.0 output", () => {
  let v11: Uint8Array;
  let v20: Uint8Array;
  let path20: string;
  beforeAll(async () => {
    v11 = (await write("geoparquet-1.1")).bytes;
    v20 = (await write("geoparquet-2.0")).bytes;
    path20 = join(dir, "v20.parquet");
    writeFileSync(path20, v20);
  });

  it("the footer codec gives back the bytes it read, for parquet-wasm's and DuckDB's files", async () => {
    expect(Buffer.compare(joinFooter(splitFooter(v11)), v11)).toBe(0);
    expect(Buffer.compare(joinFooter(splitFooter(v20)), v20)).toBe(0);
    const duck = join(dir, "duck.parquet");
    const conn = await duckdb();
    await conn.run(
      `COPY (SELECT i AS id, ('POINT(' || i || ' 1)')::GEOMETRY AS geometry FROM range(5000) t(i)) TO '${duck}' (FORMAT parquet, GEOPARQUET_VERSION 'V2', ROW_GROUP_SIZE 1024)`,
    );
    const bytes = new Uint8Array((await import("node:fs")).readFileSync(duck));
    expect(Buffer.compare(joinFooter(splitFooter(bytes)), bytes)).toBe(0);
  });

  it("is byte-identical across runs and differs from 1.1 only in the footer", async () => {
    expect(Buffer.compare((await write("geoparquet-2.0")).bytes, v20)).toBe(0);
    expect(Buffer.compare(splitFooter(v20).body, splitFooter(v11).body)).toBe(0);
    const geo = JSON.parse((await write("geoparquet-2.0")).geo) as { version: string; columns: Record<string, object> };
    expect(geo.version).toBe("2.0.0");
    expect(geo.columns.geometry).toHaveProperty("covering");
  });

  it("DuckDB reads the column as GEOMETRY with per-row-group statistics equal to each group's extent", async () => {
    // The float32 covering is each box rounded outward: it contains the exact (float64) statistics, within float32's step.
    const near = (covering: number | undefined, exact: number | undefined, outward: 1 | -1) =>
      covering !== undefined &&
      exact !== undefined &&
      (covering - exact) * outward >= 0 &&
      Math.abs(covering - exact) <= 2 ** -22 * Math.max(1, Math.abs(exact));
    const conn = await duckdb();
    const types = await rows(conn, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${path20}')`);
    expect(types.find((t) => t.column_name === "geometry")?.column_type).toBe("GEOMETRY");
    const stats = await rows(
      conn,
      `SELECT row_group_id AS g, geo_bbox AS b, geo_types AS t FROM parquet_metadata('${path20}') WHERE path_in_schema = 'geometry' ORDER BY 1`,
    );
    expect(stats).toHaveLength(20);
    const extents = await rows(
      conn,
      `SELECT file_row_number // 1024 AS g, min(bbox.xmin) AS xmin, max(bbox.xmax) AS xmax, min(bbox.ymin) AS ymin, max(bbox.ymax) AS ymax FROM read_parquet('${path20}', file_row_number = true) GROUP BY 1 ORDER BY 1`,
    );
    for (const [i, s] of stats.entries()) {
      const e = extents[i] as Record<string, number>;
      const b = s.b as Record<string, number>;
      expect([
        near(e.xmin, b.xmin, -1),
        near(e.ymin, b.ymin, -1),
        near(e.xmax, b.xmax, 1),
        near(e.ymax, b.ymax, 1),
      ]).toEqual([true, true, true, true]);
      expect(s.t).toEqual(["point"]);
    }
  });

  it("DuckDB's && skips the row groups the box misses: corrupting them changes nothing, unlike on 1.1", async () => {
    const conn = await duckdb();
    const boxes = footerFacts(v20).rowGroups.map((rg) => rg.columns.find((c) => c.path[0] === "geometry")?.geo?.bbox);
    const count = async (bytes: Uint8Array, name: string) => {
      const p = join(dir, name);
      writeFileSync(p, bytes);
      return rows(conn, `SELECT count(*)::INT AS n FROM '${p}' WHERE geometry && '${BOX}'::GEOMETRY`);
    };
    expect(await count(v20, "clean.parquet")).toEqual([{ n: inBox }]);
    const c20 = corruptOutside(v20, boxes as never);
    expect(c20.corrupted).toBeGreaterThanOrEqual(15); // of 20 row groups, at most 5 are read
    expect(await count(c20.bytes, "c20.parquet")).toEqual([{ n: inBox }]);
    const c11 = corruptOutside(v11, boxes as never);
    await expect(count(c11.bytes, "c11.parquet")).rejects.toThrow();
  });

  it("hyparquet decodes the logical type, the statistics and the geometries", async () => {
    const ab = v20.buffer.slice(v20.byteOffset, v20.byteOffset + v20.byteLength) as ArrayBuffer;
    const meta = parquetMetadata(ab, { geoparquet: false });
    expect(meta.schema.find((s) => s.name === "geometry")?.logical_type).toEqual({ type: "GEOMETRY", crs: undefined });
    const facts = footerFacts(v20);
    meta.row_groups.forEach((rg, i) => {
      const gs = rg.columns.find((c) => c.meta_data?.path_in_schema[0] === "geometry")?.meta_data
        ?.geospatial_statistics;
      expect(gs?.geospatial_types).toEqual([1]);
      expect(gs?.bbox).toMatchObject(
        facts.rowGroups[i]?.columns.find((c) => c.path[0] === "geometry")?.geo?.bbox ?? {},
      );
    });
    const read = (await parquetReadObjects({ file: ab, compressors, columns: ["id", "geometry"] })) as {
      id: number;
      geometry: { type: string; coordinates: number[] };
    }[];
    expect(read).toHaveLength(features.length);
    for (const r of read)
      expect(r.geometry.coordinates).toEqual((features[r.id]?.geometry as { coordinates: number[] }).coordinates);
  });

  it("a projected CRS is inline PROJJSON on the type, and the file passes validate", async () => {
    const out = await write("geoparquet-2.0", "EPSG:5070");
    const p = join(dir, "5070.parquet");
    writeFileSync(p, out.bytes);
    const crs = JSON.parse(footerFacts(out.bytes).columns.get("geometry")?.geo?.crs as string) as { id: object };
    expect(crs.id).toEqual({ authority: "EPSG", code: 5070 });
    const [r] = await rows(await duckdb(), `SELECT ST_CRS(geometry) AS crs FROM '${p}' LIMIT 1`);
    expect(JSON.parse(r?.crs as string)).toEqual(crs);
    const report = await validateGeoParquetFile(out.bytes, p, { threads: 0, strict: true });
    expect([...report.errors, ...report.warnings]).toEqual([]);
    expect(report).toMatchObject({ ok: true, version: "2.0.0", crs: "EPSG:5070" });
  });

  it("statistics that miss the data are refused by validate (native-statistics)", async () => {
    const shrunk = editFooter(v20, (m) => {
      const first = chunkMetas(m).find((c) => c.path[0] === "geometry");
      const gs = first?.meta.fields.find((f) => f.id === 17)?.value as { fields: { id: number; value: unknown }[] };
      const box = gs.fields.find((f) => f.id === 1)?.value as { fields: { id: number; value: number }[] };
      (box.fields[1] as { value: number }).value = -1; // xmax below every x
    });
    const report = await validateGeoParquetFile(shrunk, "shrunk.parquet", { threads: 0 });
    expect(report.ok).toBe(false);
    expect(report.errors.map((e) => e.rule)).toEqual(["native-statistics"]);
    expect(report.errors[0]?.message).toMatch(
      /row group 0: geospatial_statistics bbox .* does not contain the data's extent/,
    );
  });
});
