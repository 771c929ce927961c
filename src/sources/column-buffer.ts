import { Bool, Float64, Int32, Int64, makeData, Utf8 } from "apache-arrow";
import type { Data } from "apache-arrow";
import type { ColumnType } from "../geoparquet/features.js";
import { convert } from "./convert.js";

/**
 * One column of a batch being read, in its Arrow layout from the first value: numbers in a typed array, text as
 * UTF-8 bytes and offsets, a validity bitmap; no JavaScript array of values, no Arrow builder.
 */
export class ColumnBuffer {
  private length = 0;
  private nulls = 0;
  private validity: Uint8Array;
  private numbers: Float64Array | Int32Array | BigInt64Array | Uint8Array | undefined;
  private bytes: Buffer | undefined;
  private offsets: Int32Array | undefined;
  private used = 0;

  constructor(
    readonly type: ColumnType,
    private readonly capacity: number,
  ) {
    this.validity = new Uint8Array((capacity + 7) >> 3);
    if (type === "string") {
      this.bytes = Buffer.allocUnsafe(Math.max(1024, capacity * 16));
      this.offsets = new Int32Array(capacity + 1);
    } else
      this.numbers =
        type === "float64"
          ? new Float64Array(capacity)
          : type === "int32"
            ? new Int32Array(capacity)
            : type === "int64"
              ? new BigInt64Array(capacity)
              : new Uint8Array(capacity);
  }

  /** Appends one value as this column's type; throws a BadValue (from convert) when it is not one. */
  push(value: unknown): void {
    const i = this.length++;
    const v = convert(value, this.type);
    if (v === null) {
      this.nulls++;
      if (this.offsets) this.offsets[i + 1] = this.used;
      return;
    }
    (this.validity[i >> 3] as number) |= 1 << (i & 7);
    if (this.offsets) {
      const text = v as string;
      this.used += this.space(text.length * 3).write(text, this.used, "utf8");
      this.offsets[i + 1] = this.used;
    } else if (this.type === "bool") (this.numbers as Uint8Array)[i] = v ? 1 : 0;
    else (this.numbers as Float64Array)[i] = v as number; // int64 columns hold bigints (BigInt64Array)
  }

  /** Appends one text value given as UTF-8 bytes (checked valid by the caller), copied as they are. */
  pushUtf8(bytes: Uint8Array): void {
    const i = this.length++;
    (this.validity[i >> 3] as number) |= 1 << (i & 7);
    this.space(bytes.length).set(bytes, this.used);
    this.used += bytes.length;
    (this.offsets as Int32Array)[i + 1] = this.used;
  }

  /** The text bytes, grown (doubling) to hold `n` more after those used. */
  private space(n: number): Buffer {
    const bytes = this.bytes as Buffer;
    if (this.used + n <= bytes.length) return bytes;
    const grown = Buffer.allocUnsafe(Math.max(this.used + n, bytes.length * 2));
    bytes.copy(grown, 0, 0, this.used);
    return (this.bytes = grown);
  }

  /** The column as Arrow data (copied out, so the buffers can be reused or dropped). */
  finish(): Data {
    const length = this.length;
    const nullCount = this.nulls;
    const nullBitmap = nullCount ? this.validity.slice(0, (length + 7) >> 3) : undefined;
    if (this.offsets)
      return makeData({
        type: new Utf8(),
        length,
        nullCount,
        nullBitmap,
        valueOffsets: this.offsets.slice(0, length + 1),
        data: new Uint8Array(this.bytes as Buffer).slice(0, this.used),
      });
    if (this.type === "bool") {
      const bits = new Uint8Array((length + 7) >> 3);
      const values = this.numbers as Uint8Array;
      for (let i = 0; i < length; i++) if (values[i]) (bits[i >> 3] as number) |= 1 << (i & 7);
      return makeData({ type: new Bool(), length, nullCount, nullBitmap, data: bits });
    }
    const data = (this.numbers as Float64Array).slice(0, length);
    if (this.type === "float64") return makeData({ type: new Float64(), length, nullCount, nullBitmap, data });
    if (this.type === "int32")
      return makeData({ type: new Int32(), length, nullCount, nullBitmap, data: data as unknown as Int32Array });
    return makeData({ type: new Int64(), length, nullCount, nullBitmap, data: data as unknown as BigInt64Array });
  }

  get size(): number {
    return this.length;
  }

  get room(): number {
    return this.capacity - this.length;
  }
}
