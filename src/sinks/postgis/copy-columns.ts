import { DataType } from "apache-arrow";
import type { Data, RecordBatch } from "apache-arrow";
import type { PartitionBatch } from "../partition-rows.js";
import type { BinaryCopyWriter, CopyType } from "./copy-binary.js";

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Where a 64-bit value's high and low 32-bit words sit in a Uint32Array view of it. */
const [HI, LO] = LITTLE_ENDIAN ? [1, 0] : [0, 1];

/** Writes row i of one column into a COPY row. */
type FieldWriter = (w: BinaryCopyWriter, i: number) => void;

/**
 * A writer per column of a record batch, reading its Arrow buffers directly: UTF-8 and WKB bytes are copied as they
 * are, numbers read from their typed arrays, dictionary values from the dictionary's bytes. Anything else goes
 * through the column's own get().
 */
function fieldWriter(data: Data, type: CopyType, get: (i: number) => unknown): FieldWriter {
  const valid = data.nullCount > 0 ? (i: number) => data.getValid(i) : undefined;
  let write: FieldWriter | undefined;
  if ((type === "text" || type === "bytea") && (DataType.isUtf8(data.type) || DataType.isBinary(data.type))) {
    const { values, valueOffsets } = data as Data & { valueOffsets: Int32Array };
    write = (w, i) => w.sliceField(values as Uint8Array, valueOffsets[i] as number, valueOffsets[i + 1] as number);
  } else if (type === "text" && DataType.isDictionary(data.type) && data.dictionary) {
    const dict = data.dictionary.data[0];
    if (dict && DataType.isUtf8(dict.type) && data.dictionary.data.length === 1) {
      const { values: bytes, valueOffsets } = dict as Data & { valueOffsets: Int32Array };
      const index = data.values as ArrayLike<number>;
      write = (w, i) => {
        const k = index[i] as number;
        w.sliceField(bytes as Uint8Array, valueOffsets[k] as number, valueOffsets[k + 1] as number);
      };
    }
  } else if ((type === "float8" || type === "float4") && DataType.isFloat(data.type)) {
    const values = data.values as Float64Array | Float32Array;
    write = (w, i) => w.field(type, values[i]);
  } else if ((type === "int2" || type === "int4") && DataType.isInt(data.type) && data.type.bitWidth <= 32) {
    const values = data.values as Int32Array;
    write = (w, i) => w.field(type, values[i]);
  }
  write ??= (w, i) => w.field(type, get(i));
  if (!valid) return write;
  const inner = write;
  return (w, i) => (valid(i) ? inner(w, i) : w.nullField());
}

/**
 * Every row of a partition batch into the COPY body: `before`, the data columns, the geometry, the content digest,
 * then `after` (constants encoded once).
 */
export function writeBatch(
  w: BinaryCopyWriter,
  p: PartitionBatch,
  types: readonly CopyType[],
  before: readonly unknown[],
  after: readonly unknown[],
): void {
  const n = before.length + p.columns.length + 2 + after.length;
  const afterFirst = before.length + p.columns.length + 2;
  // The digests' 64-bit values as 32-bit words (in the platform's order), read without a BigInt per row.
  const words = (a: BigUint64Array) => new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  const attributes = words(p.digests.attributes);
  const geomDigests = words(p.digests.geometry);
  for (const { batch, first } of p.recordBatches()) {
    const writers = p.columns.map((c, k) => {
      const column = batch.getChild(c);
      if (!column) throw new Error(`no column ${c}`);
      return fieldWriter(column.data[0] as Data, types[before.length + k] as CopyType, (i) => column.get(i));
    });
    const g = batch.getChild(p.geometry)?.data[0] as (Data & { valueOffsets: Int32Array }) | undefined;
    if (!g) throw new Error(`no geometry column ${p.geometry}`);
    const wkb = g.values as Uint8Array;
    const offsets = g.valueOffsets;
    for (let i = 0; i < batch.numRows; i++) {
      w.rowStart(n);
      w.constantFields(before, 0);
      for (const write of writers) write(w, i);
      w.geometrySlice(wkb, offsets[i] as number, offsets[i + 1] as number);
      const r = 2 * (first + i);
      w.hexField(
        attributes[r + HI] as number,
        attributes[r + LO] as number,
        geomDigests[r + HI] as number,
        geomDigests[r + LO] as number,
      );
      w.constantFields(after, afterFirst);
    }
  }
}
