import { Binary, Bool, DataType, makeBuilder, makeData, makeVector, Utf8, Vector } from "apache-arrow";
import type { Data } from "apache-arrow";

/** Gathers a validity bitmap; undefined when nothing is null. */
function takeNulls(data: Data, order: Uint32Array): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  if (!data.nullCount || !data.nullBitmap) return { nullBitmap: undefined, nullCount: 0 };
  const src = data.nullBitmap;
  const out = new Uint8Array(Math.ceil(order.length / 8));
  let nulls = 0;
  for (let i = 0; i < order.length; i++) {
    const j = (order[i] as number) + data.offset;
    if ((src[j >> 3] as number) & (1 << (j & 7))) out[i >> 3] = (out[i >> 3] as number) | (1 << (i & 7));
    else nulls++;
  }
  return { nullBitmap: out, nullCount: nulls };
}

/**
 * Returns the rows of `vector` in `order`. Binary, Utf8, fixed-width and boolean columns take a fast path on
 * their buffers; anything else goes through an Arrow builder row by row.
 */
export function take(vector: Vector, order: Uint32Array): Vector {
  const chunk = vector.data.length === 1 ? (vector.data[0] as Data) : undefined;
  const type = vector.type as DataType;
  if (chunk && (DataType.isBinary(type) || DataType.isUtf8(type)) && chunk.valueOffsets instanceof Int32Array) {
    const offs = chunk.valueOffsets;
    const values = chunk.values as Uint8Array;
    const offsets = new Int32Array(order.length + 1);
    let total = 0;
    for (let i = 0; i < order.length; i++) {
      const j = (order[i] as number) + chunk.offset;
      total += (offs[j + 1] as number) - (offs[j] as number);
      offsets[i + 1] = total;
    }
    const out = new Uint8Array(total);
    for (let i = 0; i < order.length; i++) {
      const j = (order[i] as number) + chunk.offset;
      const from = offs[j] as number;
      const to = offs[j + 1] as number;
      const at = offsets[i] as number;
      // Short values (points are 21 bytes) copy faster byte by byte than through a subarray view.
      if (to - from <= 64) for (let k = from; k < to; k++) out[at + k - from] = values[k] as number;
      else out.set(values.subarray(from, to), at);
    }
    const t = DataType.isBinary(type) ? new Binary() : new Utf8();
    return makeVector(makeData({ type: t as never, length: order.length, valueOffsets: offsets, data: out, ...takeNulls(chunk, order) }));
  }
  if (chunk && DataType.isBool(type)) {
    const bits = chunk.values as Uint8Array;
    const out = new Uint8Array(Math.ceil(order.length / 8));
    for (let i = 0; i < order.length; i++) {
      const j = (order[i] as number) + chunk.offset;
      if ((bits[j >> 3] as number) & (1 << (j & 7))) out[i >> 3] = (out[i >> 3] as number) | (1 << (i & 7));
    }
    return makeVector(makeData({ type: new Bool(), length: order.length, data: out, ...takeNulls(chunk, order) }));
  }
  const stride = (type as { stride?: number }).stride;
  const isFixed = DataType.isInt(type) || DataType.isFloat(type) || DataType.isDate(type) || DataType.isTimestamp(type) || DataType.isTime(type);
  if (chunk && isFixed && stride !== undefined && chunk.values) {
    const src = chunk.values as unknown as { subarray(a: number, b: number): ArrayLike<number>; constructor: new (n: number) => { set(a: ArrayLike<number>, o: number): void } };
    const out = new src.constructor(order.length * stride) as unknown as { [i: number]: number; set(a: ArrayLike<number>, o: number): void };
    const values = src as unknown as { [i: number]: number };
    for (let i = 0; i < order.length; i++) {
      const j = (order[i] as number) + chunk.offset;
      for (let k = 0; k < stride; k++) out[i * stride + k] = values[j * stride + k] as number;
    }
    return makeVector(makeData({ type: type as never, length: order.length, data: out as never, ...takeNulls(chunk, order) }));
  }
  const builder = makeBuilder({ type, nullValues: [null, undefined] });
  for (const i of order) builder.append(vector.get(i));
  return builder.finish().toVector();
}
