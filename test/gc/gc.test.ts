/** gc on a real store: removes only what readers never see, only when old enough, only with --apply. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxId, outboxKey, recordEvent } from "../../src/manifest/outbox.js";
import { collectGarbage, parseAge } from "../../src/gc/gc.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import type { ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const DAY = 86_400_000;

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let store: ObjectStore;
  let dir: string;
  const stray = "artifacts/gc/region=north/date=2026-01-01/ffffffffffffffff.parquet";
  const temp = "_tmp/gc/3f6c0c1e-run/abcdef0123456789.parquet";
  beforeAll(async () => {
    fx = await h.open();
    store = fx.store;
    dir = mkdtempSync(join(tmpdir(), "georefresh-gc-"));
    const input = join(dir, "in.json");
    const partition = { dataset: "gc", region: "north", date: "2026-01-01" };
    writePoints(input, 20);
    await refreshPartition({ store, task: pointsTask(input), partition, versions: VERSIONS });
    writePoints(input, 22);
    await refreshPartition({ store, task: pointsTask(input), partition, versions: VERSIONS }); // history now holds the first
    await store.put(stray, new Uint8Array([1, 2, 3]));
    await store.put(temp, new Uint8Array([4, 5, 6]));
    await recordEvent(store, {
      id: outboxId("gc", "north", "2026-01-01", "e".repeat(64)),
      dataset: "gc",
      region: "north",
      logical_date: "2026-01-01",
      artifact: "x",
      sha256: "e".repeat(64),
      rows: 1,
      previous_sha256: null,
    });
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("touches nothing younger than the floor", async () => {
    const before = await snapshot(store);
    const r = await collectGarbage(store, { olderThanMs: DAY, apply: true, artifacts: { keep: 0 } });
    expect([...r.temp, ...r.outbox, ...r.artifacts]).toEqual([]);
    expect(await snapshot(store)).toEqual(before);
  });

  it("a dry run lists the leftovers and deletes nothing", async () => {
    const before = await snapshot(store);
    const said: [string, number, number][] = [];
    const r = await collectGarbage(store, {
      olderThanMs: DAY,
      apply: false,
      artifacts: { keep: 0 },
      now: new Date(Date.now() + 2 * DAY),
      onProgress: (step, done, total) => said.push([step, done, total]),
    });
    // Each dataset as it is examined, then the last; a dry run deletes nothing, so says no deletes.
    expect(said.length).toBeGreaterThan(1);
    expect(said.at(-1)).toEqual(["datasets", said.length - 1, said.length - 1]);
    expect(said.map(([step, done]) => `${step} ${done}`)).toEqual(said.map((_, i) => `datasets ${i}`));
    expect(r).toMatchObject({
      applied: false,
      temp: [temp],
      outbox: [outboxKey("gc", outboxId("gc", "north", "2026-01-01", "e".repeat(64)))],
      artifacts: [stray],
    });
    expect(await snapshot(store)).toEqual(before);
  });

  it("--keep spares the newest unreferenced artifacts; --apply removes the rest and never a referenced one", async () => {
    const kept = await collectGarbage(store, {
      olderThanMs: DAY,
      apply: false,
      artifacts: { keep: 1 },
      now: new Date(Date.now() + 2 * DAY),
    });
    expect(kept.artifacts).toEqual([]);
    const before = await snapshot(store);
    const r = await collectGarbage(store, {
      olderThanMs: DAY,
      apply: true,
      artifacts: { keep: 0 },
      now: new Date(Date.now() + 2 * DAY),
    });
    const after = await snapshot(store);
    const removed = Object.keys(before).filter((k) => !(k in after));
    expect(removed.sort()).toEqual([...r.temp, ...r.outbox, ...r.artifacts].sort());
    expect(removed).toHaveLength(3);
    // Both promoted artifacts (current and history) and every manifest are still there, byte for byte.
    for (const [k, v] of Object.entries(before))
      if (k.startsWith("manifests/") || (k.startsWith("artifacts/") && k !== stray)) expect(after[k]).toBe(v);
    expect(Object.keys(after).filter((k) => k.startsWith("artifacts/"))).toHaveLength(2);
  });
}

describeEachStore("gc", suite, (h) => h.capabilities.crossProcess);

describe("parseAge", () => {
  it("reads s, m, h, d and refuses anything else", () => {
    expect(parseAge("24h")).toBe(86_400_000);
    expect(parseAge("90m")).toBe(5_400_000);
    expect(() => parseAge("soon")).toThrow(/expected a number with s, m, h or d/);
  });
});
