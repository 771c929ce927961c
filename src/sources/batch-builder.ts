import { setLinearized } from "../task/linearized.js";
import { setRowOrigins } from "../task/row-origins.js";
import { isUtf8 } from "node:buffer";
import { Binary, Bool, Field, Float64, Int32, Int64, makeData, RecordBatch, Schema, Struct, Utf8 } from "apache-arrow";
import type { Data, DataType } from "apache-arrow";
import type { Geometry, GeometryType } from "../geo/geometry.js";
import { encodeWkb, encodeWkbColumn } from "../geo/wkb.js";
import { ARROW_TYPE } from "../geoparquet/features.js";
import { COVERING_COLUMN } from "../geoparquet/row-group.js";
import type { ColumnType } from "../geoparquet/features.js";
import type { SourceColumn } from "./source-options.js";
import { ColumnBuffer } from "./column-buffer.js";
import { BadValue, inferType } from "./convert.js";
import { SourceError } from "./errors.js";
import { shownBytes } from "./text/utf8-text.js";

const UTF8 = new TextDecoder();

/** A column as the file declares it; no type means the values decide (GeoJSON, and CSV's are text). */
export interface FileField {
  name: string;
  type?: ColumnType;
  /** Read for the geometry (a CSV's WKT or x/y): never a column of its own. */
  geometry?: true;
}

/**
 * A column of the dataset: where it comes from in the file, its name, and its values: straight into an Arrow
 * layout when its type is fixed, else held until the batch's values decide it.
 */
interface OutColumn {
  from: number;
  source: string;
  name: string;
  type?: ColumnType;
  buffer?: ColumnBuffer;
  values?: unknown[];
}

export const GEOMETRY = "geometry";
/** The covering column every artifact carries (geoparquet/row-group.ts): a feed's own "bbox" would be lost to it. */
const COVERING = COVERING_COLUMN;

const folded = (name: string) => name.normalize("NFC").toLowerCase();
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
  private fids: number[] = [];
  /** Features of this batch that were curves, made straight segments by the reader (task/linearized.ts). */
  linearized = 0;
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
    if (chosen.name === GEOMETRY || chosen.name === COVERING)
      throw new SourceError(
        `${this.where}: column ${JSON.stringify(f.name)} would be named "${chosen.name}", which is the ${chosen.name === GEOMETRY ? "geometry column" : "covering column GeoParquet readers prune by"}; rename it in "columns" (e.g. "${f.name}": "${chosen.name}_value")`,
      );
    if (this.out.some((c) => c.name === chosen.name))
      throw new SourceError(
        `${this.where}: two columns would both be named ${JSON.stringify(chosen.name)}; rename one in "columns"`,
      );
    // SQLite (GeoPackage), DuckDB and PostgreSQL's unquoted names do not tell these apart: DuckDB answers a
    // query for one with the other's values.
    const twin = this.out.find((c) => folded(c.name) === folded(chosen.name));
    if (twin)
      throw new SourceError(
        `${this.where}: columns ${JSON.stringify(twin.name)} and ${JSON.stringify(chosen.name)} differ only in ${twin.name.toLowerCase() === chosen.name.toLowerCase() ? "case" : "Unicode form or case"}, which DuckDB, SQLite and GeoPackage do not tell apart; rename one in "columns"`,
      );
    const type = chosen.type ?? f.type;
    const column: OutColumn = { from, source: f.name, name: chosen.name, ...(type ? { type } : {}) };
    this.fresh(column);
    for (let i = 0; i < this.rows; i++) this.put(column, null, i);
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

  private fresh(c: OutColumn): void {
    if (c.type) c.buffer = new ColumnBuffer(c.type, BATCH_ROWS);
    else c.values = [];
  }

  /**
   * One value into its column; a value not of the column's type is an error naming the row and column. A value
   * given as bytes is UTF-8 text (a FlatGeobuf string, a GeoPackage TEXT): copied as it is into a text column, read
   * as text for any other; bytes that are not UTF-8 are refused (notUtf8).
   */
  private put(c: OutColumn, value: unknown, row: number): void {
    let v = value;
    if (v instanceof Uint8Array) {
      if (!isUtf8(v)) throw this.notUtf8(c, v, row);
      if (c.buffer?.type === "string") return c.buffer.pushUtf8(v);
      v = UTF8.decode(v);
    }
    if (!c.buffer) {
      (c.values as unknown[]).push(v);
      return;
    }
    try {
      c.buffer.push(v);
    } catch (error) {
      if (!(error instanceof BadValue)) throw error;
      throw new SourceError(
        `${this.where}, row ${this.before + row + 1}, column ${JSON.stringify(c.source)}: ${error.message}; fix the file or the column's "type"`,
      );
    }
  }

  /**
   * Text that is not UTF-8 where the format says it is (a writer that stored another code page's bytes, which GDAL
   * passes through): read as UTF-8 it would become U+FFFD in the artifact, so it is refused, naming the feature.
   */
  private notUtf8(c: OutColumn, bytes: Uint8Array, row: number): SourceError {
    const fid = this.fids.length === this.rows + 1 ? this.fids[this.rows] : undefined;
    const feature = fid === undefined ? `row ${this.before + row + 1}` : `feature ${fid}`;
    return new SourceError(
      `${this.where}, ${feature}, column ${JSON.stringify(c.source)}: its text is not UTF-8 (${shownBytes(bytes)}), though the format stores UTF-8: the file's writer stored another code page's bytes; write the file again from a source read in its own encoding (e.g. ogr2ogr --config SHAPE_ENCODING CP1252 from a Shapefile), or leave the column out with "columns"`,
    );
  }

  /** One row: its geometry and its values by file field index (only kept ones are asked for). */
  /** One row; `fid` is the feature's number as OGR counts it in the file (row-origins.ts). */
  add(geometry: Geometry | Uint8Array | null, value: (field: number) => unknown, fid?: number): void {
    this.geometries.push(geometry);
    if (fid !== undefined) this.fids.push(fid);
    const row = this.rows;
    for (const c of this.out) this.put(c, value(c.from), row);
    this.rows++;
  }

  /** One row whose values come by name (GeoJSON's properties): a name not seen before is a new column. */
  addObject(
    geometry: Geometry | Uint8Array | null,
    properties: Record<string, unknown> | null | undefined,
    fid?: number,
  ): void {
    this.geometries.push(geometry);
    if (fid !== undefined) this.fids.push(fid);
    const row = this.rows;
    for (const name of properties ? Object.keys(properties) : [])
      if (!this.bySource.has(name) && !this.seen.has(name)) this.addField({ name }, -1);
    // Own properties only: a feature without "constructor" must not read Object.prototype's.
    for (const c of this.out)
      this.put(c, properties && Object.hasOwn(properties, c.source) ? properties[c.source] : null, row);
    this.rows++;
  }

  /** The rows so far as one record batch (undefined when there are none), and a fresh start. */
  flush(): RecordBatch | undefined {
    const firstRow = this.before;
    if (this.rows === 0) return undefined;
    const fields: Field[] = [];
    const children: Data[] = [];
    for (const c of this.out) {
      let data: Data;
      let metadata: Map<string, string> | undefined;
      if (c.buffer) data = c.buffer.finish();
      else {
        // A column of values that decide their type: the batch's widest, which unify.ts widens across batches.
        const values = c.values as unknown[];
        const inferred = inferType(values);
        const buffer = new ColumnBuffer(inferred ?? "string", values.length);
        values.forEach((v, i) => this.put({ ...c, buffer }, v, i));
        data = buffer.finish();
        metadata = new Map([[INFERRED, inferred ?? "none"]]);
      }
      fields.push(new Field(c.name, data.type as DataType, true, metadata));
      children.push(data);
      this.fresh(c);
    }
    const wkb = this.geometryData();
    fields.push(new Field(GEOMETRY, new Binary(), false));
    children.push(wkb);
    const schema = new Schema(fields);
    const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: this.rows, children }));
    this.before += this.rows;
    if (this.fids.length === this.rows) setRowOrigins(batch, Float64Array.from(this.fids));
    setLinearized(batch, this.linearized);
    this.linearized = 0;
    this.fids = [];
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
