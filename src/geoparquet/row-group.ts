import { Field, Float32, makeData, makeVector, Struct, Table } from "apache-arrow";
import type { Vector } from "apache-arrow";
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

const f32 = new Float32Array(1);
const f32bits = new Int32Array(f32.buffer);

/** The float32 next to `x` in the direction of `sign` (−1 down, +1 up), or `x`'s own float32 when exact. */
function outward(x: number, sign: -1 | 1): number {
  f32[0] = x;
  const r = f32[0] as number;
  if (r === x || (sign < 0 ? r < x : r > x)) return r;
  if (r === 0)
    f32bits[0] = sign < 0 ? 0x80000001 : 1; // the smallest subnormal of the right sign
  else f32bits[0] = (f32bits[0] as number) + (r > 0 === sign > 0 ? 1 : -1);
  return f32[0] as number;
}

/**
 * The covering column, float32 (the spec allows any float type): each box rounded outward, so it still contains
 * its geometry, at half the bytes. Built from the rows' own bboxes, never taken from the input.
 */
function coveringVector(bboxes: Float64Array, { src, dst }: AscendingPlan): Vector {
  const n = src.length;
  const cols = [new Float32Array(n), new Float32Array(n), new Float32Array(n), new Float32Array(n)] as const;
  const [xmin, ymin, xmax, ymax] = cols;
  const valid = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let k = 0; k < n; k++) {
    const i = dst[k] as number;
    const j = 4 * (src[k] as number);
    const x0 = bboxes[j] as number;
    if (x0 !== x0) {
      nulls++; // NaN: an empty geometry has no extent
      continue;
    }
    xmin[i] = outward(x0, -1);
    ymin[i] = outward(bboxes[j + 1] as number, -1);
    xmax[i] = outward(bboxes[j + 2] as number, 1);
    ymax[i] = outward(bboxes[j + 3] as number, 1);
    valid[i >> 3] = (valid[i >> 3] as number) | (1 << (i & 7));
  }
  const names = ["xmin", "ymin", "xmax", "ymax"];
  const type = new Struct(names.map((name) => new Field(name, new Float32(), false)));
  const children = cols.map((c) => makeData({ type: new Float32(), length: n, data: c }));
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
  const columns: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const [name, vector] of src.columns) columns[name] = take(vector, rows, plan);
  columns[COVERING_COLUMN] = coveringVector(src.bboxes, plan); // rebuilt from the geometries themselves
  const table = new Table(columns); // fresh schema: no input metadata
  // "geo" in the Arrow schema too, as GeoPandas writes it: pyarrow reads a file's schema from ARROW:schema, and
  // without it pq.read_schema, pyarrow.dataset (and pygeoapi's Parquet provider) see no CRS.
  table.schema.metadata.set("geo", settings.geo);
  const bytes = encodeIpcGroup(groupIpc(table), settings);
  return native && rows.length > 0 ? { bytes, geo: geoStatsOf(src, plan.src) } : { bytes };
}
