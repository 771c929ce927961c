import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * Thrift compact protocol, the encoding of a Parquet footer, kept lossless: every field remembers its wire type
 * (i16 vs i32, the element type of an empty list, the byte of a boolean in a list), so decode → encode gives
 * back the same bytes and a footer can be edited field by field. hyparquet's decoder folds i16 into i32 and
 * guesses types again when encoding, which some readers refuse; see docs/geoparquet.md.
 */

export const T = {
  TRUE: 1,
  FALSE: 2,
  BYTE: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  STRUCT: 12,
} as const;

export type ThriftValue = boolean | number | bigint | Uint8Array | ThriftList | ThriftStruct;
export interface ThriftList {
  elementType: number;
  items: ThriftValue[];
  /** Boolean lists store one byte per item; which byte stands for false varies by writer. */
  boolBytes?: number[];
}
export interface ThriftField {
  id: number;
  type: number;
  value: ThriftValue;
}
/** A struct's fields in wire order (ascending ids in every writer we know of). */
export interface ThriftStruct {
  fields: ThriftField[];
}

export class ThriftError extends GeorefreshError {
  override readonly code: ErrorCode = "Thrift";
}

const MAX_DEPTH = 64; // Parquet footers nest a handful of levels; deeper is a hostile file

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  byte(): number {
    if (this.pos >= this.end) throw new ThriftError(`the footer ends inside a value (at byte ${this.pos})`);
    return this.bytes[this.pos++] as number;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
    }
    throw new ThriftError(`a varint runs past 10 bytes (at byte ${this.pos})`);
  }

  zigzag(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  small(): number {
    const v = this.varint();
    if (v > 0x7fffffffn) throw new ThriftError(`a length of ${v} is out of range (at byte ${this.pos})`);
    return Number(v);
  }

  take(n: number): Uint8Array {
    if (this.pos + n > this.end)
      throw new ThriftError(`a ${n}-byte value runs past the footer's end (at byte ${this.pos})`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function readValue(r: Reader, type: number, depth: number): ThriftValue {
  switch (type) {
    case T.TRUE:
      return true;
    case T.FALSE:
      return false;
    case T.BYTE:
      return (r.byte() << 24) >> 24;
    case T.I16:
    case T.I32:
      return Number(r.zigzag());
    case T.I64:
      return r.zigzag();
    case T.DOUBLE: {
      const b = r.take(8);
      return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
    }
    case T.BINARY:
      return r.take(r.small());
    case T.LIST:
    case T.SET: {
      const head = r.byte();
      const elementType = head & 0x0f;
      const size = head >> 4 === 15 ? r.small() : head >> 4;
      if (size > r.end - r.pos) throw new ThriftError(`a list of ${size} items cannot fit in the footer`);
      const items: ThriftValue[] = [];
      if (elementType === T.TRUE || elementType === T.FALSE) {
        const boolBytes: number[] = [];
        for (let i = 0; i < size; i++) boolBytes.push(r.byte());
        return { elementType, items: boolBytes.map((b) => b === T.TRUE), boolBytes };
      }
      for (let i = 0; i < size; i++) items.push(readValue(r, elementType, depth + 1));
      return { elementType, items };
    }
    case T.STRUCT:
      return readStruct(r, depth + 1);
    default:
      throw new ThriftError(`unsupported Thrift type ${type} (at byte ${r.pos}); Parquet footers use no maps`);
  }
}

function readStruct(r: Reader, depth: number): ThriftStruct {
  if (depth > MAX_DEPTH) throw new ThriftError(`structs nest deeper than ${MAX_DEPTH} levels`);
  const fields: ThriftField[] = [];
  let id = 0;
  for (;;) {
    const head = r.byte();
    const type = head & 0x0f;
    if (type === 0) return { fields };
    const delta = head >> 4;
    id = delta ? id + delta : Number(r.zigzag());
    fields.push({ id, type, value: readValue(r, type, depth) });
  }
}

/** Decodes the struct that starts at `start`; `end` is where it stopped, so callers can check it used it all. */
export function decodeStruct(
  bytes: Uint8Array,
  start = 0,
  end = bytes.byteLength,
): { struct: ThriftStruct; end: number } {
  const r = new Reader(bytes, start, end);
  return { struct: readStruct(r, 0), end: r.pos };
}

class Writer {
  private buf = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.byteLength) return;
    const next = new Uint8Array(Math.max(this.buf.byteLength * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b & 0xff;
  }

  varint(v: bigint): void {
    do {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      this.byte(v ? b | 0x80 : b);
    } while (v);
  }

  zigzag(v: bigint): void {
    this.varint(v >= 0n ? v << 1n : (-v << 1n) - 1n);
  }

  bytes(b: Uint8Array): void {
    this.room(b.byteLength);
    this.buf.set(b, this.length);
    this.length += b.byteLength;
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function writeValue(w: Writer, type: number, value: ThriftValue): void {
  switch (type) {
    case T.TRUE:
    case T.FALSE:
      return; // a field's boolean lives in its header
    case T.BYTE:
      return w.byte(value as number);
    case T.I16:
    case T.I32:
      return w.zigzag(BigInt(value as number));
    case T.I64:
      return w.zigzag(value as bigint);
    case T.DOUBLE: {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, value as number, true);
      return w.bytes(b);
    }
    case T.BINARY: {
      const b = value as Uint8Array;
      w.varint(BigInt(b.byteLength));
      return w.bytes(b);
    }
    case T.LIST:
    case T.SET: {
      const list = value as ThriftList;
      const n = list.items.length;
      if (n < 15) w.byte((n << 4) | list.elementType);
      else {
        w.byte(0xf0 | list.elementType);
        w.varint(BigInt(n));
      }
      if (list.elementType === T.TRUE || list.elementType === T.FALSE) {
        list.items.forEach((v, i) => w.byte(list.boolBytes?.[i] ?? (v ? T.TRUE : T.FALSE)));
        return;
      }
      for (const item of list.items) writeValue(w, list.elementType, item);
      return;
    }
    case T.STRUCT:
      return writeStruct(w, value as ThriftStruct);
    default:
      throw new ThriftError(`cannot encode Thrift type ${type}`);
  }
}

function writeStruct(w: Writer, s: ThriftStruct): void {
  let last = 0;
  for (const f of s.fields) {
    const type = f.type === T.TRUE || f.type === T.FALSE ? (f.value ? T.TRUE : T.FALSE) : f.type;
    const delta = f.id - last;
    if (delta > 0 && delta <= 15) w.byte((delta << 4) | type);
    else {
      w.byte(type);
      w.zigzag(BigInt(f.id));
    }
    writeValue(w, type, f.value);
    last = f.id;
  }
  w.byte(0);
}

export function encodeStruct(s: ThriftStruct): Uint8Array {
  const w = new Writer();
  writeStruct(w, s);
  return w.done();
}

// --- field access, by id, as Parquet's thrift IDL numbers them ---

export function field(s: ThriftStruct, id: number): ThriftValue | undefined {
  return s.fields.find((f) => f.id === id)?.value;
}

export function structField(s: ThriftStruct, id: number): ThriftStruct | undefined {
  const f = s.fields.find((x) => x.id === id);
  return f && f.type === T.STRUCT ? (f.value as ThriftStruct) : undefined;
}

export function listField(s: ThriftStruct, id: number): ThriftValue[] {
  const f = s.fields.find((x) => x.id === id);
  return f && (f.type === T.LIST || f.type === T.SET) ? (f.value as ThriftList).items : [];
}

/** Sets (or replaces) a field, keeping ids ascending; `undefined` removes it. */
export function setField(s: ThriftStruct, id: number, type: number, value: ThriftValue | undefined): void {
  const rest = s.fields.filter((f) => f.id !== id);
  if (value !== undefined) rest.push({ id, type, value });
  s.fields = rest.sort((a, b) => a.id - b.id);
}

export const text = (v: ThriftValue | undefined): string | undefined =>
  v instanceof Uint8Array ? new TextDecoder().decode(v) : undefined;
export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const struct = (...fields: ThriftField[]): ThriftStruct => ({ fields });
export const list = (elementType: number, items: ThriftValue[]): ThriftList => ({ elementType, items });
