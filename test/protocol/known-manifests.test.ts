/**
 * A backfill reuses the manifests it has just promoted for the next dates' plausibility history wherever a
 * listing proves them unchanged (S3 ETags, memory versions): far fewer GETs, and exactly the same store as a run
 * that fetches every one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { CountingStore } from "../../src/store/counting.js";
import type { ListOptions, ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { visible } from "../helpers/visible.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreHarness } from "../store/harness/index.js";

/** The same store, but its listings carry no versions, so nothing known can be proven current. */
function withoutListedVersions(store: ObjectStore): ObjectStore {
  const wrapper = Object.create(store) as ObjectStore;
  wrapper.list = async function* (prefix: string, options?: ListOptions) {
    for await (const { version: _, ...e } of store.list(prefix, options)) yield e;
  };
  return wrapper;
}

function suite(h: StoreHarness): void {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-known-"));
    writePoints(join(dir, "points.json"), 30);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fetches each partition's history once instead of up to seven times, and writes the same store", async () => {
    const task = pointsTask(join(dir, "points.json"));
    const range = { from: "2026-01-01", to: "2026-01-20" };
    const a = await h.open();
    const b = await h.open();
    try {
      const reusing = new CountingStore(a.store);
      const fetching = new CountingStore(withoutListedVersions(b.store));
      const r1 = await backfill({ store: reusing, dataset: "k", task, versions: VERSIONS, ...range, threads: 0 });
      const r2 = await backfill({ store: fetching, dataset: "k", task, versions: VERSIONS, ...range, threads: 0 });
      expect(r1.counts.promoted).toBe(40);
      expect(r2.counts.promoted).toBe(40);
      // Per partition: the manifest, the artifact (absent), the temp read-back; no history GET (every earlier
      // date was promoted by this backfill); plus the capability probe's one read, and the snapshot pointer's
      // two (none yet before the run; read again to commit the snapshot after it).
      expect(reusing.calls.get).toBe(40 * 3 + 1 + 2);
      expect(fetching.calls.get).toBeGreaterThan(40 * 3 + 200);
      expect(await visible(a.store)).toEqual(await visible(b.store));
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
}

describeEachStore("plausibility history from known manifests", suite, (h) => h.capabilities.listedVersions);
