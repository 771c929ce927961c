import {
  Binary,
  Bool,
  DateDay,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  List,
  Field,
  Struct,
  TimestampMillisecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { Vector } from "apache-arrow";
import type { DataType } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { binaryColumn, compactChunks } from "../../src/geoparquet/columns.js";
import { take } from "../../src/geoparquet/take.js";

const N = 300;
const nullish = (i: number) => i % 7 === 3;
const columns: [string, DataType, (i: number) => unknown][] = [
  ["float64", new Float64(), (i) => i * 1.5 - 7],
  ["float32", new Float32(), (i) => i / 4],
  ["int32", new Int32(), (i) => i * 3 - 100],
  ["int16", new Int16(), (i) => (i % 200) - 100],
  ["int64", new Int64(), (i) => BigInt(i) * 10_000_000_000n],
  ["bool", new Bool(), (i) => i % 3 === 0],
  ["utf8", new Utf8(), (i) => `name-${i}-${"é".repeat(i % 4)}`],
  ["binary", new Binary(), (i) => Uint8Array.from({ length: i % 50 }, (_, k) => (i + k) % 256)],
  ["date", new DateDay(), (i) => new Date(Date.UTC(2026, 0, 1 + i))],
  ["timestamp", new TimestampMillisecond(), (i) => Date.UTC(2026, 0, 1, 0, 0, i)],
  ["list (builder path)", new List(new Field("item", new Int32(), true)), (i) => [i, i + 1]],
  [
    "struct holding a list (builder path)",
    new Struct([new Field("roles", new List(new Field("item", new Utf8(), false)), false)]),
    (i) => ({ roles: Array.from({ length: i % 3 }, (_, k) => `r${i}-${k}`) }),
  ],
];

/** A permutation with repeats and the rows of a sliced vector (non-zero offset) and of a two-chunk vector. */
const order = Uint32Array.from({ length: N - 20 }, (_, i) => (i * 37 + 11) % (N - 20));

const plain = (v: unknown): unknown =>
  v instanceof Vector
    ? [...v].map(plain)
    : v instanceof Uint8Array
      ? [...v]
      : v && typeof v === "object" && !(v instanceof Date) && typeof (v as { toJSON?: unknown }).toJSON === "function"
        ? Object.fromEntries(Object.entries((v as { toJSON(): object }).toJSON()).map(([k, x]) => [k, plain(x)]))
        : v;

describe("take", () => {
  for (const [name, type, value] of columns) {
    it(`gathers ${name} rows with their nulls, from a whole, a sliced and a chunked vector`, () => {
      const values = Array.from({ length: N }, (_, i) => (nullish(i) ? null : value(i)));
      const whole = vectorFromArray(values as never[], type as never) as Vector;
      const sliced = whole.slice(20);
      const chunked = whole.slice(20, 150).concat(whole.slice(150));
      for (const source of [sliced, chunked]) {
        const out = take(source, order);
        expect(out.length).toBe(order.length);
        expect(String(out.type)).toBe(String(type));
        expect(out.nullCount).toBe([...order].filter((j) => nullish(j + 20)).length);
        for (let i = 0; i < order.length; i++)
          expect(plain(out.get(i)), `${name} row ${i}`).toEqual(plain(source.get(order[i] as number)));
      }
    });
  }
});

describe("compactChunks", () => {
  for (const [name, type, value] of columns) {
    const fast = !name.includes("builder");
    it(`${fast ? "joins" : "leaves"} the chunks of a ${name} column${fast ? " into one, values and nulls intact" : " (no fast path)"}`, () => {
      const values = Array.from({ length: N }, (_, i) => (nullish(i) ? null : value(i)));
      const whole = vectorFromArray(values as never[], type as never) as Vector;
      const chunked = whole.slice(3, 100).concat(whole.slice(100, 101), whole.slice(101, 290));
      expect(chunked.data.length).toBe(3);
      const out = compactChunks(chunked);
      expect(out.data.length).toBe(fast ? 1 : 3);
      expect(out.length).toBe(287);
      expect(out.nullCount).toBe(chunked.nullCount);
      for (let i = 0; i < out.length; i++) expect(plain(out.get(i)), `${name} row ${i}`).toEqual(plain(chunked.get(i)));
    });
  }

  it("gives binaryColumn one buffer and rebased offsets for a chunked WKB column", () => {
    const rows = Array.from({ length: 50 }, (_, i) => Uint8Array.from({ length: 5 + (i % 9) }, (_, k) => i + k));
    const whole = vectorFromArray(rows, new Binary()) as Vector;
    const { data, offsets } = binaryColumn(whole.slice(10, 30).concat(whole.slice(30)), "g");
    expect(offsets[0]).toBe(0);
    expect(offsets[40]).toBe(data.byteLength);
    for (let i = 0; i < 40; i++)
      expect([...data.subarray(offsets[i], offsets[i + 1])]).toEqual([...(rows[i + 10] as Uint8Array)]);
  });
});
