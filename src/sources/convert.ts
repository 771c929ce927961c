import type { ColumnType } from "../geoparquet/features.js";

/** A value that is not of its column's type; the caller names the row and the column. */
export class BadValue extends Error {
  constructor(
    readonly value: unknown,
    readonly type: ColumnType,
  ) {
    super(
      `${JSON.stringify(typeof value === "bigint" ? String(value) : value)} is not ${type === "bool" ? "a boolean" : `a ${type}`}`,
    );
  }
}

const INT32 = 2 ** 31;

/** A column's type from its values, as GDAL infers a GeoJSON field's: Integer, Integer64, Real, or String. */
export function inferType(values: readonly unknown[]): ColumnType | undefined {
  let kind: ColumnType | undefined;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    let t: ColumnType;
    if (typeof v === "boolean") t = "bool";
    else if (typeof v === "number")
      t = !Number.isInteger(v)
        ? "float64"
        : Math.abs(v) < INT32 || v === -INT32
          ? "int32"
          : Number.isSafeInteger(v)
            ? "int64"
            : "float64";
    else if (typeof v === "bigint") t = "int64";
    else t = "string";
    kind = kind === undefined ? t : widest(kind, t);
    if (kind === "string") return kind;
  }
  return kind;
}

const NUMERIC: ColumnType[] = ["int32", "int64", "float64"];

/** The narrowest type that holds both. */
export function widest(a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a;
  if (NUMERIC.includes(a) && NUMERIC.includes(b))
    return NUMERIC[Math.max(NUMERIC.indexOf(a), NUMERIC.indexOf(b))] as ColumnType;
  return "string";
}

const TRUE = new Set(["true", "t", "yes", "y", "1"]);
const FALSE = new Set(["false", "f", "no", "n", "0"]);

/** One value as `type` (int64 as a bigint), or a BadValue. Empty text is null for every type but string. */
export function convert(v: unknown, type: ColumnType): unknown {
  if (v === null || v === undefined) return null;
  const bad = () => new BadValue(v, type);
  switch (type) {
    case "string":
      if (typeof v === "string") return v;
      if (typeof v === "object") return v instanceof Date ? v.toISOString() : JSON.stringify(v);
      return String(v);
    case "float64": {
      if (typeof v === "number") return v;
      if (typeof v === "bigint") return Number(v);
      if (typeof v === "string") {
        const t = v.trim();
        if (t === "") return null;
        const n = Number(t);
        if (Number.isFinite(n)) return n;
      }
      throw bad();
    }
    case "int32":
    case "int64": {
      let n: number | bigint | undefined;
      if (typeof v === "number" && Number.isInteger(v)) n = v;
      else if (typeof v === "bigint") n = v;
      else if (typeof v === "string") {
        const t = v.trim();
        if (t === "") return null;
        if (/^[+-]?\d+$/.test(t)) n = BigInt(t);
      }
      if (n === undefined) throw bad();
      if (type === "int64") {
        const b = BigInt(n);
        if (b < -(2n ** 63n) || b >= 2n ** 63n) throw bad();
        return b;
      }
      const small = Number(n);
      if (small < -INT32 || small >= INT32) throw bad();
      return small;
    }
    case "bool": {
      if (typeof v === "boolean") return v;
      const t = String(v).trim().toLowerCase();
      if (t === "") return null;
      if (TRUE.has(t)) return true;
      if (FALSE.has(t)) return false;
      throw bad();
    }
  }
}
