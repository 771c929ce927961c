/**
 * The STAC catalog on Azurite, where versions are opaque ETags (no PredictsVersions): a re-run still proves from
 * two listings that nothing changed, and after a promotion writes only what changed, by the versions and sha256s
 * the last run recorded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { writeStac } from "../../src/stac/publish.js";
import { CountingStore } from "../../src/store/counting.js";
import { predictsVersions } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";
import { azuriteHarness } from "../store/harness/azurite.js";
import type { StoreFixture } from "../store/harness/index.js";

describe("georefresh stac on Azurite", () => {
  let fx: StoreFixture;
  let dir: string;
  beforeAll(async () => {
    fx = await azuriteHarness.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-stac-az-"));
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a re-run writes nothing from two listings; a promotion rewrites only its objects; a hand edit is put back", async () => {
    const input = join(dir, "in.json");
    writePoints(input, 20);
    const counted = new CountingStore(fx.store);
    expect(predictsVersions(fx.store)).toBe(false);
    const run = (version: string, from: string, to: string) =>
      backfill({
        store: counted,
        dataset: "a",
        task: pointsTask(input, { version }),
        versions: VERSIONS,
        from,
        to,
        threads: 0,
      });
    await run("1", "2026-01-01", "2026-01-03");
    const first = await writeStac(counted, "a", { cadence: "daily" });
    expect(first).toMatchObject({ items: 6, written: first.items + first.versions + 2, unchanged: 0 });

    counted.reset();
    const again = await writeStac(counted, "a", { cadence: "daily" });
    expect(again).toMatchObject({ items: 6, written: 0, deleted: 0 });
    expect(counted.calls).toMatchObject({ get: 1, put: 0, delete: 0, head: 0 }); // the state; no manifest GET

    const before = await snapshot(fx.store, "stac/");
    writePoints(input, 22); // 2026-01-03 of each region changes
    await run("2", "2026-01-03", "2026-01-03");
    const after = await writeStac(counted, "a", { cadence: "daily" });
    const now = await snapshot(fx.store, "stac/");
    const changed = Object.keys(now).filter((k) => now[k] !== before[k] && !k.endsWith("_georefresh.json"));
    expect(after.written).toBe(changed.length);
    expect(changed.sort()).toEqual([
      "stac/a/collection.json",
      "stac/a/items.parquet",
      "stac/a/items/a-north-2026-01-03.json",
      "stac/a/items/a-south-2026-01-03.json",
      expect.stringMatching(/^stac\/a\/versions\/a-north-2026-01-03\/[0-9a-f]{16}\.json$/),
      expect.stringMatching(/^stac\/a\/versions\/a-south-2026-01-03\/[0-9a-f]{16}\.json$/),
    ]);

    const item = "stac/a/items/a-north-2026-01-02.json";
    const original = (await fx.store.get(item)).body;
    await fx.store.put(item, new TextEncoder().encode("{}"));
    expect((await writeStac(counted, "a", { cadence: "daily" })).written).toBe(1);
    expect(Buffer.compare((await fx.store.get(item)).body, original)).toBe(0);
  });
});
