import { DataType, makeData, makeVector } from "apache-arrow";
import type { Data, Vector } from "apache-arrow";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class GeometryColumnError extends GeorefreshError {
  override readonly code: ErrorCode = "GeometryColumn";
}

/** A Binary (WKB) Arrow column as one byte buffer plus Int32 offsets, copying only when it spans several chunks. */
export function binaryColumn(vector: Vector, name: string): { data: Uint8Array; offsets: Int32Array } {
  if (!DataType.isBinary(vector.type) && !DataType.isLargeBinary(vector.type)) {
    throw new GeometryColumnError(`'${name}' is ${String(vector.type)}, not a WKB binary column`);
  }
  const rows = vector.length;
  const first = compactChunks(vector).data[0];
  if (first && first.valueOffsets instanceof Int32Array) {
    // A sliced Data has its offsets buffer sliced already (Arrow JS), so row 0's offset is at index 0.
    const offs = first.valueOffsets.subarray(0, rows + 1);
    const base = offs[0] as number;
    const offsets = new Int32Array(rows + 1);
    for (let i = 0; i <= rows; i++) offsets[i] = (offs[i] as number) - base;
    return { data: (first.values as Uint8Array).subarray(base, offs[rows] as number), offsets };
  }
  // LargeBinary (BigInt offsets): row by row.
  const offsets = new Int32Array(rows + 1);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < rows; i++) {
    const v = (vector.get(i) as Uint8Array | null) ?? new Uint8Array(0);
    parts.push(v);
    total += v.byteLength;
    offsets[i + 1] = total;
  }
  const data = new Uint8Array(total);
  parts.forEach((p, i) => data.set(p, offsets[i] as number));
  return { data, offsets };
}

/** Bits of several chunks (validity, or boolean values) into one bitmap; undefined when `get` has none to give. */
function mergeBits(
  chunks: readonly Data[],
  length: number,
  get: (d: Data) => Uint8Array | undefined,
  absent: 0 | 1,
): Uint8Array {
  const out = new Uint8Array(Math.ceil(length / 8));
  let at = 0;
  for (const d of chunks) {
    const bits = get(d);
    for (let i = 0; i < d.length; i++, at++) {
      const j = d.offset + i;
      const set = bits ? ((bits[j >> 3] as number) >> (j & 7)) & 1 : absent;
      if (set) out[at >> 3] = (out[at >> 3] as number) | (1 << (at & 7));
    }
  }
  return out;
}

/**
 * One contiguous Data for a column that arrives in several chunks (batches a task yielded), so the writer's
 * gathers work on plain buffers instead of row by row. Arrow JS slices value and offset buffers with the Data,
 * not bitmaps, which are read from `data.offset`. Types without a fast path are returned as they are.
 */
export function compactChunks(vector: Vector): Vector {
  const chunks = vector.data;
  if (chunks.length <= 1) return vector;
  const type = vector.type as DataType;
  const length = vector.length;
  const nullCount = vector.nullCount;
  const nullBitmap =
    nullCount > 0 ? mergeBits(chunks, length, (d) => (d.nullCount > 0 ? d.nullBitmap : undefined), 1) : undefined;
  const base = { type: type as never, length, nullCount, nullBitmap };
  if ((DataType.isBinary(type) || DataType.isUtf8(type)) && chunks.every((d) => d.valueOffsets instanceof Int32Array)) {
    const offsets = new Int32Array(length + 1);
    let total = 0;
    for (const d of chunks) total += (d.valueOffsets[d.length] as number) - (d.valueOffsets[0] as number);
    const data = new Uint8Array(total);
    let row = 0;
    let pos = 0;
    for (const d of chunks) {
      const offs = d.valueOffsets as Int32Array;
      const start = offs[0] as number;
      data.set((d.values as Uint8Array).subarray(start, offs[d.length] as number), pos);
      for (let i = 1; i <= d.length; i++) offsets[row + i] = pos + (offs[i] as number) - start;
      row += d.length;
      pos += (offs[d.length] as number) - start;
    }
    return makeVector(makeData({ ...base, valueOffsets: offsets, data } as never));
  }
  if (DataType.isBool(type))
    return makeVector(
      makeData({ ...base, data: mergeBits(chunks, length, (d) => d.values as Uint8Array, 0) } as never),
    );
  const fixed =
    DataType.isInt(type) ||
    DataType.isFloat(type) ||
    DataType.isDate(type) ||
    DataType.isTimestamp(type) ||
    DataType.isTime(type);
  if (fixed && chunks.every((d) => d.values)) {
    const first = chunks[0] as Data;
    const Ctor = (
      first.values as unknown as { constructor: new (n: number) => { set(a: ArrayLike<unknown>, at: number): void } }
    ).constructor;
    const data = new Ctor(length * first.stride);
    let at = 0;
    for (const d of chunks) {
      data.set(
        (d.values as unknown as { subarray(a: number, b: number): ArrayLike<unknown> }).subarray(
          0,
          d.length * d.stride,
        ),
        at,
      );
      at += d.length * d.stride;
    }
    return makeVector(makeData({ ...base, data } as never));
  }
  return vector;
}
