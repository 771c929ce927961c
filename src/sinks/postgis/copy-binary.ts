import { GrowableBytes } from "../../growable.js";

/**
 * PostgreSQL's binary COPY format (https://www.postgresql.org/docs/15/sql-copy.html, "Binary Format") for the few
 * types a sink writes: no text round trip for numbers, and WKB goes into a geometry column as it is (PostGIS's
 * binary input is EWKB; the SRID is set in the header here). One encoder per row layout; rows are appended to a
 * growing buffer that the caller flushes into the COPY stream in chunks.
 */

export type CopyType = "text" | "int2" | "int4" | "int8" | "float4" | "float8" | "bool" | "bytea" | "date" | "geometry";

const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]; // PGCOPY\n\377\r\n\0
const POSTGRES_EPOCH_DAYS = 10_957; // 2000-01-01 in days since 1970-01-01
/** The EWKB type flag that says an SRID follows the type. */
export const EWKB_SRID = 0x20000000;

/** A COPY … FROM STDIN (FORMAT binary) body, built row by row. */
export class BinaryCopyWriter extends GrowableBytes {
  private readonly text = new TextEncoder();
  /** Fields of the constant values around each row (region, provenance), encoded once per array. */
  private readonly constants = new WeakMap<readonly unknown[], Uint8Array>();
  private lastDate = "";
  private lastDays = 0;

  constructor(
    private readonly types: readonly CopyType[],
    /** The SRID written into geometries' EWKB headers. */
    readonly srid = 0,
    /** Whether the body starts with the format's header (false: fields to be copied into a body). */
    header = true,
  ) {
    super(1 << 16);
    if (!header) return;
    this.room(19);
    this.buf.set(SIGNATURE, 0);
    this.view.setInt32(11, 0); // flags
    this.view.setInt32(15, 0); // header extension length
    this.at = 19;
  }

  /**
   * Bytes written since the last take(), to send. They are handed over, not copied: the writer starts a new
   * buffer, so the stream may hold these for as long as it needs.
   */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.at);
    this.buf = new Uint8Array(1 << 16);
    this.view = new DataView(this.buf.buffer);
    this.at = 0;
    return out;
  }

  /** Reserves `n` bytes for a caller that writes them itself: the buffer, a view of it and where they start. */
  claim(n: number): { out: Uint8Array; view: DataView; at: number } {
    this.room(n);
    const at = this.at;
    this.at += n;
    return { out: this.buf, view: this.view, at };
  }

  get size(): number {
    return this.at;
  }

  /**
   * One row: a value per column, in the layout's order (null or undefined for NULL). `before` and `after` are
   * constant values around `values` (the region, provenance): the same array is encoded once, not per row.
   */
  row(values: readonly unknown[], before: readonly unknown[] = NONE, after: readonly unknown[] = NONE): void {
    const n = before.length + values.length + after.length;
    if (n !== this.types.length) throw new Error(`a row of ${n} values for a layout of ${this.types.length} columns`);
    this.room(2);
    this.view.setInt16(this.at, n);
    this.at += 2;
    if (before.length) this.raw(this.encoded(before, 0));
    const offset = before.length;
    for (let i = 0; i < values.length; i++) this.field(this.types[offset + i] as CopyType, values[i]);
    if (after.length) this.raw(this.encoded(after, offset + values.length));
  }

  /** The fields of constant values for layout columns from `first` on, encoded once per array. */
  encoded(values: readonly unknown[], first: number): Uint8Array {
    let bytes = this.constants.get(values);
    if (!bytes) {
      const scratch = new BinaryCopyWriter(this.types, this.srid, false);
      values.forEach((v, i) => scratch.field(this.types[first + i] as CopyType, v));
      bytes = scratch.take();
      this.constants.set(values, bytes);
    }
    return bytes;
  }

  private raw(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  private bytes(b: Uint8Array): void {
    this.room(4 + b.length);
    this.view.setInt32(this.at, b.length);
    this.buf.set(b, this.at + 4);
    this.at += 4 + b.length;
  }

  private string(v: string): void {
    // At most 3 bytes per UTF-16 unit: encode in place, then write the length in front.
    this.room(4 + v.length * 3);
    const { written } = this.text.encodeInto(v, this.buf.subarray(this.at + 4));
    this.view.setInt32(this.at, written);
    this.at += 4 + written;
  }

  /**
   * Starts a field of `n` bytes (its length written) and returns where its value goes. The caller has made room:
   * growing here would replace the buffer and view an expression like `this.view.setX(this.fixedField(n), …)`
   * has already read.
   */
  private fixedField(n: number): number {
    this.view.setInt32(this.at, n);
    const at = this.at + 4;
    this.at = at + n;
    return at;
  }

  /** One field of a value (null or undefined for NULL). */
  field(type: CopyType, v: unknown): void {
    if (v === null || v === undefined) {
      this.room(4);
      this.view.setInt32(this.at, -1);
      this.at += 4;
      return;
    }
    this.room(12); // the widest fixed-width field (8 bytes and its length), before any view is read
    switch (type) {
      case "text":
        return this.string(typeof v === "string" ? v : String(v));
      case "int2":
        return this.view.setInt16(this.fixedField(2), Number(v));
      case "int4":
        return this.view.setInt32(this.fixedField(4), Number(v));
      case "int8":
        return this.view.setBigInt64(this.fixedField(8), BigInt(v as number | bigint));
      case "float4":
        return this.view.setFloat32(this.fixedField(4), Number(v));
      case "float8":
        return this.view.setFloat64(this.fixedField(8), Number(v));
      case "bool":
        return this.view.setUint8(this.fixedField(1), v ? 1 : 0);
      case "bytea":
        return this.bytes(v as Uint8Array);
      case "date": {
        const text = String(v);
        if (text !== this.lastDate) {
          const days = Math.round(Date.parse(`${text}T00:00:00Z`) / 86_400_000) - POSTGRES_EPOCH_DAYS;
          if (!Number.isFinite(days)) throw new Error(`${JSON.stringify(v)} is not a date YYYY-MM-DD`);
          this.lastDate = text;
          this.lastDays = days;
        }
        return this.view.setInt32(this.fixedField(4), this.lastDays);
      }
      case "geometry":
        return this.geometry(v as Uint8Array);
    }
  }

  /** WKB as EWKB with the SRID in its header, written in place (no copy per geometry). */
  private geometry(wkb: Uint8Array): void {
    const n = ewkbLength(wkb);
    this.room(4 + n);
    putEwkb(wkb, this.srid, this.buf, this.fixedField(n));
  }
}

const NONE: readonly unknown[] = [];

/** Whether a WKB value already carries an SRID (EWKB), in either byte order. */
function hasSrid(wkb: Uint8Array): boolean {
  if (wkb.length < 5) throw new Error(`a WKB value of ${wkb.length} bytes`);
  return (new DataView(wkb.buffer, wkb.byteOffset, 5).getUint32(1, wkb[0] === 1) & EWKB_SRID) !== 0;
}

/** The bytes of a WKB value as EWKB with an SRID. */
const ewkbLength = (wkb: Uint8Array) => (hasSrid(wkb) ? wkb.length : wkb.length + 4);

/** Writes `wkb` as EWKB with `srid` at `out[at…]` (as it is when it already has an SRID), in its byte order. */
function putEwkb(wkb: Uint8Array, srid: number, out: Uint8Array, at: number): void {
  if (hasSrid(wkb)) return out.set(wkb, at);
  const little = wkb[0] === 1;
  const src = new DataView(wkb.buffer, wkb.byteOffset, 5);
  const dst = new DataView(out.buffer, out.byteOffset + at, 9);
  out[at] = wkb[0] as number;
  dst.setUint32(1, (src.getUint32(1, little) | EWKB_SRID) >>> 0, little);
  dst.setUint32(5, srid, little);
  out.set(wkb.subarray(5), at + 9);
}

/** WKB with the SRID in its header (EWKB), as a geometry column with a typmod SRID requires; either byte order. */
export function withSrid(wkb: Uint8Array, srid: number): Uint8Array {
  if (hasSrid(wkb)) return wkb;
  const out = new Uint8Array(wkb.length + 4);
  putEwkb(wkb, srid, out, 0);
  return out;
}
