import { DataType } from "apache-arrow";
import type { Vector } from "apache-arrow";
import type { Geometry, Position } from "../geo/geometry.js";
import { encodeWkbColumn } from "../geo/wkb.js";
import type { WkbColumn } from "../geo/wkb.js";

/**
 * GeoParquet 1.1's native ("GeoArrow") encodings, decoded to WKB so that every row of such a file passes the
 * same checks as WKB: GEOS validity, extent, types. Coordinates are structs {x, y[, z]} nested in lists, one
 * level per geometry level (separated layout, as the spec requires).
 */
export const NATIVE_ENCODINGS = {
  point: { type: "Point", depth: 0 },
  linestring: { type: "LineString", depth: 1 },
  polygon: { type: "Polygon", depth: 2 },
  multipoint: { type: "MultiPoint", depth: 1 },
  multilinestring: { type: "MultiLineString", depth: 2 },
  multipolygon: { type: "MultiPolygon", depth: 3 },
} as const;
export type NativeEncoding = keyof typeof NATIVE_ENCODINGS;

export const isNativeEncoding = (e: unknown): e is NativeEncoding =>
  typeof e === "string" && Object.hasOwn(NATIVE_ENCODINGS, e);

/** Why `type` cannot hold `encoding`, or undefined when the Arrow type has the expected nesting. */
export function nativeTypeProblem(type: DataType, encoding: NativeEncoding): string | undefined {
  let t: DataType = type;
  for (let d = 0; d < NATIVE_ENCODINGS[encoding].depth; d++) {
    if (!DataType.isList(t) && !DataType.isLargeList(t)) return `level ${d + 1} is ${String(t)}, expected a list`;
    t = (t.children[0] as { type: DataType }).type;
  }
  if (!DataType.isStruct(t)) return `coordinates are ${String(t)}, expected a struct {x, y[, z]} of doubles`;
  const names = t.children.map((c) => c.name);
  if (names[0] !== "x" || names[1] !== "y" || !["z", "m", undefined].includes(names[2]) || names.length > 4)
    return `coordinate fields are {${names.join(", ")}}, expected {x, y[, z][, m]}`;
  if (!t.children.every((c) => DataType.isFloat(c.type))) return "coordinate fields must be doubles";
  return undefined;
}

type Row = { x: number; y: number; z?: number } | null;

function positions(value: unknown, depth: number, z: boolean): unknown {
  if (depth === 0) {
    const p = value as Row;
    return p === null ? [NaN, NaN] : z ? [p.x, p.y, p.z as number] : [p.x, p.y];
  }
  const out: unknown[] = [];
  for (const item of value as Iterable<unknown>) out.push(positions(item, depth - 1, z));
  return out;
}

/** One WKB value per row; a null row becomes an empty geometry (callers skip nulls by the vector's validity). */
export function nativeToWkb(vector: Vector, encoding: NativeEncoding): WkbColumn {
  const { type, depth } = NATIVE_ENCODINGS[encoding];
  let t: DataType = vector.type;
  for (let d = 0; d < depth; d++) t = (t.children[0] as { type: DataType }).type;
  const z = t.children.some((c) => c.name === "z");
  const geometries: Geometry[] = [];
  for (let i = 0; i < vector.length; i++) {
    const v = vector.get(i) as unknown;
    if (v === null) {
      geometries.push({ type, coordinates: [] } as Geometry);
      continue;
    }
    let coordinates = positions(v, depth, z);
    if (type === "Point" && (coordinates as Position).every((c) => Number.isNaN(c))) coordinates = []; // empty point
    geometries.push({ type, coordinates } as Geometry);
  }
  return encodeWkbColumn(geometries);
}
