/**
 * Changelogs under a careless or hostile hand: a changelog object forged or truncated in the store is detected by
 * the sha256 its manifest records and never applied (a sink compares the whole partition instead, and ends where a
 * clean sink ends); a delta feed that deletes every key, or most, is refused by the plausibility gate like a
 * truncated complete one; a key whose type changes between dates (1, then "1") is refused, while integer keys
 * that widen past 2^31 are still the same keys.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";

let dir: string;
const [D1, D2, D3] = ["2026-01-01", "2026-01-02", "2026-01-03"];
const point = (i: number) => ({ type: "Point", coordinates: [-104.8 + i * 0.001, 40.4] });
type Props = Record<string, unknown>;

function feed(dataset: string, date: string, rows: Props[]): void {
  writeFileSync(
    join(dir, "feeds", `${dataset}-${date}.geojson`),
    JSON.stringify({
      type: "FeatureCollection",
      features: rows.map((p, i) => ({ type: "Feature", properties: p, geometry: point(i) })),
    }),
  );
}

const config = () => join(dir, "georefresh.config.json");
const backfill = (dataset: string, from: string, to = from) =>
  runCliHere(["backfill", "--config", config(), "--dataset", dataset, "--from", from, "--to", to]);
const manifestOf = (dataset: string, date: string) => {
  const path = join(dir, "data", "manifests", dataset, "region=weld", `date=${date}.json`);
  return existsSync(path)
    ? (JSON.parse(readFileSync(path, "utf8")) as { current?: { changes?: { changelog: string } } })
    : undefined;
};
const table = (gpkg: string, name: string) => {
  const db = new Database(gpkg, { readonly: true });
  const rows = db.prepare(`SELECT id, v, retired_at FROM "${name}" ORDER BY id`).all();
  db.close();
  return rows;
};

describe("changelogs under a hostile hand", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-changelog-hostile-"));
    mkdirSync(join(dir, "feeds"));
    const ids = Array.from({ length: 20 }, (_, i) => i);
    feed(
      "parcels",
      D1,
      ids.map((i) => ({ id: `k${i}`, v: 1 })),
    );
    // D2: k0 changed, k1 gone, k25 new.
    feed("parcels", D2, [
      ...ids.filter((i) => i !== 1).map((i) => ({ id: `k${i}`, v: i === 0 ? 2 : 1 })),
      { id: "k25", v: 1 },
    ]);
    feed(
      "deltas",
      D1,
      ids.map((i) => ({ id: `k${i}`, v: 1 })),
    );
    feed(
      "deltas",
      D2,
      ids.map((i) => ({ id: `k${i}`, v: 1, _deleted: true })),
    );
    feed(
      "deltas",
      D3,
      ids.slice(0, 15).map((i) => ({ id: `k${i}`, v: 1, _deleted: true })),
    );
    feed(
      "retyped",
      D1,
      ids.map((i) => ({ id: i, v: 1 })),
    );
    feed(
      "retyped",
      D2,
      ids.map((i) => ({ id: String(i), v: 1 })),
    );
    feed(
      "widened",
      D1,
      ids.map((i) => ({ id: i, v: 1 })),
    );
    feed("widened", D2, [...ids.map((i) => ({ id: i, v: 1 })), { id: 2 ** 40, v: 1 }]);
    const source = (dataset: string, extra: Props = {}) => ({
      source: { url: `./feeds/${dataset}-{date}.geojson`, key: "id", ...extra },
      regions: ["weld"],
      cadence: "daily",
    });
    writeFileSync(
      config(),
      JSON.stringify({
        store: "./data",
        datasets: {
          parcels: source("parcels"),
          deltas: source("deltas", { complete: false }),
          retyped: source("retyped"),
          widened: source("widened"),
        },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a forged or truncated changelog is never applied: the sink compares the whole partition and ends where a clean sink ends", async () => {
    expect((await backfill("parcels", D1)).code).toBe(0);
    // Three tables at D1: one to take D2 with its genuine changelog, two with a forged and a truncated one.
    const sinks = ["genuine", "forged", "truncated"].map((n) => join(dir, `${n}.gpkg`));
    for (const gpkg of sinks)
      expect((await runCliHere(["sink", "parcels", "--config", config(), "--to", gpkg])).code).toBe(0);
    expect((await backfill("parcels", D2)).code).toBe(0);
    const changelog = join(dir, "data", manifestOf("parcels", D2)?.current?.changes?.changelog as string);
    const genuine = readFileSync(changelog);
    expect((await runCliHere(["sink", "parcels", "--config", config(), "--to", sinks[0] as string])).code).toBe(0);
    const expected = table(sinks[0] as string, "parcels") as { id: string; v: number; retired_at: unknown }[];
    expect(expected.find((r) => r.id === "k0")?.v).toBe(2);
    expect(expected.find((r) => r.id === "k1")?.retired_at).not.toBeNull();
    expect(expected.find((r) => r.id === "k25")?.retired_at).toBeNull();
    // Forged: k0's change said to be k9's (a delta would update k9 and miss k0); truncated: cut in half.
    const forged = Buffer.from(genuine);
    forged.write("k9", forged.indexOf("k0"));
    for (const [gpkg, bytes] of [
      [sinks[1] as string, forged],
      [sinks[2] as string, genuine.subarray(0, genuine.length >> 1)],
    ] as const) {
      writeFileSync(changelog, bytes);
      const r = await runCliHere(["sink", "parcels", "--config", config(), "--to", gpkg]);
      expect(r.code, r.stderr).toBe(0);
      expect(table(gpkg, "parcels")).toEqual(expected);
    }
    writeFileSync(changelog, genuine);
  }, 60_000);

  it("a delta feed that deletes every key, or most, is refused by the plausibility gate: nothing published", async () => {
    expect((await backfill("deltas", D1)).code).toBe(0);
    for (const [date, rows] of [
      [D2, /0 rows, fewer than the minimum 1/],
      [D3, /5 rows vs a median of 20/],
    ] as const) {
      const r = await backfill("deltas", date);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout + r.stderr).toMatch(rows);
      expect(r.stdout + r.stderr).toMatch(/implausible result .*nothing was published/);
      expect(manifestOf("deltas", date)?.current).toBeUndefined();
    }
  });

  it("a key whose type changes between dates is refused naming both types; integer keys that widen are the same keys", async () => {
    expect((await backfill("retyped", D1)).code).toBe(0);
    const r = await backfill("retyped", D2);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      `retyped weld ${D2}: key column "id" is Utf8 now but was Int32 on ${D1}, so no key would match its earlier self`,
    );
    expect(manifestOf("retyped", D2)?.current).toBeUndefined();
    expect(existsSync(join(dir, "data", "artifacts", "retyped", "region=weld", `date=${D2}`))).toBe(false);
    const w = await backfill("widened", D1, D2);
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const changes = await runCliHere(["changes", "widened", "--config", config(), "--region", "weld", "--date", D2]);
    expect(changes.stdout).toMatch(/1 added, 0 removed, 0 geometry changed, 0 attributes changed, 20 unchanged/);
  });
});
