/** A FlatGeobuf column as its header gives it (name, and its ColumnType by value). */
interface Column {
  name: string;
  type: number;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A 64-bit value as a number when a double holds it exactly, else a bigint (an int64 column keeps every digit). */
function long(v: bigint): number | bigint {
  return v > SAFE || v < -SAFE ? v : Number(v);
}

/**
 * A feature's properties buffer (per the FlatGeobuf spec: a column index, then its value, repeated) → `values`, by
 * column index (the caller resets it to nulls for each feature; one array serves every row). Text (String, Json,
 * DateTime) stays its UTF-8 bytes, a view of the buffer that the batch copies straight into its column; a Long
 * keeps every digit (the flatgeobuf package's parser rounds 64-bit integers to doubles and parses JSON columns). A
 * value that runs past the buffer is a RangeError.
 */
export function fgbProperties(array: Uint8Array, columns: readonly Column[] | null, values: unknown[]): void {
  if (!array.length || !columns?.length) return;
  const view = new DataView(array.buffer, array.byteOffset, array.byteLength);
  const end = array.length;
  let at = 0;
  const need = (n: number) => {
    if (at + n > end) throw new RangeError("a property runs past the feature's properties");
  };
  while (at < end) {
    need(2);
    const i = view.getUint16(at, true);
    at += 2;
    const column = columns[i];
    if (column === undefined) throw new RangeError(`a property names column ${i}, which the header lacks`);
    let value: unknown;
    switch (column.type) {
      case 0: // Byte
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 1: // UByte
        need(1);
        value = view.getUint8(at);
        at += 1;
        break;
      case 2: // Bool
        need(1);
        value = view.getUint8(at) !== 0;
        at += 1;
        break;
      case 3: // Short
        need(2);
        value = view.getInt16(at, true);
        at += 2;
        break;
      case 4: // UShort
        need(2);
        value = view.getUint16(at, true);
        at += 2;
        break;
      case 5: // Int
        need(4);
        value = view.getInt32(at, true);
        at += 4;
        break;
      case 6: // UInt
        need(4);
        value = view.getUint32(at, true);
        at += 4;
        break;
      case 7: // Long
        need(8);
        value = long(view.getBigInt64(at, true));
        at += 8;
        break;
      case 8: // ULong
        need(8);
        value = long(view.getBigUint64(at, true));
        at += 8;
        break;
      case 9: // Float
        need(4);
        value = view.getFloat32(at, true);
        at += 4;
        break;
      case 10: // Double
        need(8);
        value = view.getFloat64(at, true);
        at += 8;
        break;
      default: {
        // String, Json, DateTime, Binary: a length, then that many bytes.
        need(4);
        const n = view.getUint32(at, true);
        at += 4;
        need(n);
        value = array.subarray(at, at + n);
        at += n;
      }
    }
    values[i] = value;
  }
}
