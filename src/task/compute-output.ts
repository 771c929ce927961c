import { linearizedOf } from "./linearized.js";
import { rowOrigins } from "./row-origins.js";
import { Binary, DataType, makeData, makeVector, Table } from "apache-arrow";
import type { Data, RecordBatch, Vector } from "apache-arrow";
import type { BallparkTally, Crs } from "../geo/crs/crs.js";
import { CRS84_CRS, crsFromDefinition, inAreaOfUse, sameCrs, transformer } from "../geo/crs/crs.js";
import { WkbError } from "../geo/wkb.js";
import type { WkbColumn } from "../geo/wkb.js";
import { rewriteWkbBatches, rewriteWkbColumn } from "../geo/wkb-rewrite.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { featuresToTable, FeatureSchemaError } from "../geoparquet/features.js";
import type { ColumnSpec, Feature } from "../geoparquet/features.js";
import type { Ballpark } from "../manifest/ballpark.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** What compute may return or yield: features, or Arrow data with a WKB `geometry` column. */
export type ComputeBatch = Feature[] | Table | RecordBatch;
export type ComputeOutput = Promise<ComputeBatch> | AsyncIterable<ComputeBatch>;

export const GEOMETRY_COLUMN = "geometry";

/** compute's output cannot become an artifact (wrong shape, malformed WKB, undeclared columns). */
export class ComputeOutputError extends GeorefreshError {
  override readonly code: ErrorCode = "ComputeOutput";
}

const ARROW_NAME: Record<ColumnSpec["type"], string> = {
  string: "Utf8",
  float64: "Float64",
  int32: "Int32",
  int64: "Int64",
  bool: "Bool",
};

/** Arrow objects are recognised by shape, so a task bundling its own copy of apache-arrow still works. */
const isArrow = (b: unknown): b is Table | RecordBatch =>
  typeof b === "object" && b !== null && "schema" in b && "numRows" in b;

async function gather(out: ComputeOutput): Promise<ComputeBatch[]> {
  if (typeof out === "object" && out !== null && Symbol.asyncIterator in out) {
    const all: ComputeBatch[] = [];
    for await (const batch of out as AsyncIterable<ComputeBatch>) all.push(batch);
    return all;
  }
  return [await (out as Promise<ComputeBatch>)];
}

function signature(b: Table | RecordBatch): string {
  return b.schema.fields.map((f) => `${f.name}: ${String(f.type)}`).join(", ");
}

function arrowTable(batches: (Table | RecordBatch)[]): Table {
  const first = batches[0] as Table | RecordBatch;
  batches.forEach((b, i) => {
    if (signature(b) !== signature(first))
      throw new ComputeOutputError(
        `compute's batch ${i} has columns (${signature(b)}) but batch 0 has (${signature(first)}); every batch needs the same schema`,
      );
  });
  if (batches.length === 1 && "batches" in first) return first;
  return new Table(batches.flatMap((b) => ("batches" in b ? b.batches : [b])));
}

function checkDeclared(table: Table, columns: ColumnSpec[] | undefined): void {
  for (const c of columns ?? []) {
    const field = table.schema.fields.find((f) => f.name === c.name);
    if (!field)
      throw new ComputeOutputError(
        `compute's Arrow output has no column '${c.name}', which the task declares (columns: ${signature(table)})`,
      );
    if (String(field.type) !== ARROW_NAME[c.type])
      throw new ComputeOutputError(
        `column '${c.name}' is ${String(field.type)} in compute's Arrow output, but the task declares ${c.type}`,
      );
  }
}

interface SplitInput {
  fields: string[];
  numRows: number;
  type: DataType;
  /** Every column but the geometry, as it came. */
  others: Record<string, Vector>;
  /** The geometry column's chunks (one per batch). */
  chunks: (Data | undefined)[];
}

/** compute's table, checked, taken apart so that nothing but the returned chunks holds its geometry. */
function splitGeometry(table: Table, declared?: ColumnSpec[]): SplitInput {
  if (declared) checkDeclared(table, declared);
  const geometry = table.getChild(GEOMETRY_COLUMN);
  if (!geometry)
    throw new ComputeOutputError(
      `compute's Arrow output has no '${GEOMETRY_COLUMN}' column of WKB (columns: ${signature(table)})`,
    );
  if (geometry.nullCount > 0)
    throw new ComputeOutputError(
      `compute's '${GEOMETRY_COLUMN}' column has ${geometry.nullCount} null values; write an empty geometry instead`,
    );
  const fields = table.schema.fields.map((f) => f.name);
  const others: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const name of fields) if (name !== GEOMETRY_COLUMN) others[name] = table.getChild(name) as Vector;
  return { fields, numRows: table.numRows, type: geometry.type, others, chunks: geometry.data.slice() };
}

/**
 * The CRS a GeoArrow `geoarrow.wkb` geometry field declares in its extension metadata ({"crs": PROJJSON, WKT or
 * "AUTH:CODE"}), which wins over the task's `crs`: a declarative source learns its CRS only from the file it reads.
 */
function crsOfGeoArrow(batch: Table | RecordBatch): Crs | undefined {
  const field = batch.schema.fields.find((f) => f.name === GEOMETRY_COLUMN);
  if (field?.metadata.get("ARROW:extension:name") !== "geoarrow.wkb") return undefined;
  const raw = field.metadata.get("ARROW:extension:metadata");
  if (!raw) return undefined;
  let crs: unknown;
  try {
    crs = (JSON.parse(raw) as { crs?: unknown }).crs;
  } catch {
    throw new ComputeOutputError(
      `compute's geometry field has extension metadata that is not JSON: ${raw.slice(0, 80)}`,
    );
  }
  return crs === undefined ? undefined : crsFromDefinition(crs, "compute's geometry field");
}

/**
 * Rows that, reprojected from the CRS compute declared, land outside that CRS's area of use: the declaration is
 * wrong (lon/lat declared as UTM lands near the zone's false origin on the equator), and the storage CRS's own
 * domain check cannot see it. Checked on each row's box (lon/lat storage) or its centre (projected storage).
 */
function misplaced(bboxes: Float64Array, from: Crs, to: Crs): void {
  const [w, s, e, n] = from.areaOfUse;
  if (w === -180 && s <= -85 && e === 180 && n >= 85) return;
  const toLonLat = to.geographic ? undefined : transformer(to, CRS84_CRS);
  const rows: number[] = [];
  let first: [number, number] | undefined;
  for (let i = 0; i < bboxes.length / 4; i++) {
    const [x0, y0, x1, y1] = [bboxes[4 * i], bboxes[4 * i + 1], bboxes[4 * i + 2], bboxes[4 * i + 3]] as number[];
    if (Number.isNaN(x0)) continue; // empty: no place to judge
    const corners: [number, number][] = toLonLat
      ? [toLonLat([((x0 as number) + (x1 as number)) / 2, ((y0 as number) + (y1 as number)) / 2]) as [number, number]]
      : [
          [x0 as number, y0 as number],
          [x1 as number, y1 as number],
        ];
    const out = corners.find(([lon, lat]) => !inAreaOfUse(lon, lat, from.areaOfUse));
    if (!out) continue;
    rows.push(i);
    first ??= out;
  }
  if (!rows.length) return;
  const [lon, lat] = first as [number, number];
  throw new ComputeOutputError(
    `${rows.length} of ${bboxes.length / 4} rows (row ${rows.slice(0, 5).join(", ")}${rows.length > 5 ? ", …" : ""}) lie outside the area of use of ${from.id} (${from.name}: lon ${w}…${e}, lat ${s}…${n}) once read as ${from.id}: row ${rows[0]} lands at lon/lat (${lon.toFixed(4)} ${lat.toFixed(4)}). The coordinates are not in ${from.id}: declare the CRS they are really in (lon/lat read as a projected CRS lands near its false origin)`,
  );
}

/**
 * compute's output → one Arrow table ready for the writer, with the geometry column as canonical little-endian
 * ISO WKB in the storage CRS (reprojected coordinate by coordinate, without building geometry objects), plus
 * the per-row stats the writer would otherwise recompute. Features and Arrow batches cannot be mixed.
 */
export async function tableFromCompute(
  out: ComputeOutput,
  opts: { columns?: ColumnSpec[]; from: Crs; to: Crs; ballpark?: boolean },
): Promise<{
  table: Table;
  stats: { bboxes: Float64Array; types: Set<string>; snapped?: number; ballpark?: Ballpark; linearized?: number };
  /** Each row's feature number in the file it was read from, when its reader said (row-origins.ts). */
  origins?: Float64Array;
}> {
  const batches = await gather(out);
  const arrow = batches.filter(isArrow);
  const origins = arrow.length === 1 ? rowOrigins(arrow[0] as object) : undefined;
  const linearized = arrow.reduce((n, b) => n + linearizedOf(b), 0);
  const from = (arrow[0] && crsOfGeoArrow(arrow[0])) ?? opts.from;
  const ballparked: BallparkTally = { positions: 0, datums: new Set() };
  const transform = sameCrs(from, opts.to)
    ? undefined
    : transformer(from, opts.to, { ballpark: opts.ballpark, ballparked });
  if (arrow.length > 0 && arrow.length < batches.length)
    throw new ComputeOutputError("compute yielded both features and Arrow batches; yield one kind");
  for (const [i, b] of batches.entries())
    if (!isArrow(b) && !Array.isArray(b))
      throw new ComputeOutputError(
        `compute's batch ${i} is neither an array of features nor an Arrow table or record batch`,
      );

  let input: SplitInput;
  try {
    if (arrow.length === 0) {
      const features =
        (batches as Feature[][]).length === 1 ? (batches[0] as Feature[]) : (batches as Feature[][]).flat();
      const encoded = featuresToTable(features, opts.columns, GEOMETRY_COLUMN);
      // Features are encoded canonical already; only a reprojection needs a second pass over the WKB.
      if (!transform) return encoded;
      input = splitGeometry(encoded.table);
    } else {
      input = splitGeometry(arrowTable(arrow), opts.columns);
    }
  } catch (error) {
    if (error instanceof FeatureSchemaError) throw new ComputeOutputError(error.message);
    throw error;
  }
  // Only `input.chunks` reaches the batches' WKB now, so each can be collected once it is rewritten into the one
  // output buffer (docs/large-partitions.md).
  batches.length = 0;
  arrow.length = 0;
  const { fields, numRows, others, chunks } = input;
  let wkb: WkbColumn & { snapped: number };
  // Lon/lat a float's rounding past the world's edge is put on it (wkb-rewrite.ts), where the storage is lon/lat.
  const snap = opts.to.geographic;
  try {
    if (chunks.every((d) => d?.valueOffsets instanceof Int32Array) && DataType.isBinary(input.type)) {
      const parts = chunks.map((d) => ({
        data: (d as Data).values as Uint8Array,
        offsets: ((d as Data).valueOffsets as Int32Array).subarray(0, (d as Data).length + 1),
      }));
      wkb = rewriteWkbBatches(
        parts,
        transform,
        (i) => {
          chunks[i] = undefined;
          (parts as unknown[])[i] = undefined;
        },
        true,
        snap,
      );
    } else {
      const { data, offsets } = binaryColumn(makeVector(chunks as Data[]), GEOMETRY_COLUMN);
      wkb = rewriteWkbColumn(data, offsets, transform, snap);
    }
  } catch (error) {
    if (error instanceof WkbError || (error as Error).name === "GeometryColumnError")
      throw new ComputeOutputError(`compute returned a bad geometry column: ${(error as Error).message}`);
    throw error;
  }
  misplaced(wkb.bboxes, from, opts.to);
  const columns: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const name of fields)
    columns[name] =
      name === GEOMETRY_COLUMN
        ? makeVector(makeData({ type: new Binary(), length: numRows, valueOffsets: wkb.offsets, data: wkb.data }))
        : (others[name] as Vector);
  return {
    table: new Table(columns),
    stats: {
      bboxes: wkb.bboxes,
      types: wkb.types,
      ...(wkb.snapped ? { snapped: wkb.snapped } : {}),
      ...(linearized ? { linearized } : {}),
      ...(ballparked.positions
        ? { ballpark: { positions: ballparked.positions, datums: [...ballparked.datums] } }
        : {}),
    },
    ...(origins && origins.length === numRows ? { origins } : {}),
  };
}
