import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { setTimeout as sleep } from "node:timers/promises";
import { SinkBusyError, SinkConnectError } from "../errors.js";
import type { AppliedPartition } from "../plan.js";
import type { SinkDatabase, SinkDialect, SinkKind } from "../sink.js";
import { GeopackageDialect, readState } from "./dialect.js";
import { gpkgEnvelope } from "./geometry.js";
import { GPKG_APPLICATION_ID, GPKG_USER_VERSION, gpkgSystemStatements, stateTableStatements } from "./schema.js";

/**
 * A GeoPackage file (OGC GeoPackage 1.3): the embedded sink, no server. The same semantics as PostGIS in one
 * SQLite transaction (BEGIN IMMEDIATE: a second sink waits for the first, then finds its work done), with the
 * R-tree spatial index kept by the standard triggers, whose ST_* functions this connection provides.
 */
export const geopackageSink: SinkKind = {
  name: "geopackage",
  // No history table yet; two sinks of one file take turns (BEGIN IMMEDIATE).
  capabilities: { history: false, deltas: true, concurrentWriters: true },
  async open(to, hooks) {
    const path = resolve(to);
    checkFile(path);
    return new GeopackageSession(path, hooks?.onWait);
  },
};

/**
 * How long a sink waits for another connection to let go of the file (another sink's whole transaction): ten
 * minutes, or GEOREFRESH_SINK_WAIT_SECONDS.
 */
const waitMs = () => Number(process.env.GEOREFRESH_SINK_WAIT_SECONDS) * 1000 || 600_000;
/** Each try at a lock blocks this thread this long: between tries, the waiting notice is written and signals run. */
const TRY_MS = 500;

/**
 * Runs BEGIN IMMEDIATE or COMMIT, which wait for other connections: another sink's transaction, or a reader's
 * open one (QGIS while it edits, a sqlite3 shell) that COMMIT must outlast in a rollback journal. Says once that
 * it waits, and gives up after waitMs() with the transaction rolled back (SQLite keeps it open after a busy COMMIT).
 */
async function whenFree(db: Database.Database, sql: string, path: string, onWait?: (why: string) => void) {
  const wait = waitMs();
  const deadline = Date.now() + wait;
  const minutes = wait >= 60_000 ? `${wait / 60_000} minutes` : `${wait / 1000} seconds`;
  db.pragma(`busy_timeout = ${TRY_MS}`);
  try {
    for (let said = false; ;) {
      try {
        db.exec(sql);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
        if (Date.now() >= deadline)
          throw new SinkBusyError(
            `the GeoPackage ${path} is still locked by another program after ${minutes} (another sink, or an open transaction: a sqlite3 shell, an editor that holds it); nothing was changed: close it, then run the sink again`,
          );
        if (!said) {
          said = true;
          onWait?.(
            `${path} is locked by another program (another sink, or an open transaction: a sqlite3 shell, an editor that holds it); waiting up to ${minutes} for it to let go`,
          );
        }
        await sleep(0);
      }
    }
  } finally {
    db.pragma(`busy_timeout = ${wait}`);
  }
}

/** The file, opened (and made, when missing) only for a transaction: a dry run or a no-op leaves no new file. */
function openFile(path: string): Database.Database {
  let db: Database.Database;
  try {
    // `--to out/parcels.gpkg` makes out/ too, as the help says; only here, so a dry run or a no-op makes nothing.
    mkdirSync(dirname(path), { recursive: true });
    // Inside the transaction SQLite waits as long as the whole sink may; taking and committing it wait in whenFree.
    db = new Database(path, { timeout: waitMs() });
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

class GeopackageSession implements SinkDatabase {
  private db: Database.Database | undefined;

  constructor(
    readonly where: string,
    private readonly onWait?: (why: string) => void,
  ) {}

  async applied(table: string): Promise<AppliedPartition[]> {
    if (!this.db && !existsSync(this.where)) return [];
    this.db ??= openFile(this.where);
    return readState(this.db, table);
  }

  async transaction<T>(table: string, work: (db: SinkDialect) => Promise<T>): Promise<T> {
    const db = (this.db ??= openFile(this.where));
    await whenFree(db, "BEGIN IMMEDIATE", this.where, this.onWait);
    try {
      db.pragma(`application_id = ${GPKG_APPLICATION_ID}`);
      db.pragma(`user_version = ${GPKG_USER_VERSION}`);
      for (const sql of gpkgSystemStatements()) db.exec(sql);
      const stateColumns = (
        db.prepare(`SELECT name FROM pragma_table_info('georefresh_sink_state')`).all() as {
          name: string;
        }[]
      ).map((c) => c.name);
      for (const sql of stateTableStatements(stateColumns)) db.exec(sql);
      const result = await work(new GeopackageDialect(db, table));
      await whenFree(db, "COMMIT", this.where, this.onWait);
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
