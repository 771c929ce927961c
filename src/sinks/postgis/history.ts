import type pg from "pg";
import { sridOf } from "../sink-table.js";
import { quoteIdent } from "../sql-names.js";
import type { SinkTableSpec } from "./table.js";
import { sqlTypeOf } from "./types.js";

/**
 * The optional history of a keyed table (config `"sink": { "history": true }`; docs/sinks.md): one row per
 * (region, key, valid_from) for every state the sink applied (a value, or its retirement), so "what was this parcel
 * on date X" is one query. Written in the sink's transaction from the rows it just changed.
 */

/** The history table's name beside its table's. */
export const historyName = (table: string) => `${table}_history`;

export function historyStatement(spec: SinkTableSpec): string {
  const schema = quoteIdent(spec.schema, "schema");
  const table = `${schema}.${quoteIdent(historyName(spec.table), "history table name")}`;
  const data = spec.columns.filter((c) => c.name !== "geometry" && c.name !== "bbox");
  const key = spec.key.map((k) => quoteIdent(k, "key column"));
  return `CREATE TABLE IF NOT EXISTS ${table} (
  region text NOT NULL,
  ${data.map((c) => `${quoteIdent(c.name, "column")} ${sqlTypeOf(c.type, c.name)}${spec.key.includes(c.name) ? " NOT NULL" : ""}`).join(",\n  ")},
  geom geometry(${spec.hasZ ? "GeometryZ" : "Geometry"}, ${sridOf(spec.crs)}),
  valid_from date NOT NULL,
  retired boolean NOT NULL,
  content_digest text NOT NULL,
  artifact_key text NOT NULL,
  artifact_sha256 text NOT NULL,
  sink_run text NOT NULL,
  PRIMARY KEY (region, ${key.join(", ")}, valid_from)
)`;
}

/**
 * Records what the run just did to a region on `date`: the rows it inserted or updated (their new values) and the
 * keys it retired (their last values, `retired` true). A re-run of the same date replaces its rows.
 */
export async function recordHistory(
  client: pg.Client,
  target: { table: string; history: string; key: string[]; columns: string[]; run: string },
  region: string,
  date: string,
): Promise<number> {
  const cols = target.columns.map((c) => quoteIdent(c, "column"));
  const keys = target.key.map((k) => quoteIdent(k, "key column"));
  const set = [
    ...cols.filter((c) => !keys.includes(c)),
    "geom",
    "retired",
    "content_digest",
    "artifact_key",
    "artifact_sha256",
    "sink_run",
  ]
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(", ");
  const res = await client.query(
    `INSERT INTO ${target.history} (region, ${cols.join(", ")}, geom, valid_from, retired, content_digest, artifact_key, artifact_sha256, sink_run)
     SELECT region, ${cols.join(", ")}, geom, $2::date, retired_at IS NOT NULL, content_digest, artifact_key, artifact_sha256,
            CASE WHEN retired_at IS NOT NULL THEN retired_by ELSE sink_run END
       FROM ${target.table}
      WHERE region = $1
        AND ((retired_at IS NULL AND valid_from = $2::date AND sink_run = $3) OR (retired_at = $2::date AND retired_by = $3))
     ON CONFLICT (region, ${keys.join(", ")}, valid_from) DO UPDATE SET ${set}`,
    [region, date, target.run],
  );
  return res.rowCount ?? 0;
}
