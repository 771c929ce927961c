import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import type { Delta } from "./delta.js";
import { SinkConnectError, SinkRefusedError, SinkSchemaError } from "./errors.js";
import { gpkgEnvelope, gpkgGeometry } from "./gpkg-geometry.js";
import { writePackedRtree } from "./gpkg-rtree.js";
import type { RtreeEntry } from "./gpkg-rtree.js";
import {
  GPKG_APPLICATION_ID,
  GPKG_USER_VERSION,
  gpkgSystemStatements,
  rtreeStatements,
  srsRow,
} from "./gpkg-schema.js";
import type { PartitionBatch } from "./partition-rows.js";
import type { AppliedPartition } from "./plan.js";
import { SINK_COLUMNS, sridOf, STATE_TABLE } from "./postgis-table.js";
import { quoteName } from "./sql-names.js";
import { columnsToAdd } from "./table-columns.js";
import type { ApplyCounts, PartitionMeta, RowBatches, SinkKind } from "./sink.js";
import type { SinkSession, SinkTableShape, SinkTransaction } from "./sink.js";

/**
 * A GeoPackage file (OGC GeoPackage 1.3): the embedded sink, no server. The same semantics as PostGIS in one
 * SQLite transaction (BEGIN IMMEDIATE: a second sink waits for the first, then finds its work done), with the
 * R-tree spatial index kept by the standard triggers, whose ST_* functions this connection provides.
 */
export const geopackageSink: SinkKind = {
  name: "geopackage",
  async open(to) {
    const path = resolve(to);
    checkFile(path);
    return new GeopackageSession(path);
  },
};

/** The file, opened (and made, when missing) only for a transaction: a dry run or a no-op leaves no new file. */
function openFile(path: string): Database.Database {
  let db: Database.Database;
  try {
    // Ten minutes for another sink of the same file to finish (its whole transaction), then "database is locked".
    db = new Database(path, { timeout: 600_000 });
    db.pragma("journal_mode = DELETE"); // a rollback journal: the file stands alone after every commit
    // A load inserts in spatial order, not key order: a page cache that holds the key index avoids thrashing.
    db.pragma("cache_size = -262144");
    db.pragma("temp_store = MEMORY");
  } catch (error) {
    throw new SinkConnectError(`cannot open the GeoPackage ${path}: ${(error as Error).message}`);
  }
  registerFunctions(db);
  return db;
}

/** Refuses to write into a file that is something else than a GeoPackage (or empty, or new). */
function checkFile(path: string): void {
  // SQLite names its -journal and -wal files after the path it was given: written through a link, they would
  // sit beside the link while the database is elsewhere, and a crash would leave the real file without them.
  const link = (() => {
    try {
      return lstatSync(path).isSymbolicLink();
    } catch {
      return false;
    }
  })();
  if (link)
    throw new SinkConnectError(
      `${path} is a symbolic link (to ${readlinkSync(path)}): refusing to write through it; give the GeoPackage's own path`,
    );
  if (!existsSync(path)) return;
  const st = statSync(path);
  if (!st.isFile())
    throw new SinkConnectError(
      `${path} is not a file (${st.isDirectory() ? "a directory" : st.isFIFO() ? "a pipe" : st.isCharacterDevice() || st.isBlockDevice() ? "a device" : "not a regular file"}): give the path of a .gpkg file`,
    );
  if (st.size === 0) return;
  const head = readFileSync(path).subarray(0, 100);
  const sqlite = head.subarray(0, 16).toString("latin1") === "SQLite format 3\0";
  const appId = head.length >= 72 ? head.readUInt32BE(68) : 0;
  const refuse = (what: string) =>
    new SinkConnectError(`${path} is not a GeoPackage (${what}): refusing to write into it; give a new path`);
  if (!sqlite) throw refuse("not even SQLite");
  // "GPKG", or GeoPackage 1.0 / 1.1's "GP10" / "GP11".
  const gpkg = [GPKG_APPLICATION_ID, 0x47503130, 0x47503131].includes(appId);
  if (!gpkg && appId !== 0) throw refuse(`SQLite application_id 0x${appId.toString(16)}`);
  // Application id 0: a GeoPackage a killed first sink left unmarked (it has only our tables), or another database.
  if (appId === 0) {
    const db = new Database(path, { readonly: true });
    try {
      const foreign = db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
             AND name NOT LIKE 'gpkg\\_%' ESCAPE '\\' AND name NOT LIKE 'georefresh\\_%' ESCAPE '\\' LIMIT 1`,
        )
        .get() as { name: string } | undefined;
      if (foreign) throw refuse(`an SQLite database with its own tables, such as ${JSON.stringify(foreign.name)}`);
    } finally {
      db.close();
    }
  }
}

/** The functions the R-tree triggers call (GeoPackage 1.3 annex F.3), over GeoPackage blobs. */
function registerFunctions(db: Database.Database): void {
  const env = (g: unknown) => (g instanceof Uint8Array ? gpkgEnvelope(g) : null);
  const opts = { deterministic: true };
  db.function("ST_IsEmpty", opts, (g: unknown) => (g === null ? null : env(g) === null ? 1 : 0));
  db.function("ST_MinX", opts, (g: unknown) => env(g)?.[0] ?? null);
  db.function("ST_MaxX", opts, (g: unknown) => env(g)?.[1] ?? null);
  db.function("ST_MinY", opts, (g: unknown) => env(g)?.[2] ?? null);
  db.function("ST_MaxY", opts, (g: unknown) => env(g)?.[3] ?? null);
}

/** GeoPackage column types (1.3 table 1) of the Arrow types a sink loads, and how a value is bound. */
const GPKG_TYPES: Record<string, string> = {
  Utf8: "TEXT",
  LargeUtf8: "TEXT",
  Bool: "BOOLEAN",
  Int8: "TINYINT",
  Int16: "SMALLINT",
  Int32: "INTEGER",
  Int64: "INTEGER",
  Uint8: "SMALLINT",
  Uint16: "INTEGER",
  Uint32: "INTEGER",
  Float32: "FLOAT",
  Float64: "DOUBLE",
  Binary: "BLOB",
  LargeBinary: "BLOB",
};

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

class GeopackageSession implements SinkSession {
  private db: Database.Database | undefined;

  constructor(readonly where: string) {}

  async applied(table: string): Promise<AppliedPartition[]> {
    if (!this.db && !existsSync(this.where)) return [];
    this.db ??= openFile(this.where);
    return readState(this.db, table);
  }

  async transaction<T>(table: string, work: (tx: SinkTransaction) => Promise<T>): Promise<T> {
    const db = (this.db ??= openFile(this.where));
    db.exec("BEGIN IMMEDIATE");
    try {
      db.pragma(`application_id = ${GPKG_APPLICATION_ID}`);
      db.pragma(`user_version = ${GPKG_USER_VERSION}`);
      for (const sql of gpkgSystemStatements()) db.exec(sql);
      const tx = new GeopackageTransaction(db, table);
      const result = await work(tx);
      await tx.finish();
      db.exec("COMMIT");
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }

  async close(): Promise<void> {
    this.db?.close();
  }
}

function readState(db: Database.Database, table: string): AppliedPartition[] {
  const has = (name: string) =>
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  if (!has(STATE_TABLE) || !has(table)) return [];
  return db
    .prepare(
      `SELECT region, logical_date AS date, sha256 FROM ${STATE_TABLE} WHERE table_name = ? ORDER BY region, logical_date`,
    )
    .all(table) as AppliedPartition[];
}

const PROVENANCE = ["valid_from", "artifact_key", "artifact_sha256", "sink_run"];

class GeopackageTransaction implements SinkTransaction {
  run = "";
  keepHistory = false;
  /** Whether this transaction made the table (its R-tree and indexes are built at finish). */
  private created = false;
  private indexes: string[] = [];
  /** The boxes of the rows a made table received, for its packed R-tree. */
  private entries: RtreeEntry[] = [];
  private readonly t: string;
  private srsId = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly name: string,
  ) {
    this.t = quoteName(name, "table name");
  }

  async applied(): Promise<AppliedPartition[]> {
    return readState(this.db, this.name);
  }

  async prepare(shape: SinkTableShape): Promise<void> {
    if (this.keepHistory)
      throw new SinkSchemaError(
        `a history table is kept in PostGIS only for now: sink ${shape.dataset} into PostgreSQL for its history, or turn "history" off for the GeoPackage`,
      );
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
    const z = this.db
      .prepare(`SELECT z, srs_id FROM gpkg_geometry_columns WHERE table_name = ? AND column_name = 'geom'`)
      .get(this.name) as { z: number; srs_id: number } | undefined;
    if (!z || z.srs_id !== this.srsId || (z.z === 1) !== shape.hasZ)
      throw new SinkRefusedError(
        `${this.t}: its geometry column is ${z ? `SRS ${z.srs_id}${z.z === 1 ? " with Z" : ""}` : "not registered"}, but ${shape.dataset}'s artifacts are SRS ${this.srsId}${shape.hasZ ? " with Z" : ""}: sink into a new table`,
      );
    for (const c of columnsToAdd(shape, types, gpkgTypeOf, this.t))
      this.db.exec(`ALTER TABLE ${this.t} ADD COLUMN ${quoteName(c.name, "column")} ${c.type}`);
  }

  private create(shape: SinkTableShape): void {
    for (const k of shape.key)
      if (!shape.columns.some((c) => c.name === k))
        throw new SinkSchemaError(`the key column ${JSON.stringify(k)} is not in the data`);
    const columns = [
      `fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`,
      `geom GEOMETRY`,
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
    this.db.exec(`CREATE TABLE ${this.t} (\n  ${columns.join(",\n  ")}\n)`);
    // The key's (or the partition's) index is built after the rows, in finish(): one sort, not one insertion per row.
    this.indexes = [
      shape.key.length
        ? `CREATE UNIQUE INDEX ${quoteName(`${this.name}_key`, "index")} ON ${this.t} (region, ${shape.key.map((k) => quoteName(k, "key column")).join(", ")})`
        : `CREATE INDEX ${quoteName(`${this.name}_partition`, "index")} ON ${this.t} (region, valid_from)`,
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
        `INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES (?, 'geom', 'GEOMETRY', ?, ?, 0)`,
      )
      .run(this.name, this.srsId, shape.hasZ ? 1 : 0);
    // The R-tree and its triggers come after the rows (finish): filled in one pass, not by a trigger per row.
    this.created = true;
  }

  /** Each row's values: region?, the data's, the geometry blob, the digest, then provenance when asked. */
  private *rows(batch: PartitionBatch, n: number, before: unknown[], after: unknown[]): Generator<unknown[]> {
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

  private async insertAll(
    sql: string,
    shape: SinkTableShape,
    p: PartitionMeta,
    batches: RowBatches,
    around: { before: unknown[]; after: unknown[] },
  ): Promise<number> {
    const stmt = this.db.prepare(sql);
    // Rows into a table this transaction made: keep each box for the packed R-tree (finish).
    const boxes = this.created && around.before.length > 0;
    const g = around.before.length + shape.columns.length;
    let sent = 0;
    for await (const batch of batches) {
      for (const values of this.rows(batch, shape.columns.length, around.before, around.after)) {
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
      sent += batch.length;
    }
    if (sent !== p.rows)
      throw new SinkRefusedError(
        `${p.region} ${p.date}: ${sent} rows read from ${p.artifactKey}, but its manifest records ${p.rows}; nothing was applied`,
      );
    return sent;
  }

  async apply(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches, delta?: Delta): Promise<ApplyCounts> {
    const names = shape.columns.map((c) => quoteName(c.name, "column"));
    const all = ["region", ...names, "geom", "content_digest", ...PROVENANCE];
    const into = `INSERT INTO ${this.t} (${all.join(", ")}) VALUES (${all.map(() => "?").join(", ")})`;
    const provenance = [p.date, p.artifactKey, p.sha256, this.run];
    if (!shape.key.length) {
      // A table this transaction made holds no earlier version of any partition.
      const deleted = this.created
        ? 0
        : this.db.prepare(`DELETE FROM ${this.t} WHERE region = ? AND valid_from = ?`).run(p.region, p.date).changes;
      const n = await this.insertAll(into, shape, p, batches, { before: [p.region], after: provenance });
      return { inserted: n, updated: 0, unchanged: 0, retired: 0, deleted };
    }
    const keys = shape.key.map((k) => quoteName(k, "key column"));
    const fresh =
      !delta &&
      (this.created || this.db.prepare(`SELECT 1 FROM ${this.t} WHERE region = ? LIMIT 1`).get(p.region) === undefined);
    if (fresh) {
      try {
        const n = await this.insertAll(into, shape, p, batches, { before: [p.region], after: provenance });
        return { inserted: n, updated: 0, unchanged: 0, retired: 0, deleted: 0 };
      } catch (error) {
        if ((error as { code?: string }).code !== "SQLITE_CONSTRAINT_UNIQUE") throw error;
        throw new SinkRefusedError(
          `${p.region} ${p.date}: duplicate key in the partition (${(error as Error).message}); nothing was applied`,
        );
      }
    }
    this.db.exec(`DROP TABLE IF EXISTS temp.georefresh_stage`);
    this.db.exec(`CREATE TEMP TABLE georefresh_stage (${[...names, "geom", "content_digest"].join(", ")})`);
    const staged = await this.insertAll(
      `INSERT INTO temp.georefresh_stage VALUES (${[...names, "geom", "content_digest"].map(() => "?").join(", ")})`,
      shape,
      p,
      batches,
      { before: [], after: [] },
    );
    const dup = this.db
      .prepare(
        `SELECT ${keys.join(", ")} FROM temp.georefresh_stage GROUP BY ${keys.join(", ")} HAVING count(*) > 1 LIMIT 3`,
      )
      .raw()
      .all() as unknown[][];
    if (dup.length)
      throw new SinkRefusedError(
        `${p.region} ${p.date}: duplicate keys in the partition (${dup.map((k) => JSON.stringify(k)).join(", ")}); nothing was applied`,
      );
    this.db.exec(`CREATE INDEX temp.georefresh_stage_key ON georefresh_stage (${keys.join(", ")})`);
    const match = keys.map((k) => `t.${k} = s.${k}`).join(" AND ");
    // An UPDATE, then an INSERT, not one UPSERT: under an UPSERT SQLite ignores the OR REPLACE of the R-tree
    // triggers (GeoPackage 1.3 annex F.3), and the index update fails.
    const set = [...names.filter((n) => !keys.includes(n)), "geom", "content_digest"]
      .map((n) => `${n} = s.${n}`)
      .join(", ");
    const updated = this.db
      .prepare(
        `UPDATE ${this.t} AS t SET ${set}, valid_from = ?, artifact_key = ?, artifact_sha256 = ?, sink_run = ?,
           retired_at = NULL, retired_by = NULL
           FROM temp.georefresh_stage AS s
          WHERE t.region = ? AND ${match} AND (t.content_digest IS NOT s.content_digest OR t.retired_at IS NOT NULL)`,
      )
      .run(...provenance, p.region).changes;
    const inserted = this.db
      .prepare(
        `INSERT INTO ${this.t} (${all.join(", ")})
         SELECT ?, ${names.map((n) => `s.${n}`).join(", ")}, s.geom, s.content_digest, ?, ?, ?, ? FROM temp.georefresh_stage AS s
          WHERE NOT EXISTS (SELECT 1 FROM ${this.t} AS t WHERE t.region = ? AND ${match})`,
      )
      .run(p.region, ...provenance, p.region).changes;
    const retired = delta
      ? this.retireKeys(keys, p, delta.removed)
      : this.db
          .prepare(
            `UPDATE ${this.t} AS t SET retired_at = ?, retired_by = ?
          WHERE t.region = ? AND t.retired_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM temp.georefresh_stage s WHERE ${match})`,
          )
          .run(p.date, this.run, p.region).changes;
    this.db.exec(`DROP TABLE temp.georefresh_stage`);
    return {
      inserted,
      updated,
      unchanged: (delta?.total ?? staged) - inserted - updated,
      retired,
      deleted: 0,
    };
  }

  /** A delta's removed keys, retired one statement each (the key index finds them). */
  private retireKeys(keys: string[], p: PartitionMeta, removed: unknown[][]): number {
    const stmt = this.db.prepare(
      `UPDATE ${this.t} SET retired_at = ?, retired_by = ? WHERE region = ? AND retired_at IS NULL AND ${keys.map((k) => `${k} = ?`).join(" AND ")}`,
    );
    let n = 0;
    for (const values of removed) n += stmt.run(p.date, this.run, p.region, ...values.map(bindable)).changes;
    return n;
  }

  async retireRegion(region: string, date: string): Promise<number> {
    return this.db
      .prepare(`UPDATE ${this.t} SET retired_at = ?, retired_by = ? WHERE region = ? AND retired_at IS NULL`)
      .run(date, this.run, region).changes;
  }

  async removePartition(region: string, date: string): Promise<number> {
    return this.db.prepare(`DELETE FROM ${this.t} WHERE region = ? AND valid_from = ?`).run(region, date).changes;
  }

  async record(dataset: string, keyed: boolean, a: AppliedPartition): Promise<void> {
    if (keyed)
      this.db.prepare(`DELETE FROM ${STATE_TABLE} WHERE table_name = ? AND region = ?`).run(this.name, a.region);
    this.db
      .prepare(
        `INSERT INTO ${STATE_TABLE} (table_name, dataset, region, logical_date, sha256, sink_run) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (table_name, region, logical_date) DO UPDATE SET sha256 = excluded.sha256, sink_run = excluded.sink_run`,
      )
      .run(this.name, dataset, a.region, a.date, a.sha256, this.run);
  }

  async forget(keyed: boolean, gone: AppliedPartition): Promise<void> {
    if (keyed)
      this.db.prepare(`DELETE FROM ${STATE_TABLE} WHERE table_name = ? AND region = ?`).run(this.name, gone.region);
    else
      this.db
        .prepare(`DELETE FROM ${STATE_TABLE} WHERE table_name = ? AND region = ? AND logical_date = ?`)
        .run(this.name, gone.region, gone.date);
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
      for (const sql of this.indexes)
        try {
          this.db.exec(sql);
        } catch (error) {
          if ((error as { code?: string }).code !== "SQLITE_CONSTRAINT_UNIQUE") throw error;
          throw new SinkRefusedError(
            `${this.t}: duplicate key across the load (${(error as Error).message}); nothing was applied`,
          );
        }
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
      .prepare(`SELECT max(max(valid_from), coalesce(max(retired_at), '')) AS d FROM ${this.t}`)
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
