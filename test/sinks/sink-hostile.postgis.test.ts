/**
 * Sinks under a careless or hostile hand, against the real server and real files: a feed's column names that are
 * SQL reach both databases as names; a PostgreSQL that goes away mid-transaction leaves the table as it was and
 * says so (exit 75: run again); a person's ALTER TABLE between two sinks (a column dropped or renamed, the unique index
 * dropped) is refused with what changed; PostgreSQL's own schemas are refused; a GeoPackage path that is a
 * symlink, a directory, a device or a pipe is refused and left as it was; no password is printed, --json included.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { quoteIdent } from "../../src/sinks/sql-names.js";
import { runCli, runCliHere, spawnCli } from "../helpers/cli.js";
import { pgSchemas } from "../helpers/pg-schemas.js";
import { parcelsProject } from "../helpers/parcels-project.js";
import { dateTwo, parcels } from "../helpers/parcels-task.js";

const [D1, D2] = ["2026-03-01", "2026-03-02"];
const N = 8000;
const url = () => inject("postgres") as string;
const HOSTILE = 'a"; DROP TABLE sentinel; --';

describe("sinks under a hostile hand", () => {
  let dir: string;
  let config: string;
  let client: pg.Client;
  const { schema, to, dropAll } = pgSchemas();
  const sink = (s: string, ...extra: string[]) => ["sink", "parcels", "--config", config, "--to", to(s), ...extra];
  const content = async (s: string, table = "parcels") =>
    (
      await client.query(
        `SELECT region, parcel_id, zoning, owner, encode(ST_AsEWKB(geom), 'hex') AS geom, valid_from::text, content_digest,
                retired_at::text FROM ${quoteIdent(s)}.${quoteIdent(table)} ORDER BY region, parcel_id`,
      )
    ).rows;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sink-hostile-"));
    const project = await parcelsProject(dir);
    config = project.config;
    for (const region of ["weld", "larimer"]) await project.promote(region, D1, parcels(N));
    client = new pg.Client({ connectionString: url() });
    await client.connect();
    await client.query("CREATE TABLE IF NOT EXISTS sentinel (id int)");
    // A feed whose column names are SQL, for both databases.
    mkdirSync(join(dir, "feeds"), { recursive: true });
    writeFileSync(
      join(dir, "feeds", "weld.geojson"),
      JSON.stringify({
        type: "FeatureCollection",
        features: [1, 2].map((id) => ({
          type: "Feature",
          properties: { id, [HOSTILE]: `v${id}`, "Zoning Code": "R", "x'); DROP TABLE sentinel; --": 1 },
          geometry: { type: "Point", coordinates: [-104.8, 40.4] },
        })),
      }),
    );
    const hostileConfig = join(dir, "hostile.config.json");
    writeFileSync(
      hostileConfig,
      JSON.stringify({
        store: "./data",
        datasets: {
          hostile: { source: { url: "./feeds/{region}.geojson", key: "id" }, regions: ["weld"], cadence: "monthly" },
        },
      }),
    );
    const r = await runCliHere([
      "backfill",
      "--config",
      hostileConfig,
      "--dataset",
      "hostile",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await dropAll(client);
    await client.query("DROP TABLE IF EXISTS sentinel");
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a feed's column names that are SQL are names in PostGIS and in a GeoPackage, never statements", async () => {
    const s = schema("hostile");
    const hostileConfig = join(dir, "hostile.config.json");
    const pgRun = await runCliHere(["sink", "hostile", "--config", hostileConfig, "--to", to(s)]);
    expect(pgRun.code, pgRun.stderr).toBe(0);
    const rows = (
      await client.query(`SELECT id, ${quoteIdent(HOSTILE)} AS v FROM ${quoteIdent(s)}.hostile ORDER BY id`)
    ).rows;
    expect(rows).toEqual([
      { id: 1, v: "v1" },
      { id: 2, v: "v2" },
    ]);
    const gpkg = join(dir, "hostile.gpkg");
    const gpRun = await runCliHere(["sink", "hostile", "--config", hostileConfig, "--to", gpkg]);
    expect(gpRun.code, gpRun.stderr).toBe(0);
    const db = new Database(gpkg, { readonly: true });
    const names = (db.prepare("PRAGMA table_info(hostile)").all() as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining([HOSTILE, "Zoning Code", "x'); DROP TABLE sentinel; --"]));
    expect(db.prepare(`SELECT count(*) AS n FROM hostile`).get()).toEqual({ n: 2 });
    db.close();
    expect((await client.query("SELECT to_regclass('sentinel') IS NOT NULL AS e")).rows[0].e).toBe(true);
  }, 60_000);

  it("a PostgreSQL that goes away mid-transaction leaves the table as it was: exit 75, and the re-run completes", async () => {
    const s = schema("away");
    const first = await runCli(sink(s));
    expect(first.code, first.stderr).toBe(0);
    expect(await content(s)).toHaveLength(2 * N);
    // Each trial a new date on which every weld row changes owner: a long writing transaction, cut off by the
    // server once it has written (it has an xid). A trial whose sink finished first leaves its date applied.
    const project = await parcelsProject(dir);
    let terminated = 0;
    for (let trial = 0; trial < 6 && terminated < 2; trial++) {
      const date = `2026-03-${String(trial + 2).padStart(2, "0")}`;
      await project.promote(
        "weld",
        date,
        parcels(N).map((p) => ({ ...p, owner: `owner on ${date}` })),
      );
      const before = await content(s);
      const child = spawnCli(sink(s));
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => child.on("exit", r));
      for (;;) {
        // This sink's backend only (its statements name its schema): other files' sinks run beside it.
        const busy = await client.query(
          `SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity
            WHERE application_name = 'georefresh sink' AND backend_xid IS NOT NULL AND position($1 in query) > 0`,
          [quoteIdent(s)],
        );
        if (busy.rows.some((r: { t: boolean }) => r.t) || child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      const code = await exited;
      if (code === 0) continue; // it finished first: nothing to cut
      terminated++;
      expect(code, err).toBe(75);
      expect(err).toMatch(
        /the connection to postgresql:\/\/\*\*\*@.* was lost during the sink.s transaction \(.*\); nothing of this run was committed .*; run the sink again/,
      );
      expect(await content(s)).toEqual(before);
    }
    expect(terminated).toBeGreaterThan(0);
    const rerun = await runCli(sink(s));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/\d+ partitions? applied/);
  }, 180_000);

  it("a person's ALTER TABLE between two sinks is refused with what changed, the table left as it was", async () => {
    const cases: [string, (t: string) => string, RegExp][] = [
      [
        "dropped",
        (t) => `ALTER TABLE ${t} DROP COLUMN owner`,
        /column "owner", which an earlier sink made, is gone from the table \(dropped or renamed since/,
      ],
      [
        "renamed",
        (t) => `ALTER TABLE ${t} RENAME COLUMN zoning TO zone`,
        /column "zoning", which an earlier sink made, is gone/,
      ],
      [
        "retyped",
        (t) => `ALTER TABLE ${t} ALTER COLUMN zoning TYPE integer USING 0`,
        /column "zoning" is integer, but the artifact's Utf8 needs text/,
      ],
      [
        "unindexed",
        (t) =>
          `DO $$ DECLARE i text; BEGIN SELECT indexrelid::regclass::text INTO i FROM pg_index WHERE indrelid = '${t.replaceAll("'", "''")}'::regclass AND indisunique; EXECUTE 'DROP INDEX ' || i; END $$`,
        /has no unique index on \("region", "parcel_id"\), which an earlier sink made/,
      ],
    ];
    for (const [name, alter, message] of cases) {
      // A project of its own: a first date sunk, the table altered, a second date promoted and sunk.
      const own = join(dir, `alter-${name}`);
      mkdirSync(own);
      const project = await parcelsProject(own);
      await project.promote("weld", D1, parcels(200));
      const s = schema(`alter_${name}`);
      const args = ["sink", "parcels", "--config", project.config, "--to", to(s)];
      const first = await runCli(args);
      expect(first.code, first.stderr).toBe(0);
      const table = `${quoteIdent(s)}.parcels`;
      await client.query(alter(table));
      const count = (await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
      await project.promote("weld", D2, dateTwo(parcels(200)));
      const r = await runCli(args);
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(message);
      expect((await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(count);
      expect(
        (await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE valid_from = $1`, [D2])).rows[0].n,
      ).toBe(0);
    }
  }, 240_000);

  it("PostgreSQL's own schemas are refused; no password is printed, --json and error paths included", async () => {
    for (const own of ["pg_catalog", "information_schema", "PG_toast"]) {
      const r = await runCliHere(
        sink(own)
          .map((a) => a.replace("://georefresh@", "://georefresh:hunter2@"))
          .concat("--json"),
      );
      expect(r.code).toBe(2); // the command's mistake: no database was asked
      expect(JSON.parse(r.stdout).error.message).toContain(
        `the schema ${JSON.stringify(own)}, which is PostgreSQL's own`,
      );
      expect(r.stdout + r.stderr).not.toContain("hunter2");
    }
    for (const [bad, exit, code] of [
      ["postgresql://u:hunter2@127.0.0.1:notaport/db", 2, "SinkTarget"],
      ["postgresql://u:hunter2@[::1/db", 2, "SinkTarget"],
      ["postgres://u:hunter2@127.0.0.1:1/db?schema=x", 75, "SinkUnavailable"],
    ] as const) {
      const r = await runCliHere(["sink", "parcels", "--config", config, "--to", bad, "--json"], {
        PGPASSWORD: "sekrit2",
      });
      expect(r.code, bad).toBe(exit);
      expect(JSON.parse(r.stdout).error.code).toBe(code);
      expect(r.stdout + r.stderr).not.toMatch(/hunter2|sekrit2/);
    }
  }, 60_000);

  it("a GeoPackage path that is a symlink, a directory, a device or a pipe is refused and left as it was", async () => {
    const real = join(dir, "real.gpkg");
    const first = await runCli(["sink", "parcels", "--config", config, "--to", real]);
    expect(first.code, first.stderr).toBe(0);
    const bytes = readFileSync(real);
    symlinkSync(real, join(dir, "link.gpkg"));
    symlinkSync("/dev/null", join(dir, "null.gpkg"));
    mkdirSync(join(dir, "dir.gpkg"));
    execFileSync("mkfifo", [join(dir, "pipe.gpkg")]);
    for (const [name, what] of [
      ["link.gpkg", /link\.gpkg is a symbolic link \(to .*real\.gpkg\): refusing to write through it/],
      ["null.gpkg", /null\.gpkg is a symbolic link \(to \/dev\/null\)/],
      ["dir.gpkg", /dir\.gpkg is not a file \(a directory\)/],
      ["pipe.gpkg", /pipe\.gpkg is not a file \(a pipe\)/],
    ] as const) {
      const r = await runCli(["sink", "parcels", "--config", config, "--to", join(dir, name)]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(what);
    }
    expect(readFileSync(real).equals(bytes)).toBe(true);
  }, 60_000);

  it("a --to that names no place a sink can go is exit 2 before any database is asked, and the process ends", async () => {
    for (const [schema, what] of [
      ["", /the schema "", which PostgreSQL cannot take as it is: give a name of 1 to 63 bytes/],
      ["s".repeat(70), /the schema "s{70}" \(70 bytes\), which PostgreSQL cannot take/],
      ["pg_temp", /the schema "pg_temp", which is PostgreSQL's own/],
    ] as const) {
      // A process of its own: one that kept its connection open after refusing would never end (the test's timeout).
      const r = await runCli(["sink", "parcels", "--config", config, "--to", `${url()}?schema=${schema}`]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(what);
    }
    const sqlite = await runCli(["sink", "parcels", "--config", config, "--to", join(dir, "x.sqlite")]);
    expect(sqlite.code).toBe(2);
  }, 60_000);

  it("a same-named table another program made is refused, saying so, and left as it was", async () => {
    const s = schema("foreign");
    await client.query(`CREATE SCHEMA ${quoteIdent(s)}`);
    await client.query(`CREATE TABLE ${quoteIdent(s)}.parcels (gid serial PRIMARY KEY, name text)`);
    await client.query(`INSERT INTO ${quoteIdent(s)}.parcels (name) VALUES ('theirs')`);
    const pgRun = await runCliHere(sink(s));
    expect(pgRun.code, pgRun.stderr).toBe(1);
    expect(pgRun.stderr).toMatch(
      /table "foreign_\d+"\."parcels" exists but is not a georefresh sink table \(it has no region, valid_from, artifact_key, artifact_sha256, sink_run: another program made it\); nothing was changed: sink into another table \(--table NAME/,
    );
    const after = await client.query(`SELECT * FROM ${quoteIdent(s)}.parcels`);
    expect(after.rows).toEqual([{ gid: 1, name: "theirs" }]);
    const into = await runCliHere([...sink(s), "--table", "parcels_sink"]);
    expect(into.code, into.stderr).toBe(0);

    // The same in a GeoPackage GDAL made, with a layer of that name.
    const feed = join(dir, "theirs.geojson");
    writeFileSync(
      feed,
      JSON.stringify({
        type: "FeatureCollection",
        features: [
          { type: "Feature", properties: { name: "theirs" }, geometry: { type: "Point", coordinates: [1, 2] } },
        ],
      }),
    );
    const gpkg = join(dir, "theirs.gpkg");
    execFileSync("ogr2ogr", ["-f", "GPKG", gpkg, feed, "-nln", "parcels"]);
    const before = readFileSync(gpkg);
    const gpkgRun = await runCliHere(["sink", "parcels", "--config", config, "--to", gpkg]);
    expect(gpkgRun.code, gpkgRun.stderr).toBe(1);
    expect(gpkgRun.stderr).toMatch(/table "parcels" exists but is not a georefresh sink table/);
    expect(readFileSync(gpkg).equals(before)).toBe(true);
  }, 120_000);
});
