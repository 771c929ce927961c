/**
 * A no-op re-run of a finished backfill settles from the latest snapshot and one listing of the manifests: no
 * manifest GET at all, ≤ 0.1 store requests per partition. Correctness never rests on the snapshot: a manifest
 * changed since (its listed version differs) is read as on any run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { CountingStore } from "../../src/store/counting.js";
import type { GetOptions } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { describeEachStore } from "../store/harness/index.js";
import { listingStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

/** Counts GETs of manifests apart from the rest. */
class ManifestGets extends CountingStore {
  manifestGets = 0;
  override get(key: string, options?: GetOptions) {
    if (key.startsWith("manifests/")) this.manifestGets++;
    return super.get(key, options);
  }
}

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let dir: string;
  let store: ManifestGets;
  const task = () => pointsTask(join(dir, "points.json"));
  const run = (extra: object = {}) =>
    backfill({
      store,
      dataset: "d",
      task: task(),
      versions: VERSIONS,
      from: "2026-03-01",
      to: "2026-03-31",
      threads: 0,
      ...extra,
    });
  beforeAll(async () => {
    fx = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-proof-"));
    writePoints(join(dir, "points.json"), 20);
    store = new ManifestGets(listingStore(h, fx.store));
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("settles 62 partitions with no manifest GET, then reads exactly the one manifest changed since", async () => {
    const first = await run();
    expect(first.counts.promoted).toBe(62);
    expect(first.snapshot).toMatchObject({ partitions: 62, moved: true });

    store.reset();
    store.manifestGets = 0;
    const again = await run();
    expect(again.counts.unchanged).toBe(62);
    expect(store.manifestGets).toBe(0);
    expect(store.calls.put).toBe(0); // same state: the snapshot is not committed again
    expect(store.total / again.total, JSON.stringify(store.calls)).toBeLessThanOrEqual(0.1);

    // Without the snapshot path every partition pays its manifest GET: the proof is what saved them.
    store.manifestGets = 0;
    await run({ snapshots: false });
    expect(store.manifestGets).toBe(62);

    // One manifest moves behind the snapshot's back (a promotion under a new code version, same rows).
    const p = { dataset: "d", region: "north", date: "2026-03-15" };
    const moved = await refreshPartition({
      store,
      task: pointsTask(join(dir, "points.json"), { version: "2" }),
      partition: p,
      versions: VERSIONS,
    });
    expect(moved.outcome).toBe("rekeyed");
    store.manifestGets = 0;
    const after = await run();
    // That partition's listed version no longer matches: it is read as today, and found at another key, so
    // the manifest is pointed back at the artifact already stored; the 61 others stay settled by the proof.
    expect(after.counts).toMatchObject({ reconciled: 1, unchanged: 61 });
    expect(after.results.find((r) => r.partition.date === p.date && r.partition.region === "north")?.outcome).toBe(
      "reconciled",
    );
    expect(store.manifestGets).toBeGreaterThanOrEqual(1);
    expect(store.manifestGets).toBeLessThan(10); // that manifest, and its region's plausibility history
    // Four backfills of 62 partitions: Azurite is one process, and the 8-process race beside it slows it 3×.
  }, 240_000);
}

describeEachStore("a no-op re-run settled by the latest snapshot", suite, (h) => h.capabilities.listing !== "never");
