import { DataType, Field, List, makeData, makeVector, Table, Utf8, vectorFromArray } from "apache-arrow";
import type { Vector } from "apache-arrow";
import { TAG } from "./canonical.js";
import { compareKeyValues, keyDecodable, plainType } from "./changelog.js";
import type { RowDigests } from "./row-digest.js";

const encoder = new TextEncoder();

/**
 * The first version's changelog (every row "added") as columns, never as row objects: the key's values decoded
 * from the digests' canonical bytes into one array per column, an index sort by key, and constant columns built
 * from their buffers. The same table, value for value, as changelogTable(changelogOf(…)) gives (and so the same
 * Parquet bytes); undefined for keys the canonical bytes do not give back as Arrow would (the row path reads them).
 */
export function firstChangelogTable(d: RowDigests, key: readonly string[]): Table | undefined {
  // (Null key parts are refused before a change set; the row path says so if one gets here.)
  if (!keyDecodable(d) || d.nullKeys > 0) return undefined;
  const n = d.rows;
  // One text key (the common case): its UTF-8 runs alone, sorted by byte when it is ASCII; else decoded values.
  const text = key.length === 1 && DataType.isUtf8(plainType(d.keyTypes[0]));
  const { values, runs } = keyColumns(d, key.length, text);
  const order =
    (text && asciiOrder(d.keyBytes, runs[0] as Int32Array, n)) ||
    keyOrder(text ? keyColumns(d, key.length).values : values, n);
  const columns: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  key.forEach((name, i) => {
    const type = plainType(d.keyTypes[i]);
    const column = values[i] as unknown[];
    columns[name] = DataType.isUtf8(type)
      ? utf8Runs(d.keyBytes, runs[i] as Int32Array, order)
      : vectorFromArray(
          Array.from(order, (row) => column[row] ?? null),
          type,
        );
  });
  columns.change = constantUtf8("added", n);
  columns.before_digest = nullUtf8(n);
  columns.after_digest = digestHex(d, order);
  columns.columns = emptyLists(n);
  return new Table(columns);
}

/**
 * Each key column's values, row by row, typed as the artifact's columns (64-bit integers as bigint), and for text
 * where each value's UTF-8 sits in the canonical bytes (start, end), so the column is copied, not encoded again.
 */
function keyColumns(d: RowDigests, parts: number, runsOnly = false): { values: unknown[][]; runs: Int32Array[] } {
  const out = Array.from({ length: parts }, () => new Array<unknown>(d.rows));
  const runs = Array.from({ length: parts }, () => new Int32Array(2 * d.rows));
  const bytes = d.keyBytes;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wide = d.keyTypes.map((t) => DataType.isInt(t) && (t as unknown as { bitWidth: number }).bitWidth === 64);
  for (let row = 0; row < d.rows; row++) {
    let at = d.keyOffsets[row] as number;
    for (let i = 0; i < parts; i++) {
      const tag = bytes[at++];
      let v: unknown;
      if (tag === TAG.null) v = null;
      else if (tag === TAG.true || tag === TAG.false) v = tag === TAG.true;
      else if (tag === TAG.number) {
        const x = view.getFloat64(at, true);
        at += 8;
        v = wide[i] ? BigInt(x) : x;
      } else {
        const len = view.getUint32(at, true);
        const start = at + 4;
        at = start + len;
        (runs[i] as Int32Array)[2 * row] = start;
        (runs[i] as Int32Array)[2 * row + 1] = at;
        if (runsOnly) continue;
        const s = text.toString("utf8", start, at);
        v = tag === TAG.bigint ? BigInt(s) : s;
      }
      (out[i] as unknown[])[row] = v;
    }
  }
  return { values: out, runs };
}

/** Rows in key order, as compareKeys orders key values (numbers and bigints by value, strings by code unit). */
function keyOrder(values: unknown[][], n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const only = values.length === 1 ? (values[0] as unknown[]) : undefined;
  if (only && only.every((v) => typeof v === "string")) {
    const s = only as string[];
    return order.sort((a, b) =>
      (s[a] as string) < (s[b] as string) ? -1 : (s[a] as string) > (s[b] as string) ? 1 : 0,
    );
  }
  return order.sort((a, b) => {
    for (const column of values) {
      const c = compareKeyValues(column[a], column[b]);
      if (c) return c;
    }
    return 0;
  });
}

/**
 * Rows in key order for one text key whose every value is ASCII (where UTF-8 byte order is JavaScript's code-unit
 * order, as keyOrder compares): a stable least-significant-byte radix sort of the runs, one pass per byte position
 * (a shorter value sorts before its extensions), positions every value shares skipped. Undefined when a value is
 * not ASCII or longer than 64 bytes (keyOrder then compares strings).
 */
function asciiOrder(bytes: Uint8Array, runs: Int32Array, n: number): Uint32Array | undefined {
  let longest = 0;
  for (let r = 0; r < n; r++) {
    const start = runs[2 * r] as number;
    const end = runs[2 * r + 1] as number;
    if (end - start > longest) longest = end - start;
    for (let i = start; i < end; i++) if ((bytes[i] as number) >= 0x80) return undefined;
  }
  if (longest > 64) return undefined;
  // Each value as a row of `longest` digits (its bytes + 1, then 0 where it has ended): one load per digit.
  const w = longest;
  const digits = new Uint8Array(n * w);
  for (let r = 0; r < n; r++) {
    const start = runs[2 * r] as number;
    const end = runs[2 * r + 1] as number;
    for (let i = start; i < end; i++) digits[r * w + i - start] = (bytes[i] as number) + 1;
  }
  let order = new Uint32Array(n);
  let next = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Int32Array(129);
  for (let p = w - 1; p >= 0; p--) {
    counts.fill(0);
    for (let r = 0; r < n; r++) (counts[digits[r * w + p] as number] as number)++;
    if (counts.includes(n)) continue; // every value alike here: the order stands
    for (let b = 0, sum = 0; b < 129; b++) {
      const c = counts[b] as number;
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const r = order[i] as number;
      next[(counts[digits[r * w + p] as number] as number)++] = r;
    }
    [order, next] = [next, order];
  }
  return order;
}

/** A text key column in `order`, its values' UTF-8 copied from the canonical bytes (a key is never null). */
function utf8Runs(bytes: Uint8Array, runs: Int32Array, order: Uint32Array): Vector {
  const n = order.length;
  const offsets = new Int32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const row = order[i] as number;
    size += (runs[2 * row + 1] as number) - (runs[2 * row] as number);
    offsets[i + 1] = size;
  }
  const data = new Uint8Array(size);
  for (let i = 0; i < n; i++) {
    const row = order[i] as number;
    data.set(bytes.subarray(runs[2 * row] as number, runs[2 * row + 1] as number), offsets[i] as number);
  }
  return makeVector(makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data }));
}

function constantUtf8(text: string, n: number): Vector {
  const one = encoder.encode(text);
  const data = new Uint8Array(one.length * n);
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    data.set(one, i * one.length);
    offsets[i + 1] = (i + 1) * one.length;
  }
  return makeVector(makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data }));
}

function nullUtf8(n: number): Vector {
  return makeVector(
    makeData({
      type: new Utf8(),
      length: n,
      nullCount: n,
      nullBitmap: new Uint8Array((n + 7) >> 3),
      valueOffsets: new Int32Array(n + 1),
      data: new Uint8Array(0),
    }),
  );
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0")).join("");

/** rowDigest (attributes then geometry, 32 hex digits) for each row in `order`, straight into a Utf8 buffer. */
function digestHex(d: RowDigests, order: Uint32Array): Vector {
  const n = order.length;
  const data = new Uint8Array(32 * n);
  const offsets = new Int32Array(n + 1);
  // A u64's hex is its bytes most significant first: the little-endian array's 8 bytes backwards, no BigInt.
  const attrs = new Uint8Array(d.attributes.buffer, d.attributes.byteOffset, d.attributes.byteLength);
  const geoms = new Uint8Array(d.geometry.buffer, d.geometry.byteOffset, d.geometry.byteLength);
  const put = (src: Uint8Array, row: number, at: number) => {
    for (let k = 7; k >= 0; k--) {
      const b = src[8 * row + k] as number;
      data[at++] = HEX.charCodeAt(2 * b);
      data[at++] = HEX.charCodeAt(2 * b + 1);
    }
  };
  for (let i = 0; i < n; i++) {
    const row = order[i] as number;
    put(attrs, row, 32 * i);
    put(geoms, row, 32 * i + 16);
    offsets[i + 1] = 32 * (i + 1);
  }
  return makeVector(makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data }));
}

function emptyLists(n: number): Vector {
  const child = makeData({ type: new Utf8(), length: 0, valueOffsets: new Int32Array(1), data: new Uint8Array(0) });
  return makeVector(
    makeData({
      type: new List(new Field("item", new Utf8(), true)),
      length: n,
      valueOffsets: new Int32Array(n + 1),
      child,
    }),
  );
}
