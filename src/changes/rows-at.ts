import type { DataType, Vector } from "apache-arrow";
import type { RangedFile } from "../geoparquet/ranged-read.js";
import { CanonicalBytes, encoderFor } from "./canonical.js";

/** Some rows of an artifact: the key's values (as Arrow gives them) and each named column's canonical bytes. */
export interface RowsAt {
  keyTypes: DataType[];
  rows: Map<number, { key: unknown[]; columns: Map<string, string>; raw: unknown[] }>;
}

/**
 * Reads the given rows' key values, the canonical bytes of `columns` and the values of `raw` as Arrow gives them
 * (each must be in the file), row group by
 * row group, decoding only those columns. Used for the rows a change set names, never for a whole table.
 */
export async function rowsAt(
  file: RangedFile,
  wanted: readonly number[],
  key: readonly string[],
  columns: readonly string[],
  raw: readonly string[] = [],
): Promise<RowsAt> {
  const rows: RowsAt["rows"] = new Map();
  const sorted = [...new Set(wanted)].sort((a, b) => a - b);
  let keyTypes: DataType[] = [];
  if (sorted.length === 0) return { keyTypes, rows };
  let next = 0;
  const scratch = new CanonicalBytes();
  for await (const g of file.rowGroups([...new Set([...key, ...columns, ...raw])])) {
    if (g.index === 0) keyTypes = key.map((k) => g.table.schema.fields.find((f) => f.name === k)?.type as DataType);
    const end = g.firstRow + g.rows;
    if ((sorted[next] ?? Infinity) >= end) continue;
    const keyVectors = key.map((k) => g.table.getChild(k));
    const rawVectors = raw.map((k) => g.table.getChild(k));
    const encoders = columns.map((c) => [c, encoderFor(g.table.getChild(c) as Vector)] as const);
    while (next < sorted.length && (sorted[next] as number) < end) {
      const row = sorted[next++] as number;
      const i = row - g.firstRow;
      const encoded = new Map<string, string>();
      for (const [name, encode] of encoders) {
        scratch.reset();
        encode(i, scratch);
        encoded.set(name, Buffer.from(scratch.bytes()).toString("base64"));
      }
      rows.set(row, {
        key: keyVectors.map((v) => v?.get(i) ?? null),
        columns: encoded,
        raw: rawVectors.map((v) => v?.get(i) ?? null),
      });
    }
    if (next >= sorted.length) break;
  }
  return { keyTypes, rows };
}
