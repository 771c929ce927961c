import type { Table } from "apache-arrow";
import { digestReady, RowDigester, rowDigest } from "../changes/row-digest.js";
import { binaryColumn } from "../geoparquet/columns.js";
import type { CopyType } from "./pg-copy-binary.js";
import { SinkSchemaError } from "./sql-names.js";

/** The COPY type of an artifact column, from the type the manifest records. */
export function copyTypeOf(arrowType: string, column: string): CopyType {
  const t = /^Dictionary<[^,]+, (.+)>$/.exec(arrowType)?.[1] ?? arrowType;
  const copy: Record<string, CopyType> = {
    Utf8: "text",
    LargeUtf8: "text",
    Bool: "bool",
    Int8: "int2",
    Int16: "int2",
    Int32: "int4",
    Int64: "int8",
    Uint8: "int2",
    Uint16: "int4",
    Uint32: "int8",
    Float32: "float4",
    Float64: "float8",
    Binary: "bytea",
    LargeBinary: "bytea",
  };
  const found = copy[t];
  if (!found)
    throw new SinkSchemaError(
      `column ${JSON.stringify(column)} has type ${arrowType}, which the sink cannot load yet (text, integers, floats, booleans, bytes)`,
    );
  return found;
}

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
