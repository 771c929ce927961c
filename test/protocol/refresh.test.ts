/**
 * The refresh protocol end to end on a real store (the suite runs it on fs and on RGW): re-runs change nothing,
 * changed inputs make new versions, old dates use their own pins, races have one winner, bad results never show.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { artifactKey, manifestKey } from "../../src/manifest/layout.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import type { ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let store: ObjectStore;
  let dir: string;
  beforeAll(async () => {
    fx = await h.open();
    store = fx.store;
    dir = mkdtempSync(join(tmpdir(), "georefresh-pipeline-"));
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const input = (name: string, n: number, seed = 0) => {
    const path = join(dir, name);
    writePoints(path, n, seed);
    return path;
  };
  const run = (task: ReturnType<typeof pointsTask>, region: string, date: string, dataset = "squares") =>
    refreshPartition({ store, task, partition: { dataset, region, date }, versions: VERSIONS });

  it("a second run changes nothing: every object byte-identical, no new history", async () => {
    const task = pointsTask(input("twice.json", 40));
    const first = await backfill({
      store,
      dataset: "twice",
      task,
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-03",
      threads: 0,
    });
    expect(first.counts.promoted).toBe(6);
    const before = await snapshot(store, "");
    const second = await backfill({
      store,
      dataset: "twice",
      task,
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-03",
      threads: 0,
    });
    expect(second.counts.unchanged).toBe(6);
    expect(await snapshot(store, "")).toEqual(before);
    expect(Object.keys(before).filter((k) => k.startsWith("_tmp/"))).toEqual([]);
  });

  it("a changed input makes a new key and a new version; history keeps the old one", async () => {
    const path = input("changing.json", 40);
    const task = pointsTask(path);
    const a = await run(task, "north", "2026-01-05", "changing");
    writePoints(path, 41); // the new point lies south: a new key, but the same bytes for "north"
    const same = await run(task, "north", "2026-01-05", "changing");
    // Rekeyed: promoted under the new key, so the manifest names what derives these bytes now and the next run
    // is a no-op (a GET and a HEAD) instead of recomputing them every time.
    expect(same.outcome).toBe("rekeyed");
    expect(same.key).not.toBe(a.key);
    expect(same.sha256).toBe(a.sha256);
    const settled = await run(task, "north", "2026-01-05", "changing");
    expect([settled.outcome, settled.message]).toEqual([
      "unchanged",
      `already current: ${artifactKey({ dataset: "changing", region: "north", date: "2026-01-05" }, same.key as string)}`,
    ]);
    writePoints(path, 42); // and this one lies north
    const b = await run(task, "north", "2026-01-05", "changing");
    expect([a.outcome, b.outcome]).toEqual(["promoted", "promoted"]);
    expect(b.key).not.toBe(a.key);
    const m = (await readManifest(store, manifestKey({ dataset: "changing", region: "north", date: "2026-01-05" })))
      ?.manifest;
    expect(m?.current?.key).toBe(b.key);
    expect(m?.history.map((h) => h.key)).toEqual([same.key, a.key]);
    expect(m?.current?.inputs.points?.identity).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Both artifacts stay: write-once, never replaced.
    await expect(
      store.head(artifactKey({ dataset: "changing", region: "north", date: "2026-01-05" }, a.key as string)),
    ).resolves.toBeTruthy();
  });

  it("a backfill of an old date uses that date's pins", async () => {
    const task = pointsTask(input("pins.json", 20));
    await backfill({
      store,
      dataset: "pins",
      task,
      versions: VERSIONS,
      from: "2026-05-31",
      to: "2026-06-01",
      regions: ["south"],
      threads: 0,
    });
    const may = (await readManifest(store, manifestKey({ dataset: "pins", region: "south", date: "2026-05-31" })))
      ?.manifest.current;
    const june = (await readManifest(store, manifestKey({ dataset: "pins", region: "south", date: "2026-06-01" })))
      ?.manifest.current;
    expect(may?.pins).toEqual({ square_size: "1" });
    expect(june?.pins).toEqual({ square_size: "2" });
    expect((june?.area_m2 as number) / (may?.area_m2 as number)).toBeCloseTo(4, 1);
  });

  it("a truncated input is stopped by plausibility: nothing published, the old version stays", async () => {
    const path = input("truncate.json", 60);
    const task = pointsTask(path);
    for (const date of ["2026-02-01", "2026-02-02", "2026-02-03"])
      expect((await run(task, "north", date, "trunc")).outcome).toBe("promoted");
    writePoints(path, 20); // a third of the rows
    const before = await snapshot(store, "manifests/trunc/");
    const r = await run(task, "north", "2026-02-04", "trunc");
    expect(r.outcome).toBe("invalid");
    expect(r.message).toMatch(/10 rows vs a median of 30 over the last 3 versions/);
    expect(await snapshot(store, "manifests/trunc/")).toEqual(before);
    expect(Object.keys(await snapshot(store, "artifacts/trunc/region=north/date=2026-02-04/"))).toEqual([]);
    const forced = await refreshPartition({
      store,
      task,
      partition: { dataset: "trunc", region: "north", date: "2026-02-04" },
      versions: VERSIONS,
      overridePlausibility: true,
    });
    expect(forced.outcome).toBe("promoted");
    const m = await readManifest(store, manifestKey({ dataset: "trunc", region: "north", date: "2026-02-04" }));
    expect(m?.manifest.current?.plausibility.status).toBe("overridden");
  });

  it("an artifact without a manifest entry is reconciled; a manifest pointing at a missing artifact is reported", async () => {
    const task = pointsTask(input("reconcile.json", 30));
    const p = { dataset: "recon", region: "south", date: "2026-03-01" };
    const first = await run(task, p.region, p.date, p.dataset);
    await store.delete(manifestKey(p));
    const again = await run(task, p.region, p.date, p.dataset);
    expect(again.outcome).toBe("reconciled");
    expect(again.key).toBe(first.key);
    await store.delete(artifactKey(p, first.key as string));
    const missing = await run(task, p.region, p.date, p.dataset);
    expect(missing.outcome).toBe("failed");
    expect(missing.message).toMatch(/which is missing; nothing was changed/);
  });

  it("two concurrent runs with the same inputs: one artifact, one version", async () => {
    const task = pointsTask(input("same.json", 30), { delayMs: 30 });
    const results = await Promise.all(Array.from({ length: 4 }, () => run(task, "north", "2026-04-01", "same")));
    const outcomes = results.map((r) => r.outcome).sort();
    expect(outcomes.filter((o) => o === "promoted")).toHaveLength(1);
    expect(outcomes.every((o) => o === "promoted" || o === "superseded" || o === "unchanged")).toBe(true);
    const m = (await readManifest(store, manifestKey({ dataset: "same", region: "north", date: "2026-04-01" })))
      ?.manifest;
    expect(m?.history).toEqual([]);
    expect(Object.keys(await snapshot(store, "artifacts/same/"))).toHaveLength(1);
  });

  it("two concurrent runs with different inputs: exactly one winner, the loser superseded and changed nothing", async () => {
    const tasks = [
      pointsTask(input("diff-a.json", 30, 1), { delayMs: 30 }),
      pointsTask(input("diff-b.json", 30, 2), { delayMs: 30 }),
    ];
    const results = await Promise.all(tasks.map((t) => run(t, "north", "2026-04-02", "diff")));
    expect(results.map((r) => r.outcome).sort()).toEqual(["promoted", "superseded"]);
    const winner = results.find((r) => r.outcome === "promoted");
    const m = (await readManifest(store, manifestKey({ dataset: "diff", region: "north", date: "2026-04-02" })))
      ?.manifest;
    expect(m?.current?.sha256).toBe(winner?.sha256);
    expect(m?.history).toEqual([]);
  });

  it("a manifest handed in by a dispatcher is the one the promotion must replace: a stale one loses, changing nothing", async () => {
    const first = pointsTask(input("handed-1.json", 30));
    const partition = { dataset: "handed", region: "north", date: "2026-01-05" };
    expect((await refreshPartition({ store, task: first, partition, versions: VERSIONS })).outcome).toBe("promoted");
    const seen = await readManifest(store, manifestKey(partition));
    // Another run promotes a newer version after the dispatcher read the manifest…
    expect(
      (
        await refreshPartition({
          store,
          task: pointsTask(input("handed-2.json", 30, 3)),
          partition,
          versions: VERSIONS,
        })
      ).outcome,
    ).toBe("promoted");
    const before = await snapshot(store, "manifests/handed/");
    // …so a run started from what the dispatcher saw must not overwrite it; nor one told there was none.
    const stale = await refreshPartition(
      { store, task: pointsTask(input("handed-3.json", 30, 5)), partition, versions: VERSIONS },
      { start: seen },
    );
    expect(stale.outcome).toBe("superseded");
    const none = await refreshPartition(
      { store, task: pointsTask(input("handed-4.json", 30, 9)), partition, versions: VERSIONS },
      { start: null },
    );
    expect(none.outcome).toBe("superseded");
    expect(await snapshot(store, "manifests/handed/")).toEqual(before);
  });

  it("refuses names that could escape their prefix", async () => {
    const task = pointsTask(input("names.json", 4));
    for (const region of ["../etc", "a/b", "x\u0001"]) {
      const r = await run(task, region, "2026-01-01");
      expect(r.outcome).toBe("failed");
      expect(r.message).toMatch(/region name .* is not allowed/);
    }
  });
}

describeEachStore("refresh protocol", suite, (h) => h.capabilities.crossProcess);
