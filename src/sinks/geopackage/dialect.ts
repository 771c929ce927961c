import type Database from "better-sqlite3";
import { SinkRefusedError, SinkSchemaError } from "../errors.js";
import type { PartitionBatch } from "../partition-rows.js";
import type { AppliedPartition } from "../plan.js";
import { foreignTable, SINK_COLUMNS, sridOf, STATE_TABLE } from "../sink-table.js";
import type { BulkLoad, RowBatches, SinkDialect, SinkTableShape } from "../sink.js";
import { quoteName } from "../sql-names.js";
import { columnsToAdd } from "../table-columns.js";
import { gpkgEnvelope, gpkgGeometry } from "./geometry.js";
import { writePackedRtree } from "./rtree.js";
import type { RtreeEntry } from "./rtree.js";
import { rtreeStatements, srsRow } from "./schema.js";

/** GeoPackage column types (1.3 table 1) of the Arrow types a sink loads, and how a value is bound. */
const GPKG_TYPES: Record<string, string> = {
  Utf8: "TEXT",
  LargeUtf8: "TEXT",
  Bool: "BOOLEAN",
  Int8: "TINYINT",
  Int16: "SMALLINT",
  // MEDIUMINT is the 32-bit integer (1.3 table 1), which GDAL reads as Integer; INTEGER is 64-bit (Integer64).
  Int32: "MEDIUMINT",
  Int64: "INTEGER",
  Uint8: "SMALLINT",
  Uint16: "MEDIUMINT",
  Uint32: "INTEGER",
  Float32: "FLOAT",
  Float64: "DOUBLE",
  Binary: "BLOB",
  LargeBinary: "BLOB",
};

/** A table the sink made before 32-bit columns were MEDIUMINT holds them as INTEGER: wider, so still taken. */
const gpkgAccepts = (found: string, wanted: string) =>
  found === wanted || (found === "INTEGER" && wanted === "MEDIUMINT");

/**
 * gpkg_geometry_columns' geometry_type_name for a partition's GeoParquet geometry types: the one type when there
 * is one (POLYGON for all-Polygon data, so GDAL and QGIS declare the layer as such), else GEOMETRY (any).
 */
function gpkgGeometryType(types: readonly string[]): string {
  const plain = [...new Set(types.map((t) => t.replace(/ Z$/, "").toUpperCase()))];
  const known = [
    "POINT",
    "LINESTRING",
    "POLYGON",
    "MULTIPOINT",
    "MULTILINESTRING",
    "MULTIPOLYGON",
    "GEOMETRYCOLLECTION",
  ];
  return plain.length === 1 && known.includes(plain[0] as string) ? (plain[0] as string) : "GEOMETRY";
}

function gpkgTypeOf(arrowType: string, column: string): string {
  const t = /^Dictionary<[^,]+, (.+)>$/.exec(arrowType)?.[1] ?? arrowType;
  const found = GPKG_TYPES[t];
  if (!found)
    throw new SinkSchemaError(
      `column ${JSON.stringify(column)} has type ${arrowType}, which the GeoPackage sink cannot load yet (text, integers, floats, booleans, bytes)`,
    );
  return found;
}

/** A value as better-sqlite3 binds it: booleans as 0/1, bytes as a Buffer. */
function bindable(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

/** Parameters as better-sqlite3 binds `@p1`, `@p2`, … */
function named(params: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  params.forEach((v, i) => (out[`p${i + 1}`] = bindable(v)));
  return out;
}

export function readState(db: Database.Database, table: string): AppliedPartition[] {
  const has = (name: string) =>
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  if (!has(STATE_TABLE) || !has(table)) return [];
  return db
    .prepare(
      `SELECT region, logical_date AS date, sha256 FROM ${STATE_TABLE} WHERE table_name = ? ORDER BY region, logical_date`,
    )
    .all(table) as AppliedPartition[];
}

/**
 * A GeoPackage (SQLite) as the loader's dialect (loader.ts): `?` parameters, `IS NOT` for a null-safe
 * inequality, prepared inserts of GeoPackage geometry blobs, and for a table this transaction made, its key index
 * and packed R-tree built once after the rows, then the standard triggers that keep the R-tree from then on.
 */
export class GeopackageDialect implements SinkDialect {
  readonly table: string;
  readonly state = STATE_TABLE;
  /** Whether this transaction made the table (its R-tree and indexes are built at finish). */
  created = false;
  private indexes: string[] = [];
  /** The boxes of the rows a made table received, for its packed R-tree. */
  private entries: RtreeEntry[] = [];
  private srsId = 0;

  constructor(
    private readonly db: Database.Database,
    readonly name: string,
  ) {
    this.table = quoteName(name, "table name");
  }

  quote(name: string, what: string): string {
    return quoteName(name, what);
  }

  /** Named (`@p1`): a statement may use a parameter twice, which `?` cannot (better-sqlite3 has no `?NNN`). */
  param(n: number): string {
    return `@p${n}`;
  }

  date(expr: string): string {
    return expr;
  }

  distinct(a: string, b: string): string {
    return `${a} IS NOT ${b}`;
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.db.prepare(sql).run(named(params)).changes;
  }

  async rows(sql: string, params: readonly unknown[]): Promise<unknown[][]> {
    return this.db.prepare(sql).raw().all(named(params)) as unknown[][];
  }

  uniqueViolation(error: unknown): string | undefined {
    return (error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE" ? (error as Error).message : undefined;
  }

  async createStage(shape: SinkTableShape): Promise<string> {
    const names = shape.columns.map((c) => quoteName(c.name, "column"));
    this.db.exec(`DROP TABLE IF EXISTS temp.georefresh_stage`);
    this.db.exec(`CREATE TEMP TABLE georefresh_stage (${[...names, "geom", "content_digest"].join(", ")})`);
    return "temp.georefresh_stage";
  }

  async indexStage(_stage: string, keys: string[]): Promise<void> {
    this.db.exec(`CREATE INDEX temp.georefresh_stage_key ON georefresh_stage (${keys.join(", ")})`);
  }

  async applied(): Promise<AppliedPartition[]> {
    return readState(this.db, this.name);
  }

  async prepare(shape: SinkTableShape): Promise<void> {
    this.srsId = sridOf(shape.crs);
    for (const c of shape.columns)
      if ((SINK_COLUMNS as readonly string[]).includes(c.name) || c.name === "fid")
        throw new SinkSchemaError(
          `column ${JSON.stringify(c.name)} of the data would clash with the sink's own column of that name (fid, ${SINK_COLUMNS.join(", ")}): rename it in the task`,
        );
    const existing = this.db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(this.name) as {
      name: string;
      type: string;
    }[];
    if (existing.length === 0) return this.create(shape);
    const types = new Map(existing.map((r) => [r.name, r.type]));
    const foreign = foreignTable(`table ${this.table}`, new Set(types.keys()));
    if (foreign) throw foreign;
    const z = this.db
      .prepare(`SELECT z, srs_id FROM gpkg_geometry_columns WHERE table_name = ? AND column_name = 'geom'`)
      .get(this.name) as { z: number; srs_id: number } | undefined;
    if (!z || z.srs_id !== this.srsId || (z.z === 1) !== shape.hasZ)
      throw new SinkRefusedError(
        `${this.table}: its geometry column is ${z ? `SRS ${z.srs_id}${z.z === 1 ? " with Z" : ""}` : "not registered"}, but ${shape.dataset}'s artifacts are SRS ${this.srsId}${shape.hasZ ? " with Z" : ""}: sink into a new table`,
      );
    for (const c of columnsToAdd(shape, types, gpkgTypeOf, this.table, gpkgAccepts))
      this.db.exec(`ALTER TABLE ${this.table} ADD COLUMN ${quoteName(c.name, "column")} ${c.type}`);
    // A partition of another geometry type widens the declared one to GEOMETRY; it is never narrowed.
    const declared = this.db
      .prepare(
        `SELECT geometry_type_name AS t FROM gpkg_geometry_columns WHERE table_name = ? AND column_name = 'geom'`,
      )
      .get(this.name) as { t: string };
    const declaredNow = shape.geometryTypes ?? [];
    if (
      declared.t !== "GEOMETRY" &&
      (declaredNow.length === 0 || gpkgGeometryType([declared.t, ...declaredNow]) !== declared.t)
    )
      this.widenGeometry(declared.t);
  }

  /**
   * The declared geometry type becomes GEOMETRY, in gpkg_geometry_columns and in the column's SQL type, which must
   * agree (1.3 requirement 31). SQLite cannot ALTER a column's type; its documented way is to edit the stored
   * CREATE statement under writable_schema and bump schema_version. Both names have the same (NUMERIC) affinity,
   * so no stored value changes meaning. Inside the sink's transaction: a failure rolls it back with the rest.
   */
  private widenGeometry(from: string): void {
    const row = this.db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(this.name) as {
      sql: string;
    };
    const sql = row.sql.replace(new RegExp(`\\bgeom ${from}\\b`), "geom GEOMETRY");
    if (sql === row.sql) throw new SinkRefusedError(`${this.table}: its geometry column is not declared as ${from}`);
    const version = this.db.pragma("schema_version", { simple: true }) as number;
    // better-sqlite3 opens in SQLite's defensive mode, which forbids this edit; lifted for these two statements.
    this.db.unsafeMode(true);
    this.db.pragma("writable_schema = ON");
    try {
      this.db.prepare(`UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?`).run(sql, this.name);
      this.db.pragma(`schema_version = ${version + 1}`);
    } finally {
      this.db.pragma("writable_schema = OFF");
      this.db.unsafeMode(false);
    }
    this.db
      .prepare(
        `UPDATE gpkg_geometry_columns SET geometry_type_name = 'GEOMETRY' WHERE table_name = ? AND column_name = 'geom'`,
      )
      .run(this.name);
  }

  private create(shape: SinkTableShape): void {
    for (const k of shape.key)
      if (!shape.columns.some((c) => c.name === k))
        throw new SinkSchemaError(`the key column ${JSON.stringify(k)} is not in the data`);
    const columns = [
      `fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`,
      `geom ${gpkgGeometryType(shape.geometryTypes ?? [])}`,
      `region TEXT NOT NULL`,
      ...shape.columns.map(
        (c) =>
          `${quoteName(c.name, "column")} ${gpkgTypeOf(c.type, c.name)}${shape.key.includes(c.name) ? " NOT NULL" : ""}`,
      ),
      `valid_from DATE NOT NULL`,
      `content_digest TEXT NOT NULL`,
      `artifact_key TEXT NOT NULL`,
      `artifact_sha256 TEXT NOT NULL`,
      `sink_run TEXT NOT NULL`,
      `retired_at DATE`,
      `retired_by TEXT`,
    ];
    this.db.exec(`CREATE TABLE ${this.table} (\n  ${columns.join(",\n  ")}\n)`);
    // The key's (or the partition's) index is built after the rows, in finish(): one sort, not one insertion per row.
    this.indexes = [
      shape.key.length
        ? `CREATE UNIQUE INDEX ${quoteName(`${this.name}_key`, "index")} ON ${this.table} (region, ${shape.key.map((k) => quoteName(k, "key column")).join(", ")})`
        : `CREATE INDEX ${quoteName(`${this.name}_partition`, "index")} ON ${this.table} (region, valid_from)`,
    ];
    const srs = srsRow(this.srsId);
    this.db
      .prepare(
        `INSERT OR IGNORE INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(srs.name, srs.id, srs.organization, srs.code, srs.definition, srs.description);
    this.db
      .prepare(
        `INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id)
         VALUES (?, 'features', ?, ?, '1970-01-01T00:00:00.000Z', ?)`,
      )
      .run(this.name, this.name, `${shape.dataset}, applied by georefresh sink`, this.srsId);
    this.db
      .prepare(
        `INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES (?, 'geom', ?, ?, ?, 0)`,
      )
      .run(this.name, gpkgGeometryType(shape.geometryTypes ?? []), this.srsId, shape.hasZ ? 1 : 0);
    // The R-tree and its triggers come after the rows (finish): filled in one pass, not by a trigger per row.
    this.created = true;
  }

  /** Each row's values: region?, the data's, the geometry blob, the digest, then provenance when asked. */
  private *boundRows(batch: PartitionBatch, n: number, before: unknown[], after: unknown[]): Generator<unknown[]> {
    for (let r = 0; r < batch.length; r++) {
      const row = batch.row(r);
      const out = new Array<unknown>(before.length + n + 2 + after.length);
      let i = 0;
      for (const v of before) out[i++] = v;
      for (let c = 0; c < n; c++) out[i++] = bindable(row[c]);
      out[i++] = gpkgGeometry(row[n] as Uint8Array, this.srsId);
      out[i++] = row[n + 1];
      for (const v of after) out[i++] = v;
      yield out;
    }
  }

  /** Every row of the batches by one prepared INSERT; rows into a table this transaction made keep their boxes. */
  async load(shape: SinkTableShape, into: BulkLoad, batches: RowBatches): Promise<void> {
    const stmt = this.db.prepare(
      `INSERT INTO ${into.table} (${into.columns.join(", ")}) VALUES (${into.columns.map(() => "?").join(", ")})`,
    );
    const before = into.before.map((c) => c.value);
    const after = into.after.map((c) => c.value);
    // Rows into a table this transaction made: keep each box for the packed R-tree (finish).
    const boxes = this.created && into.table === this.table;
    const g = before.length + shape.columns.length;
    for await (const batch of batches) {
      for (const values of this.boundRows(batch, shape.columns.length, before, after)) {
        const info = stmt.run(values);
        if (!boxes) continue;
        const env = gpkgEnvelope(values[g] as Uint8Array);
        if (env)
          this.entries.push({
            id: Number(info.lastInsertRowid),
            minx: env[0],
            maxx: env[1],
            miny: env[2],
            maxy: env[3],
          });
      }
    }
  }

  /**
   * The R-tree of a table this transaction made and filled: each row's envelope read once from its blob header
   * (the triggers would call five functions per row), then the triggers that keep it from now on.
   */
  private buildRtree(): void {
    const [create, ...rest] = rtreeStatements(this.name);
    this.db.exec(create as string);
    writePackedRtree(this.db, `rtree_${this.name}_geom`, this.entries);
    this.entries = [];
    for (const sql of rest) this.db.exec(sql);
  }

  /** gpkg_contents: the extent from the R-tree, and last_change from the logical dates (never the wall clock). */
  async finish(): Promise<void> {
    if (this.created) {
      for (const sql of this.indexes) this.db.exec(sql); // a duplicate key: the loader says so
      this.buildRtree();
    }
    this.created = false;
    const exists = this.db.prepare(`SELECT 1 FROM gpkg_contents WHERE table_name = ?`).get(this.name);
    if (!exists) return;
    const rtree = quoteName(`rtree_${this.name}_geom`, "R-tree");
    const ext = this.db
      .prepare(`SELECT min(minx) AS minx, min(miny) AS miny, max(maxx) AS maxx, max(maxy) AS maxy FROM ${rtree}`)
      .get() as Record<string, number | null>;
    const last = this.db
      .prepare(`SELECT max(max(valid_from), coalesce(max(retired_at), '')) AS d FROM ${this.table}`)
      .get() as { d: string | null };
    this.db
      .prepare(
        `UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = ? WHERE table_name = ?`,
      )
      .run(
        ext.minx,
        ext.miny,
        ext.maxx,
        ext.maxy,
        last.d ? `${last.d}T00:00:00.000Z` : "1970-01-01T00:00:00.000Z",
        this.name,
      );
  }
}
