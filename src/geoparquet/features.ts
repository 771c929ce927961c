import { Binary, Bool, Float64, Int32, Int64, makeData, makeVector, Table, Utf8, vectorFromArray } from "apache-arrow";
import type { DataType, Vector } from "apache-arrow";
import type { Geometry } from "../geo/geometry.js";
import { encodeWkbColumn } from "../geo/wkb.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export type PropertyValue = string | number | boolean | null | undefined;

export interface Feature {
  geometry: Geometry;
  properties: Record<string, PropertyValue>;
}

export type ColumnType = "string" | "float64" | "int32" | "int64" | "bool";

export interface ColumnSpec {
  name: string;
  type: ColumnType;
}

export class FeatureSchemaError extends GeorefreshError {
  override readonly code: ErrorCode = "FeatureSchema";
}

/** Our column types as Arrow types. */
export const ARROW_TYPE: Record<ColumnType, () => DataType> = {
  string: () => new Utf8(),
  float64: () => new Float64(),
  int32: () => new Int32(),
  int64: () => new Int64(),
  bool: () => new Bool(),
};

/** Columns from the data: keys sorted (so feature key order never changes the file), types from the values. */
export function inferColumns(features: readonly Feature[]): ColumnSpec[] {
  const types = new Map<string, ColumnType>();
  for (const [row, f] of features.entries()) {
    for (const [name, value] of Object.entries(f.properties)) {
      if (value === null || value === undefined) continue;
      const t: ColumnType = typeof value === "string" ? "string" : typeof value === "boolean" ? "bool" : "float64";
      if (typeof value === "number" && !Number.isFinite(value))
        throw new FeatureSchemaError(`row ${row}: property '${name}' is ${value}; store null instead`);
      const seen = types.get(name);
      if (seen && seen !== t)
        throw new FeatureSchemaError(
          `property '${name}' holds both ${seen} and ${t} values (row ${row}); declare its column type`,
        );
      types.set(name, t);
    }
  }
  return [...types.keys()].sort().map((name) => ({ name, type: types.get(name) as ColumnType }));
}

/**
 * Features → an Arrow table with a WKB `geometry` column, plus the per-row stats the writer would otherwise
 * recompute by decoding the WKB again.
 */
export function featuresToTable(
  features: readonly Feature[],
  columns: ColumnSpec[] = inferColumns(features),
  geometryColumn = "geometry",
) {
  const wkb = encodeWkbColumn(features.map((f) => f.geometry));
  const vectors: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const { name, type } of columns) {
    if (name === geometryColumn)
      throw new FeatureSchemaError(`a property is named '${geometryColumn}', which is the geometry column`);
    const values = features.map((f) => {
      const v = f.properties[name];
      return type === "int64" && typeof v === "number" ? BigInt(v) : (v ?? null);
    });
    vectors[name] = vectorFromArray(values as never[], ARROW_TYPE[type]() as never) as Vector;
  }
  vectors[geometryColumn] = makeVector(
    makeData({ type: new Binary(), length: features.length, valueOffsets: wkb.offsets, data: wkb.data }),
  );
  return { table: new Table(vectors), stats: { bboxes: wkb.bboxes, types: wkb.types } };
}
