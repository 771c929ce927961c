/** The sink conformance suite (conformance.ts) on GeoPackage files, through better-sqlite3 as any reader would. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { quoteName } from "../../src/sinks/sql-names.js";
import { describeSinkConformance } from "./conformance.js";

describeSinkConformance("geopackage", () => {
  const dir = mkdtempSync(join(tmpdir(), "georefresh-gpkg-conformance-"));
  return {
    target: (name) => join(dir, `${name}.gpkg`),
    async rows(file, table) {
      if (!existsSync(file)) return [];
      // Read-write, as any SQLite reader must be to roll back a killed writer's hot journal.
      const db = new Database(file);
      try {
        const t = quoteName(table);
        if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table)) return [];
        // SQLite has no xmin: a trigger (installed on first look, so it counts every later sink's writes) counts
        // each row's UPDATEs; with its rowid that is its write version.
        const log = quoteName(`${table}_test_updates`);
        db.exec(`CREATE TABLE IF NOT EXISTS ${log} (fid INTEGER)`);
        db.exec(
          `CREATE TRIGGER IF NOT EXISTS ${quoteName(`${table}_test_touch`)} AFTER UPDATE ON ${t} BEGIN INSERT INTO ${log} VALUES (new.fid); END`,
        );
        const rows = db
          .prepare(
            `SELECT t.fid || ':' || (SELECT count(*) FROM ${log} u WHERE u.fid = t.fid) AS version, region, parcel_id,
                    zoning, owner, hex(geom) AS geom, valid_from, content_digest, artifact_key, artifact_sha256,
                    sink_run, retired_at, retired_by
               FROM ${t} AS t ORDER BY region, parcel_id, valid_from`,
          )
          .all() as Record<string, unknown>[];
        return rows.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])),
        ) as Record<string, string | null>[];
      } finally {
        db.close();
      }
    },
    async inTransaction(file, child) {
      // A writing transaction has a rollback journal beside the file (journal_mode = DELETE).
      while (!existsSync(`${file}-journal`) && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
