import { Field, Float64, makeData, makeVector, Struct, Table } from "apache-arrow";
import type { Vector } from "apache-arrow";
import { binaryColumn } from "./columns.js";
import { encodeIpcGroup, groupIpc } from "./encode.js";
import type { EncodeSettings } from "./encode.js";
import { GroupStatsBuilder } from "./native.js";
import type { GroupGeoStats } from "./native.js";
import { ascendingPlan, take } from "./take.js";
import type { AscendingPlan } from "./take.js";

/**
 * One row group, from the unsorted source columns and the rows the spatial order gives it: the sorted copy, its
 * bbox covering column, its native statistics (2.0), its Parquet encoding. Runs on the writer's thread or on an
 * encode worker (encode-worker.ts), with the same result.
 */

export const COVERING_COLUMN = "bbox";

export interface GroupSource {
  /** Every column to write, each as one chunk, in schema order (the covering column is not among them). */
  columns: (readonly [string, Vector])[];
  /** The WKB column, for per-group statistics. */
  wkb: { data: Uint8Array; offsets: Int32Array };
  /** Per source row: xmin, ymin, xmax, ymax (NaN when empty). */
  bboxes: Float64Array;
}

export interface EncodedGroup {
  bytes: Uint8Array;
  /** With native statistics: the group's extent and types. */
  geo?: GroupGeoStats;
}

export function groupSource(table: Table, geometryColumn: string, bboxes: Float64Array): GroupSource {
  const columns = table.schema.fields.map((f) => [f.name, table.getChild(f.name) as Vector] as const);
  return { columns, wkb: binaryColumn(table.getChild(geometryColumn) as Vector, geometryColumn), bboxes };
}

function coveringVector(bboxes: Float64Array, { src, dst }: AscendingPlan): Vector {
  const n = src.length;
  const cols = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)] as const;
  const [xmin, ymin, xmax, ymax] = cols;
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let k = 0; k < n; k++) {
    const i = dst[k] as number;
    const j = 4 * (src[k] as number);
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

function geoStatsOf(src: GroupSource, rows: Uint32Array): GroupGeoStats {
  // In ascending source order, for the same locality as the gathers.
  const builder = new GroupStatsBuilder();
  const { data, offsets } = src.wkb;
  for (const r of rows) builder.add(data.subarray(offsets[r], offsets[r + 1]), src.bboxes, r);
  return builder.done();
}

export function encodeGroup(
  src: GroupSource,
  rows: Uint32Array,
  settings: EncodeSettings,
  native: boolean,
): EncodedGroup {
  const plan = ascendingPlan(rows);
  const columns: Record<string, Vector> = {};
  for (const [name, vector] of src.columns) columns[name] = take(vector, rows, plan);
  columns[COVERING_COLUMN] = coveringVector(src.bboxes, plan); // rebuilt from the geometries themselves
  const bytes = encodeIpcGroup(groupIpc(new Table(columns)), settings); // fresh schema: no input metadata
  return native && rows.length > 0 ? { bytes, geo: geoStatsOf(src, plan.src) } : { bytes };
}
