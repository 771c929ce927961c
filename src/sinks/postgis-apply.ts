import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { writeBatch } from "./copy-columns.js";
import type { Delta } from "./delta.js";
import type { PartitionBatch } from "./partition-rows.js";
import { BinaryCopyWriter } from "./pg-copy-binary.js";
import type { CopyType } from "./pg-copy-binary.js";
import { SinkRefusedError } from "./errors.js";
import { quoteIdent } from "./sql-names.js";

/** Where a partition's rows came from: provenance for every row it writes, and the count its manifest records. */
export interface PartitionMeta {
  region: string;
  /** The logical date: valid_from of what it carries, and retired_at of what it retires. */
  date: string;
  artifactKey: string;
  sha256: string;
  /** Rows the view records for the artifact: the staged count must equal it. */
  rows: number;
}

/** The partition's row groups, their columns in ApplyTarget order. */
export type RowBatches = AsyncIterable<PartitionBatch>;

export interface ApplyTarget {
  /** Schema-qualified, quoted table name. */
  table: string;
  srid: number;
  key: string[];
  /** The data's columns (key included) with their COPY types, in the order of each row's values. */
  columns: { name: string; copy: CopyType }[];
  run: string;
}

export interface ApplyCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  retired: number;
  /** Rows of the partition's previous version removed (datasets without a key, replaced per partition). */
  deleted: number;
}

const PROVENANCE = ["valid_from", "artifact_key", "artifact_sha256", "sink_run"];

/**
 * Streams the batches into `COPY … FROM STDIN (FORMAT binary)`, encoded one batch at a time (memory stays one
 * row group), each row prefixed and suffixed with the given constants. Returns the rows sent, checked against
 * the partition's recorded count (the plausibility check: a short read never reaches the table).
 */
async function copyRows(
  client: pg.Client,
  sql: string,
  types: CopyType[],
  srid: number,
  p: PartitionMeta,
  batches: RowBatches,
  around: { before: unknown[]; after: unknown[] },
): Promise<number> {
  const writer = new BinaryCopyWriter(types, srid);
  let sent = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const batch of batches) {
      writeBatch(writer, batch, types, around.before, around.after);
      sent += batch.length;
      const out = writer.take();
      yield Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    }
    yield Buffer.from([0xff, 0xff]);
  }
  await pipeline(Readable.from(chunks()), client.query(copyFrom(sql)));
  if (sent !== p.rows)
    throw new SinkRefusedError(
      `${p.region} ${p.date}: ${sent} rows read from ${p.artifactKey}, but its manifest records ${p.rows}; nothing was applied`,
    );
  return sent;
}

const uniqueViolation = (error: unknown) => (error as { code?: string }).code === "23505";

/**
 * A keyed partition applied in the caller's transaction (the seed's design). A region with no rows in the table
 * yet is COPYed straight in (the unique constraint refuses a duplicate key). Otherwise its rows are COPYed into a
 * staging table the transaction drops, duplicate keys refused before they reach ON CONFLICT, then one guarded
 * upsert: a row whose content digest is unchanged is not touched at all (its xmin and provenance stay), a changed
 * one is updated, a new one inserted, a retired one that comes back un-retired. Keys the partition lacks are
 * retired (retired_at = the logical date), never deleted: an artifact is always the whole partition.
 */
export async function applyKeyedPartition(
  client: pg.Client,
  t: ApplyTarget,
  p: PartitionMeta,
  batches: RowBatches,
  options: { fresh?: boolean; delta?: Delta } = {},
): Promise<ApplyCounts> {
  const names = t.columns.map((c) => quoteIdent(c.name, "column"));
  const keys = t.key.map((k) => quoteIdent(k, "key column"));
  const types: CopyType[] = [...t.columns.map((c) => c.copy), "geometry", "text"];
  // A delta is against rows the table holds; otherwise a region with no rows yet is COPYed straight in.
  const fresh = options.delta
    ? false
    : (options.fresh ??
      ((await client.query(`SELECT NOT EXISTS (SELECT 1 FROM ${t.table} WHERE region = $1) AS fresh`, [p.region]))
        .rows[0].fresh as boolean));
  if (fresh) {
    const columns = ["region", ...names, "geom", "content_digest", ...PROVENANCE].join(", ");
    try {
      const n = await copyRows(
        client,
        `COPY ${t.table} (${columns}) FROM STDIN (FORMAT binary)`,
        ["text", ...types, "date", "text", "text", "text"],
        t.srid,
        p,
        batches,
        { before: [p.region], after: [p.date, p.artifactKey, p.sha256, t.run] },
      );
      return { inserted: n, updated: 0, unchanged: 0, retired: 0, deleted: 0 };
    } catch (error) {
      if (!uniqueViolation(error)) throw error;
      const detail = (error as { detail?: string }).detail ?? "";
      throw new SinkRefusedError(
        `${p.region} ${p.date}: duplicate key in the partition (${detail.replace(/^Key /, "")}); nothing was applied`,
      );
    }
  }
  const stage = quoteIdent(`georefresh_stage_${process.pid}`, "staging table");
  await client.query(`CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${names.join(", ")}, geom, content_digest
    FROM ${t.table} WITH NO DATA`);
  const staged = await copyRows(client, `COPY ${stage} FROM STDIN (FORMAT binary)`, types, t.srid, p, batches, {
    before: [],
    after: [],
  });
  // Statistics for the joins below: without them the planner guesses a handful of rows and may nest loops.
  await client.query(`CREATE INDEX ON ${stage} (${keys.join(", ")})`);
  await client.query(`ANALYZE ${stage}`);
  const dup = await client.query(
    `SELECT ${keys.join(", ")}, count(*)::int AS n FROM ${stage} GROUP BY ${keys.join(", ")} HAVING count(*) > 1 LIMIT 3`,
  );
  if (dup.rows.length)
    throw new SinkRefusedError(
      `${p.region} ${p.date}: duplicate keys in the partition (${dup.rows.map((r) => JSON.stringify(t.key.map((k) => r[k]))).join(", ")}); nothing was applied`,
    );
  const set = [...names.filter((n) => !keys.includes(n)), "geom", "content_digest"]
    .map((n) => `${n} = EXCLUDED.${n}`)
    .join(", ");
  const upsert = await client.query(
    `INSERT INTO ${t.table} AS t (region, ${names.join(", ")}, geom, content_digest, ${PROVENANCE.join(", ")})
     SELECT $1, ${names.join(", ")}, geom, content_digest, $2::date, $3, $4, $5 FROM ${stage}
     ON CONFLICT (region, ${keys.join(", ")}) DO UPDATE SET ${set}, valid_from = EXCLUDED.valid_from,
       artifact_key = EXCLUDED.artifact_key, artifact_sha256 = EXCLUDED.artifact_sha256, sink_run = EXCLUDED.sink_run,
       retired_at = NULL, retired_by = NULL
     WHERE t.content_digest IS DISTINCT FROM EXCLUDED.content_digest OR t.retired_at IS NOT NULL
     RETURNING (xmax = 0) AS inserted`,
    [p.region, p.date, p.artifactKey, p.sha256, t.run],
  );
  const inserted = upsert.rows.filter((r) => r.inserted).length;
  const updated = upsert.rows.length - inserted;
  const retired = options.delta
    ? await retireKeys(client, t, p, options.delta.removed)
    : ((
        await client.query(
          `UPDATE ${t.table} AS t SET retired_at = $2::date, retired_by = $3
            WHERE t.region = $1 AND t.retired_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM ${stage} s WHERE ${keys.map((k) => `s.${k} = t.${k}`).join(" AND ")})`,
          [p.region, p.date, t.run],
        )
      ).rowCount ?? 0);
  await client.query(`DROP TABLE ${stage}`);
  // A delta stages only the changed rows; the partition's other rows are unchanged by its changelog's word.
  const total = options.delta?.total ?? staged;
  return { inserted, updated, unchanged: total - inserted - updated, retired, deleted: 0 };
}

/** Retires the given keys of a region (a delta's removals), a thousand per statement. */
async function retireKeys(client: pg.Client, t: ApplyTarget, p: PartitionMeta, removed: unknown[][]): Promise<number> {
  const keys = t.key.map((k) => quoteIdent(k, "key column"));
  let n = 0;
  for (let i = 0; i < removed.length; i += 1000) {
    const chunk = removed.slice(i, i + 1000);
    const params: unknown[] = [p.region, p.date, t.run];
    const tuples = chunk.map((values) => `(${values.map((v) => `$${params.push(v)}`).join(", ")})`);
    const res = await client.query(
      `UPDATE ${t.table} SET retired_at = $2::date, retired_by = $3
        WHERE region = $1 AND retired_at IS NULL AND (${keys.join(", ")}) IN (${tuples.join(", ")})`,
      params,
    );
    n += res.rowCount ?? 0;
  }
  return n;
}

/**
 * A partition of a dataset without a key, replaced in the caller's transaction: its previous rows deleted and the
 * new ones COPYed in. Readers (MVCC) see the old rows or the new, never none; the table itself is never dropped
 * or renamed, so views and grants on it survive.
 */
export async function replacePartition(
  client: pg.Client,
  t: ApplyTarget,
  p: PartitionMeta,
  batches: RowBatches,
  options: { fresh?: boolean } = {},
): Promise<ApplyCounts> {
  // A table the caller's transaction made holds no earlier version of any partition (and has no index yet).
  const deleted = options.fresh
    ? 0
    : ((await client.query(`DELETE FROM ${t.table} WHERE region = $1 AND valid_from = $2::date`, [p.region, p.date]))
        .rowCount ?? 0);
  const names = t.columns.map((c) => quoteIdent(c.name, "column"));
  const columns = ["region", ...names, "geom", "content_digest", ...PROVENANCE].join(", ");
  const n = await copyRows(
    client,
    `COPY ${t.table} (${columns}) FROM STDIN (FORMAT binary)`,
    ["text", ...t.columns.map((c) => c.copy), "geometry", "text", "date", "text", "text", "text"],
    t.srid,
    p,
    batches,
    { before: [p.region], after: [p.date, p.artifactKey, p.sha256, t.run] },
  );
  return { inserted: n, updated: 0, unchanged: 0, retired: 0, deleted };
}
