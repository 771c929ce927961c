import { Binary, makeData, makeVector } from "apache-arrow";
import type { Table, Vector } from "apache-arrow";
import type { Crs } from "../geo/crs/crs.js";
import { wkbSummary } from "../geo/wkb.js";
import { binaryColumn, compactChunks } from "./columns.js";
import { encodeGroups } from "./encode-groups.js";
import { hilbertOrder } from "./hilbert.js";
import { idComparator } from "./id-order.js";
import { DEFAULT_FORMAT, FORMAT_VERSION, geoMetadataJson, sortGeometryTypes } from "./metadata.js";
import type { GeoParquetFormat } from "./metadata.js";
import { annotateGeometry } from "./native.js";
import type { GroupGeoStats } from "./native.js";
import { COVERING_COLUMN } from "./row-group.js";
import type { GroupSource } from "./row-group.js";
import { RowGroupSplicer } from "./splice.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export { COVERING_COLUMN };

/**
 * Pinned into every file's created_by. Bump it (and so every artifact key, which fingerprints it) only when the
 * bytes this writer produces change.
 */
export const WRITER_ID =
  "georefresh-geoparquet 4 (parquet-wasm 0.8.0, parquet-rs 59, zstd-wasm 0.0.27 level 1, float32 covering split in byte streams, geo in the Arrow schema)";

/** Rows per row group: 64 × 1024, inside the 64k–128k range readers handle best; a multiple of 1024. */
export const ROW_GROUP_ROWS = 65_536;

export interface WriteOptions {
  crs: Crs;
  /** The WKB column; default "geometry". */
  geometryColumn?: string;
  /** Breaks ties in the spatial order (a column, or several in turn), so equal inputs in any row order give the same file. */
  idColumn?: string | readonly string[];
  rowGroupRows?: number;
  /** Per-row bboxes (xmin, ymin, xmax, ymax; NaN when empty) and types, if the caller already has them. */
  stats?: { bboxes: Float64Array; types: Set<string> };
  /** Default geoparquet-1.1. */
  format?: GeoParquetFormat;
  /** Threads that encode row groups: this one plus threads − 1 workers (default 1); the bytes do not depend on it. */
  threads?: number;
  /** Footer key-value metadata beside "geo", written in key order (none by default, which keeps the bytes). */
  keyValue?: Record<string, string>;
}

/** Where a streamed write puts its bytes, in order (a staged artifact: protocol/staging.ts). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<void> | void;
}

export interface WriteResult {
  bytes: Uint8Array;
  rows: number;
  bbox: [number, number, number, number] | undefined;
  geometryTypes: string[];
  geo: string;
}

export class GeoParquetWriteError extends GeorefreshError {
  override readonly code: ErrorCode = "GeoParquetWrite";
}

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
 * Arrow table with a WKB column → GeoParquet 1.1 (or 2.0) bytes. Rows go in Hilbert order of their bbox centres; a bbox
 * covering column is added; the `geo` footer tells the truth about types and extent; the bytes depend only on
 * the rows (pinned created_by, fixed key order, row groups of fixed row counts), never on `threads`. With
 * format geoparquet-2.0 the footer then gains the native GEOMETRY type and geospatial statistics (native.ts).
 */
export async function writeGeoParquet(input: Table, options: WriteOptions): Promise<WriteResult> {
  const parts: Uint8Array[] = [];
  const written = await writeGeoParquetTo(input, { write: (b) => void parts.push(b) }, options);
  return { ...written, bytes: Buffer.concat(parts) };
}

/**
 * The same file, streamed: each row group goes to `sink` as soon as it is encoded, then the page indexes and the
 * footer, so the writer holds a few row groups at a time, never the file.
 */
export async function writeGeoParquetTo(
  input: Table,
  sink: ByteSink,
  options: WriteOptions,
): Promise<Omit<WriteResult, "bytes"> & { size: number; order: ArrayLike<number> }> {
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
  const measured = [...stats.types].filter((t) => / Z?M$/.test(t));
  if (measured.length)
    throw new GeoParquetWriteError(
      `'${geometryColumn}' holds ${measured.join(", ")}: M coordinates are not supported (georefresh stores XY or XYZ)`,
    );

  // Each column is joined into one chunk once here (the geometry from the WKB buffers already joined), not again
  // by take() for every row group. Sorted copies are made one row group at a time: only the order and the groups
  // in flight are ever extra.
  const columns = input.schema.fields
    .filter((f) => f.name !== COVERING_COLUMN)
    .map(
      (f) =>
        [
          f.name,
          f.name === geometryColumn
            ? makeVector(
                makeData({ type: new Binary(), length: input.numRows, valueOffsets: wkb.offsets, data: wkb.data }),
              )
            : compactChunks(input.getChild(f.name) as Vector),
        ] as const,
    );
  const idNames = typeof options.idColumn === "string" ? [options.idColumn] : (options.idColumn ?? []);
  const ids = idNames.map((n) => {
    const v = columns.find(([name]) => name === n)?.[1];
    if (!v) throw new GeoParquetWriteError(`the id column '${n}' is not in the table`);
    return idComparator(v);
  });
  const tieBreak =
    ids.length > 1
      ? (a: number, b: number) => {
          for (const c of ids) {
            const d = c(a, b);
            if (d) return d;
          }
          return 0;
        }
      : ids[0];
  const order = hilbertOrder(stats.bboxes, tieBreak);
  const src: GroupSource = { columns, wkb, bboxes: stats.bboxes };
  const native = (options.format ?? DEFAULT_FORMAT) === "geoparquet-2.0";

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
  const topLevelColumns = src.columns.map(([name]) => name);
  const splitCovering = src.columns.every(([, v]) => !v.type.children?.length);
  const settings = {
    createdBy: WRITER_ID,
    geo,
    rowGroupRows,
    geometryColumn,
    stringColumns,
    topLevelColumns,
    splitCovering,
    ...(options.keyValue && Object.keys(options.keyValue).length
      ? { keyValue: Object.entries(options.keyValue).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) }
      : {}),
  };
  const crs = options.crs.projjson ? JSON.stringify(options.crs.projjson) : undefined;
  const geoStats: GroupGeoStats[] = [];
  const splicer = new RowGroupSplicer();
  let size = 0;
  const put = async (parts: Uint8Array[]) => {
    for (const p of parts) {
      size += p.byteLength;
      await sink.write(p);
    }
  };
  await encodeGroups(src, order, settings, native, options.threads ?? 1, async (group) => {
    if (group.geo) geoStats.push(group.geo);
    await put(splicer.add(group.bytes));
  });
  await put(
    splicer.finish(
      native ? (metadata) => annotateGeometry(metadata, { column: geometryColumn, crs, groups: geoStats }) : undefined,
    ),
  );
  return { size, rows: input.numRows, bbox, geometryTypes, geo, order };
}
