/**
 * A dataset's table in PostGIS, made on the real server (scripts/postgres.sh): hostile names are quoted, never
 * executed; the geometry column is typed with the storage CRS's SRID and indexed; making it twice changes nothing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sridOf } from "../../src/sinks/sink-table.js";
import { tableStatements } from "../../src/sinks/postgis/table.js";
import type { SinkTableSpec } from "../../src/sinks/postgis/table.js";
import { sqlTypeOf } from "../../src/sinks/postgis/types.js";
import { quoteIdent, SinkSchemaError, tableNameFor } from "../../src/sinks/sql-names.js";

const spec = (over: Partial<SinkTableSpec> = {}): SinkTableSpec => ({
  schema: `sink test ${process.pid}`,
  table: `parcels"; DROP TABLE sentinel; --`,
  key: ["parcel_id"],
  columns: [
    { name: "parcel_id", type: "Utf8" },
    { name: "zoning code", type: "Dictionary<Int32, Utf8>" },
    { name: 'a"b', type: "Float64" },
    { name: "units", type: "Int64" },
    { name: "geometry", type: "Binary" },
    { name: "bbox", type: "Struct<{xmin:Float32, ymin:Float32, xmax:Float32, ymax:Float32}>" },
  ],
  crs: "EPSG:26913",
  hasZ: false,
  ...over,
});

describe("sink tables in PostGIS", () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: inject("postgres") as string });
    await client.connect();
    await client.query("CREATE TABLE IF NOT EXISTS sentinel (id int)");
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(spec().schema)} CASCADE`);
    await client.query("DROP TABLE IF EXISTS sentinel");
    await client.end();
  });

  it("makes the table once, quoting every name, with a typed, indexed geometry and a unique (region, key)", async () => {
    for (let round = 0; round < 2; round++) for (const sql of tableStatements(spec())) await client.query(sql);
    const s = spec();
    const cols = await client.query(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
      [s.schema, s.table],
    );
    expect(cols.rows.map((r) => `${r.column_name}:${r.data_type}:${r.is_nullable}`)).toEqual([
      "region:text:NO",
      "parcel_id:text:NO",
      "zoning code:text:YES",
      'a"b:double precision:YES',
      "units:bigint:YES",
      "geom:USER-DEFINED:YES",
      "valid_from:date:NO",
      "content_digest:text:NO",
      "artifact_key:text:NO",
      "artifact_sha256:text:NO",
      "sink_run:text:NO",
      "retired_at:date:YES",
      "retired_by:text:YES",
    ]);
    const table = `${quoteIdent(s.schema)}.${quoteIdent(s.table)}`;
    expect((await client.query(`SELECT Find_SRID($1, $2, 'geom') AS srid`, [s.schema, s.table])).rows[0].srid).toBe(
      26913,
    );
    const indexes = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2`, [
      s.schema,
      s.table,
    ]);
    expect(indexes.rows.some((r) => /USING gist \(geom\)/.test(r.indexdef))).toBe(true);
    expect(indexes.rows.some((r) => /UNIQUE .*\(region, parcel_id\)/.test(r.indexdef))).toBe(true);
    // A second row with the same (region, key) is refused by the server itself.
    const insert = `INSERT INTO ${table} (region, parcel_id, geom, valid_from, content_digest, artifact_key, artifact_sha256, sink_run)
      VALUES ('weld', 'P-1', ST_GeomFromText('POINT(500000 4460000)', 26913), '2026-03-01', 'd', 'k', 's', 'r')`;
    await client.query(insert);
    await expect(client.query(insert)).rejects.toThrow(/duplicate key value violates unique constraint/);
    expect((await client.query(`SELECT count(*)::int AS n FROM sentinel`)).rows[0].n).toBe(0); // still there
  });

  it("refuses what it cannot make safely, saying what and why", () => {
    expect(() => tableStatements(spec({ columns: [...spec().columns, { name: "region", type: "Utf8" }] }))).toThrow(
      /"region" of the data would clash with the sink's own column/,
    );
    expect(() => quoteIdent("x".repeat(64), "column")).toThrow(/64 bytes: PostgreSQL keeps 63/);
    expect(() => quoteIdent("a\0b")).toThrow(SinkSchemaError);
    expect(() => sqlTypeOf("Decimal<10, 2>", "price")).toThrow(/column "price" has type Decimal/);
    expect(() => sridOf("ESRI:102003")).toThrow(/has no EPSG code/);
    expect(tableNameFor("us-counties.v2")).toBe("us_counties_v2");
    expect(sridOf("OGC:CRS84")).toBe(4326);
  });
});
