import type { RecordBatch, Table } from "apache-arrow";
import { digestReady, RowDigester, rowDigest } from "../changes/row-digest.js";
import type { RowDigests } from "../changes/row-digest.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { SinkSchemaError } from "./errors.js";

/**
 * One row group of an artifact as a sink loads it: its data columns in the given order, the geometry's WKB (as
 * stored: canonical little-endian ISO) and each row's content digest (docs/changes.md), so an unchanged row has an
 * unchanged digest whichever partition or run it came from. Encoders read the Arrow columns directly (no value
 * per cell is made); row() gives one row as values, for sinks that bind values.
 */
export class PartitionBatch {
  readonly length: number;
  readonly digests: RowDigests;
  private readonly wkb: { data: Uint8Array; offsets: ArrayLike<number> };
  private readonly vectors: { get(i: number): unknown }[];

  constructor(
    readonly table: Table,
    readonly columns: readonly string[],
    readonly geometry: string,
    digests: RowDigests,
  ) {
    this.length = table.numRows;
    this.digests = digests;
    this.vectors = columns.map((c) => {
      const v = table.getChild(c);
      if (!v) throw new SinkSchemaError(`the artifact has no column ${JSON.stringify(c)}`);
      return v;
    });
    const g = table.getChild(geometry);
    if (!g) throw new SinkSchemaError(`the artifact has no geometry column ${JSON.stringify(geometry)}`);
    this.wkb = binaryColumn(g, geometry);
  }

  /** The record batches of the row group, each with the index of its first row. */
  *recordBatches(): Generator<{ batch: RecordBatch; first: number }> {
    let first = 0;
    for (const batch of this.table.batches) {
      yield { batch, first };
      first += batch.numRows;
    }
  }

  /** Row i as values: the data columns', then the WKB, then the content digest. */
  row(i: number): unknown[] {
    const n = this.vectors.length;
    const out = new Array<unknown>(n + 2);
    for (let c = 0; c < n; c++) out[c] = (this.vectors[c] as { get(i: number): unknown }).get(i);
    out[n] = this.geometryOf(i);
    out[n + 1] = rowDigest(this.digests, i);
    return out;
  }

  geometryOf(i: number): Uint8Array {
    return this.wkb.data.subarray(this.wkb.offsets[i] as number, this.wkb.offsets[i + 1] as number);
  }
}

/** A row group digested for a sink (only the covering and columns not loaded are left out of the digest). */
export async function partitionBatch(
  table: Table,
  key: string[],
  columns: string[],
  geometryColumn = "geometry",
): Promise<PartitionBatch> {
  await digestReady();
  const skip = table.schema.fields.map((f) => f.name).filter((n) => n !== geometryColumn && !columns.includes(n));
  const digester = new RowDigester({ key, geometry: geometryColumn, skip, contentOnly: true }, table.numRows);
  for (const batch of table.batches) digester.group(new (table.constructor as typeof Table)(batch));
  return new PartitionBatch(table, columns, geometryColumn, digester.finish());
}
