import { Binary, Bool, DateDay, Float32, Float64, Int16, Int32, Int64, List, Field, TimestampMillisecond, Utf8, vectorFromArray } from "apache-arrow";
import type { DataType, Vector } from "apache-arrow";
import { describe, expect, it } from "vitest";
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
];

/** A permutation with repeats and the rows of a sliced vector (non-zero offset) and of a two-chunk vector. */
const order = Uint32Array.from({ length: N - 20 }, (_, i) => (i * 37 + 11) % (N - 20));

const plain = (v: unknown): unknown => (v && typeof v === "object" && "toArray" in v ? [...(v as { toArray(): Iterable<unknown> }).toArray()] : v instanceof Uint8Array ? [...v] : v);

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
        for (let i = 0; i < order.length; i++) expect(plain(out.get(i)), `${name} row ${i}`).toEqual(plain(source.get(order[i] as number)));
      }
    });
  }
});
