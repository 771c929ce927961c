/**
 * The binary COPY encoder against the real server: every type a sink writes round-trips exactly (NULLs, extremes,
 * UTF-8, WKB of either byte order with the column's SRID), and a malformed row is refused by the server.
 */
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { BinaryCopyWriter, withSrid } from "../../src/sinks/postgis/copy-binary.js";
import type { CopyType } from "../../src/sinks/postgis/copy-binary.js";

const TYPES: CopyType[] = ["text", "int2", "int4", "int8", "float4", "float8", "bool", "bytea", "date", "geometry"];

/** A point's WKB, little- or big-endian. */
function point(x: number, y: number, little = true): Uint8Array {
  const b = new Uint8Array(21);
  const v = new DataView(b.buffer);
  b[0] = little ? 1 : 0;
  v.setUint32(1, 1, little);
  v.setFloat64(5, x, little);
  v.setFloat64(13, y, little);
  return b;
}

describe("binary COPY into PostGIS", () => {
  let client: pg.Client;
  const table = `copy_test_${process.pid}`;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: inject("postgres") as string });
    await client.connect();
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.query(
      `CREATE TABLE ${table} (t text, s smallint, i integer, b bigint, f real, d double precision, ok boolean, raw bytea, day date, geom geometry(Point, 26913))`,
    );
  });
  afterAll(async () => {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  });

  const copy = async (w: BinaryCopyWriter) => {
    const body = Buffer.concat([w.take(), Buffer.from([0xff, 0xff])]); // the trailer: a field count of -1
    await pipeline(Readable.from([body]), client.query(copyFrom(`COPY ${table} FROM STDIN (FORMAT binary)`)));
  };

  it("round-trips every type exactly, NULLs included", async () => {
    const w = new BinaryCopyWriter(TYPES, 26913);
    w.row([
      'Zoning "R1"; DROP TABLE x; -- é 北',
      -32768,
      2147483647,
      9007199254740993n,
      1.5,
      Math.PI,
      true,
      new Uint8Array([0, 1, 255]),
      "2026-03-01",
      point(500000.5, 4460000.25),
    ]);
    w.row([null, null, null, null, null, null, false, null, "1999-12-31", point(1, 2, false)]);
    w.row(TYPES.map(() => null));
    await copy(w);
    const rows = (
      await client.query(
        `SELECT t, s, i, b::text AS b, f, d, ok, raw, to_char(day, 'YYYY-MM-DD') AS day, ST_SRID(geom) AS srid, ST_X(geom) AS x, ST_Y(geom) AS y FROM ${table} ORDER BY day NULLS LAST`,
      )
    ).rows;
    expect(rows[0]).toMatchObject({ t: null, ok: false, day: "1999-12-31", srid: 26913, x: 1, y: 2 });
    expect(rows[1]).toMatchObject({
      t: 'Zoning "R1"; DROP TABLE x; -- é 北',
      s: -32768,
      i: 2147483647,
      b: "9007199254740993",
      f: 1.5,
      d: Math.PI,
      ok: true,
      day: "2026-03-01",
      srid: 26913,
      x: 500000.5,
      y: 4460000.25,
    });
    expect([...(rows[1].raw as Buffer)]).toEqual([0, 1, 255]);
    expect(Object.values(rows[2]).every((v) => v === null)).toBe(true);
  });

  it("sets the SRID once, in either byte order, and the server refuses a geometry of another SRID", async () => {
    const le = withSrid(point(1, 2), 4326);
    expect(withSrid(le, 26913)).toBe(le); // already EWKB: left as it is
    const w = new BinaryCopyWriter(TYPES, 4326);
    w.row([null, null, null, null, null, null, null, null, null, point(1, 2)]);
    await expect(copy(w)).rejects.toThrow(/SRID \(4326\) does not match column SRID \(26913\)/);
  });
});
