/**
 * Absence, handled with care (docs/changes.md): a partial payload is merged by key into the previous version and
 * removes only what it marks deleted; a complete payload cut to well under half is refused before anything is
 * retired, announced or recorded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import type { ManifestEntry } from "../../src/manifest/types.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { openDataset } from "../../src/views/reader.js";
import { parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";

const [D1, D2, D3] = ["2026-04-01", "2026-04-02", "2026-04-03"];
let stores = 0;
const fresh = () => new MemoryStore(`partial-${process.pid}-${stores++}`);

describe("partial and truncated payloads", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-partial-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (store: ObjectStore, task: TaskDefinition, date: string) =>
    refreshPartition({ store, task, partition: { dataset: "parcels", region: "weld", date }, versions: {} });
  const current = async (store: ObjectStore, date: string) =>
    (await readManifest(store, manifestKey({ dataset: "parcels", region: "weld", date })))?.manifest.current as
      ManifestEntry | undefined;

  it("merges a delta feed by key: upserts what it carries, deletes only what it marks, keeps the rest", async () => {
    const store = fresh();
    const task = parcelsTask(dir, { payload: "partial", name: "test-parcels-delta" });
    const base = parcels(60);
    writeFeed(dir, "weld", D1, base); // the first delta is the whole county
    writeFeed(dir, "weld", D2, [
      { ...(base[5] as (typeof base)[number]), zoning: "MU" },
      { ...(base[8] as (typeof base)[number]), deleted: true },
      { ...(base[9] as (typeof base)[number]), deleted: true },
      { parcel_id: "P-9001", zoning: "R1", owner: "new", x: -105, y: 40 },
    ]);
    writeFeed(dir, "weld", D3, []); // nothing changed upstream
    for (const date of [D1, D2, D3]) expect((await run(store, task, date)).outcome).toBe("promoted");
    const two = (await current(store, D2)) as ManifestEntry;
    expect(two.rows).toBe(60 - 2 + 1);
    expect(two.changes?.counts).toEqual({
      added: 1,
      removed: 2,
      geometry_changed: 0,
      attributes_changed: 1,
      unchanged: 57,
    });
    const ds = openDataset(store, "parcels");
    const set = await ds.changes("weld", { date: D2 });
    expect(set.changes.map((c) => `${String(c.key[0])} ${c.change}`)).toEqual([
      "P-0005 attributes_changed",
      "P-0008 removed",
      "P-0009 removed",
      "P-9001 added",
    ]);
    const { table } = await ds.read("weld", { date: D2 });
    expect(table.schema.fields.map((f) => f.name)).not.toContain("_deleted");
    const three = (await current(store, D3)) as ManifestEntry;
    expect(three.rows).toBe(59);
    expect(three.changes?.counts.unchanged).toBe(59);
    expect(three.changes?.counts.removed).toBe(0); // an empty delta retires nothing
    // The merge's other input is the previous version: the same delta on another base is another artifact.
    expect(three.key).not.toBe(two.key);
  });

  it("refuses a complete payload cut to well under half before anything is retired or announced", async () => {
    const store = fresh();
    // The row gate alone (the area gate, ±20 % by default, would refuse any cut this deep as well).
    const task = parcelsTask(dir, { events: "changes", plausibility: { areaTolerance: 10 } });
    writeFeed(dir, "weld", D1, parcels(60));
    writeFeed(dir, "weld", D2, parcels(60).slice(0, 25)); // a truncated download: 35 parcels "gone"
    expect((await run(store, task, D1)).outcome).toBe("promoted");
    const keys = async () => {
      const out: string[] = [];
      // Refusal records are bookkeeping a refused run writes for ls and show, not anything published.
      for await (const e of store.list(""))
        if (!e.key.startsWith("_") && !e.key.startsWith("refusals/")) out.push(e.key);
      return out.sort();
    };
    const before = await keys();
    const r = await run(store, task, D2);
    expect(r.outcome).toBe("invalid");
    expect(r.message).toMatch(/implausible result .*rows.*nothing was published/);
    expect(await keys()).toEqual(before); // no artifact, changelog, event or manifest for the cut payload
    expect(await current(store, D2)).toBeUndefined();
    // The gate's edge: exactly half of the median passes today's default (±50 %), and then 30 keys are removed.
    writeFeed(dir, "weld", D2, parcels(60).slice(0, 30));
    expect((await run(store, task, D2)).outcome).toBe("promoted");
    expect((await current(store, D2))?.changes?.counts.removed).toBe(30);
  });

  it("a partial task without a key, or an unknown payload kind, is refused at definition", () => {
    expect(() => parcelsTask(dir, { payload: "partial", key: undefined })).toThrow(/payload "partial" merges rows/);
    expect(() => parcelsTask(dir, { payload: "sometimes" as "partial" })).toThrow(
      /payload must be "complete" or "partial"/,
    );
    expect(() => parcelsTask(dir, { events: "changes", key: undefined })).toThrow(/events "changes" announces/);
    expect(() => parcelsTask(dir, { key: ["change"] })).toThrow(/would clash with a changelog column/);
  });
});
