import { GrowableBytes } from "../growable.js";

/**
 * PostgreSQL's binary COPY format (https://www.postgresql.org/docs/15/sql-copy.html, "Binary Format") for the few
 * types a sink writes: no text round trip for numbers, and WKB goes into a geometry column as it is (PostGIS's
 * binary input is EWKB; the SRID is set in the header here). One encoder per row layout; rows are appended to a
 * growing buffer that the caller flushes into the COPY stream in chunks.
 */

export type CopyType = "text" | "int2" | "int4" | "int8" | "float4" | "float8" | "bool" | "bytea" | "date" | "geometry";

const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]; // PGCOPY\n\377\r\n\0
const POSTGRES_EPOCH_DAYS = 10_957; // 2000-01-01 in days since 1970-01-01
const EWKB_SRID = 0x20000000;

/** A COPY … FROM STDIN (FORMAT binary) body, built row by row. */
export class BinaryCopyWriter extends GrowableBytes {
  private readonly text = new TextEncoder();

  constructor(
    private readonly types: readonly CopyType[],
    /** The SRID written into geometries' EWKB headers. */
    private readonly srid = 0,
  ) {
    super(1 << 16);
    this.room(19);
    this.buf.set(SIGNATURE, 0);
    this.view.setInt32(11, 0); // flags
    this.view.setInt32(15, 0); // header extension length
    this.at = 19;
  }

  /** Bytes written since the last take(), to send; the buffer starts over. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.at);
    this.at = 0;
    return out;
  }

  get size(): number {
    return this.at;
  }

  /** One row: a value per column, in the layout's order (null or undefined for NULL); `before` and `after` are
   * values around `values` (constants such as the region), so a caller need not copy every row to add them. */
  row(values: readonly unknown[], before: readonly unknown[] = [], after: readonly unknown[] = []): void {
    const n = before.length + values.length + after.length;
    if (n !== this.types.length) throw new Error(`a row of ${n} values for a layout of ${this.types.length} columns`);
    this.room(2);
    this.view.setInt16(this.at, n);
    this.at += 2;
    let i = 0;
    for (const v of before) this.field(this.types[i++] as CopyType, v);
    for (const v of values) this.field(this.types[i++] as CopyType, v);
    for (const v of after) this.field(this.types[i++] as CopyType, v);
  }

  private fixed(length: number, write: (at: number) => void): void {
    this.room(4 + length);
    this.view.setInt32(this.at, length);
    write(this.at + 4);
    this.at += 4 + length;
  }

  private bytes(b: Uint8Array): void {
    this.room(4 + b.length);
    this.view.setInt32(this.at, b.length);
    this.buf.set(b, this.at + 4);
    this.at += 4 + b.length;
  }

  private field(type: CopyType, v: unknown): void {
    if (v === null || v === undefined) {
      this.room(4);
      this.view.setInt32(this.at, -1);
      this.at += 4;
      return;
    }
    switch (type) {
      case "text":
        return this.bytes(this.text.encode(String(v)));
      case "int2":
        return this.fixed(2, (at) => this.view.setInt16(at, Number(v)));
      case "int4":
        return this.fixed(4, (at) => this.view.setInt32(at, Number(v)));
      case "int8":
        return this.fixed(8, (at) => this.view.setBigInt64(at, BigInt(v as number | bigint)));
      case "float4":
        return this.fixed(4, (at) => this.view.setFloat32(at, Number(v)));
      case "float8":
        return this.fixed(8, (at) => this.view.setFloat64(at, Number(v)));
      case "bool":
        return this.fixed(1, (at) => this.view.setUint8(at, v ? 1 : 0));
      case "bytea":
        return this.bytes(v as Uint8Array);
      case "date": {
        const days = Math.round(Date.parse(`${String(v)}T00:00:00Z`) / 86_400_000) - POSTGRES_EPOCH_DAYS;
        if (!Number.isFinite(days)) throw new Error(`${JSON.stringify(v)} is not a date YYYY-MM-DD`);
        return this.fixed(4, (at) => this.view.setInt32(at, days));
      }
      case "geometry":
        return this.bytes(withSrid(v as Uint8Array, this.srid));
    }
  }
}

/** WKB with the SRID in its header (EWKB), as a geometry column with a typmod SRID requires; either byte order. */
export function withSrid(wkb: Uint8Array, srid: number): Uint8Array {
  if (wkb.length < 5) throw new Error(`a WKB value of ${wkb.length} bytes`);
  const little = wkb[0] === 1;
  const src = new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength);
  const type = src.getUint32(1, little);
  if (type & EWKB_SRID) return wkb; // already EWKB with an SRID
  const out = new Uint8Array(wkb.length + 4);
  const dst = new DataView(out.buffer);
  out[0] = wkb[0] as number;
  dst.setUint32(1, (type | EWKB_SRID) >>> 0, little);
  dst.setUint32(5, srid, little);
  out.set(wkb.subarray(5), 9);
  return out;
}
