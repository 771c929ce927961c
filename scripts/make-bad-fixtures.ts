/**
 * npx tsx scripts/make-bad-fixtures.ts [dir] — writes the bad-input corpus (test/fixtures/bad by default) with
 * DuckDB, an independent writer: GeoParquet inputs that are wrong in one way each, plus good ones to compare.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import type { Geometry } from "../src/geo/geometry.js";
import { encodeWkb } from "../src/geo/wkb.js";

const dir = process.argv[2] ?? "test/fixtures/bad";
mkdirSync(dir, { recursive: true });

const square = (x: number, y: number): Geometry => ({
  type: "Polygon",
  coordinates: [
    [
      [x, y],
      [x + 0.1, y],
      [x + 0.1, y + 0.1],
      [x, y + 0.1],
      [x, y],
    ],
  ],
});
const good = (n: number) => Array.from({ length: n }, (_, i) => square(-100 + i * 0.2, 40));
const geo = (crs?: unknown) => ({
  version: "1.1.0",
  primary_column: "geometry",
  columns: { geometry: { encoding: "WKB", geometry_types: [], ...(crs === undefined ? {} : { crs }) } },
});

const files: Record<string, { geoms: Geometry[]; meta: unknown }> = {
  "good.parquet": { geoms: good(20), meta: geo() },
  "no-crs.parquet": { geoms: good(20), meta: geo(null) },
  "unknown-epsg.parquet": {
    geoms: good(20),
    meta: geo({ type: "ProjectedCRS", name: "Made up", id: { authority: "EPSG", code: 999999 } }),
  },
  "invalid-geometry.parquet": {
    geoms: [
      ...good(19),
      {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 1],
            [1, 0],
            [0, 1],
            [0, 0],
          ],
        ],
      },
    ],
    meta: geo(),
  },
  "nan.parquet": {
    geoms: [
      ...good(19),
      {
        type: "Polygon",
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [Number.NaN, 1],
            [0, 0],
          ],
        ],
      },
    ],
    meta: geo(),
  },
  "infinity.parquet": {
    geoms: [...good(19), { type: "Point", coordinates: [Number.POSITIVE_INFINITY, 1] }],
    meta: geo(),
  },
  "out-of-range.parquet": { geoms: [...good(19), square(200, 40)], meta: geo() },
  "empty.parquet": { geoms: [], meta: geo() },
  "truncated-rows.parquet": { geoms: good(5), meta: geo() },
};

const conn = await (await DuckDBInstance.create(":memory:")).connect();
for (const [name, f] of Object.entries(files)) {
  const rows = f.geoms.map((g, i) => `(${i}, from_hex('${Buffer.from(encodeWkb(g)).toString("hex")}'))`);
  const source = rows.length
    ? `(VALUES ${rows.join(", ")}) t(id, geometry)`
    : "(SELECT 0 AS id, ''::BLOB AS geometry WHERE false)";
  const kv = JSON.stringify(f.meta).replaceAll("'", "''");
  await conn.run(
    `COPY (SELECT id::INTEGER AS id, geometry FROM ${source}) TO '${join(dir, name)}' (FORMAT parquet, KV_METADATA {geo: '${kv}'})`,
  );
}
const goodBytes = readFileSync(join(dir, "good.parquet"));
writeFileSync(join(dir, "truncated-footer.parquet"), goodBytes.subarray(0, goodBytes.byteLength - 100));
writeFileSync(join(dir, "wrong-magic.parquet"), Buffer.concat([Buffer.from("PAR0"), goodBytes.subarray(4)]));
console.log(`wrote ${Object.keys(files).length + 2} files to ${dir}`);
