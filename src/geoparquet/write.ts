import { Field, Float64, makeData, makeVector, Struct, Table, tableToIPC } from "apache-arrow";
import type { Vector } from "apache-arrow";
import * as parquet from "parquet-wasm";
import type { Crs } from "../geo/crs.js";
import { wkbSummary } from "../geo/wkb.js";
import { hilbertOrder } from "./hilbert.js";
import { DEFAULT_FORMAT, FORMAT_VERSION, geoMetadataJson, sortGeometryTypes } from "./metadata.js";
import type { GeoParquetFormat } from "./metadata.js";
import { annotateGeometry, GroupStatsBuilder } from "./native.js";
import type { GroupGeoStats } from "./native.js";
import { binaryColumn, compactChunks } from "./columns.js";
import { take } from "./take.js";
import { GeorefreshError } from "../errors.js";

/**
 * Pinned into every file's created_by. Bump it (and so every artifact key, which fingerprints it) only when the
 * bytes this writer produces change.
 */
export const WRITER_ID = "georefresh-geoparquet 1 (parquet-wasm 0.8.0, parquet-rs 59)";

/** Rows per row group: 64 × 1024, inside the 64k–128k range readers handle best; a multiple of 1024. */
export const ROW_GROUP_ROWS = 65_536;

export const COVERING_COLUMN = "bbox";

export interface WriteOptions {
  crs: Crs;
  /** The WKB column; default "geometry". */
  geometryColumn?: string;
  /** Breaks ties in the spatial order, so equal inputs in any row order give the same file. */
  idColumn?: string;
  rowGroupRows?: number;
  /** Per-row bboxes (xmin, ymin, xmax, ymax; NaN when empty) and types, if the caller already has them. */
  stats?: { bboxes: Float64Array; types: Set<string> };
  /** Default geoparquet-1.1. */
  format?: GeoParquetFormat;
}

export interface WriteResult {
  bytes: Uint8Array;
  rows: number;
  bbox: [number, number, number, number] | undefined;
  geometryTypes: string[];
  geo: string;
}

export class GeoParquetWriteError extends GeorefreshError {}

function statsFromWkb(data: Uint8Array, offsets: Int32Array): { bboxes: Float64Array; types: Set<string> } {
  const rows = offsets.length - 1;
  const bboxes = new Float64Array(rows * 4);
  const types = new Set<string>();
  for (let i = 0; i < rows; i++) {
    const s = wkbSummary(data.subarray(offsets[i] as number, offsets[i + 1] as number), i);
    types.add(s.type);
    bboxes.set(s.bbox[0] <= s.bbox[2] ? s.bbox : [NaN, NaN, NaN, NaN], 4 * i);
  }
  return { bboxes, types };
}

function coveringVector(bboxes: Float64Array, order: Uint32Array): Vector {
  const n = order.length;
  const xmin = new Float64Array(n);
  const ymin = new Float64Array(n);
  const xmax = new Float64Array(n);
  const ymax = new Float64Array(n);
  const cols = [xmin, ymin, xmax, ymax];
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const j = 4 * (order[i] as number);
    const x0 = bboxes[j] as number;
    xmin[i] = x0;
    ymin[i] = bboxes[j + 1] as number;
    xmax[i] = bboxes[j + 2] as number;
    ymax[i] = bboxes[j + 3] as number;
    if (x0 !== x0)
      nulls++; // NaN: an empty geometry has no extent
    else valid[i >> 3] = (valid[i >> 3] as number) | (1 << (i & 7));
  }
  const names = ["xmin", "ymin", "xmax", "ymax"];
  const type = new Struct(names.map((name) => new Field(name, new Float64(), false)));
  const children = cols.map((c) => makeData({ type: new Float64(), length: n, data: c }));
  return makeVector(makeData({ type, length: n, children, nullCount: nulls, nullBitmap: nulls ? valid : undefined }));
}

function overallBBox(bboxes: Float64Array): [number, number, number, number] | undefined {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < bboxes.length; i += 4) {
    if (Number.isNaN(bboxes[i])) continue;
    b[0] = Math.min(b[0], bboxes[i] as number);
    b[1] = Math.min(b[1], bboxes[i + 1] as number);
    b[2] = Math.max(b[2], bboxes[i + 2] as number);
    b[3] = Math.max(b[3], bboxes[i + 3] as number);
  }
  return b[0] <= b[2] ? b : undefined;
}

/**
 * Arrow table with a WKB column → GeoParquet 1.1 bytes. Rows go in Hilbert order of their bbox centres; a bbox
 * covering column is added; the `geo` footer tells the truth about types and extent; the bytes depend only on
 * the rows (pinned created_by, fixed key order, row groups of fixed row counts). Row groups are encoded one at
 * a time through parquet-wasm's stream writer, so only one group's copy is in flight.
 */
export async function writeGeoParquet(input: Table, options: WriteOptions): Promise<WriteResult> {
  const geometryColumn = options.geometryColumn ?? "geometry";
  const rowGroupRows = options.rowGroupRows ?? ROW_GROUP_ROWS;
  if (rowGroupRows % 1024 !== 0)
    throw new GeoParquetWriteError(`rowGroupRows must be a multiple of 1024 (got ${rowGroupRows})`);
  const geometry = input.getChild(geometryColumn);
  if (!geometry)
    throw new GeoParquetWriteError(
      `the table has no '${geometryColumn}' column (columns: ${input.schema.fields.map((f) => f.name).join(", ")})`,
    );
  const wkb = binaryColumn(geometry, geometryColumn);
  if (geometry.nullCount > 0)
    throw new GeoParquetWriteError(
      `'${geometryColumn}' has ${geometry.nullCount} null geometries; write an empty geometry instead`,
    );
  const stats = options.stats ?? statsFromWkb(wkb.data, wkb.offsets);

  const id = options.idColumn ? input.getChild(options.idColumn) : undefined;
  if (options.idColumn && !id)
    throw new GeoParquetWriteError(`the id column '${options.idColumn}' is not in the table`);
  const cmp = (a: unknown, b: unknown) =>
    a === b
      ? 0
      : a === null || a === undefined
        ? 1
        : b === null || b === undefined
          ? -1
          : (a as number) < (b as number)
            ? -1
            : 1;
  const order = hilbertOrder(stats.bboxes, id ? (a, b) => cmp(id.get(a), id.get(b)) : undefined);

  // Sorted copies are made one row group at a time: only the order and one group's columns are ever extra.
  // Joined into one chunk once here, not again by take() for every row group.
  const sources = input.schema.fields
    .filter((f) => f.name !== COVERING_COLUMN)
    .map((f) => [f.name, compactChunks(input.getChild(f.name) as Vector)] as const);
  const native = (options.format ?? DEFAULT_FORMAT) === "geoparquet-2.0";
  const groupStats: GroupGeoStats[] = [];
  const rowGroup = (start: number, end: number): Table => {
    const rows = order.subarray(start, end);
    if (native && rows.length > 0) groupStats.push(geoStatsOf(wkb, stats.bboxes, rows));
    const columns: Record<string, Vector> = {};
    for (const [name, vector] of sources) columns[name] = take(vector, rows);
    columns[COVERING_COLUMN] = coveringVector(stats.bboxes, rows); // rebuilt from the geometries themselves
    return new Table(columns); // fresh schema: no metadata carried over from the input
  };

  const bbox = overallBBox(stats.bboxes);
  const geometryTypes = sortGeometryTypes(stats.types);
  const geo = geoMetadataJson({
    column: geometryColumn,
    types: geometryTypes,
    bbox,
    crs: options.crs,
    coveringColumn: COVERING_COLUMN,
    version: FORMAT_VERSION[options.format ?? DEFAULT_FORMAT],
  });
  const stringColumns = input.schema.fields
    .filter((f) => f.typeId === 5 /* Utf8 */ && f.name !== geometryColumn)
    .map((f) => f.name);
  let bytes = await encodeParquet(input.numRows, rowGroup, geo, rowGroupRows, geometryColumn, stringColumns);
  if (native) {
    const crs = options.crs.projjson ? JSON.stringify(options.crs.projjson) : undefined;
    bytes = annotateGeometry(bytes, { column: geometryColumn, crs, groups: groupStats });
  }
  return { bytes, rows: input.numRows, bbox, geometryTypes, geo };
}

function geoStatsOf(wkb: { data: Uint8Array; offsets: Int32Array }, bboxes: Float64Array, rows: Uint32Array) {
  const builder = new GroupStatsBuilder();
  for (const r of rows) builder.add(wkb.data.subarray(wkb.offsets[r], wkb.offsets[r + 1]), bboxes, r);
  return builder.done();
}

async function encodeParquet(
  rows: number,
  rowGroup: (start: number, end: number) => Table,
  geo: string,
  rowGroupRows: number,
  geometryColumn: string,
  stringColumns: string[],
): Promise<Uint8Array> {
  let builder = new parquet.WriterPropertiesBuilder()
    .setCreatedBy(WRITER_ID)
    .setCompression(parquet.Compression.ZSTD)
    .setDictionaryEnabled(false)
    .setMaxRowGroupSize(rowGroupRows)
    .setKeyValueMetadata(new Map([["geo", geo]]));
  // Repeated strings (names, codes) shrink a lot with a dictionary; geometry and numbers do not.
  for (const name of stringColumns) builder = builder.setColumnDictionaryEnabled(name, true);
  // Min/max of WKB bytes prunes nothing (the bbox covering columns carry the useful statistics); skip the work.
  builder = builder.setColumnStatisticsEnabled(geometryColumn, parquet.EnabledStatistics.None);
  const props = builder.build();
  // One batch per row group; an empty table still writes one (empty) batch so its schema is recorded.
  const starts = rows === 0 ? [0] : Array.from({ length: Math.ceil(rows / rowGroupRows) }, (_, k) => k * rowGroupRows);
  let k = 0;
  const batches = new ReadableStream<parquet.RecordBatch>({
    pull(controller) {
      const start = starts[k++];
      if (start === undefined) return controller.close();
      const group = rowGroup(start, Math.min(rows, start + rowGroupRows));
      for (const rb of parquet.Table.fromIPCStream(tableToIPC(group, "stream")).recordBatches()) controller.enqueue(rb);
    },
  });
  const out = await parquet.transformParquetStream(batches, props);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of out as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  const bytes = new Uint8Array(size);
  let pos = 0;
  for (const c of chunks) {
    bytes.set(c, pos);
    pos += c.byteLength;
  }
  return bytes;
}
