import { DataType } from "apache-arrow";
import type { Vector } from "apache-arrow";

/**
 * The writer's tie-break between rows of one spatial cell: the id column's order, nulls last, read from the
 * column's buffers (a row accessor per comparison was the slow part of sorting dense points). Numbers compare by
 * value, strings by their UTF-8 bytes; any other type falls back to the values Arrow gives.
 */
export function idComparator(id: Vector): (a: number, b: number) => number {
  const d = id.data.length === 1 ? id.data[0] : undefined;
  const valid = d && d.nullCount > 0 ? d.nullBitmap : undefined;
  const offset = d?.offset ?? 0;
  const isNull = (i: number) =>
    valid !== undefined && (((valid[(offset + i) >> 3] as number) >> ((offset + i) & 7)) & 1) === 0;
  const nullsLast = (a: number, b: number) => (isNull(a) ? (isNull(b) ? 0 : 1) : -1);
  if (d && (DataType.isInt(id.type) || DataType.isFloat(id.type)) && d.values) {
    const v = d.values as ArrayLike<number | bigint>;
    return (a, b) => {
      if (valid && (isNull(a) || isNull(b))) return nullsLast(a, b);
      const x = v[a] as number;
      const y = v[b] as number;
      return x === y ? 0 : x < y ? -1 : 1;
    };
  }
  if (d && DataType.isUtf8(id.type) && d.valueOffsets instanceof Int32Array) {
    const offs = d.valueOffsets;
    const bytes = d.values as Uint8Array;
    return (a, b) => {
      if (valid && (isNull(a) || isNull(b))) return nullsLast(a, b);
      const [i0, i1, j0, j1] = [offs[a] as number, offs[a + 1] as number, offs[b] as number, offs[b + 1] as number];
      for (let i = i0, j = j0; i < i1 && j < j1; i++, j++)
        if (bytes[i] !== bytes[j]) return (bytes[i] as number) - (bytes[j] as number);
      return i1 - i0 - (j1 - j0);
    };
  }
  return (a, b) => {
    const x = id.get(a) as unknown;
    const y = id.get(b) as unknown;
    if (x === y) return 0;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x as number) < (y as number) ? -1 : 1;
  };
}
