import type { Table } from "apache-arrow";
import { digestReady, RowDigester, rowDigest } from "../changes/row-digest.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { SinkSchemaError } from "./sql-names.js";

/**
 * An artifact's rows as a sink loads them: its data columns in the given order, then the geometry's WKB (as
 * stored: canonical little-endian ISO) and the row's content digest (docs/changes.md), so an unchanged row has an
 * unchanged digest whichever partition or run it came from.
 */
export async function partitionRows(table: Table, key: string[], columns: string[]): Promise<unknown[][]> {
  await digestReady();
  const digester = new RowDigester({ key, geometry: "geometry", skip: ["bbox"] }, table.numRows);
  for (const batch of table.batches) digester.group(new (table.constructor as typeof Table)(batch));
  const digests = digester.finish();
  const vectors = columns.map((c) => {
    const v = table.getChild(c);
    if (!v) throw new SinkSchemaError(`the artifact has no column ${JSON.stringify(c)}`);
    return v;
  });
  const geometry = table.getChild("geometry");
  if (!geometry) throw new SinkSchemaError("the artifact has no geometry column");
  const wkb = binaryColumn(geometry, "geometry");
  return Array.from({ length: table.numRows }, (_, i) => [
    ...vectors.map((v) => v.get(i) as unknown),
    wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]),
    rowDigest(digests, i),
  ]);
}
