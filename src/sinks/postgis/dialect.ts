import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { SinkRefusedError } from "../errors.js";
import type { AppliedPartition } from "../plan.js";
import { foreignTable, sridOf } from "../sink-table.js";
import type { BulkLoad, RowBatches, SinkDialect, SinkHistory, SinkTableShape } from "../sink.js";
import { quoteIdent } from "../sql-names.js";
import { columnsToAdd } from "../table-columns.js";
import { BinaryCopyWriter } from "./copy-binary.js";
import type { CopyType } from "./copy-binary.js";
import { encodeBatch } from "./copy-columns.js";
import { historyName, historyStatement, recordHistory } from "./history.js";
import { tableParts } from "./table.js";
import type { SinkTableSpec } from "./table.js";
import { copyTypeOf, sqlTypeOf } from "./types.js";

/** Rows encoded per COPY chunk: the server ingests one while the next is encoded. */
const SLICE_ROWS = 8192;

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

const codeOf = (error: unknown) => (error as { code?: string }).code;

/** PostgreSQL's own spelling (format_type) of the SQL types sqlTypeOf gives. */
const SPELLED: Record<string, string> = {
  timestamptz: "timestamp with time zone",
  timestamp: "timestamp without time zone",
  "numeric(20)": "numeric(20,0)",
};

/**
 * PostgreSQL with PostGIS as the loader's dialect (loader.ts): `$n` parameters, `CAST(… AS date)`,
 * `IS DISTINCT FROM`, binary COPY straight from the artifact's Arrow buffers, a typed temporary stage, and the
 * table's columns tracked in its comment (a person's ALTER TABLE is noticed, not undone).
 */
export class PostgisDialect implements SinkDialect {
  readonly table: string;
  /** The indexes of a table this transaction made, built after its rows (finish). */
  private indexes: string[] | undefined;
  /** The columns of that table the loader finds rows by (finish gives the planner their statistics). */
  private lookup: string[] = [];
  /** The history table, when the sink keeps one. */
  private historyTable: string | undefined;
  private stages = 0;

  constructor(
    private readonly client: pg.Client,
    private readonly schema: string,
    readonly name: string,
    readonly state: string,
  ) {
    this.table = `${quoteIdent(schema, "schema")}.${quoteIdent(name, "table name")}`;
  }

  get created(): boolean {
    return this.indexes !== undefined;
  }

  quote(name: string, what: string): string {
    return quoteIdent(name, what);
  }

  param(n: number): string {
    return `$${n}`;
  }

  date(expr: string): string {
    return `CAST(${expr} AS date)`;
  }

  distinct(a: string, b: string): string {
    return `${a} IS DISTINCT FROM ${b}`;
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return (await this.client.query(sql, params as unknown[])).rowCount ?? 0;
  }

  async rows(sql: string, params: readonly unknown[]): Promise<unknown[][]> {
    return (await this.client.query({ text: sql, values: params as unknown[], rowMode: "array" })).rows as unknown[][];
  }

  uniqueViolation(error: unknown): string | undefined {
    if (codeOf(error) !== "23505") return undefined;
    return ((error as { detail?: string }).detail ?? "").replace(/^Key /, "");
  }

  /**
   * Streams the batches into `COPY … FROM STDIN (FORMAT binary)`, encoded one batch at a time (memory stays one
   * row group), each row between its constants.
   */
  async load(shape: SinkTableShape, into: BulkLoad, batches: RowBatches): Promise<void> {
    const constant = (c: { type: "text" | "date" }): CopyType => c.type;
    const types: CopyType[] = [
      ...into.before.map(constant),
      ...shape.columns.map((c) => copyTypeOf(c.type, c.name)),
      "geometry",
      "text",
      ...into.after.map(constant),
    ];
    const writer = new BinaryCopyWriter(types, sridOf(shape.crs));
    const before = into.before.map((c) => c.value);
    const after = into.after.map((c) => c.value);
    async function* chunks(): AsyncGenerator<Buffer> {
      for await (const batch of batches)
        for (const _ of encodeBatch(writer, batch, types, before, after, SLICE_ROWS)) {
          const out = writer.take();
          yield Buffer.from(out.buffer, out.byteOffset, out.byteLength);
        }
      yield Buffer.from([0xff, 0xff]);
    }
    const sql = `COPY ${into.table} (${into.columns.join(", ")}) FROM STDIN (FORMAT binary)`;
    await pipeline(Readable.from(chunks()), this.client.query(copyFrom(sql)));
  }

  async createStage(shape: SinkTableShape): Promise<string> {
    const stage = quoteIdent(`georefresh_stage_${process.pid}_${this.stages++}`, "staging table");
    const names = shape.columns.map((c) => quoteIdent(c.name, "column"));
    await this.client
      .query(`CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${names.join(", ")}, geom, content_digest
    FROM ${this.table} WITH NO DATA`);
    return stage;
  }

  async indexStage(stage: string, keys: string[]): Promise<void> {
    await this.client.query(`CREATE INDEX ON ${stage} (${keys.join(", ")})`);
    // Statistics for the joins: without them the planner guesses a handful of rows and may nest loops.
    await this.client.query(`ANALYZE ${stage}`);
  }

  async applied(): Promise<AppliedPartition[]> {
    const res = await this.client.query(
      `SELECT region, logical_date::text AS date, sha256 FROM ${this.state}
        WHERE table_name = $1 AND to_regclass($2) IS NOT NULL ORDER BY region, logical_date`,
      [this.name, this.table],
    );
    return res.rows as AppliedPartition[];
  }

  async prepare(shape: SinkTableShape, keepHistory: boolean): Promise<void> {
    const existing = await this.client.query(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      [this.table],
    );
    if (existing.rows.length === 0) {
      const { create, indexes, lookup } = tableParts(this.spec(shape));
      for (const sql of create) await this.client.query(sql);
      this.indexes = indexes;
      this.lookup = lookup;
      await this.remember();
      await this.prepareHistory(shape, keepHistory);
      return;
    }
    const types = new Map(existing.rows.map((r) => [r.name as string, r.type as string]));
    const foreign = foreignTable(this.where(), new Set(types.keys()));
    if (foreign) throw foreign;
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
    if (shape.key.length && !this.created) {
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
    await this.prepareHistory(shape, keepHistory);
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
  private async prepareHistory(shape: SinkTableShape, keepHistory: boolean): Promise<void> {
    if (!keepHistory || !shape.key.length) return; // the loader refuses a history without a key
    await this.client.query(historyStatement(this.spec(shape)));
    this.historyTable = `${quoteIdent(this.schema, "schema")}.${quoteIdent(historyName(this.name), "history table name")}`;
  }

  private where(): string {
    return `table ${this.table}`;
  }

  private spec(shape: SinkTableShape): SinkTableSpec {
    const { key, columns, crs, hasZ } = shape;
    return { schema: this.schema, table: this.name, key, columns, crs, hasZ };
  }

  readonly history: SinkHistory = {
    record: async (shape, region, date, run) => {
      if (!this.historyTable) return;
      const columns = shape.columns.map((c) => c.name);
      await recordHistory(
        this.client,
        { table: this.table, history: this.historyTable, key: shape.key, columns, run },
        region,
        date,
      );
    },
    retired: (region, date, run) => this.recordRetirement(region, date, run),
  };

  async finish(): Promise<void> {
    if (!this.indexes) return;
    // Index builds sort in memory when they can (the default 64 MB spills a million rows to disk).
    await this.client.query(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const sql of this.indexes) await this.client.query(sql); // a duplicate key: the loader says so
    // Statistics of the columns the next sink's joins look rows up by, from a small sample: without them the
    // planner guesses a region holds 0.5 % of the table and hashes the whole region for a few changed keys. A
    // column list leaves the table's count of changes since analysis as it is, so autovacuum still analyses the
    // whole table (the geometry's statistics: most of a full ANALYZE's time) after the commit, as after ogr2ogr.
    await this.client.query(`SET LOCAL default_statistics_target = 10`); // finish is the transaction's last step
    await this.client.query(`ANALYZE ${this.table} (${this.lookup.join(", ")})`);
    this.indexes = undefined;
  }

  /** A retired region's keys into the history table, its columns and key read from the table itself. */
  private async recordRetirement(region: string, date: string, run: string): Promise<void> {
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
        run,
      },
      region,
      date,
    );
  }
}
