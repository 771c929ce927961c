/**
 * A no-op re-run of a backfill on a store that prefers listing (S3) settles each partition with its manifest GET
 * alone: the artifacts of each densely covered (region, month) are listed once instead of a HEAD each. The
 * shortcut never hides a missing artifact, and local stores keep their one stat per partition.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { CountingStore } from "../../src/store/counting.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { describeEachStore } from "../store/harness/index.js";
import { listingStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let dir: string;
  let task: ReturnType<typeof pointsTask>;
  beforeAll(async () => {
    fx = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-index-"));
    writePoints(join(dir, "points.json"), 30);
    task = pointsTask(join(dir, "points.json"));
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists each (region, month) once instead of a HEAD per partition, and still reports a missing artifact", async () => {
    const store = new CountingStore(listingStore(h, fx.store));
    // January densely (31 dates), and February 1–2: too few dates for a listing to pay.
    const range = { from: "2026-01-01", to: "2026-02-02" };
    const first = await backfill({ store, dataset: "idx", task, versions: VERSIONS, ...range, threads: 0 });
    // The snapshot shortcut would spare the manifest GETs too (snapshot-proof.ts); here the index alone is measured.
    const indexOnly = () =>
      backfill({ store, dataset: "idx", task, versions: VERSIONS, ...range, threads: 0, snapshots: false });
    expect(first.counts.promoted).toBe(66);

    store.reset();
    const again = await indexOnly();
    expect(again.counts.unchanged).toBe(66);
    expect(store.calls.get).toBe(66); // the manifests
    expect(store.calls.list).toBe(2 + 1); // January of each region, plus the tombstone pass over the manifests
    expect(store.calls.exists).toBe(4); // February's two dates of each region
    expect(store.calls.head + store.calls.put + store.calls.delete).toBe(0);

    // An artifact deleted behind georefresh's back is still reported, not taken from a stale listing.
    const manifest = await readManifest(fx.store, manifestKey({ dataset: "idx", region: "north", date: "2026-01-15" }));
    await fx.store.delete(manifest?.manifest.current?.artifact as string);
    const after = await indexOnly();
    expect(after.counts.failed).toBe(1);
    expect(after.results.find((r) => r.outcome === "failed")?.message).toMatch(
      /points at .*region=north\/date=2026-01-15.*which is missing/,
    );
  });

  // Only a store that can be asked both ways (memory) shows the other way; S3 and Azure always prefer listing.
  if (h.capabilities.listing === "optional")
    it("keeps one direct check per partition where the store does not prefer listing", async () => {
      const store = new CountingStore(fx.store);
      const range = { from: "2026-03-01", to: "2026-03-10" };
      await backfill({ store, dataset: "plain", task, versions: VERSIONS, ...range, threads: 0 });
      store.reset();
      const again = await backfill({
        store,
        dataset: "plain",
        task,
        versions: VERSIONS,
        ...range,
        threads: 0,
        snapshots: false,
      });
      expect(again.counts.unchanged).toBe(20);
      expect(store.calls.exists).toBe(20);
      expect(store.calls.list).toBe(1); // the tombstone pass only
    });
}

describeEachStore("settling a re-run by listing", suite, (h) => h.capabilities.listing !== "never");
