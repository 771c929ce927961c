import { DataType } from "apache-arrow";
import type { Vector } from "apache-arrow";

export class GeometryColumnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GeometryColumnError";
  }
}

/** A Binary (WKB) Arrow column as one byte buffer plus Int32 offsets, copying only when it spans several chunks. */
export function binaryColumn(vector: Vector, name: string): { data: Uint8Array; offsets: Int32Array } {
  if (!DataType.isBinary(vector.type) && !DataType.isLargeBinary(vector.type)) {
    throw new GeometryColumnError(`'${name}' is ${String(vector.type)}, not a WKB binary column`);
  }
  const rows = vector.length;
  const offsets = new Int32Array(rows + 1);
  const first = vector.data[0];
  if (vector.data.length === 1 && first && first.valueOffsets instanceof Int32Array) {
    // A sliced Data has its offsets buffer sliced already (Arrow JS), so row 0's offset is at index 0.
    const offs = first.valueOffsets.subarray(0, rows + 1);
    const base = offs[0] as number;
    for (let i = 0; i <= rows; i++) offsets[i] = (offs[i] as number) - base;
    return { data: (first.values as Uint8Array).subarray(base, offs[rows] as number), offsets };
  }
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
