import type { Delta } from "./delta.js";
import { SinkRefusedError, SinkSchemaError } from "./errors.js";
import type { PartitionBatch } from "./partition-rows.js";
import type { AppliedPartition } from "./plan.js";
import { timed } from "../stage-times.js";
import { PROVENANCE } from "./sink-table.js";
import type {
  ApplyCounts,
  LoadConstant,
  PartitionMeta,
  RowBatches,
  SinkCapabilities,
  SinkDialect,
  SinkTableShape,
} from "./sink.js";

/** Removed keys retired per statement (a tuple list; well inside SQLite's and PostgreSQL's parameter limits). */
const RETIRE_CHUNK = 500;

/**
 * What a sink does to a table, written once for every database (docs/sinks.md); each database fills in a few
 * primitives (SinkDialect). Runs inside the database's locked transaction: nothing is visible before its commit.
 *
 * - A keyed partition whose region the table does not hold yet is bulk-loaded straight in (the unique index,
 *   built after the load, refuses a duplicate key).
 * - Otherwise its rows are loaded into a stage, duplicate keys refused, then one digest-guarded UPDATE (a row
 *   whose content digest is unchanged is not touched at all; a retired one that comes back is un-retired) and one
 *   INSERT of the keys the table lacks. Keys the partition lacks are retired (retired_at = its logical date),
 *   never deleted; with a delta only the changelog's rows are staged and only its removed keys retired.
 * - A partition of a dataset without a key is replaced: its previous rows deleted, the new ones loaded.
 * - Every load is counted against the partition's manifest: a short read never reaches the table.
 */
export class Loader {
  constructor(
    private readonly db: SinkDialect,
    private readonly capabilities: SinkCapabilities,
    /** The run's name, written into what it changes (provenance). */
    private readonly run: string,
    /** Keyed tables: also keep the history table of every state applied. */
    private readonly keepHistory: boolean,
    /** For the stage times (GEOREFRESH_STAGE_TIMES). */
    private readonly dataset = "",
  ) {}

  async prepare(shape: SinkTableShape): Promise<void> {
    if (this.keepHistory && !this.capabilities.history)
      throw new SinkSchemaError(
        `a history table is kept in PostGIS only for now: sink ${shape.dataset} into PostgreSQL for its history, or turn "history" off for the GeoPackage`,
      );
    await this.db.prepare(shape, this.keepHistory);
    if (this.keepHistory && !shape.key.length)
      throw new SinkSchemaError(
        `${shape.dataset} has no key: a history table needs one (a dataset without a key already holds every partition)`,
      );
  }

  /** Whether a delta may stand in for comparing every row (the kind applies changelogs). */
  get deltas(): boolean {
    return this.capabilities.deltas;
  }

  async apply(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches, delta?: Delta): Promise<ApplyCounts> {
    if (!shape.key.length) return this.replace(shape, p, batches);
    const counts = await this.upsert(shape, p, batches, delta);
    if (this.keepHistory) await this.db.history?.record(shape, p.region, p.date, this.run);
    return counts;
  }

  private async upsert(
    shape: SinkTableShape,
    p: PartitionMeta,
    batches: RowBatches,
    delta?: Delta,
  ): Promise<ApplyCounts> {
    const db = this.db;
    const names = shape.columns.map((c) => db.quote(c.name, "column"));
    const keys = shape.key.map((k) => db.quote(k, "key column"));
    // A delta is against rows the table holds; otherwise a region with no rows yet is loaded straight in.
    const fresh =
      !delta &&
      (db.created ||
        (await db.rows(`SELECT 1 FROM ${db.table} WHERE region = ${db.param(1)} LIMIT 1`, [p.region])).length === 0);
    if (fresh) {
      const inserted = await this.loadTarget(shape, p, batches);
      return { inserted, updated: 0, unchanged: 0, retired: 0, deleted: 0 };
    }
    const stage = await db.createStage(shape);
    const staged = await this.counted(p, (rows) =>
      db.load(shape, { table: stage, columns: [...names, "geom", "content_digest"], before: [], after: [] }, rows),
    )(batches);
    const dup = await timed("sink: stage indexed, duplicates checked", { dataset: this.dataset, ...p }, async () => {
      await db.indexStage(stage, keys);
      return db.rows(
        `SELECT ${keys.join(", ")} FROM ${stage} GROUP BY ${keys.join(", ")} HAVING count(*) > 1 LIMIT 3`,
        [],
      );
    });
    if (dup.length)
      throw new SinkRefusedError(
        `${p.region} ${p.date}: duplicate keys in the partition (${dup.map((k) => JSON.stringify(k)).join(", ")}); nothing was applied`,
      );
    return timed("sink: update, insert, retire", { dataset: this.dataset, ...p }, () =>
      this.merge(shape, p, { stage, staged, names, keys }, delta),
    );
  }

  /** The stage into the table: the digest-guarded update, the new keys, the retirements. */
  private async merge(
    shape: SinkTableShape,
    p: PartitionMeta,
    { stage, staged, names, keys }: { stage: string; staged: number; names: string[]; keys: string[] },
    delta?: Delta,
  ): Promise<ApplyCounts> {
    const db = this.db;
    const match = keys.map((k) => `t.${k} = s.${k}`).join(" AND ");
    const set = [...names.filter((n) => !keys.includes(n)), "geom", "content_digest"]
      .map((n) => `${n} = s.${n}`)
      .join(", ");
    const [region, date, artifact, sha, run] = [1, 2, 3, 4, 5].map((n) => db.param(n)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const provenance = [p.region, p.date, p.artifactKey, p.sha256, this.run];
    // An UPDATE then an INSERT, not an upsert: SQLite ignores the R-tree triggers' OR REPLACE under an upsert
    // (GeoPackage 1.3 annex F.3), and both run under the table's lock, so no other writer comes between them.
    const updated = await db.run(
      `UPDATE ${db.table} AS t SET ${set}, valid_from = ${db.date(date)}, artifact_key = ${artifact},
         artifact_sha256 = ${sha}, sink_run = ${run}, retired_at = NULL, retired_by = NULL
         FROM ${stage} AS s
        WHERE t.region = ${region} AND ${match}
          AND (${db.distinct("t.content_digest", "s.content_digest")} OR t.retired_at IS NOT NULL)`,
      provenance,
    );
    const inserted = await db.run(
      `INSERT INTO ${db.table} (region, ${names.join(", ")}, geom, content_digest, ${PROVENANCE.join(", ")})
       SELECT ${region}, ${names.map((n) => `s.${n}`).join(", ")}, s.geom, s.content_digest, ${db.date(date)}, ${artifact}, ${sha}, ${run}
         FROM ${stage} AS s
        WHERE NOT EXISTS (SELECT 1 FROM ${db.table} AS t WHERE t.region = ${region} AND ${match})`,
      provenance,
    );
    const retired = delta
      ? await this.retireKeys(shape, p, delta.removed)
      : await db.run(
          `UPDATE ${db.table} AS t SET retired_at = ${db.date(db.param(2))}, retired_by = ${db.param(3)}
            WHERE t.region = ${db.param(1)} AND t.retired_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM ${stage} AS s WHERE ${match})`,
          [p.region, p.date, this.run],
        );
    await db.run(`DROP TABLE ${stage}`, []);
    // A delta stages only the changed rows; the partition's other rows are unchanged by its changelog's word.
    const total = delta?.total ?? staged;
    return { inserted, updated, unchanged: total - inserted - updated, retired, deleted: 0 };
  }

  /**
   * A partition of a dataset without a key, replaced: its previous rows deleted and the new ones loaded. Readers
   * see the old rows or the new, never none; the table itself is never dropped or renamed, so views and grants on
   * it survive.
   */
  private async replace(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches): Promise<ApplyCounts> {
    const db = this.db;
    // A table this transaction made holds no earlier version of any partition (and has no index yet).
    const deleted = db.created
      ? 0
      : await db.run(`DELETE FROM ${db.table} WHERE region = ${db.param(1)} AND valid_from = ${db.date(db.param(2))}`, [
          p.region,
          p.date,
        ]);
    const inserted = await this.loadTarget(shape, p, batches);
    return { inserted, updated: 0, unchanged: 0, retired: 0, deleted };
  }

  /** The partition's rows straight into the table, with its region and provenance; a duplicate key refused. */
  private async loadTarget(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches): Promise<number> {
    const db = this.db;
    const text = (value: unknown): LoadConstant => ({ value, type: "text" });
    const into = {
      table: db.table,
      columns: [
        "region",
        ...shape.columns.map((c) => db.quote(c.name, "column")),
        "geom",
        "content_digest",
        ...PROVENANCE,
      ],
      before: [text(p.region)],
      after: [{ value: p.date, type: "date" } as const, text(p.artifactKey), text(p.sha256), text(this.run)],
    };
    try {
      return await this.counted(p, (rows) => db.load(shape, into, rows))(batches);
    } catch (error) {
      const detail = db.uniqueViolation(error);
      if (detail === undefined) throw error;
      throw new SinkRefusedError(
        `${p.region} ${p.date}: duplicate key in the partition (${detail}); nothing was applied`,
      );
    }
  }

  /** Runs a load over the batches, then checks the rows it took against the partition's recorded count. */
  private counted(p: PartitionMeta, load: (rows: RowBatches) => Promise<void>) {
    return async (batches: RowBatches): Promise<number> => {
      let sent = 0;
      async function* counting(): AsyncGenerator<PartitionBatch> {
        for await (const batch of batches) {
          sent += batch.length;
          yield batch;
        }
      }
      await timed("sink: read, digest, bulk load", { dataset: this.dataset, ...p }, () => load(counting()));
      if (sent !== p.rows)
        throw new SinkRefusedError(
          `${p.region} ${p.date}: ${sent} rows read from ${p.artifactKey}, but its manifest records ${p.rows}; nothing was applied`,
        );
      return sent;
    };
  }

  /** Retires the given keys of a region (a delta's removals), a few hundred per statement. */
  private async retireKeys(shape: SinkTableShape, p: PartitionMeta, removed: unknown[][]): Promise<number> {
    const db = this.db;
    const keys = shape.key.map((k) => db.quote(k, "key column"));
    let n = 0;
    for (let i = 0; i < removed.length; i += RETIRE_CHUNK) {
      const params: unknown[] = [p.region, p.date, this.run];
      const tuples = removed
        .slice(i, i + RETIRE_CHUNK)
        .map((values) => `(${values.map((v) => db.param(params.push(v))).join(", ")})`);
      n += await db.run(
        `UPDATE ${db.table} SET retired_at = ${db.date(db.param(2))}, retired_by = ${db.param(3)}
          WHERE region = ${db.param(1)} AND retired_at IS NULL AND (${keys.join(", ")}) IN (${tuples.join(", ")})`,
        params,
      );
    }
    return n;
  }

  /** Keyed: every live row of a region the view no longer has, retired as of `date`. */
  async retireRegion(region: string, date: string): Promise<number> {
    const db = this.db;
    const n = await db.run(
      `UPDATE ${db.table} SET retired_at = ${db.date(db.param(2))}, retired_by = ${db.param(3)}
        WHERE region = ${db.param(1)} AND retired_at IS NULL`,
      [region, date, this.run],
    );
    if (this.keepHistory) await db.history?.retired(region, date, this.run);
    return n;
  }

  /** Without a key: a partition the view no longer has, its rows deleted. */
  async removePartition(region: string, date: string): Promise<number> {
    const db = this.db;
    return db.run(`DELETE FROM ${db.table} WHERE region = ${db.param(1)} AND valid_from = ${db.date(db.param(2))}`, [
      region,
      date,
    ]);
  }

  /** The state table: keyed tables keep one row per region (the date applied), others one per partition. */
  async record(dataset: string, keyed: boolean, a: AppliedPartition): Promise<void> {
    const db = this.db;
    const $ = (n: number) => db.param(n);
    if (keyed)
      await db.run(`DELETE FROM ${db.state} WHERE table_name = ${$(1)} AND region = ${$(2)}`, [db.name, a.region]);
    await db.run(
      `INSERT INTO ${db.state} (table_name, dataset, region, logical_date, sha256, sink_run)
       VALUES (${$(1)}, ${$(2)}, ${$(3)}, ${db.date($(4))}, ${$(5)}, ${$(6)})
       ON CONFLICT (table_name, region, logical_date) DO UPDATE SET sha256 = excluded.sha256, sink_run = excluded.sink_run`,
      [db.name, dataset, a.region, a.date, a.sha256, this.run],
    );
  }

  /** Drops a region's (keyed) or a partition's state rows. */
  async forget(keyed: boolean, gone: AppliedPartition): Promise<void> {
    const db = this.db;
    const $ = (n: number) => db.param(n);
    if (keyed)
      await db.run(`DELETE FROM ${db.state} WHERE table_name = ${$(1)} AND region = ${$(2)}`, [db.name, gone.region]);
    else
      await db.run(
        `DELETE FROM ${db.state} WHERE table_name = ${$(1)} AND region = ${$(2)} AND logical_date = ${db.date($(3))}`,
        [db.name, gone.region, gone.date],
      );
  }

  /** Last, before the commit: indexes built after a first load refuse a duplicate key across the whole load. */
  async finish(): Promise<void> {
    try {
      await timed("sink: indexes, finish", { dataset: this.dataset, region: "*", date: "*" }, () => this.db.finish());
    } catch (error) {
      const detail = this.db.uniqueViolation(error);
      if (detail === undefined) throw error;
      throw new SinkRefusedError(`${this.db.table}: duplicate key across the load (${detail}); nothing was applied`);
    }
  }
}
