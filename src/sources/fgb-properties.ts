import type { Feature } from "flatgeobuf/lib/mjs/flat-geobuf/feature.js";

/** A FlatGeobuf column as its header gives it (name, and its ColumnType by value). */
interface Column {
  name: string;
  type: number;
}

const text = new TextDecoder();
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A 64-bit value as a number when a double holds it exactly, else a bigint (an int64 column keeps every digit). */
function long(v: bigint): number | bigint {
  return v > SAFE || v < -SAFE ? v : Number(v);
}

/**
 * A feature's properties buffer (per the FlatGeobuf spec: a column index, then its value, repeated) → values by
 * column name. The flatgeobuf package's parser rounds 64-bit integers to doubles and parses JSON columns; here a
 * Long keeps every digit and JSON stays its text. A value that runs past the buffer is a RangeError.
 */
export function fgbProperties(feature: Feature, columns: readonly Column[] | null): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const array = columns?.length ? feature.propertiesArray() : null;
  if (!array || !columns) return out;
  const view = new DataView(array.buffer, array.byteOffset, array.byteLength);
  let at = 0;
  const bytes = (n: number) => {
    if (at + n > array.length) throw new RangeError("a property runs past the feature's properties");
    const b = array.subarray(at, at + n);
    at += n;
    return b;
  };
  while (at < array.length) {
    const i = view.getUint16(at, true);
    at += 2;
    const column = columns[i];
    if (column === undefined) throw new RangeError(`a property names column ${i}, which the header lacks`);
    const v = new DataView(array.buffer, array.byteOffset + at);
    let value: unknown;
    switch (column.type) {
      case 0: // Byte
        value = v.getInt8(0);
        at += 1;
        break;
      case 1: // UByte
        value = v.getUint8(0);
        at += 1;
        break;
      case 2: // Bool
        value = v.getUint8(0) !== 0;
        at += 1;
        break;
      case 3: // Short
        value = v.getInt16(0, true);
        at += 2;
        break;
      case 4: // UShort
        value = v.getUint16(0, true);
        at += 2;
        break;
      case 5: // Int
        value = v.getInt32(0, true);
        at += 4;
        break;
      case 6: // UInt
        value = v.getUint32(0, true);
        at += 4;
        break;
      case 7: // Long
        value = long(v.getBigInt64(0, true));
        at += 8;
        break;
      case 8: // ULong
        value = long(v.getBigUint64(0, true));
        at += 8;
        break;
      case 9: // Float
        value = v.getFloat32(0, true);
        at += 4;
        break;
      case 10: // Double
        value = v.getFloat64(0, true);
        at += 8;
        break;
      default: {
        // String, Json, DateTime, Binary: a length, then that many bytes.
        if (at + 4 > array.length) throw new RangeError("a property runs past the feature's properties");
        const n = view.getUint32(at, true);
        at += 4;
        const b = bytes(n);
        value = column.type === 14 ? b : text.decode(b);
      }
    }
    if (at > array.length) throw new RangeError("a property runs past the feature's properties");
    out[column.name] = value;
  }
  return out;
}
