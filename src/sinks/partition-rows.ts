import type { Table } from "apache-arrow";
import { digestReady, RowDigester, rowDigest } from "../changes/row-digest.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { SinkSchemaError } from "./sql-names.js";

/**
 * An artifact's rows as a sink loads them: its data columns in the given order, then the geometry's WKB (as
 * stored: canonical little-endian ISO) and the row's content digest (docs/changes.md), so an unchanged row has an
 * unchanged digest whichever partition or run it came from.
 */
export async function partitionRows(
  table: Table,
  key: string[],
  columns: string[],
  geometryColumn = "geometry",
): Promise<unknown[][]> {
  await digestReady();
  const skip = table.schema.fields.map((f) => f.name).filter((n) => n !== geometryColumn && !columns.includes(n));
  const digester = new RowDigester({ key, geometry: geometryColumn, skip }, table.numRows);
  for (const batch of table.batches) digester.group(new (table.constructor as typeof Table)(batch));
  const digests = digester.finish();
  const vectors = columns.map((c) => {
    const v = table.getChild(c);
    if (!v) throw new SinkSchemaError(`the artifact has no column ${JSON.stringify(c)}`);
    return v;
  });
  const geometry = table.getChild(geometryColumn);
  if (!geometry) throw new SinkSchemaError(`the artifact has no geometry column ${JSON.stringify(geometryColumn)}`);
  const wkb = binaryColumn(geometry, geometryColumn);
  const rows = new Array<unknown[]>(table.numRows);
  for (let i = 0; i < table.numRows; i++) {
    const row = new Array<unknown>(columns.length + 2);
    for (let c = 0; c < vectors.length; c++) row[c] = (vectors[c] as { get(i: number): unknown }).get(i);
    row[columns.length] = wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]);
    row[columns.length + 1] = rowDigest(digests, i);
    rows[i] = row;
  }
  return rows;
}
