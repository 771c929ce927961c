/**
 * The first version's changelog, built as columns (first-changelog.ts), is the row path's changelog value for
 * value and byte for byte, on randomized tables: text keys (with characters past the BMP, which UTF-8 and UTF-16
 * order differently), ASCII text keys of many lengths (sorted by byte), 32- and 64-bit integer keys (past 2^53), floats, and keys of two columns.
 */
import { Binary, Float64, Int32, Int64, Table, Utf8, makeData, makeVector, vectorFromArray } from "apache-arrow";
import type { DataType, Vector } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { changelogOf, changelogTable, encodeChangelogTable } from "../../src/changes/changelog.js";
import { diffDigests } from "../../src/changes/diff.js";
import { firstChangelogTable } from "../../src/changes/first-changelog.js";
import { RowDigester, digestReady } from "../../src/changes/row-digest.js";
import { encodeWkbColumn } from "../../src/geo/wkb.js";

/** A small deterministic generator (mulberry32): the same seed, the same table. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ["a", "Z", "é", "東", "\u{1F600}", "\uFFFD", "0", "-"];
/** ASCII keys, sorted by byte (first-changelog.ts's radix path): short values that prefix longer ones, "~" and " ". */
const ASCII = ["a", "b", "Z", "0", "-", "~", " "];

function table(seed: number, rows: number): { table: Table; key: string[] } {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const text = new Set<string>();
  while (text.size < rows) text.add(Array.from({ length: 1 + Math.floor(r() * 6) }, () => pick(ALPHABET)).join(""));
  const codes = new Set<string>();
  while (codes.size < rows) codes.add(Array.from({ length: 1 + Math.floor(r() * 8) }, () => pick(ASCII)).join(""));
  const ints = new Set<number>();
  while (ints.size < rows) ints.add(Math.floor((r() - 0.5) * 2 ** 31));
  const bigs = new Set<bigint>();
  while (bigs.size < rows) bigs.add(BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * 4096n + BigInt(Math.floor(r() * 4096)));
  const wkb = encodeWkbColumn(
    Array.from({ length: rows }, () => ({ type: "Point" as const, coordinates: [r() * 10, r() * 10] })),
  );
  const columns: Record<string, Vector> = {
    name: vectorFromArray([...text], new Utf8()),
    code: vectorFromArray([...codes], new Utf8()),
    id32: vectorFromArray([...ints], new Int32()),
    id64: vectorFromArray([...bigs], new Int64()),
    score: vectorFromArray(
      Array.from({ length: rows }, () => Math.round(r() * 1e6) / 7),
      new Float64(),
    ),
    group: vectorFromArray(
      Array.from({ length: rows }, (_, i) => `g${i % 7}`),
      new Utf8(),
    ),
    part: vectorFromArray(
      Array.from({ length: rows }, (_, i) => Math.floor(i / 7)),
      new Int32(),
    ),
    geometry: makeVector(makeData({ type: new Binary(), length: rows, valueOffsets: wkb.offsets, data: wkb.data })),
  };
  const keys = [["name"], ["id32"], ["id64"], ["score"], ["group", "part"], ["code"]];
  return { table: new Table(columns), key: keys[seed % keys.length] as string[] };
}

/** Every row's values, lists as arrays and 64-bit integers as text. */
function values(t: Table): unknown[] {
  const norm = (v: unknown): unknown =>
    typeof v === "bigint"
      ? String(v)
      : v !== null && typeof v === "object" && Symbol.iterator in v
        ? [...(v as Iterable<unknown>)]
        : v;
  return t
    .toArray()
    .map((r: Record<string, unknown>) => Object.fromEntries(t.schema.fields.map((f) => [f.name, norm(r[f.name])])));
}

describe("the first version's changelog as columns", () => {
  it("equals the row path's, value for value and byte for byte", async () => {
    await digestReady();
    for (let seed = 0; seed < 12; seed++) {
      const { table: t, key } = table(seed, 500 + seed * 137);
      const digester = new RowDigester({ key, geometry: "geometry", skip: [] }, t.numRows);
      digester.group(t);
      const d = digester.finish();
      const side = { digests: d, geometry: "geometry", open: () => Promise.reject(new Error("no re-read")) };
      const rows = changelogTable(await changelogOf(diffDigests(undefined, d), key, undefined, side));
      const columns = firstChangelogTable(d, key) as Table;
      expect(columns, `seed ${seed}`).toBeDefined();
      expect(columns.schema.fields.map((f) => [f.name, String(f.type as DataType), f.nullable])).toEqual(
        rows.schema.fields.map((f) => [f.name, String(f.type as DataType), f.nullable]),
      );
      expect(values(columns)).toEqual(values(rows));
      expect(
        Buffer.from(await encodeChangelogTable(columns)).equals(Buffer.from(await encodeChangelogTable(rows))),
        `seed ${seed} ${key.join(",")}`,
      ).toBe(true);
    }
  });
});
