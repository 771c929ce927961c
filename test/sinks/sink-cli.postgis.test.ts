/**
 * `georefresh sink` as users run it, in processes of its own against the real server: hostile table and schema
 * names are data, never SQL; a password in the URL is never printed. (Kill -9 and two sinks at once are the
 * conformance suite's: conformance.ts.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { quoteIdent } from "../../src/sinks/sql-names.js";
import { runCliHere, spawnCli } from "../helpers/cli.js";
import { pgSchemas } from "../helpers/pg-schemas.js";
import { parcelsProject } from "../helpers/parcels-project.js";
import { parcels } from "../helpers/parcels-task.js";

const D1 = "2026-03-01";
const N = 500;
const url = () => inject("postgres") as string;

describe("georefresh sink in processes", () => {
  let dir: string;
  let config: string;
  let project: Awaited<ReturnType<typeof parcelsProject>>;
  let client: pg.Client;
  const { schema, to, dropAll } = pgSchemas();

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
  it("quotes hostile table and schema names, and never prints the password", async () => {
    await client.query("CREATE TABLE IF NOT EXISTS sentinel (id int)");
    const s = schema(`we ird"; DROP TABLE sentinel; --`);
    const table = `pa"rcels; DROP TABLE sentinel; --`;
    const withPassword = to(s).replace("://georefresh@", "://georefresh:hunter2@");
    const r = await runCliHere(["sink", "parcels", "--config", config, "--to", withPassword, "--table", table]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`2 partitions applied, 0 unchanged; rows ${2 * N} inserted`));
    expect(`${r.stdout}${r.stderr}`).not.toContain("hunter2");
    expect((await content(s, table)).length).toBe(2 * N);
    expect((await client.query(`SELECT count(*)::int AS n FROM sentinel`)).rows[0].n).toBe(0); // still there

    // A server that is not there (down, restarting): exit 75, run again later, saying where (without the password).
    const down = await runCliHere([
      "sink",
      "parcels",
      "--config",
      config,
      "--to",
      "postgresql://me:hunter2@127.0.0.1:1/db",
      "--json",
    ]);
    expect(down.code).toBe(75);
    const body = JSON.parse(down.stdout) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("SinkUnavailable");
    expect(body.error.message).toMatch(
      /cannot connect to postgresql:\/\/\*\*\*@127\.0\.0\.1:1\/db: .*ECONNREFUSED.*nothing was changed, run again once it answers/,
    );
    expect(`${down.stdout}${down.stderr}`).not.toContain("hunter2");
    await client.query("DROP TABLE sentinel");
  }, 60_000);

  it("a sink that must wait for another sink of the table says so once, then applies", async () => {
    const s = schema("waits");
    // Another sink's transaction, as it holds the table: the same advisory lock.
    const other = new pg.Client({ connectionString: url() });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`georefresh sink ${s}.parcels`]);
      // The other sink commits only once this one says it waits, whatever the machine's speed.
      const sink = spawnCli(["sink", "parcels", "--config", config, "--to", to(s)]);
      let [stdout, stderr, released] = ["", "", false];
      sink.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      sink.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (!released && /is at work; waiting/.test(stderr)) {
          released = true;
          void other.query("COMMIT");
        }
      });
      const code = await new Promise<number | null>((ok) => sink.once("close", ok));
      expect(code, stderr).toBe(0);
      expect(
        stderr.match(/another sink of \S+\.parcels in postgresql:\/\/\S+ is at work; waiting for it to commit/g),
      ).toHaveLength(1);
      expect(stdout).toMatch(new RegExp(`2 partitions applied, 0 unchanged; rows ${2 * N} inserted`));
      // --quiet says nothing, waiting or not.
      const quiet = await runCliHere(["sink", "parcels", "--config", config, "--to", to(s), "--quiet"]);
      expect(quiet.stderr).toBe("");
    } finally {
      await other.end();
    }
  }, 60_000);
});
