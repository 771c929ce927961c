import { DataType } from "apache-arrow";
import type { Data } from "apache-arrow";
import type { PartitionBatch } from "../partition-rows.js";
import { BinaryCopyWriter, EWKB_SRID } from "./copy-binary.js";
import type { CopyType } from "./copy-binary.js";

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Where a 64-bit value's high and low 32-bit words sit in a Uint32Array view of it. */
const [HI, LO] = LITTLE_ENDIAN ? [1, 0] : [0, 1];
const HEX = new TextEncoder().encode("0123456789abcdef");
/** Each byte's two hex digits: HEX_PAIR[2b], HEX_PAIR[2b + 1]. */
const HEX_PAIR = Uint8Array.from({ length: 512 }, (_, k) => HEX[k & 1 ? (k >> 1) & 15 : k >> 5] as number);
/** Rows written together, column by column (a few hundred kB of output: within a core's cache). */
const BLOCK = 1024;

/**
 * One COPY field of every row of a record batch, written column by column: first every row's size is summed, then
 * each column writes its fields at each row's cursor. A loop per column over typed arrays (no call per field, no
 * object per row) is what makes the encoder keep up with the server's ingest.
 */
interface ColumnEncoder {
  /** Adds the field of each row in [lo, hi) (its 4-byte length included) to `sizes[i]`. */
  size(sizes: Int32Array, lo: number, hi: number): void;
  /** Writes the field of each row in [lo, hi) at `cursor[i]`, advancing it. */
  write(out: Uint8Array, view: DataView, cursor: Int32Array, lo: number, hi: number): void;
}

/** Bytes [from, to) of `src` at `out[at…]`: a loop for the short values of most columns, set() for long ones. */
function copyBytes(out: Uint8Array, at: number, src: Uint8Array, from: number, to: number): void {
  if (to - from > 256) out.set(src.subarray(from, to), at);
  else for (let j = from; j < to; j++) out[at++] = src[j] as number;
}

/** The same bytes in every row (the region before the data, the provenance after it). */
function constantColumn(bytes: Uint8Array): ColumnEncoder {
  const n = bytes.length;
  // Where one copy sits in the current buffer; the other rows copy it within the buffer (a memmove, no object).
  let source = -1;
  let into: Uint8Array | undefined;
  return {
    size(sizes, lo, hi) {
      for (let i = lo; i < hi; i++) (sizes[i] as number) += n;
    },
    write(out, _view, cursor, lo, hi) {
      for (let i = lo; i < hi; i++) {
        const at = cursor[i] as number;
        if (into !== out) {
          out.set(bytes, at);
          [source, into] = [at, out];
        } else out.copyWithin(at, source, source + n);
        cursor[i] = at + n;
      }
    },
  };
}

/**
 * A field of `length(i)` bytes per row, written by `put` after its length, or NULL where `valid` says so: the
 * shape of every column read from Arrow buffers.
 */
function fieldColumn(
  length: (i: number) => number,
  put: (out: Uint8Array, view: DataView, at: number, i: number) => void,
  valid: ((i: number) => boolean) | undefined,
): ColumnEncoder {
  return {
    size(sizes, lo, hi) {
      for (let i = lo; i < hi; i++) (sizes[i] as number) += valid && !valid(i) ? 4 : 4 + length(i);
    },
    write(out, view, cursor, lo, hi) {
      for (let i = lo; i < hi; i++) {
        const at = cursor[i] as number;
        if (valid && !valid(i)) {
          view.setInt32(at, -1);
          cursor[i] = at + 4;
          continue;
        }
        const n = length(i);
        view.setInt32(at, n);
        put(out, view, at + 4, i);
        cursor[i] = at + 4 + n;
      }
    },
  };
}

/** Variable-width values from an Arrow buffer: row i is bytes [start(i), end(i)) of `values`. */
function bytesColumn(
  values: Uint8Array,
  start: (i: number) => number,
  end: (i: number) => number,
  valid: ((i: number) => boolean) | undefined,
): ColumnEncoder {
  return fieldColumn(
    (i) => end(i) - start(i),
    (out, _view, at, i) => copyBytes(out, at, values, start(i), end(i)),
    valid,
  );
}

/** Fixed-width numbers from an Arrow typed array, written big-endian. */
function numberColumn(
  width: 2 | 4 | 8,
  put: (view: DataView, at: number, i: number) => void,
  valid: ((i: number) => boolean) | undefined,
): ColumnEncoder {
  return fieldColumn(
    () => width,
    (_out, view, at, i) => put(view, at, i),
    valid,
  );
}

/** Any other column: each value encoded through the row writer's own field(), then copied into place. */
function genericColumn(type: CopyType, rows: number, get: (i: number) => unknown, srid: number): ColumnEncoder {
  const scratch = new BinaryCopyWriter([type], srid, false);
  const ends = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) {
    scratch.field(type, get(i));
    ends[i + 1] = scratch.size;
  }
  const bytes = scratch.take();
  return {
    size(sizes, lo, hi) {
      for (let i = lo; i < hi; i++) (sizes[i] as number) += (ends[i + 1] as number) - (ends[i] as number);
    },
    write(out, _view, cursor, lo, hi) {
      for (let i = lo; i < hi; i++) {
        const from = ends[i] as number;
        const to = ends[i + 1] as number;
        copyBytes(out, cursor[i] as number, bytes, from, to);
        (cursor[i] as number) += to - from;
      }
    },
  };
}

/** A data column's encoder: its Arrow buffers read directly where the type allows, else through get(). */
function dataColumn(data: Data, type: CopyType, get: (i: number) => unknown, srid: number): ColumnEncoder {
  const valid = data.nullCount > 0 ? (i: number) => data.getValid(i) : undefined;
  if ((type === "text" || type === "bytea") && (DataType.isUtf8(data.type) || DataType.isBinary(data.type))) {
    const offsets = (data as Data & { valueOffsets: Int32Array }).valueOffsets;
    return bytesColumn(
      data.values as Uint8Array,
      (i) => offsets[i] as number,
      (i) => offsets[i + 1] as number,
      valid,
    );
  }
  const dict =
    DataType.isDictionary(data.type) && data.dictionary?.data.length === 1 ? data.dictionary.data[0] : undefined;
  if (type === "text" && dict && DataType.isUtf8(dict.type)) {
    const offsets = (dict as Data & { valueOffsets: Int32Array }).valueOffsets;
    const index = data.values as ArrayLike<number>;
    return bytesColumn(
      dict.values as Uint8Array,
      (i) => offsets[index[i] as number] as number,
      (i) => offsets[(index[i] as number) + 1] as number,
      valid,
    );
  }
  if ((type === "float8" || type === "float4") && DataType.isFloat(data.type)) {
    const values = data.values as Float64Array | Float32Array;
    return type === "float8"
      ? numberColumn(8, (v, at, i) => v.setFloat64(at, values[i] as number), valid)
      : numberColumn(4, (v, at, i) => v.setFloat32(at, values[i] as number), valid);
  }
  if ((type === "int2" || type === "int4") && DataType.isInt(data.type) && data.type.bitWidth <= 32) {
    const values = data.values as Int32Array;
    return type === "int4"
      ? numberColumn(4, (v, at, i) => v.setInt32(at, values[i] as number), valid)
      : numberColumn(2, (v, at, i) => v.setInt16(at, values[i] as number), valid);
  }
  return genericColumn(type, data.length, (i) => (valid && !valid(i) ? null : get(i)), srid);
}

/** Whether WKB at `at` already carries an SRID (EWKB), in either byte order. */
function hasSrid(wkb: Uint8Array, at: number): boolean {
  const flags = wkb[at] === 1 ? (wkb[at + 4] as number) : (wkb[at + 1] as number);
  return (flags & (EWKB_SRID >>> 24)) !== 0;
}

/** WKB into a geometry field as EWKB with the SRID in its header, in its own byte order (as putEwkb writes it). */
function geometryColumn(wkb: Uint8Array, offsets: Int32Array, srid: number): ColumnEncoder {
  const length = (i: number) => {
    const from = offsets[i] as number;
    const n = (offsets[i + 1] as number) - from;
    if (n < 5) throw new Error(`a WKB value of ${n} bytes`);
    return hasSrid(wkb, from) ? n : n + 4;
  };
  return {
    size(sizes, lo, hi) {
      for (let i = lo; i < hi; i++) (sizes[i] as number) += 4 + length(i);
    },
    write(out, view, cursor, lo, hi) {
      for (let i = lo; i < hi; i++) {
        const at = cursor[i] as number;
        const from = offsets[i] as number;
        const to = offsets[i + 1] as number;
        if (hasSrid(wkb, from)) {
          view.setInt32(at, to - from);
          copyBytes(out, at + 4, wkb, from, to);
          cursor[i] = at + 4 + to - from;
          continue;
        }
        const little = wkb[from] === 1;
        view.setInt32(at, to - from + 4);
        out[at + 4] = wkb[from] as number;
        const type = little
          ? (wkb[from + 1] as number) |
            ((wkb[from + 2] as number) << 8) |
            ((wkb[from + 3] as number) << 16) |
            ((wkb[from + 4] as number) << 24)
          : ((wkb[from + 1] as number) << 24) |
            ((wkb[from + 2] as number) << 16) |
            ((wkb[from + 3] as number) << 8) |
            (wkb[from + 4] as number);
        view.setUint32(at + 5, (type | EWKB_SRID) >>> 0, little);
        view.setUint32(at + 9, srid, little);
        copyBytes(out, at + 13, wkb, from + 5, to);
        cursor[i] = at + 13 + to - from - 5;
      }
    },
  };
}

/** The content digests, 32 hex digits each (attributes then geometry), rows [first, first + n) of the batch. */
function digestColumn(p: PartitionBatch, first: number): ColumnEncoder {
  const words = (a: BigUint64Array) => new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  const attributes = words(p.digests.attributes);
  const geometry = words(p.digests.geometry);
  const hex8 = (out: Uint8Array, at: number, word: number) => {
    for (let shift = 24; shift >= 0; shift -= 8, at += 2) {
      const b = 2 * ((word >>> shift) & 255);
      out[at] = HEX_PAIR[b] as number;
      out[at + 1] = HEX_PAIR[b + 1] as number;
    }
  };
  return {
    size(sizes, lo, hi) {
      for (let i = lo; i < hi; i++) (sizes[i] as number) += 36;
    },
    write(out, view, cursor, lo, hi) {
      for (let i = lo; i < hi; i++) {
        const at = cursor[i] as number;
        const r = 2 * (first + i);
        view.setInt32(at, 32);
        hex8(out, at + 4, attributes[r + HI] as number);
        hex8(out, at + 12, attributes[r + LO] as number);
        hex8(out, at + 20, geometry[r + HI] as number);
        hex8(out, at + 28, geometry[r + LO] as number);
        cursor[i] = at + 36;
      }
    },
  };
}

/**
 * Every row of a partition batch into the COPY body: `before`, the data columns, the geometry, the content digest,
 * then `after` (constants encoded once). The same bytes as BinaryCopyWriter.row() of each row's values.
 */
export function writeBatch(
  w: BinaryCopyWriter,
  p: PartitionBatch,
  types: readonly CopyType[],
  before: readonly unknown[],
  after: readonly unknown[],
): void {
  for (const _ of encodeBatch(w, p, types, before, after, Infinity));
}

/**
 * writeBatch a slice of `sliceRows` rows at a time, pausing after each so that the caller can send it: the server
 * ingests one slice while the next is encoded.
 */
export function* encodeBatch(
  w: BinaryCopyWriter,
  p: PartitionBatch,
  types: readonly CopyType[],
  before: readonly unknown[],
  after: readonly unknown[],
  sliceRows: number,
): Generator<void> {
  const fields = before.length + p.columns.length + 2 + after.length;
  const head = w.encoded(before, 0);
  const tail = w.encoded(after, before.length + p.columns.length + 2);
  for (const { batch, first } of p.recordBatches()) {
    const n = batch.numRows;
    if (n === 0) continue;
    const columns: ColumnEncoder[] = [];
    if (head.length) columns.push(constantColumn(head));
    p.columns.forEach((c, k) => {
      const column = batch.getChild(c);
      if (!column) throw new Error(`no column ${c}`);
      const type = types[before.length + k] as CopyType;
      columns.push(dataColumn(column.data[0] as Data, type, (i) => column.get(i), w.srid));
    });
    const g = batch.getChild(p.geometry)?.data[0] as (Data & { valueOffsets: Int32Array }) | undefined;
    if (!g) throw new Error(`no geometry column ${p.geometry}`);
    columns.push(geometryColumn(g.values as Uint8Array, g.valueOffsets, w.srid));
    columns.push(digestColumn(p, first));
    if (tail.length) columns.push(constantColumn(tail));

    const cursor = new Int32Array(n);
    for (let from = 0; from < n; from += sliceRows) {
      const to = Math.min(n, from + sliceRows);
      cursor.fill(2, from, to); // each row starts with its field count
      for (const c of columns) c.size(cursor, from, to);
      let total = 0;
      for (let i = from; i < to; i++) {
        const size = cursor[i] as number;
        cursor[i] = total;
        total += size;
      }
      const { out, view, at } = w.claim(total);
      for (let i = from; i < to; i++) {
        const row = at + (cursor[i] as number);
        view.setInt16(row, fields);
        cursor[i] = row + 2;
      }
      // A block of rows at a time, every column: the rows being written stay in the cache.
      for (let lo = from; lo < to; lo += BLOCK) {
        const hi = Math.min(to, lo + BLOCK);
        for (const c of columns) c.write(out, view, cursor, lo, hi);
      }
      yield;
    }
  }
}
