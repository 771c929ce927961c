/**
 * Dataset snapshots and time travel (docs/snapshots.md): what backfill commits, committers racing, a reader that
 * keeps one consistent view while a refresh rewrites every partition, `--as-of` from manifest history, and gc
 * keeping what the latest snapshot's readers hold.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeManifest, readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { encodeSnapshot, pointerKey, readPointer, readSnapshot, snapshotPrefix } from "../../src/manifest/snapshot.js";
import { HISTORY_LIMIT } from "../../src/manifest/types.js";
import type { Manifest, ManifestEntry } from "../../src/manifest/types.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { collectGarbage } from "../../src/gc/gc.js";
import { openDataset } from "../../src/views/reader.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { commitSnapshot, recordOf } from "../../src/manifest/snapshot-commit.js";
import { entryAsOf, HistoryTooShortError } from "../../src/views/dataset-view.js";
import { sha256Hex } from "../../src/store/digest.js";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";

const DAY = 86_400_000;

/** The snapshot of dataset "s" built straight from its manifests as they are now. */
async function expectedSnapshot(store: ObjectStore): Promise<{ id: string }> {
  const view = await openDataset(store, "s").current();
  return encodeSnapshot(
    "s",
    view.partitions.map((p) => recordOf(p, p.entry as ManifestEntry)),
  );
}
const WORKER = fileURLToPath(new URL("../helpers/commit-worker.ts", import.meta.url));

describe("dataset snapshots", () => {
  let dir: string;
  let store: MemoryStore;
  const task = (version = "1") => pointsTask(join(dir, "points.json"), { version });
  const run = (version = "1", extra: object = {}) =>
    backfill({
      store,
      dataset: "s",
      task: task(version),
      versions: VERSIONS,
      from: "2026-02-01",
      to: "2026-02-06",
      threads: 0,
      ...extra,
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-snapshots-"));
    writePoints(join(dir, "points.json"), 16);
    store = new MemoryStore(`snapshots-${process.pid}`);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    MemoryStore.reset(`snapshots-${process.pid}`);
  });

  it("a finished backfill commits one: every current partition, checksums true to the artifacts; a sharded one leaves it to finalize", async () => {
    const sharded = await run("1", { shard: { index: 0, count: 2 } });
    expect(sharded.snapshot).toEqual({ skipped: "a shard of a backfill: finalize commits the snapshot" });
    expect(await readPointer(store, "s")).toBeUndefined();

    const first = await run();
    expect(first.snapshot).toMatchObject({ partitions: 12, moved: true });
    const at = await readPointer(store, "s");
    const snap = await readSnapshot(store, "s", at?.pointer.snapshot as string);
    expect(snap.partitions).toHaveLength(12);
    for (const p of snap.partitions) {
      const m = (await readManifest(store, manifestKey({ dataset: "s", region: p.region, date: p.date })))?.manifest;
      expect(p.key).toBe(m?.current?.key);
      expect(sha256Hex((await store.get(p.artifact)).body)).toBe(p.sha256);
      expect(p.bbox_lonlat?.[1]).toBeGreaterThanOrEqual(p.region === "north" ? 40 : 29);
    }
    // Tampering with a snapshot is caught by its content id.
    const key = `${snapshotPrefix("s")}${at?.pointer.snapshot}.json`;
    const body = (await store.get(key)).body;
    await store.put(key, new TextEncoder().encode(new TextDecoder().decode(body).replace('"rows":8', '"rows":9')));
    await expect(readSnapshot(store, "s", at?.pointer.snapshot as string)).rejects.toThrow(/does not hash to its id/);
    await store.put(key, body);
  });

  it("an unreadable pointer is refused by readers with what to do, and the next commit replaces it", async () => {
    const good = (await readPointer(store, "s"))?.pointer.snapshot;
    await store.put(pointerKey("s"), new TextEncoder().encode('{"format":"something else"}'));
    await expect(openDataset(store, "s").snapshot("latest")).rejects.toThrow(
      /latest\.json is not a snapshot pointer of s; delete it and the next backfill or finalize commits a new one/,
    );
    expect(await commitSnapshot(store, "s")).toMatchObject({ id: good, moved: true });
    expect((await openDataset(store, "s").snapshot("latest")).source).toBe(`snapshot ${good}`);
  });

  it("committers racing a refresher never interleave: the pointer ends on exactly the dataset as it is", async () => {
    let moves = 0;
    let refreshing = true;
    const committer = async () => {
      while (refreshing) {
        if ((await commitSnapshot(store, "s")).moved) moves++;
        await new Promise((r) => setImmediate(r));
      }
    };
    const refresher = async () => {
      for (const date of ["2026-02-01", "2026-02-02", "2026-02-03"])
        await refreshPartition({
          store,
          task: task("2"),
          partition: { dataset: "s", region: "north", date },
          versions: VERSIONS,
        });
      refreshing = false;
    };
    await Promise.all([committer(), committer(), committer(), refresher()]);
    const final = await commitSnapshot(store, "s");
    const expected = await expectedSnapshot(store);
    expect(final.id).toBe(expected.id);
    expect((await readPointer(store, "s"))?.pointer.snapshot).toBe(expected.id);
    expect(moves).toBeGreaterThanOrEqual(1);
    // Every snapshot any committer wrote is whole and true to its id.
    for await (const e of store.list(snapshotPrefix("s")))
      if (e.key !== pointerKey("s")) await readSnapshot(store, "s", e.key.slice(-21, -5));
  });

  it("a reader of the latest snapshot sees one consistent set of artifacts while a refresh rewrites every partition", async () => {
    const ds = openDataset(store, "s");
    const before = await ds.snapshot("latest");
    const seen: { source: string; shas: string[] }[] = [];
    let refreshing = true;
    const reader = async () => {
      while (refreshing) {
        const view = await ds.snapshot("latest");
        const shas = await Promise.all(view.partitions.map(async (p) => sha256Hex(await view.bytes(p))));
        seen.push({ source: view.source, shas: shas.sort() });
        await new Promise((r) => setImmediate(r)); // the memory store never yields by itself: let the refresh run
      }
    };
    const refresh = run("3", { concurrency: 1 }).finally(() => (refreshing = false));
    const [summary] = await Promise.all([refresh, reader(), reader()]);
    expect(summary.counts.rekeyed).toBe(12); // a new code version, the same rows
    const after = await ds.snapshot("latest");
    const sets = new Map(
      [before, after].map((v) => [v.source, v.partitions.map((p) => p.entry.sha256).sort()] as const),
    );
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const s of seen) expect(s.shas).toEqual(sets.get(s.source)); // never a mix of two states
    expect(seen.some((s) => s.source === before.source)).toBe(true);
    expect(before.source).not.toBe(after.source);
  });

  it("--as-of answers from manifest history; before anything was promoted it is empty", async () => {
    const ds = openDataset(store, "s");
    const mid = new Date();
    await new Promise((r) => setTimeout(r, 5));
    await run("4");
    const then = await ds.asOf(mid);
    const now = await ds.current();
    const keys = (v: typeof now) => v.select().map((p) => `${p.region}/${p.date}/${p.entry.key}`);
    expect(keys(then)).toHaveLength(12);
    expect(keys(then).filter((k) => keys(now).includes(k))).toEqual([]); // every partition moved on since
    expect(keys(await ds.snapshot("latest"))).toEqual(keys(now));
    expect((await ds.asOf(new Date("2020-01-01T00:00:00Z"))).partitions).toHaveLength(0);
    // An artifact from then is still readable, and checked.
    const p = then.find("north", { date: "2026-02-02" });
    expect(sha256Hex(await then.bytes(p))).toBe(p.entry.sha256);
  });

  it("says so when history no longer reaches that far, and honours when a partition was retired", async () => {
    const m = (await readManifest(store, manifestKey({ dataset: "s", region: "north", date: "2026-02-01" })))
      ?.manifest as Manifest;
    const entry = m.current as ManifestEntry;
    const at = (iso: string) => ({ ...entry, promoted_at: iso });
    const full: Manifest = {
      ...m,
      current: at("2026-11-30T00:00:00Z"),
      history: Array.from({ length: HISTORY_LIMIT }, (_, i) =>
        at(new Date(Date.parse("2026-11-29T00:00:00Z") - i * 3_600_000).toISOString()),
      ),
    };
    expect(() => entryAsOf(full, new Date("2026-10-01T00:00:00Z"), "m.json")).toThrow(HistoryTooShortError);
    expect(() => entryAsOf(full, new Date("2026-10-01T00:00:00Z"), "m.json")).toThrow(
      /reaches back only to 2026-11-26T23:00:00.000Z/,
    );
    const young: Manifest = { ...full, history: full.history.slice(0, 3) };
    expect(entryAsOf(young, new Date("2026-10-01T00:00:00Z"), "m.json")).toBeUndefined(); // it did not exist then
    const retired: Manifest = {
      ...young,
      retired: { run_id: "r", reason: "gone", logical_date: m.partition.logical_date, at: "2026-11-30T12:00:00Z" },
    };
    expect(entryAsOf(retired, new Date("2026-11-30T06:00:00Z"), "m.json")?.promoted_at).toBe("2026-11-30T00:00:00Z");
    expect(entryAsOf(retired, new Date("2026-11-30T13:00:00Z"), "m.json")).toBeUndefined();
  });

  it("gc keeps an artifact only the latest snapshot still names", async () => {
    const key = manifestKey({ dataset: "s", region: "south", date: "2026-02-06" });
    const held = (
      await readSnapshot(store, "s", (await readPointer(store, "s"))?.pointer.snapshot as string)
    ).partitions.find((p) => p.region === "south" && p.date === "2026-02-06");
    // The manifest moves on and forgets its history: only the snapshot still names the artifact.
    await refreshPartition({
      store,
      task: task("5"),
      partition: { dataset: "s", region: "south", date: "2026-02-06" },
      versions: VERSIONS,
    });
    const found = await readManifest(store, key);
    await store.put(key, encodeManifest({ ...(found?.manifest as Manifest), history: [] }, key), {
      mode: { update: found?.version as string },
    });
    const later = new Date(Date.now() + 2 * DAY);
    const r = await collectGarbage(store, { olderThanMs: DAY, now: later, apply: true, artifacts: { keep: 0 } });
    expect(r.artifacts.length).toBeGreaterThan(0); // gc did collect: older versions no one names
    expect(r.artifacts).not.toContain(held?.artifact);
    expect(await store.exists(held?.artifact as string)).toBe(true);
    // Once a newer snapshot no longer names it, it goes.
    await commitSnapshot(store, "s");
    const r2 = await collectGarbage(store, { olderThanMs: DAY, now: later, apply: true, artifacts: { keep: 0 } });
    expect(r2.artifacts).toContain(held?.artifact);
  });

  it("committers in separate processes racing a refresher on the filesystem never interleave either", async () => {
    const root = join(dir, "fs-store");
    const fsStore = new FsStore(root);
    const fsRun = (version: string) =>
      backfill({
        store: fsStore,
        dataset: "s",
        task: task(version),
        versions: VERSIONS,
        from: "2026-02-01",
        to: "2026-02-04",
        threads: 0,
      });
    await fsRun("1");
    const workers = [0, 1, 2].map(() =>
      spawn(process.execPath, ["--import", "tsx", WORKER, root, "s"], { stdio: ["pipe", "pipe", "inherit"] }),
    );
    const lines = workers.map((w) =>
      createInterface({ input: w.stdout as NonNullable<typeof w.stdout> })[Symbol.asyncIterator](),
    );
    for (const l of lines) expect(JSON.parse((await l.next()).value as string)).toEqual({ ready: true });
    for (const version of ["2", "3"]) expect((await fsRun(version)).counts.rekeyed).toBe(8);
    for (const w of workers) w.stdin?.write("stop\n");
    const done = await Promise.all(
      lines.map(async (l) => JSON.parse((await l.next()).value as string) as { moved: number; attempts: number }),
    );
    expect(done.reduce((n, d) => n + d.attempts, 0)).toBeGreaterThan(3);
    expect(done.reduce((n, d) => n + d.moved, 0)).toBeGreaterThanOrEqual(1); // they did commit during the refreshes
    const final = await commitSnapshot(fsStore, "s");
    const expected = await expectedSnapshot(fsStore);
    expect(final.id).toBe(expected.id);
    expect((await readPointer(fsStore, "s"))?.pointer.snapshot).toBe(expected.id);
    for await (const e of fsStore.list(snapshotPrefix("s")))
      if (e.key !== pointerKey("s")) await readSnapshot(fsStore, "s", e.key.slice(-21, -5));
  }, 60_000);
});
