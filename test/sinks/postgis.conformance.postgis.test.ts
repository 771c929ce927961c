/** The sink conformance suite (conformance.ts) on the real PostgreSQL + PostGIS (scripts/postgres.sh). */
import pg from "pg";
import { inject } from "vitest";
import { quoteIdent } from "../../src/sinks/sql-names.js";
import { pgSchemas } from "../helpers/pg-schemas.js";
import { describeSinkConformance } from "./conformance.js";

describeSinkConformance("postgis", () => {
  const schemas = pgSchemas();
  const client = new pg.Client({ connectionString: inject("postgres") as string });
  const connected = client.connect();
  const schemaOf = (to: string) => new URL(to).searchParams.get("schema") as string;
  return {
    target: (name) => schemas.to(schemas.schema(`conf_${name}`)),
    async rows(to, table) {
      await connected;
      const t = `${quoteIdent(schemaOf(to))}.${quoteIdent(table)}`;
      if (!(await client.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [t])).rows[0].e) return [];
      // Every column as text, the row's xmin as its write version.
      const res = await client.query(
        `SELECT xmin::text AS version, region, parcel_id, zoning, owner, encode(ST_AsEWKB(geom), 'hex') AS geom,
                valid_from::text, content_digest, artifact_key, artifact_sha256, sink_run, retired_at::text, retired_by
           FROM ${t} ORDER BY region, parcel_id, valid_from`,
      );
      return res.rows.map((r) => ({ ...r, zoning: r.zoning === null ? null : String(r.zoning) }));
    },
    async inTransaction(to, child) {
      await connected;
      const s = quoteIdent(schemaOf(to));
      for (;;) {
        const busy = await client.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'georefresh sink' AND xact_start IS NOT NULL AND position($1 in query) > 0`,
          [s],
        );
        if (busy.rows.length || child.exitCode !== null) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async cleanup() {
      await connected;
      await schemas.dropAll(client);
      await client.end();
    },
  };
});
