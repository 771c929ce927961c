/**
 * A change of inputs, pins or code that changes no row of a partition promotes the same bytes under a new key:
 * `rekeyed`, its own outcome, counted apart in the summary, shown in ls, whose changed_at stays when the data last
 * changed (issue 27 item 4).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { writeFeedProject } from "../helpers/source-corpus.js";

let dir: string;
const config = () => join(dir, "georefresh.config.json");
const cli = (...args: string[]) => runCliHere([...args, "--config", config()]);
const pin = (value: string) =>
  writeFileSync(join(dir, "versions.json"), JSON.stringify({ feed_vintage: [{ from: "2020-01-01", value }] }));
const backfill = () => cli("backfill", "--dataset", "parcels", "--from", "2026-01-01", "--to", "2026-01-01");

interface LsRow {
  region: string;
  status: string;
  key: string;
  promoted_at: string;
  changed_at: string;
}
const ls = async () => JSON.parse((await cli("ls", "parcels", "--json")).stdout) as LsRow[];

describe("rekeyed: the same bytes under a new key", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-rekeyed-"));
    pin("v1");
    writeFeedProject(dir, ["weld", "larimer"], { pins: ["feed_vintage"], top: { versions: "./versions.json" } });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is its own outcome in run, backfill and ls; changed_at keeps when the data changed", async () => {
    const first = await backfill();
    expect(first.stdout).toMatch(/parcels: 2 partitions: 2 promoted/);
    const before = await ls();
    expect(before.map((r) => r.status)).toEqual(["current", "current"]);

    // A new pin value changes every key and no row.
    pin("v2");
    const rekey = await backfill();
    expect(rekey.code, rekey.stderr).toBe(0);
    expect(rekey.stdout).toMatch(/parcels: 2 partitions: 2 rekeyed/);
    const after = await ls();
    expect(after.map((r) => r.status)).toEqual(["rekeyed", "rekeyed"]);
    for (const [i, r] of after.entries()) {
      expect(r.key).not.toBe(before[i]!.key);
      expect(r.changed_at).toBe(before[i]!.changed_at);
      expect(r.promoted_at > before[i]!.promoted_at).toBe(true);
    }
    const text = await cli("ls", "parcels");
    expect(text.stdout.split("\n")[0]).toBe("region\tdate\tstatus\trows\tkey\tchanged_at");
    expect(text.stdout).toContain(`larimer\t2026-01-01\trekeyed\t30\t${after[0]!.key}\t${before[0]!.changed_at}\n`);

    // One region's feed changes along with the pin: that region is promoted, the other rekeyed.
    pin("v3");
    const feed = join(dir, "feeds", "weld.geojson");
    writeFileSync(feed, readFileSync(feed, "utf8").replace('"zoning":"Commercé"', '"zoning":"Commercial"'));
    const mixed = await backfill();
    expect(mixed.stdout).toMatch(/parcels: 2 partitions: 1 promoted, 1 rekeyed/);
    const last = await ls();
    expect(last.map((r) => [r.region, r.status])).toEqual([
      ["larimer", "rekeyed"],
      ["weld", "current"],
    ]);
    expect(last[0]!.changed_at).toBe(before[0]!.changed_at);
    expect(last[1]!.changed_at).toBe(last[1]!.promoted_at);

    // run prints the outcome line: the same bytes, the new key and the old.
    pin("v4");
    const run = await cli("run", "--dataset", "parcels", "--region", "larimer", "--date", "2026-01-01");
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(
      /^parcels larimer 2026-01-01: rekeyed: the same bytes as before under a new key [0-9a-f]{16} \(was [0-9a-f]{16}\): an input, pin or code version changed, no row did \(30 rows\)\n$/,
    );
  }, 60_000);
});
