/**
 * gc against runs, in chosen interleavings and in a randomized soak: whatever the order, every manifest entry's
 * artifact exists with its sha256 and every promoted change's event exists (docs/gc.md).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { condemn } from "../../src/manifest/condemn.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { outboxId, outboxKey } from "../../src/manifest/outbox.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { collectGarbage, GcFloorError } from "../../src/gc/gc.js";
import type { GcOptions } from "../../src/gc/gc.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import type { ObjectStore } from "../../src/store/types.js";
import { GatedStore } from "../helpers/gated-store.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const LATER = () => new Date(Date.now() + 2 * 86_400_000);
const GC: GcOptions = { olderThanMs: 86_400_000, apply: true, artifacts: { keep: 0 } };

/** Every manifest's entries point at artifacts holding their sha256, and each entry's change has its event. */
async function assertNothingLost(store: ObjectStore, dataset: string): Promise<number> {
  let entries = 0;
  for await (const e of store.list(`manifests/${dataset}/`)) {
    const found = await readManifest(store, e.key);
    for (const entry of [found?.manifest.current, ...(found?.manifest.history ?? [])]) {
      if (!entry) continue;
      entries++;
      const body = (await store.get(entry.artifact)).body;
      expect(createHash("sha256").update(body).digest("hex"), entry.artifact).toBe(entry.sha256);
      const m = found?.manifest.partition;
      const event = outboxKey(dataset, outboxId(dataset, m?.region as string, m?.logical_date as string, entry.sha256));
      expect(await store.exists(event), `event of ${entry.artifact}`).toBe(true);
    }
  }
  return entries;
}

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let dir: string;
  let input: string;
  let n = 0;
  beforeAll(async () => {
    fx = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-gcrace-"));
    input = join(dir, "in.json");
    writePoints(input, 24);
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh dataset with one partition whose first run crashed just before promoting: an orphan artifact and event. */
  async function orphaned() {
    const dataset = `race${n++}`;
    const partition = { dataset, region: "north", date: "2026-01-01" };
    const task = pointsTask(input);
    const crashing = new GatedStore(fx.store);
    crashing.kill((op, key) => op === "put" && key === manifestKey(partition));
    expect((await refreshPartition({ store: crashing, task, partition, versions: VERSIONS })).outcome).toBe("failed");
    const artifacts: string[] = [];
    for await (const e of fx.store.list(`artifacts/${dataset}/`)) artifacts.push(e.key);
    expect(artifacts).toHaveLength(1);
    expect(await fx.store.exists(manifestKey(partition))).toBe(false);
    return { dataset, partition, task, orphan: artifacts[0] as string };
  }

  it("a re-run that reconciles an orphan while gc deletes it ends with its artifact and event in place", async () => {
    const { dataset, partition, task, orphan } = await orphaned();
    const run = new GatedStore(fx.store);
    const atPromote = run.hold((op, key) => op === "put" && key === manifestKey(partition));
    const rerun = refreshPartition({ store: run, task, partition, versions: VERSIONS });
    await atPromote.reachedBy(rerun); // the run has checked and validated the orphan, and is about to promote it
    const report = await collectGarbage(fx.store, { ...GC, now: LATER() });
    expect(report.artifacts).toEqual([orphan]); // gc did delete it: nothing referenced it yet
    expect(await fx.store.exists(orphan)).toBe(false);
    atPromote.release();
    const r = await rerun;
    expect(r.outcome).toBe("reconciled");
    expect((await readManifest(fx.store, manifestKey(partition)))?.manifest.current?.artifact).toBe(orphan);
    expect(await assertNothingLost(fx.store, dataset)).toBe(1);
  });

  it("gc stopped between its scan and its deletes spares what a run promoted meanwhile", async () => {
    const { dataset, partition, task, orphan } = await orphaned();
    const gcStore = new GatedStore(fx.store);
    const atCondemn = gcStore.hold((op, key) => op === "put" && key === manifestKey(partition));
    const gc = collectGarbage(gcStore, { ...GC, now: LATER() });
    await atCondemn.reachedBy(gc); // gc has found the orphan unreferenced and is about to act on it
    expect((await refreshPartition({ store: fx.store, task, partition, versions: VERSIONS })).outcome).toBe(
      "reconciled",
    );
    atCondemn.release();
    const report = await gc;
    expect(report.artifacts).toEqual([]);
    expect(report.spared.map((s) => s.key)).toContain(orphan);
    expect(await assertNothingLost(fx.store, dataset)).toBe(1);
  });

  it("a run that arrives while gc is deleting waits for it, then restores what it needs", async () => {
    const { dataset, partition, task, orphan } = await orphaned();
    const gcStore = new GatedStore(fx.store);
    const atDelete = gcStore.hold((op, key) => op === "delete" && key === orphan);
    const gc = collectGarbage(gcStore, { ...GC, now: LATER() });
    await atDelete.reachedBy(gc); // the condemnation is in the manifest; the delete is about to land
    let settled = false;
    const rerun = refreshPartition({ store: fx.store, task, partition, versions: VERSIONS }).finally(
      () => (settled = true),
    );
    await new Promise((r) => setTimeout(r, 700));
    expect(settled).toBe(false); // it does not promote on top of a live condemnation of its artifact
    atDelete.release();
    expect((await gc).artifacts).toEqual([orphan]);
    expect(["reconciled", "promoted"]).toContain((await rerun).outcome);
    expect(await assertNothingLost(fx.store, dataset)).toBe(1);
    expect((await readManifest(fx.store, manifestKey(partition)))?.manifest.gc ?? null).toBeNull();
  });

  it("a gc that died after condemning holds a run off only until its lease ends", async () => {
    const { dataset, partition, task, orphan } = await orphaned();
    await condemn(fx.store, manifestKey(partition), partition, undefined, {
      by: "gc-dead",
      until: new Date(Date.now() + 1500).toISOString(),
      keys: [orphan],
    });
    const t0 = Date.now();
    expect((await refreshPartition({ store: fx.store, task, partition, versions: VERSIONS })).outcome).toBe(
      "reconciled",
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect((await readManifest(fx.store, manifestKey(partition)))?.manifest.gc ?? null).toBeNull();
    expect(await assertNothingLost(fx.store, dataset)).toBe(1);
  });

  it("refuses a floor below 1h unless told, and with --override-floor still loses nothing (soak: gc in a loop beside backfills)", async () => {
    await expect(collectGarbage(fx.store, { olderThanMs: 0, apply: true })).rejects.toBeInstanceOf(GcFloorError);
    const dataset = `soak${n++}`;
    const regions = ["north", "south"];
    const opts = { dataset, versions: VERSIONS, from: "2026-01-01", to: "2026-01-06", concurrency: 2, workers: 0 };
    let gcRounds = 0;
    let deleted = 0;
    const rounds = [24, 26, 28, 30];
    for (const [round, points] of rounds.entries()) {
      writePoints(input, points, round);
      const task = pointsTask(input, { regions });
      // Orphans for gc to chase, left by runs that crashed just before promoting: some of this round's keys
      // (the backfill reconciles them, racing gc) and some of an input the backfill never sees (pure orphans).
      const stray = join(dir, `stray${round}.json`);
      writePoints(stray, points + 2, round + 7);
      for (const [i, date] of [
        "2026-01-01",
        "2026-01-02",
        "2026-01-03",
        "2026-01-04",
        "2026-01-05",
        "2026-01-06",
      ].entries()) {
        const crashing = new GatedStore(fx.store);
        const partition = { dataset, region: regions[i % 2] as string, date };
        crashing.kill((op, key) => op === "put" && key === manifestKey(partition));
        await refreshPartition({
          store: crashing,
          task: i % 3 === 0 ? pointsTask(stray, { regions }) : task,
          partition,
          versions: VERSIONS,
        });
      }
      let done = false;
      const loop = (async () => {
        while (!done) {
          const r = await collectGarbage(new GatedStore(fx.store, 3), {
            olderThanMs: 0,
            overrideFloor: true,
            apply: true,
            artifacts: { keep: 0 },
            leaseMs: 5_000,
          });
          deleted += r.artifacts.length + r.outbox.length;
          gcRounds++;
          // A breath between rounds: a gc spinning with no pause starved the runs of a loaded Azurite (a soak
          // of 9 s alone took over 60 s in a full suite); one round per few runs still races every run.
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      const summary = await backfill({ ...opts, store: new GatedStore(fx.store, 3), task }).finally(
        () => (done = true),
      );
      await loop;
      expect(
        summary.results
          .filter((r) => !["promoted", "reconciled", "unchanged"].includes(r.outcome))
          .map((r) => r.message),
      ).toEqual([]);
      expect(summary.counts.promoted + summary.counts.reconciled).toBe(12);
    }
    expect(gcRounds).toBeGreaterThanOrEqual(rounds.length); // at least one gc beside every backfill
    // Every round's version (current and history) of all 12 partitions is intact, with its event.
    expect(await assertNothingLost(fx.store, dataset)).toBe(12 * rounds.length);
    // gc did real work beside the runs: the orphans of the crashed runs that were superseded were deleted.
    const after = await collectGarbage(fx.store, {
      olderThanMs: 0,
      overrideFloor: true,
      apply: true,
      artifacts: { keep: 0 },
    });
    expect(deleted + after.artifacts.length + after.outbox.length).toBeGreaterThan(0);
    expect(await assertNothingLost(fx.store, dataset)).toBe(12 * rounds.length);
  }, 180_000);
}

describeEachStore("gc beside runs", suite, (h) => h.capabilities.crossProcess);
