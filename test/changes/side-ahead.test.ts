/**
 * A lone run's change set digests the previous version on a second thread while it computes (changes/side-ahead.ts):
 * the next date, run in a process of its own (no digests cached), says so in its stage times and publishes the
 * changelog a direct comparison of the two stored versions gives, byte for byte; a previous version altered in the
 * store is still refused, naming it, with nothing published.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeChangelog } from "../../src/changes/changelog.js";
import { compareStored } from "../../src/changes/compare.js";
import { AHEAD_ROWS } from "../../src/changes/side-ahead.js";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { FsStore } from "../../src/store/fs.js";
import { runCli } from "../helpers/cli.js";

const ROWS = AHEAD_ROWS; // the fewest rows a second thread is started for
let dir: string;

/** A GeoJSONSeq feed of ROWS keyed points; `changed`: every 100th moved, every 100th from the 50th re-valued. */
function feed(path: string, changed: boolean): void {
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const x = -105 + (i % 300) * 0.001 + (changed && i % 100 === 0 ? 0.0001 : 0);
    const y = 40 + Math.floor(i / 300) * 0.001;
    const value = (i % 97) + (changed && i % 100 === 50 ? 1 : 0);
    lines.push(
      `{"type":"Feature","properties":{"id":"K-${String(i).padStart(6, "0")}","value":${value}},"geometry":{"type":"Point","coordinates":[${x},${y}]}}`,
    );
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

describe("the previous version digested ahead", () => {
  const config = () => join(dir, "georefresh.config.json");
  const backfill = (date: string, stages: string) =>
    runCli(["backfill", "--dataset", "points", "--from", date, "--to", date, "--config", config()], {
      GEOREFRESH_STAGE_TIMES: stages,
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-side-ahead-"));
    for (const [date, changed] of [
      ["2026-01-01", false],
      ["2026-02-01", true],
    ] as const) {
      mkdirSync(join(dir, date));
      feed(join(dir, date, "points.geojsons"), changed);
    }
    writeFileSync(
      config(),
      JSON.stringify({
        store: "./data",
        datasets: {
          points: {
            source: { url: "./{date}/points.geojsons", key: "id" },
            regions: ["weld"],
            cadence: "monthly",
          },
        },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("on the next date, in a process of its own: the changelog a direct comparison gives", async () => {
    const first = await backfill("2026-01-01", join(dir, "first.jsonl"));
    expect(first.code, first.stderr).toBe(0);
    const next = await backfill("2026-02-01", join(dir, "next.jsonl"));
    expect(next.code, next.stderr).toBe(0);
    const stages = (file: string) =>
      readFileSync(join(dir, file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { stage: string }).stage);
    expect(stages("first.jsonl")).not.toContain("previous version digested (second thread)");
    expect(stages("next.jsonl")).toContain("previous version digested (second thread)");

    const store = new FsStore(join(dir, "data"));
    const partition = { dataset: "points", region: "weld" };
    const before = (await readManifest(store, manifestKey({ ...partition, date: "2026-01-01" })))?.manifest.current;
    const after = (await readManifest(store, manifestKey({ ...partition, date: "2026-02-01" })))?.manifest.current;
    expect(after?.changes?.counts).toMatchObject({
      added: 0,
      removed: 0,
      geometry_changed: ROWS / 100,
      attributes_changed: ROWS / 100,
    });
    const direct = await encodeChangelog(
      await compareStored(store, before ?? undefined, after as NonNullable<typeof after>, ["id"], 8 * 2 ** 20),
    );
    const published = (await store.get(after?.changes?.changelog as string)).body;
    expect(Buffer.from(published).equals(Buffer.from(direct))).toBe(true);
  }, 120_000);

  it("a previous version altered in the store is still refused, naming it, and nothing is published", async () => {
    // The version a re-run of 2026-02-01 compares with is that date's current one: altered in the store.
    const store = new FsStore(join(dir, "data"));
    const before = (await readManifest(store, manifestKey({ dataset: "points", region: "weld", date: "2026-02-01" })))
      ?.manifest.current;
    const path = join(dir, "data", before?.artifact as string);
    const bytes = readFileSync(path);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] as number) ^ 0xff;
    writeFileSync(path, bytes);
    // The same date again, from a feed that differs from the one promoted, so it is computed, not settled.
    feed(join(dir, "2026-02-01", "points.geojsons"), false);
    const artifacts = () => readdirSync(join(dir, "data", "artifacts", "points", "region=weld"), { recursive: true });
    const had = artifacts().length;
    const r = await backfill("2026-02-01", join(dir, "tampered.jsonl"));
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/altered in the store|not the .* its manifest names/);
    expect(r.stdout + r.stderr).toContain(before?.artifact as string);
    expect(readFileSync(join(dir, "tampered.jsonl"), "utf8")).toContain("previous version digested (second thread)");
    expect(artifacts().length).toBe(had);
  }, 120_000);
});
