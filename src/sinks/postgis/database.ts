import pg from "pg";
import { SinkConnectError, SinkTargetError, SinkUnavailableError } from "../errors.js";
import type { AppliedPartition } from "../plan.js";
import { STATE_TABLE } from "../sink-table.js";
import type { SinkDatabase, SinkDialect, SinkKind } from "../sink.js";
import { MAX_IDENTIFIER_BYTES, quoteIdent } from "../sql-names.js";
import { PostgisDialect } from "./dialect.js";
import { stateStatement } from "./table.js";

/**
 * A PostgreSQL database with PostGIS: `postgresql://user@host:port/db?schema=name` (libpq's form; what it leaves
 * out comes from the PG* variables, as psql does). The password is never part of a message.
 */
export const postgisSink: SinkKind = {
  name: "postgis",
  capabilities: { history: true, deltas: true, concurrentWriters: true },
  async open(to, hooks) {
    const { connectionString, schema, where } = parsePostgresUrl(to);
    const client = new pg.Client({ connectionString, application_name: "georefresh sink" });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      // A server that is down, restarting or full is the weather, not the setup: run again (exit 75).
      if (TRANSIENT.has(codeOf(error) ?? ""))
        throw new SinkUnavailableError(
          `cannot connect to ${where}: ${(error as Error).message}; the database is down, starting up or out of connections: nothing was changed, run again once it answers`,
        );
      throw new SinkConnectError(`cannot connect to ${where}: ${connectProblem(error)}`);
    }
    const session = new PostgisSession(client, schema, where, hooks?.onWait);
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
    throw new SinkTargetError(
      `--to is not a PostgreSQL URL: write postgresql://user@host:port/database?schema=name (the password from PGPASSWORD or ~/.pgpass)`,
    );
  }
  const schema = url.searchParams.get("schema") ?? "public";
  url.searchParams.delete("schema");
  // Checked before connecting: a name PostgreSQL would cut or cannot take is the command's mistake.
  const bytes = new TextEncoder().encode(schema).length;
  if (bytes === 0 || bytes > MAX_IDENTIFIER_BYTES || schema.includes("\0"))
    throw new SinkTargetError(
      `--to names the schema ${JSON.stringify(schema.slice(0, 80))}${bytes ? ` (${bytes} bytes)` : ""}, which PostgreSQL cannot take as it is: give a name of 1 to ${MAX_IDENTIFIER_BYTES} bytes (?schema=name), or leave ?schema= out for public`,
    );
  // PostgreSQL's own schemas (pg_catalog, pg_toast, pg_temp, information_schema): never a place for a dataset.
  if (/^pg_/i.test(schema) || schema.toLowerCase() === "information_schema")
    throw new SinkTargetError(
      `--to names the schema ${JSON.stringify(schema)}, which is PostgreSQL's own: give a schema of yours (?schema=name)`,
    );
  const connectionString = url.toString();
  const shown = new URL(connectionString);
  if (shown.password) shown.password = "";
  shown.searchParams.delete("password");
  if (schema !== "public") shown.searchParams.set("schema", schema);
  return { connectionString, schema, where: shown.toString() };
}

/**
 * Connection failures that pass: refused or unreachable (down, restarting), a server still starting or shutting
 * down (57P03, 57P01), out of connections (53300).
 */
const TRANSIENT = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);

const ERR = { undefinedTable: "42P01", uniqueViolation: "23505", duplicateTable: "42P07", duplicateSchema: "42P06" };
const codeOf = (error: unknown) => (error as { code?: string }).code;

class PostgisSession implements SinkDatabase {
  private readonly state: string;
  /** The error that ended the connection, once it has ended. */
  lost: Error | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly schema: string,
    readonly where: string,
    private readonly onWait?: (why: string) => void,
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

  async transaction<T>(table: string, work: (db: SinkDialect) => Promise<T>): Promise<T> {
    try {
      await this.ensureShared();
      await this.client.query("BEGIN");
    } catch (error) {
      throw this.lostOr(error, "nothing of this run was committed yet");
    }
    let result: T;
    try {
      // Serialises sinks of this table (released at COMMIT or ROLLBACK, or when a killed sink's connection drops).
      // Tried first, so that a sink that has to wait for another says so instead of hanging silently.
      const lock = [`georefresh sink ${this.schema}.${table}`];
      const free = await this.client.query(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok`, lock);
      if (!(free.rows[0] as { ok: boolean }).ok) {
        this.onWait?.(
          `another sink of ${this.schema}.${table} in ${this.where} is at work; waiting for it to commit (this one then applies only what is left)`,
        );
        await this.client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, lock);
      }
      result = await work(new PostgisDialect(this.client, this.schema, table, this.state));
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

  /** A lost connection said as one (exit 75: a restarting database is retried, and what happened to the transaction), any other error as it is. */
  private lostOr(error: unknown, outcome: string): unknown {
    const code = codeOf(error);
    const gone =
      this.lost !== undefined ||
      (typeof code === "string" && code.startsWith("57P")) || // admin shutdown, crash shutdown, cannot connect now
      /Connection terminated|not queryable|ECONNRESET|EPIPE/.test(String((error as Error)?.message));
    if (!gone) return error;
    const reason = (this.lost ?? (error as Error)).message;
    return new SinkUnavailableError(
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
