import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { BinaryCopyWriter } from "./pg-copy-binary.js";
import type { CopyType } from "./pg-copy-binary.js";
import { quoteIdent, SinkSchemaError } from "./sql-names.js";

/** One partition's rows to apply to a keyed table: the data's columns in order, then geom and content_digest. */
export interface PartitionRows {
  region: string;
  /** The logical date: valid_from of what it carries, and retired_at of what it retires. */
  date: string;
  artifactKey: string;
  sha256: string;
  /** Whether the payload is the whole partition (keys it lacks are retired) or a delta (nothing retired). */
  complete: boolean;
  rows: unknown[][];
}

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
}

/**
 * One keyed partition applied in the caller's transaction (the seed's design): its rows are COPYed into a staging
 * table that the transaction drops, duplicate keys refused before they reach ON CONFLICT, then one guarded upsert:
 * a row whose content digest is unchanged is not touched at all (its xmin and provenance stay), a changed one is
 * updated, a new one inserted, a retired one that comes back un-retired. A complete payload retires the keys it
 * lacks (retired_at = the logical date, never deleted); a partial one retires nothing.
 */
export async function applyKeyedPartition(client: pg.Client, t: ApplyTarget, p: PartitionRows): Promise<ApplyCounts> {
  const stage = quoteIdent(`georefresh_stage_${process.pid}`, "staging table");
  const names = t.columns.map((c) => quoteIdent(c.name, "column"));
  const keys = t.key.map((k) => quoteIdent(k, "key column"));
  await client.query(`CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${names.join(", ")}, geom, content_digest
    FROM ${t.table} WITH NO DATA`);
  const writer = new BinaryCopyWriter([...t.columns.map((c) => c.copy), "geometry", "text"], t.srid);
  for (const row of p.rows) writer.row(row);
  const body = Buffer.concat([writer.take(), Buffer.from([0xff, 0xff])]);
  await pipeline(Readable.from([body]), client.query(copyFrom(`COPY ${stage} FROM STDIN (FORMAT binary)`)));
  const dup = await client.query(
    `SELECT ${keys.join(", ")}, count(*)::int AS n FROM ${stage} GROUP BY ${keys.join(", ")} HAVING count(*) > 1 LIMIT 3`,
  );
  if (dup.rows.length)
    throw new SinkSchemaError(
      `${p.region} ${p.date}: duplicate keys in the partition (${dup.rows.map((r) => JSON.stringify(t.key.map((k) => r[k]))).join(", ")}); nothing was applied`,
    );
  const set = [...names.filter((n) => !keys.includes(n)), "geom", "content_digest"]
    .map((n) => `${n} = EXCLUDED.${n}`)
    .join(", ");
  const upsert = await client.query(
    `INSERT INTO ${t.table} AS t (region, ${names.join(", ")}, geom, content_digest, valid_from, artifact_key, artifact_sha256, sink_run)
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
  let retired = 0;
  if (p.complete) {
    const gone = await client.query(
      `UPDATE ${t.table} AS t SET retired_at = $2::date, retired_by = $3
        WHERE t.region = $1 AND t.retired_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM ${stage} s WHERE ${keys.map((k) => `s.${k} = t.${k}`).join(" AND ")})`,
      [p.region, p.date, t.run],
    );
    retired = gone.rowCount ?? 0;
  }
  await client.query(`DROP TABLE ${stage}`);
  return { inserted, updated, unchanged: p.rows.length - inserted - updated, retired };
}
