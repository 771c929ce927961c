import { Binary, Bool, DataType, makeBuilder, makeData, makeVector, Utf8, Vector } from "apache-arrow";
import type { Data } from "apache-arrow";
import { compactChunks } from "./columns.js";

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

function gatherFloat64(values: Float64Array, order: Uint32Array): Float64Array {
  const out = new Float64Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = values[order[i] as number] as number;
  return out;
}

function gatherInt32(values: Int32Array, order: Uint32Array): Int32Array {
  const out = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = values[order[i] as number] as number;
  return out;
}

/**
 * Variable-width values in `order`: offsets first, then the bytes. Its own function, so the loops stay optimised
 * for this shape whatever other column types take() sees.
 */
function gatherBytes(
  offs: Int32Array,
  values: Uint8Array,
  order: Uint32Array,
): { offsets: Int32Array; out: Uint8Array } {
  const offsets = new Int32Array(order.length + 1);
  let total = 0;
  for (let i = 0; i < order.length; i++) {
    const j = order[i] as number;
    total += (offs[j + 1] as number) - (offs[j] as number);
    offsets[i + 1] = total;
  }
  const out = new Uint8Array(total);
  for (let i = 0; i < order.length; i++) {
    const j = order[i] as number;
    const from = offs[j] as number;
    const to = offs[j + 1] as number;
    const at = offsets[i] as number;
    // Short values (points are 21 bytes) copy faster byte by byte than through a subarray view.
    if (to - from <= 64) for (let k = from; k < to; k++) out[at + k - from] = values[k] as number;
    else out.set(values.subarray(from, to), at);
  }
  return { offsets, out };
}

/** A builder takes arrays, not the Vectors that `get` returns for list values. */
/** A row value as plain JS, all the way down: a struct's fields may hold lists (Vectors) a builder cannot take. */
function plain(value: unknown): unknown {
  if (value instanceof Vector) return [...value].map(plain);
  const row = value as { toJSON?: () => Record<string, unknown> } | null;
  if (row && typeof row === "object" && !(row instanceof Date) && !ArrayBuffer.isView(row) && row.toJSON)
    return Object.fromEntries(Object.entries(row.toJSON()).map(([k, v]) => [k, plain(v)]));
  return value;
}

/**
 * Returns the rows of `vector` in `order`. Arrow JS slices value and offset buffers along with the Data (so rows
 * index them directly), but not validity bitmaps or boolean bits, which are indexed from `data.offset`. Binary,
 * Utf8, fixed-width and boolean columns take a fast path on their buffers; anything else goes through an Arrow
 * builder row by row.
 */
export function take(input: Vector, order: Uint32Array): Vector {
  const vector = compactChunks(input);
  const chunk = vector.data.length === 1 ? (vector.data[0] as Data) : undefined;
  const type = vector.type as DataType;
  if (chunk && (DataType.isBinary(type) || DataType.isUtf8(type)) && chunk.valueOffsets instanceof Int32Array) {
    const { offsets, out } = gatherBytes(chunk.valueOffsets, chunk.values as Uint8Array, order);
    const t = DataType.isBinary(type) ? new Binary() : new Utf8();
    return makeVector(
      makeData({
        type: t as never,
        length: order.length,
        valueOffsets: offsets,
        data: out,
        ...takeNulls(chunk, order),
      }),
    );
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
  // Fixed-width values: Data.stride elements per row (1 for ints, floats, dates, times and timestamps in Arrow JS,
  // 64-bit ones as BigInt64Array); gathered straight from the buffer, with a monomorphic loop for the common cases.
  const isFixed =
    DataType.isInt(type) ||
    DataType.isFloat(type) ||
    DataType.isDate(type) ||
    DataType.isTimestamp(type) ||
    DataType.isTime(type);
  if (chunk && isFixed && chunk.values) {
    const values = chunk.values as unknown as ArrayLike<number> & {
      constructor: new (n: number) => { [i: number]: number };
    };
    const stride = chunk.stride;
    let out: ArrayLike<unknown>;
    if (values instanceof Float64Array && stride === 1) out = gatherFloat64(values, order);
    else if (values instanceof Int32Array && stride === 1) out = gatherInt32(values, order);
    else {
      const o = new values.constructor(order.length * stride);
      for (let i = 0; i < order.length; i++) {
        const j = order[i] as number;
        for (let k = 0; k < stride; k++) o[i * stride + k] = values[j * stride + k] as number;
      }
      out = o as unknown as ArrayLike<unknown>;
    }
    return makeVector(
      makeData({ type: type as never, length: order.length, data: out as never, ...takeNulls(chunk, order) }),
    );
  }
  const builder = makeBuilder({ type, nullValues: [null, undefined] });
  for (const i of order) builder.append(plain(vector.get(i)));
  return builder.finish().toVector();
}
