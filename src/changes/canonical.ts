import { DataType } from "apache-arrow";
import type { Data, Vector } from "apache-arrow";
import { GrowableBytes } from "../growable.js";

/**
 * The canonical bytes of a value, so that a row's digest depends on its values and nothing else: every number
 * (any integer or float width) is its float64 (1, 1.0 and an int64 1 are one value; the artifact's float
 * formatting never enters), an integer beyond 2^53 its decimal digits, a string its UTF-8 bytes with their
 * length, anything else (dates, lists, structs) its canonical JSON with sorted keys. Each value is tagged, so a
 * null, "" and 0 differ. docs/changes.md documents this as the row digest's contract.
 */
export const TAG = { null: 0, number: 1, string: 2, true: 3, false: 4, bigint: 5, binary: 6, other: 7 } as const;

/** A growable scratch buffer the encodings of one row are written into. */
export class CanonicalBytes extends GrowableBytes {
  reset(): void {
    this.at = 0;
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }

  /** 32-bit FNV-1a of the bytes written since `start`. */
  fnv1a(start: number): number {
    let h = 0x811c9dc5;
    const b = this.buf;
    for (let i = start; i < this.at; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193);
    return h >>> 0;
  }

  tag(t: number): void {
    this.room(1);
    this.buf[this.at++] = t;
  }

  number(x: number): void {
    this.room(9);
    this.buf[this.at++] = TAG.number;
    this.view.setFloat64(this.at, x === 0 ? 0 : x, true); // -0 is 0
    this.at += 8;
  }

  /** A length-prefixed byte run under `tag` (a string's UTF-8, a binary value). */
  run(tag: number, src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.room(5 + n);
    this.buf[this.at++] = tag;
    this.view.setUint32(this.at, n, true);
    this.at += 4;
    this.buf.set(src.subarray(start, end), this.at);
    this.at += n;
  }

  text(tag: number, s: string): void {
    const b = encoder.encode(s);
    this.run(tag, b, 0, b.length);
  }

  /** Any value as Arrow's row accessor gives it. */
  value(v: unknown): void {
    if (v === null || v === undefined) this.tag(TAG.null);
    else if (typeof v === "number") this.number(v);
    else if (typeof v === "bigint") {
      if (v >= -MAX_SAFE && v <= MAX_SAFE) this.number(Number(v));
      else this.text(TAG.bigint, v.toString());
    } else if (typeof v === "string") this.text(TAG.string, v);
    else if (typeof v === "boolean") this.tag(v ? TAG.true : TAG.false);
    else if (v instanceof Uint8Array) this.run(TAG.binary, v, 0, v.length);
    else this.text(TAG.other, JSON.stringify(plain(v)));
  }
}

const encoder = new TextEncoder();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A JSON-able form with sorted keys (structs, maps, lists, dates), so equal values encode equally. */
export function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v !== "object") return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  if (Symbol.iterator in v && typeof (v as { toArray?: unknown }).toArray === "function")
    return [...(v as Iterable<unknown>)].map(plain);
  if (Array.isArray(v)) return v.map(plain);
  const json = typeof (v as { toJSON?: unknown }).toJSON === "function" ? (v as { toJSON(): unknown }).toJSON() : v;
  if (json !== v) return plain(json);
  return Object.fromEntries(
    Object.keys(v as object)
      .sort()
      .map((k) => [k, plain((v as Record<string, unknown>)[k])]),
  );
}

/** The values a run of canonical bytes encodes, in order (the inverse of CanonicalBytes for what it wrote). */
export function decodeCanonical(bytes: Uint8Array): unknown[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: unknown[] = [];
  for (let at = 0; at < bytes.length;) {
    const tag = bytes[at++];
    if (tag === TAG.null) out.push(null);
    else if (tag === TAG.true || tag === TAG.false) out.push(tag === TAG.true);
    else if (tag === TAG.number) {
      out.push(view.getFloat64(at, true));
      at += 8;
    } else {
      const n = view.getUint32(at, true);
      const run = bytes.subarray(at + 4, at + 4 + n);
      at += 4 + n;
      const text = () => decoder.decode(run);
      out.push(
        tag === TAG.string
          ? text()
          : tag === TAG.bigint
            ? BigInt(text())
            : tag === TAG.binary
              ? run.slice()
              : JSON.parse(text()),
      );
    }
  }
  return out;
}

const decoder = new TextDecoder();

/** Writes row `i` of a column into `out`. */
export type Encode = (i: number, out: CanonicalBytes) => void;

function isNullAt(d: Data, i: number): boolean {
  if (!d.nullCount) return false;
  const bitmap = d.nullBitmap;
  const j = d.offset + i;
  return bitmap !== undefined && bitmap.length > 0 && (((bitmap[j >> 3] as number) >> (j & 7)) & 1) === 0;
}

/**
 * An encoder for one column that reads Arrow's buffers for numbers, strings and dictionaries (a row accessor per
 * value was most of the cost) and falls back to the accessor for every other type.
 */
export function encoderFor(vector: Vector): Encode {
  const d = vector.data.length === 1 ? (vector.data[0] as Data) : undefined;
  const generic: Encode = (i, out) => out.value(vector.get(i));
  if (!d) return generic;
  const type = d.type as DataType;
  if ((DataType.isInt(type) || DataType.isFloat(type)) && d.values) {
    const values = d.values as ArrayLike<number | bigint>;
    const wide = values instanceof BigInt64Array || values instanceof BigUint64Array;
    if (DataType.isFloat(type) && (type as { precision?: number }).precision === 0) return generic; // float16
    return (i, out) => {
      if (isNullAt(d, i)) out.tag(TAG.null);
      else if (wide) out.value(values[i]);
      else out.number(values[i] as number);
    };
  }
  if (DataType.isUtf8(type) && d.valueOffsets instanceof Int32Array) {
    const offsets = d.valueOffsets;
    const bytes = d.values as Uint8Array;
    return (i, out) => {
      if (isNullAt(d, i)) out.tag(TAG.null);
      else out.run(TAG.string, bytes, offsets[i] as number, offsets[i + 1] as number);
    };
  }
  if (DataType.isDictionary(type) && d.dictionary && d.values) {
    const dictionary = encoderFor(d.dictionary);
    const indices = d.values as ArrayLike<number>;
    return (i, out) => {
      if (isNullAt(d, i)) out.tag(TAG.null);
      else dictionary(Number(indices[i]), out);
    };
  }
  return generic;
}
