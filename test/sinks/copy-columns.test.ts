/**
 * The column-wise COPY encoder (writeBatch) writes exactly the bytes the row writer (BinaryCopyWriter.row) writes
 * for each row's values: every type a sink loads, NULLs, dictionaries, UTF-8, WKB of either byte order with and
 * without an SRID, constants before and after, and a table of several record batches.
 */
import {
  Binary,
  Bool,
  Dictionary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  makeData,
  makeVector,
  Table,
  Uint8,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import type { Vector } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { partitionBatch } from "../../src/sinks/partition-rows.js";
import { BinaryCopyWriter } from "../../src/sinks/postgis/copy-binary.js";
import type { CopyType } from "../../src/sinks/postgis/copy-binary.js";
import { encodeBatch, writeBatch } from "../../src/sinks/postgis/copy-columns.js";
import { copyTypeOf } from "../../src/sinks/postgis/types.js";

/** A point's WKB, little- or big-endian, optionally with an SRID already in its header (EWKB). */
function point(x: number, y: number, little: boolean, srid?: number): Uint8Array {
  const b = new Uint8Array(srid === undefined ? 21 : 25);
  const v = new DataView(b.buffer);
  b[0] = little ? 1 : 0;
  v.setUint32(1, srid === undefined ? 1 : 0x20000001, little);
  let at = 5;
  if (srid !== undefined) v.setUint32((at += 4) - 4, srid, little);
  v.setFloat64(at, x, little);
  v.setFloat64(at + 8, y, little);
  return b;
}

/** A square polygon's little-endian WKB (longer than the encoder's short-copy loop). */
function square(x: number): Uint8Array {
  const b = new Uint8Array(93);
  const v = new DataView(b.buffer);
  b[0] = 1;
  v.setUint32(1, 3, true);
  v.setUint32(5, 1, true);
  v.setUint32(9, 5, true);
  [0, 1, 1, 0, 0].forEach((dx, k) => {
    v.setFloat64(13 + 16 * k, x + dx, true);
    v.setFloat64(21 + 16 * k, [0, 0, 1, 1, 0][k] as number, true);
  });
  return b;
}

function table(from: number, n: number): Table {
  const rows = Array.from({ length: n }, (_, k) => from + k);
  const dictionary = vectorFromArray(["R1", "C-2 commercial, mixed use and a long description past 48 bytes", "é 北"]);
  const zoning = makeVector(
    makeData({
      type: new Dictionary(new Utf8(), new Int32()),
      length: n,
      nullCount: 0,
      data: Int32Array.from(rows, (r) => r % 3),
      dictionary,
    } as never),
  );
  const geometry = rows.map((r) =>
    r % 4 === 0
      ? point(r, -r, true)
      : r % 4 === 1
        ? point(r, r / 3, false)
        : r % 4 === 2
          ? point(r, 1, true, 4326)
          : square(r),
  );
  const columns: Record<string, Vector> = {
    parcel_id: vectorFromArray(
      rows.map((r) => `P-${r}`),
      new Utf8(),
    ),
    owner: vectorFromArray(
      rows.map((r) => (r % 5 === 0 ? null : `owner ${"x".repeat(r % 70)} ${r}`)),
      new Utf8(),
    ),
    zoning,
    value: vectorFromArray(
      rows.map((r) => (r % 7 === 0 ? null : r * 1.25)),
      new Float64(),
    ),
    ratio: vectorFromArray(
      rows.map((r) => r / 8),
      new Float32(),
    ),
    floors: vectorFromArray(
      rows.map((r) => (r % 6 === 0 ? null : r - 1000)),
      new Int32(),
    ),
    units: vectorFromArray(
      rows.map((r) => r % 300),
      new Int16(),
    ),
    flags: vectorFromArray(
      rows.map((r) => r % 256),
      new Uint8(),
    ),
    big: vectorFromArray(
      rows.map((r) => (r % 9 === 0 ? null : BigInt(r) * 2n ** 40n)),
      new Int64(),
    ),
    vacant: vectorFromArray(
      rows.map((r) => (r % 11 === 0 ? null : r % 2 === 0)),
      new Bool(),
    ),
    raw: vectorFromArray(
      rows.map((r) => (r % 8 === 0 ? null : new Uint8Array([r & 255, 0, 255]))),
      new Binary(),
    ),
    geometry: vectorFromArray(geometry, new Binary()),
  };
  return new Table(columns);
}

describe("the column-wise COPY encoder", () => {
  it("writes the row writer's bytes for every type, NULL, dictionary and WKB form, across record batches", async () => {
    const t = table(0, 37).concat(table(37, 64), table(101, 5));
    expect(t.batches.length).toBe(3);
    const data = ["parcel_id", "owner", "zoning", "value", "ratio", "floors", "units", "flags", "big", "vacant", "raw"];
    const batch = await partitionBatch(t, ["parcel_id"], data);
    const types: CopyType[] = [
      "text",
      ...data.map((c) => copyTypeOf(String(t.schema.fields.find((f) => f.name === c)?.type), c)),
      "geometry",
      "text",
      "date",
      "text",
      "text",
    ];
    const before = ["weld"];
    const after = ["2026-03-01", "parcels/region=weld/x.parquet", "run-1"];

    const columnWise = new BinaryCopyWriter(types, 26913);
    writeBatch(columnWise, batch, types, before, after);
    const rowWise = new BinaryCopyWriter(types, 26913);
    for (let i = 0; i < batch.length; i++) rowWise.row(batch.row(i), before, after);

    const a = Buffer.from(columnWise.take());
    const b = Buffer.from(rowWise.take());
    expect(a.length).toBe(b.length);
    expect(a.equals(b)).toBe(true);
    // In slices of 10 rows, each taken as it is written (a new buffer each time): the same bytes once joined.
    const sliced = new BinaryCopyWriter(types, 26913);
    const parts: Buffer[] = [];
    for (const _ of encodeBatch(sliced, batch, types, before, after, 10)) parts.push(Buffer.from(sliced.take()));
    expect(parts.length).toBe(4 + 7 + 1); // 37, 64 and 5 rows
    expect(Buffer.concat(parts).equals(b)).toBe(true);
    // Not vacuous: the body holds every row, each geometry with the SRID written in (EWKB), the digests as hex.
    expect(a.length).toBeGreaterThan(106 * 100);
    expect(a.includes(Buffer.from("é 北"))).toBe(true);
  });

  it("hands each chunk over: a later batch does not overwrite bytes already taken", async () => {
    const t = table(0, 10);
    const batch = await partitionBatch(t, ["parcel_id"], ["parcel_id"]);
    const types: CopyType[] = ["text", "geometry", "text"];
    const w = new BinaryCopyWriter(types, 4326);
    writeBatch(w, batch, types, [], []);
    const first = w.take();
    const copy = Buffer.from(first);
    writeBatch(w, batch, types, [], []);
    w.take();
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });
});
