import { Binary, Bool, Field, Float64, Int32, Int64, makeData, RecordBatch, Schema, Struct, Utf8 } from "apache-arrow";
import type { Data, DataType } from "apache-arrow";
import { vectorFromArray } from "apache-arrow";
import type { Geometry, GeometryType } from "../geo/geometry.js";
import { encodeWkb, encodeWkbColumn } from "../geo/wkb.js";
import { ARROW_TYPE } from "../geoparquet/features.js";
import type { ColumnType } from "../geoparquet/features.js";
import type { SourceColumn } from "./source-spec.js";
import { SourceError } from "./errors.js";

/** A column as the file declares it; no type means the values decide (GeoJSON, and CSV's are text). */
export interface FileField {
  name: string;
  type?: ColumnType;
  /** Read for the geometry (a CSV's WKT or x/y): never a column of its own. */
  geometry?: true;
}

/** A column of the dataset: where it comes from in the file, its name, and its type if fixed. */
interface OutColumn {
  from: number;
  source: string;
  name: string;
  type?: ColumnType;
  values: unknown[];
}

export const GEOMETRY = "geometry";
export const BATCH_ROWS = 65_536;
/** Field metadata of a column whose type its values decided; "none" when every value of the batch was null. */
export const INFERRED = "georefresh:inferred";

/**
 * Collects a reader's rows into Arrow record batches of at most BATCH_ROWS rows, keeping only the columns the
 * source selects (renamed, typed). A row's geometry is a GeoJSON-shaped object or WKB bytes; a missing geometry
 * becomes an empty one of the layer's type (a GeoParquet geometry column has no nulls). Files that declare their
 * columns (Shapefile, GeoPackage, FlatGeobuf, CSV) give them up front; GeoJSON's appear as rows name them.
 */
export class BatchBuilder {
  private out: OutColumn[] = [];
  private readonly bySource = new Map<string, OutColumn>();
  private geometries: (Geometry | Uint8Array | null)[] = [];
  private rows = 0;
  /** Rows already flushed, for messages naming a row. */
  private before = 0;
  private readonly seen = new Set<string>();

  constructor(
    fields: readonly FileField[],
    private readonly select: Record<string, SourceColumn> | undefined,
    private readonly where: string,
    private readonly emptyType: GeometryType = "GeometryCollection",
    dynamic = false,
  ) {
    fields.forEach((f, i) => this.addField(f, i));
    if (!dynamic) this.checkSelected(fields.map((f) => f.name));
  }

  /** After the last row of a file whose columns appear as rows name them: every selected column was seen. */
  checkSelected(names: readonly string[] = [...this.seen]): void {
    if (!this.select) return;
    const missing = Object.keys(this.select).filter((k) => !names.includes(k));
    if (missing.length)
      throw new SourceError(
        `${this.where} has no column ${missing.map((m) => JSON.stringify(m)).join(", ")} (it has ${names.map((n) => JSON.stringify(n)).join(", ") || "none"}); fix "columns" in the source`,
      );
  }

  private addField(f: FileField, from: number): OutColumn | undefined {
    if (f.geometry) return undefined;
    this.seen.add(f.name);
    const chosen = this.select
      ? Object.hasOwn(this.select, f.name)
        ? this.select[f.name]
        : undefined
      : { name: f.name };
    if (!chosen) return undefined;
    if (chosen.name === GEOMETRY)
      throw new SourceError(
        `${this.where}: column ${JSON.stringify(f.name)} would be named "${GEOMETRY}", which is the geometry column; rename it in "columns"`,
      );
    if (this.out.some((c) => c.name === chosen.name))
      throw new SourceError(
        `${this.where}: two columns would both be named ${JSON.stringify(chosen.name)}; rename one in "columns"`,
      );
    const column: OutColumn = {
      from,
      source: f.name,
      name: chosen.name,
      type: chosen.type ?? f.type,
      values: new Array<unknown>(this.rows).fill(null),
    };
    this.out.push(column);
    this.bySource.set(f.name, column);
    return column;
  }

  get full(): boolean {
    return this.rows >= BATCH_ROWS;
  }

  /** Whether a file field (by index) is kept: readers skip decoding the others. */
  wants(field: number): boolean {
    return this.out.some((c) => c.from === field);
  }

  /** One row: its geometry and its values by file field index (only kept ones are asked for). */
  add(geometry: Geometry | Uint8Array | null, value: (field: number) => unknown): void {
    this.geometries.push(geometry);
    for (const c of this.out) c.values.push(value(c.from));
    this.rows++;
  }

  /** One row whose values come by name (GeoJSON's properties): a name not seen before is a new column. */
  addObject(geometry: Geometry | Uint8Array | null, properties: Record<string, unknown> | null | undefined): void {
    this.geometries.push(geometry);
    const row = this.rows;
    if (properties)
      for (const name of Object.keys(properties)) {
        const column = this.bySource.get(name) ?? (this.seen.has(name) ? undefined : this.addField({ name }, -1));
        if (column) column.values[row] = properties[name];
      }
    this.rows++;
    for (const c of this.out) if (c.values.length < this.rows) c.values.push(null);
  }

  /** The rows so far as one record batch (undefined when there are none), and a fresh start. */
  flush(): RecordBatch | undefined {
    const firstRow = this.before;
    if (this.rows === 0) return undefined;
    const fields: Field[] = [];
    const children: Data[] = [];
    for (const c of this.out) {
      const inferred = c.type === undefined ? inferType(c.values) : undefined;
      const type = c.type ?? inferred ?? "string";
      const values = c.values.map((v, i) =>
        convert(v, type, () => `${this.where}, row ${firstRow + i + 1}, column ${JSON.stringify(c.source)}`),
      );
      const vector = vectorFromArray(values as never[], ARROW_TYPE[type]() as never);
      const metadata = c.type === undefined ? new Map([[INFERRED, inferred ?? "none"]]) : undefined;
      fields.push(new Field(c.name, vector.type as DataType, true, metadata));
      children.push(vector.data[0] as Data);
      c.values = [];
    }
    const wkb = this.geometryData();
    fields.push(new Field(GEOMETRY, new Binary(), false));
    children.push(wkb);
    const schema = new Schema(fields);
    const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: this.rows, children }));
    this.before += this.rows;
    this.rows = 0;
    return batch;
  }

  private geometryData(): Data {
    const rows = this.geometries;
    this.geometries = [];
    let column: { data: Uint8Array; offsets: Int32Array };
    if (!rows.some((g) => g instanceof Uint8Array)) {
      column = encodeWkbColumn(rows.map((g) => (g as Geometry | null) ?? emptyOf(this.emptyType)));
    } else {
      const empty = encodeWkb(emptyOf(this.emptyType));
      const parts = rows.map((g) => (g instanceof Uint8Array ? g : g === null ? empty : encodeWkb(g)));
      const offsets = new Int32Array(parts.length + 1);
      let size = 0;
      parts.forEach((w, i) => {
        size += w.length;
        offsets[i + 1] = size;
      });
      const data = new Uint8Array(size);
      parts.forEach((w, i) => data.set(w, offsets[i] as number));
      column = { data, offsets };
    }
    return makeData({
      type: new Binary(),
      length: column.offsets.length - 1,
      valueOffsets: column.offsets,
      data: column.data,
    });
  }
}

function emptyOf(type: GeometryType): Geometry {
  return type === "GeometryCollection" ? { type, geometries: [] } : ({ type, coordinates: [] } as Geometry);
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

/** One value as `type`, or an error naming the row and column. Empty text is null for every type but string. */
export function convert(v: unknown, type: ColumnType, where: () => string): unknown {
  if (v === null || v === undefined) return null;
  const bad = () =>
    new SourceError(
      `${where()}: ${JSON.stringify(typeof v === "bigint" ? String(v) : v)} is not ${type === "bool" ? "a boolean" : `a ${type}`}; fix the file or the column's "type"`,
    );
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
