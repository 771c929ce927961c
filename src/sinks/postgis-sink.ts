import pg from "pg";
import type { Delta } from "./delta.js";
import { SinkConnectError, SinkRefusedError, SinkSchemaError } from "./errors.js";
import type { AppliedPartition } from "./plan.js";
import { applyKeyedPartition, replacePartition } from "./postgis-apply.js";
import type { ApplyTarget } from "./postgis-apply.js";
import { historyName, historyStatement, recordHistory } from "./postgis-history.js";
import { sridOf, STATE_TABLE, stateStatement, tableParts } from "./postgis-table.js";
import type { SinkTableSpec } from "./postgis-table.js";
import type {
  ApplyCounts,
  PartitionMeta,
  RowBatches,
  SinkKind,
  SinkSession,
  SinkTableShape,
  SinkTransaction,
} from "./sink.js";
import { copyTypeOf, quoteIdent, sqlTypeOf } from "./sql-names.js";
import { columnsToAdd } from "./table-columns.js";

/** The table comment's prefix before the JSON list of the columns georefresh made. */
const MADE = "georefresh: columns made by sinks ";

/** The list a comment holds; a comment someone edited into something else holds none (it is written anew). */
function madeColumns(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A PostgreSQL database with PostGIS: `postgresql://user@host:port/db?schema=name` (libpq's form; what it leaves
 * out comes from the PG* variables, as psql does). The password is never part of a message.
 */
export const postgisSink: SinkKind = {
  name: "postgis",
  async open(to) {
    const { connectionString, schema, where } = parsePostgresUrl(to);
    const client = new pg.Client({ connectionString, application_name: "georefresh sink" });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new SinkConnectError(`cannot connect to ${where}: ${connectProblem(error)}`);
    }
    const session = new PostgisSession(client, schema, where);
    // A connection lost mid-run rejects the query in flight; the session remembers it (to say so), and the
    // process does not crash on it.
    client.on("error", (error: Error) => (session.lost ??= error));
    return session;
  },
};

/**
 * What a failed connection means, in the user's terms: node-pg's own text for a missing password is about SASL
 * internals ("client password must be a string"), and a refused one says only "authentication failed".
 */
function connectProblem(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const check = "Check the URL and the PG* variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE)";
  if (/client password must be a string|SASL: SCRAM-SERVER-FIRST-MESSAGE/i.test(message))
    return "the server asks for a password and none was given: set PGPASSWORD, or put it in ~/.pgpass (libpq's password file)";
  if (codeOf(error) === "28P01")
    return "the server refused the password for this user: check PGPASSWORD (or ~/.pgpass, or the URL's password)";
  if (codeOf(error) === "28000")
    return `the server refused this user or host (${message}); check PGUSER and the server's pg_hba.conf`;
  if (codeOf(error) === "3D000") return `${message}; check the database in the URL (or PGDATABASE)`;
  return `${message}. ${check}`;
}

/** The URL pg connects with (without `schema`), the schema, and the URL as messages show it (no password). */
export function parsePostgresUrl(to: string): { connectionString: string; schema: string; where: string } {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new SinkConnectError(
      `--to is not a PostgreSQL URL: write postgresql://user@host:port/database?schema=name (the password from PGPASSWORD or ~/.pgpass)`,
    );
  }
  const schema = url.searchParams.get("schema") ?? "public";
  url.searchParams.delete("schema");
  // PostgreSQL's own schemas (pg_catalog, pg_toast, information_schema): never a place for a dataset.
  if (/^pg_/i.test(schema) || schema.toLowerCase() === "information_schema")
    throw new SinkConnectError(
      `--to names the schema ${JSON.stringify(schema)}, which is PostgreSQL's own: give a schema of yours (?schema=name)`,
    );
  const connectionString = url.toString();
  const shown = new URL(connectionString);
  if (shown.password) shown.password = "";
  shown.searchParams.delete("password");
  if (schema !== "public") shown.searchParams.set("schema", schema);
  return { connectionString, schema, where: shown.toString() };
}

const ERR = { undefinedTable: "42P01", uniqueViolation: "23505", duplicateTable: "42P07", duplicateSchema: "42P06" };
const codeOf = (error: unknown) => (error as { code?: string }).code;

class PostgisSession implements SinkSession {
  private readonly state: string;
  /** The error that ended the connection, once it has ended. */
  lost: Error | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly schema: string,
    readonly where: string,
  ) {
    this.state = `${quoteIdent(schema, "schema")}.${STATE_TABLE}`;
  }

  private qualified(table: string): string {
    return `${quoteIdent(this.schema, "schema")}.${quoteIdent(table, "table name")}`;
  }

  async applied(table: string): Promise<AppliedPartition[]> {
    try {
      // The table itself must be there too: one a user dropped holds nothing, whatever the state says.
      const res = await this.client.query(
        `SELECT region, logical_date::text AS date, sha256 FROM ${this.state}
          WHERE table_name = $1 AND to_regclass($2) IS NOT NULL ORDER BY region, logical_date`,
        [table, this.qualified(table)],
      );
      return res.rows as AppliedPartition[];
    } catch (error) {
      if (codeOf(error) === ERR.undefinedTable) return [];
      throw this.lostOr(error, "nothing was changed yet");
    }
  }

  async transaction<T>(table: string, work: (tx: SinkTransaction) => Promise<T>): Promise<T> {
    try {
      await this.ensureShared();
      await this.client.query("BEGIN");
    } catch (error) {
      throw this.lostOr(error, "nothing of this run was committed yet");
    }
    let result: T;
    try {
      // Serialises sinks of this table (released at COMMIT or ROLLBACK, or when a killed sink's connection drops).
      await this.client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `georefresh sink ${this.schema}.${table}`,
      ]);
      const tx = new PostgisTransaction(this.client, this.schema, table, this.state);
      result = await work(tx);
      await tx.finish();
    } catch (error) {
      await this.client.query("ROLLBACK").catch(() => undefined);
      throw this.lostOr(error, "nothing of this run was committed (the server rolls back a transaction it loses)");
    }
    try {
      await this.client.query("COMMIT");
    } catch (error) {
      throw this.lostOr(error, "the COMMIT was sent, so it may or may not have taken");
    }
    return result;
  }

  /** A lost connection said as one (exit 3, what happened to the transaction), any other error as it is. */
  private lostOr(error: unknown, outcome: string): unknown {
    const code = codeOf(error);
    const gone =
      this.lost !== undefined ||
      (typeof code === "string" && code.startsWith("57P")) || // admin shutdown, crash shutdown, cannot connect now
      /Connection terminated|not queryable|ECONNRESET|EPIPE/.test(String((error as Error)?.message));
    if (!gone) return error;
    const reason = (this.lost ?? (error as Error)).message;
    return new SinkConnectError(
      `the connection to ${this.where} was lost during the sink's transaction (${reason}); ${outcome}; run the sink again: it applies what is not applied yet`,
    );
  }

  /** The schema and the state table, made in their own transaction: two sinks making them at once both succeed. */
  private async ensureShared(): Promise<void> {
    for (const sql of [`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema, "schema")}`, stateStatement(this.schema)])
      try {
        await this.client.query(sql);
      } catch (error) {
        const code = codeOf(error);
        if (code !== ERR.uniqueViolation && code !== ERR.duplicateTable && code !== ERR.duplicateSchema) throw error;
      }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** PostgreSQL's own spelling (format_type) of the SQL types sqlTypeOf gives. */
const SPELLED: Record<string, string> = {
  timestamptz: "timestamp with time zone",
  timestamp: "timestamp without time zone",
  "numeric(20)": "numeric(20,0)",
};

class PostgisTransaction implements SinkTransaction {
  private readonly table: string;
  run = "";
  keepHistory = false;
  /** The indexes of a table this transaction made, built after its rows (finish). */
  private created: string[] | undefined;
  /** The history table, when the sink keeps one. */
  private history: string | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly schema: string,
    private readonly name: string,
    private readonly state: string,
  ) {
    this.table = `${quoteIdent(schema, "schema")}.${quoteIdent(name, "table name")}`;
  }

  async applied(): Promise<AppliedPartition[]> {
    const res = await this.client.query(
      `SELECT region, logical_date::text AS date, sha256 FROM ${this.state}
        WHERE table_name = $1 AND to_regclass($2) IS NOT NULL ORDER BY region, logical_date`,
      [this.name, this.table],
    );
    return res.rows as AppliedPartition[];
  }

  async prepare(shape: SinkTableShape): Promise<void> {
    const existing = await this.client.query(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      [this.table],
    );
    if (existing.rows.length === 0) {
      const { create, indexes } = tableParts(this.spec(shape));
      for (const sql of create) await this.client.query(sql);
      this.created = indexes;
      await this.remember();
      await this.prepareHistory(shape);
      return;
    }
    const types = new Map(existing.rows.map((r) => [r.name as string, r.type as string]));
    // The columns earlier sinks made, as they left them: one gone since was dropped or renamed by someone, and
    // re-adding it would leave its unchanged rows NULL while the artifacts have values.
    const comment = (await this.client.query(`SELECT obj_description(to_regclass($1), 'pg_class') AS c`, [this.table]))
      .rows[0]?.c as string | null;
    const made = comment?.startsWith(MADE) ? madeColumns(comment.slice(MADE.length)) : undefined;
    const gone = Array.isArray(made) ? made.filter((c): c is string => typeof c === "string" && !types.has(c)) : [];
    if (gone.length)
      throw new SinkRefusedError(
        `${this.where()}: ${gone.length === 1 ? "column" : "columns"} ${gone.map((c) => JSON.stringify(c)).join(", ")}, which an earlier sink made, ${gone.length === 1 ? "is" : "are"} gone from the table (dropped or renamed since, with ALTER TABLE); put ${gone.length === 1 ? "it" : "them"} back as ${gone.length === 1 ? "it was" : "they were"}, or sink into a new table (--table)`,
      );
    const geom = `geometry(${shape.hasZ ? "GeometryZ" : "Geometry"},${sridOf(shape.crs)})`;
    if (types.get("geom") !== geom)
      throw new SinkRefusedError(
        `${this.where()}: its geometry column is ${types.get("geom") ?? "missing"}, but ${shape.dataset}'s artifacts need ${geom} (the storage CRS or Z changed): sink into a new table (config "sink": { "table": … })`,
      );
    const spelled = (arrowType: string, column: string) => {
      const sql = sqlTypeOf(arrowType, column);
      return SPELLED[sql] ?? sql;
    };
    if (shape.key.length && this.created === undefined) {
      // ON CONFLICT needs the unique (region, key) index a first sink made; a person may have dropped it. (A table
      // this run made gets its indexes after the load.)
      const unique = await this.client.query(
        `SELECT 1 FROM pg_index i
          WHERE i.indrelid = to_regclass($1) AND i.indisunique
            AND (SELECT array_agg(a.attname::text ORDER BY k.ord)
                   FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) = $2::text[]`,
        [this.table, ["region", ...shape.key]],
      );
      const keyColumns = ["region", ...shape.key].map((c) => quoteIdent(c, "column")).join(", ");
      if (unique.rows.length === 0)
        throw new SinkRefusedError(
          `${this.where()} has no unique index on (${keyColumns}), which an earlier sink made and every update relies on (dropped since?); put it back (CREATE UNIQUE INDEX ON ${this.table} (${keyColumns})), or sink into a new table (--table)`,
        );
    }
    const added = columnsToAdd(shape, types, spelled, this.where());
    for (const c of added)
      await this.client.query(`ALTER TABLE ${this.table} ADD COLUMN ${quoteIdent(c.name, "column")} ${c.type}`);
    if (added.length || !Array.isArray(made)) await this.remember();
    await this.prepareHistory(shape);
  }

  /** Records the table's columns as this sink leaves them, in the table's comment (a person's ALTER moves them). */
  private async remember(): Promise<void> {
    const columns = (
      await this.client.query(
        `SELECT a.attname AS name FROM pg_attribute a
          WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
        [this.table],
      )
    ).rows.map((r) => r.name as string);
    // COMMENT takes a literal, not a parameter: the JSON is quoted as a string literal.
    const text = `${MADE}${JSON.stringify(columns)}`.replaceAll("'", "''");
    await this.client.query(`COMMENT ON TABLE ${this.table} IS '${text}'`);
  }

  /** The history table, made when asked for and missing (it takes the data's columns as they are now). */
  private async prepareHistory(shape: SinkTableShape): Promise<void> {
    if (!this.keepHistory) return;
    if (!shape.key.length)
      throw new SinkSchemaError(
        `${shape.dataset} has no key: a history table needs one (a dataset without a key already holds every partition)`,
      );
    await this.client.query(historyStatement(this.spec(shape)));
    this.history = `${quoteIdent(this.schema, "schema")}.${quoteIdent(historyName(this.name), "history table name")}`;
  }

  private where(): string {
    return `table ${this.table}`;
  }

  private spec(shape: SinkTableShape): SinkTableSpec {
    const { key, columns, crs, hasZ } = shape;
    return { schema: this.schema, table: this.name, key, columns, crs, hasZ };
  }

  async apply(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches, delta?: Delta): Promise<ApplyCounts> {
    const target: ApplyTarget = {
      table: this.table,
      srid: sridOf(shape.crs),
      key: shape.key,
      columns: shape.columns.map((c) => ({ name: c.name, copy: copyTypeOf(c.type, c.name) })),
      run: this.run,
    };
    // A table made by this transaction holds no region yet, and has no index to keep while it fills.
    if (!shape.key.length)
      return replacePartition(this.client, target, p, batches, { fresh: this.created !== undefined });
    const counts = await applyKeyedPartition(this.client, target, p, batches, {
      fresh: this.created !== undefined,
      delta,
    });
    if (this.history) await this.recordHistory(shape, p.region, p.date);
    return counts;
  }

  private async recordHistory(shape: SinkTableShape, region: string, date: string): Promise<void> {
    await recordHistory(
      this.client,
      {
        table: this.table,
        history: this.history as string,
        key: shape.key,
        columns: shape.columns.map((c) => c.name),
        run: this.run,
      },
      region,
      date,
    );
  }

  async finish(): Promise<void> {
    if (!this.created) return;
    // Index builds sort in memory when they can (the default 64 MB spills a million rows to disk).
    await this.client.query(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const sql of this.created)
      try {
        await this.client.query(sql);
      } catch (error) {
        if (codeOf(error) !== ERR.uniqueViolation) throw error;
        throw new SinkRefusedError(
          `${this.table}: duplicate key across the load (${((error as { detail?: string }).detail ?? "").replace(/^Key /, "")}); nothing was applied`,
        );
      }
    await this.client.query(`ANALYZE ${this.table}`);
    this.created = undefined;
  }

  async retireRegion(region: string, date: string): Promise<number> {
    const res = await this.client.query(
      `UPDATE ${this.table} SET retired_at = $2::date, retired_by = $3 WHERE region = $1 AND retired_at IS NULL`,
      [region, date, this.run],
    );
    if (this.keepHistory) await this.recordRetirement(region, date);
    return res.rowCount ?? 0;
  }

  /** A retired region's keys into the history table, its columns and key read from the table itself. */
  private async recordRetirement(region: string, date: string): Promise<void> {
    const history = `${quoteIdent(this.schema, "schema")}.${quoteIdent(historyName(this.name), "history table name")}`;
    const fixed = [
      "region",
      "geom",
      "valid_from",
      "retired",
      "content_digest",
      "artifact_key",
      "artifact_sha256",
      "sink_run",
    ];
    const cols = await this.client.query(
      `SELECT a.attname AS name, a.attnum = ANY(i.indkey) AS key
         FROM pg_attribute a JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      [history],
    );
    if (cols.rows.length === 0) return; // no history kept yet: nothing it could record against
    const data = cols.rows.filter((r) => !fixed.includes(r.name));
    await recordHistory(
      this.client,
      {
        table: this.table,
        history,
        key: data.filter((r) => r.key).map((r) => r.name),
        columns: data.map((r) => r.name),
        run: this.run,
      },
      region,
      date,
    );
  }

  async removePartition(region: string, date: string): Promise<number> {
    const res = await this.client.query(`DELETE FROM ${this.table} WHERE region = $1 AND valid_from = $2::date`, [
      region,
      date,
    ]);
    return res.rowCount ?? 0;
  }

  async record(dataset: string, keyed: boolean, a: AppliedPartition): Promise<void> {
    if (keyed)
      await this.client.query(`DELETE FROM ${this.state} WHERE table_name = $1 AND region = $2`, [this.name, a.region]);
    await this.client.query(
      `INSERT INTO ${this.state} (table_name, dataset, region, logical_date, sha256, sink_run)
       VALUES ($1, $2, $3, $4::date, $5, $6)
       ON CONFLICT (table_name, region, logical_date) DO UPDATE SET sha256 = EXCLUDED.sha256, sink_run = EXCLUDED.sink_run`,
      [this.name, dataset, a.region, a.date, a.sha256, this.run],
    );
  }

  async forget(keyed: boolean, gone: AppliedPartition): Promise<void> {
    if (keyed)
      await this.client.query(`DELETE FROM ${this.state} WHERE table_name = $1 AND region = $2`, [
        this.name,
        gone.region,
      ]);
    else
      await this.client.query(
        `DELETE FROM ${this.state} WHERE table_name = $1 AND region = $2 AND logical_date = $3::date`,
        [this.name, gone.region, gone.date],
      );
  }
}
