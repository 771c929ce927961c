import type { DataType } from "apache-arrow";
import type { RangedFile } from "../geoparquet/ranged-read.js";

/** Some rows of an artifact: the key's values and the `raw` columns' values, as Arrow gives them. */
export interface RowsAt {
  keyTypes: DataType[];
  rows: Map<number, { key: unknown[]; raw: unknown[] }>;
}

/**
 * Reads the given rows' key values and the values of `raw` (each must be in the file), row group by row group,
 * decoding only those columns. Used for the rows a change set names, never for a whole table.
 */
export async function rowsAt(
  file: RangedFile,
  wanted: readonly number[],
  key: readonly string[],
  raw: readonly string[] = [],
): Promise<RowsAt> {
  const rows: RowsAt["rows"] = new Map();
  const sorted = [...new Set(wanted)].sort((a, b) => a - b);
  let keyTypes: DataType[] = [];
  if (sorted.length === 0) return { keyTypes, rows };
  let next = 0;
  // Groups holding none of the rows are not decoded.
  const holds = (firstRow: number, n: number) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as number) < firstRow) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && (sorted[lo] as number) < firstRow + n;
  };
  for await (const g of file.rowGroups([...new Set([...key, ...raw])], holds)) {
    const end = g.firstRow + g.rows;
    if ((sorted[next] ?? Infinity) >= end) continue;
    if (!keyTypes.length) keyTypes = key.map((k) => g.table.schema.fields.find((f) => f.name === k)?.type as DataType);
    const keyVectors = key.map((k) => g.table.getChild(k));
    const rawVectors = raw.map((k) => g.table.getChild(k));
    while (next < sorted.length && (sorted[next] as number) < end) {
      const row = sorted[next++] as number;
      const i = row - g.firstRow;
      rows.set(row, { key: keyVectors.map((v) => v?.get(i) ?? null), raw: rawVectors.map((v) => v?.get(i) ?? null) });
    }
    if (next >= sorted.length) break;
  }
  return { keyTypes, rows };
}
