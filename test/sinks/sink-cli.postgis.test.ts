/**
 * `georefresh sink` as users run it, in processes of its own against the real server: kill -9 at random moments
 * leaves the previous table or the complete new one, never a part, and the re-run ends where a clean sink ends;
 * two sinks at once write every row once; hostile table and schema names are data, never SQL; a password in the
 * URL is never printed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

describe("georefresh sink in processes", () => {
  let dir: string;
  let config: string;
  let project: Awaited<ReturnType<typeof parcelsProject>>;
  let client: pg.Client;
  const { names: schemas, schema, to, dropAll } = pgSchemas();
  const sink = (s: string, ...extra: string[]) => ["sink", "parcels", "--config", config, "--to", to(s), ...extra];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sink-cli-"));
    project = await parcelsProject(dir);
    config = project.config;
    for (const region of ["weld", "larimer"]) await project.promote(region, D1, parcels(N));
    client = new pg.Client({ connectionString: url() });
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await dropAll(client);
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The whole table, every column but xmin, in key order: what two sinks must agree on. */
  const content = async (s: string, table = "parcels") => {
    const exists = (
      await client.query(`SELECT to_regclass($1) IS NOT NULL AS e`, [`${quoteIdent(s)}.${quoteIdent(table)}`])
    ).rows[0].e as boolean;
    if (!exists) return [];
    return (
      await client.query(
        `SELECT region, parcel_id, zoning, owner, encode(ST_AsEWKB(geom), 'hex') AS geom, valid_from::text, content_digest,
                artifact_key, artifact_sha256, sink_run, retired_at::text, retired_by
           FROM ${quoteIdent(s)}.${quoteIdent(table)} ORDER BY region, parcel_id`,
      )
    ).rows;
  };
  const xmins = async (s: string) =>
    (await client.query(`SELECT count(DISTINCT xmin::text)::int AS n FROM ${quoteIdent(s)}.parcels`)).rows[0]
      .n as number;

  it("kill -9 at random moments leaves the old table or the whole new one; the re-run ends where a clean sink ends", async () => {
    const clean = schema("clean");
    const first = await runCli(sink(clean));
    expect(first.code, first.stderr).toBe(0);
    const expected = await content(clean);
    expect(expected).toHaveLength(2 * N);

    /** Resolves once the sink's transaction has written into schema `s` (its statements name it). */
    const inTransaction = async (s: string, child: { exitCode: number | null }) => {
      for (;;) {
        const busy = await client.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'georefresh sink' AND xact_start IS NOT NULL AND position($1 in query) > 0`,
          [quoteIdent(s)],
        );
        if (busy.rows.length || child.exitCode !== null) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const seen = { inside: 0, before: 0, after: 0 };
    for (let trial = 0; trial < 4; trial++) {
      const s = schema(`kill${trial}`);
      const child = spawnCli(sink(s));
      const exited = new Promise((r) => child.on("exit", r));
      // The first trial kills at a moment anywhere in the run (startup included); the others once the
      // transaction is writing, a random moment into it.
      if (trial === 0) await new Promise((r) => setTimeout(r, 300 + 1500 * Math.random()));
      else {
        await inTransaction(s, child);
        await new Promise((r) => setTimeout(r, 200 * Math.random()));
      }
      const inside = trial > 0 && child.exitCode === null;
      child.kill("SIGKILL");
      await exited;
      const left = await content(s);
      // All or nothing: the rows a killed sink leaves are the previous state (none) or the whole new one.
      expect([0, 2 * N]).toContain(left.length);
      seen[left.length ? "after" : inside ? "inside" : "before"]++;
      if (left.length) expect(left).toEqual(expected);
      const rerun = await runCli(sink(s));
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(await content(s)).toEqual(expected);
    }
    // Kills landed inside a writing transaction, and left nothing of it.
    expect(seen.inside).toBeGreaterThan(0);
  }, 180_000);

  it("two sinks at once: one applies, the other finds the work done; every row written once", async () => {
    const s = schema("two");
    const [a, b] = await Promise.all([runCli(sink(s, "--json")), runCli(sink(s, "--json"))]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const applied = [a, b].map((r) => (JSON.parse(r.stdout) as { partitions: { applied: number } }).partitions.applied);
    expect(applied.sort()).toEqual([0, 2]);
    expect(await xmins(s)).toBe(1); // one transaction wrote every row
    expect(await content(s)).toEqual(await content(schemas[0] as string));

    // A change to weld, sunk by two at once: its 13 changed rows written by one transaction, nothing else touched.
    await project.promote("weld", D2, dateTwo(parcels(N)));
    const [c, d] = await Promise.all([runCli(sink(s, "--json")), runCli(sink(s, "--json"))]);
    expect([c.code, d.code]).toEqual([0, 0]);
    const rows = [c, d].map(
      (x) => JSON.parse(x.stdout) as { rows: { inserted: number; updated: number; retired: number } },
    );
    const total = rows.reduce((n, x) => n + x.rows.inserted + x.rows.updated + x.rows.retired, 0);
    expect(total).toBe(13);
    expect(await xmins(s)).toBe(2);
  }, 120_000);

  it("quotes hostile table and schema names, and never prints the password", async () => {
    await client.query("CREATE TABLE IF NOT EXISTS sentinel (id int)");
    const s = schema(`we ird"; DROP TABLE sentinel; --`);
    const table = `pa"rcels; DROP TABLE sentinel; --`;
    const withPassword = to(s).replace("://georefresh@", "://georefresh:hunter2@");
    const r = await runCliHere(["sink", "parcels", "--config", config, "--to", withPassword, "--table", table]);
    expect(r.code, r.stderr).toBe(0);
    // weld at D2 (8001 rows, promoted above) and larimer at D1.
    expect(r.stdout).toMatch(/2 partitions applied, 0 unchanged; rows 16001 inserted/);
    expect(`${r.stdout}${r.stderr}`).not.toContain("hunter2");
    expect((await content(s, table)).length).toBe(2 * N + 1);
    expect((await client.query(`SELECT count(*)::int AS n FROM sentinel`)).rows[0].n).toBe(0); // still there

    // A server that is not there: exit 3, saying where (without the password) and what to check.
    const down = await runCliHere([
      "sink",
      "parcels",
      "--config",
      config,
      "--to",
      "postgresql://me:hunter2@127.0.0.1:1/db",
      "--json",
    ]);
    expect(down.code).toBe(3);
    const body = JSON.parse(down.stdout) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("SinkConnect");
    expect(body.error.message).toMatch(/cannot connect to postgresql:\/\/\*\*\*@127\.0\.0\.1:1\/db: .*PGPASSWORD/);
    expect(`${down.stdout}${down.stderr}`).not.toContain("hunter2");
    await client.query("DROP TABLE sentinel");
  }, 60_000);
});
