/** The plausibility history lists only as much of a region as it needs, and finds the same versions a full listing would. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { regionHistory } from "../../src/manifest/checks.js";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { logicalDates } from "../../src/calendar/calendar.js";
import { manifestPrefix } from "../../src/manifest/layout.js";
import { CountingStore } from "../../src/store/counting.js";
import { MemoryStore } from "../../src/store/memory.js";
import { pointsTask, writePoints } from "../helpers/points-task.js";

/** The obvious implementation: list the whole region, keep the latest `limit` dates before `date`. */
async function naive(store: MemoryStore, prefix: string, date: string, limit: number): Promise<string[]> {
  const keys: string[] = [];
  for await (const e of store.list(prefix))
    if ((/date=(\d{4}-\d{2}-\d{2})/.exec(e.key)?.[1] as string) < date) keys.push(e.key);
  const out: string[] = [];
  for (const k of keys.sort().reverse().slice(0, limit))
    out.push((await readManifest(store, k))?.manifest.current?.logical_date as string);
  return out;
}

describe("region history for plausibility", () => {
  const store = new MemoryStore("history-test");
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-history-"));
    writePoints(join(dir, "points.json"), 20);
    const task = pointsTask(join(dir, "points.json"));
    // Across a year boundary, with a gap (Jan 10–20 never built), so every listing scope is needed somewhere.
    for (const [from, to] of [
      ["2025-12-20", "2026-01-09"],
      ["2026-01-21", "2026-02-12"],
    ] as const) {
      const r = await backfill({
        store,
        dataset: "h",
        task,
        versions: { square_size: [{ from: "2025-01-01", value: "1" }] },
        from,
        to,
        threads: 0,
      });
      expect(r.counts.failed + r.counts.invalid, JSON.stringify(r.results.find((x) => x.outcome !== "promoted"))).toBe(
        0,
      );
    }
  });
  afterAll(() => {
    MemoryStore.reset("history-test");
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the same versions as listing the whole region, for every date and window", async () => {
    const prefix = manifestPrefix("h", "north");
    for (const date of logicalDates("2025-12-15", "2026-02-20", "daily")) {
      for (const limit of [1, 7, 30]) {
        const got = (await regionHistory(store, prefix, date, limit)).map((e) => e.logical_date);
        expect(got, `${date}, last ${limit}`).toEqual(await naive(store, prefix, date, limit));
      }
    }
  });

  it("lists one month when the month holds enough, and widens only when it does not", async () => {
    const counting = new CountingStore(store);
    const prefix = manifestPrefix("h", "north");
    await regionHistory(counting, prefix, "2026-02-10", 7);
    expect(counting.calls.list).toBe(1); // February 1–9
    counting.reset();
    await regionHistory(counting, prefix, "2026-02-03", 7);
    expect(counting.calls.list).toBe(2); // February 1–2, then the year
    counting.reset();
    await regionHistory(counting, prefix, "2026-01-05", 7);
    expect(counting.calls.list).toBe(2); // January 1–4 (its year would add nothing), then everything
  });

  it("reuses a known manifest only while the listing shows the version it was known at", async () => {
    const prefix = manifestPrefix("h", "north");
    const counting = new CountingStore(store);
    const truth = await regionHistory(counting, prefix, "2026-02-10", 3);
    expect(counting.calls.get).toBe(3);
    const keys = ["2026-02-09", "2026-02-08", "2026-02-07"].map((d) => `${prefix}date=${d}.json`);
    const versions = await Promise.all(keys.map(async (k) => (await store.head(k)).version));
    // Known at their current versions, with a marker in rows: served from memory, not fetched.
    const known = new Map(
      keys.map((k, i) => [
        k,
        { version: versions[i] as string, current: { ...(truth[i] as object), rows: 1000 + i } as never },
      ]),
    );
    counting.reset();
    const reused = await regionHistory(counting, prefix, "2026-02-10", 3, known);
    expect(counting.calls.get).toBe(0);
    expect(reused.map((e) => e.rows)).toEqual([1000, 1001, 1002]);
    // One of them known at an older version: that one is fetched, and the store's entry wins.
    known.set(keys[1] as string, { version: "an-older-version", current: { rows: -1 } as never });
    counting.reset();
    const mixed = await regionHistory(counting, prefix, "2026-02-10", 3, known);
    expect(counting.calls.get).toBe(1);
    expect(mixed.map((e) => e.rows)).toEqual([1000, truth[1]?.rows, 1002]);
  });
});
