import { compactChunks } from "./columns.js";
import { DataType } from "apache-arrow";
import type { Table, Vector } from "apache-arrow";
import { isoTypeCode } from "../geo/geometry.js";
import type { GeometryType, Position } from "../geo/geometry.js";
import { decodeWkb, readType, wkbSummary, WkbError } from "../geo/wkb.js";
import type { GeoStatistics } from "./footer-facts.js";
import type { GeoColumnMetadata } from "./metadata.js";
import type { Finding } from "./validate-metadata.js";

/** The data rules that look at each row: extent and types (for the whole-file rules), covering, orientation. */

export interface ColumnStats {
  types: Set<string>;
  bbox: number[];
  /** bbox centre per row (x, y), NaN for empty rows: the spatial-order rule's input. */
  centres: number[];
}

export const newStats = (): ColumnStats => ({
  types: new Set(),
  bbox: [Infinity, Infinity, -Infinity, -Infinity],
  centres: [],
});

/** "Point ZM" → 3001, as Parquet's geospatial_types spell it. */
const isoCode = (type: string) => {
  const [base, dim = ""] = type.split(" ");
  return isoTypeCode(base as GeometryType, dim.includes("Z"), dim.includes("M"));
};

/**
 * Adds a row group's geometry types and extent to `stats`; returns each row's bbox (NaN when empty or bad) and
 * the group's own extent and ISO type codes (what native statistics must contain).
 */
export function summarise(
  vector: Vector,
  wkb: { data: Uint8Array; offsets: Int32Array },
  firstRow: number,
  stats: ColumnStats,
): { boxes: Float64Array; extent: number[]; codes: Set<number> } {
  const boxes = new Float64Array(4 * vector.length).fill(NaN);
  const extent = [Infinity, Infinity, -Infinity, -Infinity];
  const codes = new Set<number>();
  for (let i = 0; i < vector.length; i++) {
    if (!vector.isValid(i)) continue;
    try {
      const s = wkbSummary(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]), firstRow + i);
      stats.types.add(s.type);
      codes.add(isoCode(s.type));
      if (!(s.bbox[0] <= s.bbox[2])) continue;
      boxes.set(s.bbox, 4 * i);
      stats.centres.push((s.bbox[0] + s.bbox[2]) / 2, (s.bbox[1] + s.bbox[3]) / 2);
      for (const b of [stats.bbox, extent]) {
        b[0] = Math.min(b[0] as number, s.bbox[0]);
        b[1] = Math.min(b[1] as number, s.bbox[1]);
        b[2] = Math.max(b[2] as number, s.bbox[2]);
        b[3] = Math.max(b[3] as number, s.bbox[3]);
      }
    } catch (error) {
      if (!(error instanceof WkbError)) throw error; // reported by the data rules
    }
  }
  return { boxes, extent, codes };
}

/** The covering column must exist as declared, and each row's box must contain its geometry's box. */
export function checkCovering(
  table: Table,
  name: string,
  meta: GeoColumnMetadata,
  geomBoxes: Float64Array,
  firstRow: number,
  rowFinding: (f: Finding) => void,
): void {
  const paths = meta.covering?.bbox;
  if (!paths) return;
  const parts = (["xmin", "ymin", "xmax", "ymax"] as const).map((k) => {
    const [col, field] = paths[k];
    const struct = table.getChild(col as string);
    return struct && DataType.isStruct(struct.type) ? (struct.getChild(field as string) as Vector | null) : null;
  });
  if (parts.some((p) => !p || !DataType.isFloat(p.type))) {
    rowFinding({
      rule: "covering",
      severity: "error",
      column: name,
      message: `covering bbox paths ${JSON.stringify(paths)} do not name float columns of a struct in the file`,
    });
    return;
  }
  // The leaves' own buffers (float32 or float64), not a row accessor per value.
  const [xmin, ymin, xmax, ymax] = (parts as Vector[]).map(
    (p) => compactChunks(p).data[0]?.values as Float32Array | Float64Array,
  ) as [Float32Array, Float32Array, Float32Array, Float32Array];
  for (let i = 0; i < geomBoxes.length / 4; i++) {
    if (Number.isNaN(geomBoxes[4 * i])) continue;
    const c = [xmin[i], ymin[i], xmax[i], ymax[i]] as number[];
    const g = geomBoxes.subarray(4 * i, 4 * i + 4);
    const ok =
      (c[0] as number) <= (g[0] as number) &&
      (c[1] as number) <= (g[1] as number) &&
      (c[2] as number) >= (g[2] as number) &&
      (c[3] as number) >= (g[3] as number);
    if (!ok)
      rowFinding({
        rule: "covering",
        severity: "error",
        column: name,
        row: firstRow + i,
        message: `covering bbox [${c.join(", ")}] does not contain the geometry's bbox [${[...g].join(", ")}]`,
      });
  }
}

/** Twice the signed area (shoelace): > 0 counterclockwise in x-east, y-north axes. */
function signedArea(ring: Position[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const p = ring[i] as Position;
    const q = ring[i + 1] as Position;
    a += (p[0] as number) * (q[1] as number) - (q[0] as number) * (p[1] as number);
  }
  return a;
}

/** With orientation "counterclockwise", every shell must wind counterclockwise and every hole clockwise. */
export function checkOrientation(
  vector: Vector,
  wkb: { data: Uint8Array; offsets: Int32Array },
  name: string,
  firstRow: number,
  rowFinding: (f: Finding) => void,
): void {
  for (let i = 0; i < vector.length; i++) {
    if (!vector.isValid(i)) continue;
    const bytes = wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]);
    let g;
    try {
      const { type } = readType(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 1, bytes[0] === 1, i);
      if (type !== "Polygon" && type !== "MultiPolygon") continue;
      g = decodeWkb(bytes, firstRow + i);
    } catch (error) {
      if (!(error instanceof WkbError)) throw error;
      continue;
    }
    const polygons = g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
    const bad = polygons.flatMap((rings) =>
      rings.flatMap((ring, k) => {
        const a = signedArea(ring);
        return (k === 0 ? a < 0 : a > 0)
          ? [k === 0 ? "an exterior ring is clockwise" : "a hole is counterclockwise"]
          : [];
      }),
    );
    if (bad.length)
      rowFinding({
        rule: "orientation",
        severity: "error",
        column: name,
        row: firstRow + i,
        message: `${bad[0]}, but 'geo' declares orientation "counterclockwise" (shells counterclockwise, holes clockwise)`,
      });
  }
}

/** A bbox with xmin > xmax crosses the antimeridian: each geometry must lie east of xmin or west of xmax. */
export function checkAntimeridianRows(
  boxes: Float64Array,
  west: number,
  east: number,
  name: string,
  firstRow: number,
  rowFinding: (f: Finding) => void,
): void {
  for (let i = 0; i < boxes.length / 4; i++) {
    const x0 = boxes[4 * i] as number;
    const x1 = boxes[4 * i + 2] as number;
    if (Number.isNaN(x0)) continue;
    if ((x1 > east && x1 < west) || (x0 < west && x0 > east))
      rowFinding({
        rule: "bbox",
        severity: "error",
        column: name,
        row: firstRow + i,
        message: `the geometry spans x ${x0}…${x1}, outside the antimeridian-crossing bbox (x ≥ ${west} or x ≤ ${east})`,
      });
  }
}

/** Native statistics must contain the row group's data: its extent (x may wrap for GEOGRAPHY) and its types. */
export function checkNativeStatistics(
  stats: GeoStatistics | undefined,
  group: { extent: number[]; codes: Set<number> },
  name: string,
  index: number,
  geography: boolean,
  report: (f: Finding) => void,
): void {
  const error = (message: string) =>
    report({ rule: "native-statistics", severity: "error", column: name, message: `row group ${index}: ${message}` });
  if (!stats) return;
  const [x0, y0, x1, y1] = group.extent as [number, number, number, number];
  const b = stats.bbox;
  if (b && x0 <= x1) {
    const xOk = (geography && b.xmin > b.xmax) || (b.xmin <= x0 && b.xmax >= x1);
    if (!xOk || b.ymin > y0 || b.ymax < y1)
      error(
        `geospatial_statistics bbox [${b.xmin}, ${b.ymin}, ${b.xmax}, ${b.ymax}] does not contain the data's extent [${x0}, ${y0}, ${x1}, ${y1}]`,
      );
  }
  if (stats.types.length) {
    const missing = [...group.codes].filter((c) => !stats.types.includes(c));
    if (missing.length)
      error(
        `the data holds geometry type codes ${missing.join(", ")}, which geospatial_types [${stats.types.join(", ")}] lacks`,
      );
  }
}
