/**
 * Row-level change (docs/changes.md): a keyed task's promotions each record a changelog against the previous
 * version, with exactly the keys and kinds that changed; re-runs add nothing; a correction compares with the
 * version it supersedes; broken keys are refused as a unique constraint would refuse them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import type { ManifestEntry } from "../../src/manifest/types.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import type { Parcel } from "../helpers/parcels-task.js";

let stores = 0;
const fresh = () => new MemoryStore(`changes-${process.pid}-${stores++}`);
const D1 = "2026-03-01";
const D2 = "2026-03-02";
const D3 = "2026-03-03";

async function changelogRows(store: ObjectStore, entry: ManifestEntry) {
  const body = (await store.get(entry.changes?.changelog as string)).body;
  const file = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file, compressors })) as {
    parcel_id: string;
    change: string;
    before_digest: string | null;
    after_digest: string | null;
    columns: string[];
  }[];
}

describe("changelogs of a keyed task", () => {
  let dir: string;
  let task: TaskDefinition;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-changes-"));
    task = parcelsTask(dir);
    const base = parcels(60);
    writeFeed(dir, "weld", D1, base);
    writeFeed(dir, "weld", D2, dateTwo(base));
    writeFeed(dir, "weld", D3, dateTwo(base));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (store: ObjectStore, date: string, t = task) =>
    refreshPartition({ store, task: t, partition: { dataset: "parcels", region: "weld", date }, versions: {} });
  const current = async (store: ObjectStore, date: string) =>
    (await readManifest(store, manifestKey({ dataset: "parcels", region: "weld", date })))?.manifest
      .current as ManifestEntry;

  it("records exactly the keys and kinds that changed, against the previous logical date", async () => {
    const store = fresh();
    const results = [];
    for (const date of [D1, D2, D3]) results.push(await run(store, date));
    expect(results.map((r) => r.outcome)).toEqual(["promoted", "promoted", "promoted"]);
    expect(results[1]?.message).toContain(
      "61 rows; 3 added, 2 removed, 4 geometry changed, 5 attributes changed, 50 unchanged",
    );
    const first = await current(store, D1);
    expect(first.changes?.against).toBeNull();
    expect(first.changes?.counts).toEqual({
      added: 60,
      removed: 0,
      geometry_changed: 0,
      attributes_changed: 0,
      unchanged: 0,
    });
    expect((await changelogRows(store, first)).every((r) => r.change === "added" && r.before_digest === null)).toBe(
      true,
    );

    const second = await current(store, D2);
    expect(second.changes?.against).toEqual({ logical_date: D1, sha256: first.sha256 });
    expect(second.changes?.counts).toEqual({
      added: 3,
      removed: 2,
      geometry_changed: 4,
      attributes_changed: 5,
      unchanged: 60 - 2 - 8,
    });
    const rows = await changelogRows(store, second);
    expect(rows.map((r) => [r.parcel_id, r.change, r.columns])).toEqual([
      ["P-0001", "removed", []],
      ["P-0002", "removed", []],
      ["P-0010", "geometry_changed", ["geometry"]],
      ["P-0010", "attributes_changed", ["owner"]],
      ["P-0011", "geometry_changed", ["geometry"]],
      ["P-0012", "geometry_changed", ["geometry"]],
      ["P-0013", "geometry_changed", ["geometry"]],
      ["P-0020", "attributes_changed", ["zoning"]],
      ["P-0021", "attributes_changed", ["zoning"]],
      ["P-0022", "attributes_changed", ["zoning"]],
      ["P-0023", "attributes_changed", ["zoning"]],
      ["P-9001", "added", []],
      ["P-9002", "added", []],
      ["P-9003", "added", []],
    ]);
    // Digests: the before of a change is what the previous version's changelog called its after.
    const firstRows = new Map((await changelogRows(store, first)).map((r) => [r.parcel_id, r.after_digest]));
    for (const r of rows.filter((r) => r.change !== "added"))
      expect(r.before_digest, r.parcel_id).toBe(firstRows.get(r.parcel_id));
    for (const r of rows) expect(r.before_digest === r.after_digest, r.parcel_id).toBe(false);

    // Date 3 holds the same rows as date 2: nothing changed, all counted.
    const third = await current(store, D3);
    expect(third.changes?.counts).toEqual({
      added: 0,
      removed: 0,
      geometry_changed: 0,
      attributes_changed: 0,
      unchanged: 61,
    });
    expect(await changelogRows(store, third)).toEqual([]);

    // A second run of everything changes nothing anywhere.
    const keys = async () => {
      const out: string[] = [];
      for await (const e of store.list("")) out.push(`${e.key} ${e.version}`);
      return out;
    };
    const before = await keys();
    for (const date of [D1, D2, D3]) expect((await run(store, date)).outcome).toBe("unchanged");
    expect(await keys()).toEqual(before);
  });

  it("writes byte-identical changelogs when everything is run again in another store", async () => {
    const [a, b] = [fresh(), fresh()];
    for (const store of [a, b]) for (const date of [D1, D2]) await run(store, date);
    const [ea, eb] = [await current(a, D2), await current(b, D2)];
    expect(eb.changes?.changelog).toBe(ea.changes?.changelog);
    expect(Buffer.compare((await a.get(ea.changes!.changelog)).body, (await b.get(eb.changes!.changelog)).body)).toBe(
      0,
    );
    expect(eb.sha256).toBe(ea.sha256);
  });

  it("compares a correction with the version it supersedes", async () => {
    const store = fresh();
    for (const date of [D1, D2]) await run(store, date);
    const original = await current(store, D2);
    // The correction of date 2 takes back P-0020's rezoning.
    const feed = dateTwo(parcels(60)).map((p) => (p.parcel_id === "P-0020" ? { ...p, zoning: "R1" } : p));
    writeFeed(dir, "weld", "2026-03-02", feed);
    try {
      const t = parcelsTask(dir, { version: "1" });
      expect((await run(store, D2, t)).outcome).toBe("promoted");
      const corrected = await current(store, D2);
      expect(corrected.changes?.against).toEqual({ logical_date: D2, sha256: original.sha256 });
      expect((await changelogRows(store, corrected)).map((r) => [r.parcel_id, r.change, r.columns])).toEqual([
        ["P-0020", "attributes_changed", ["zoning"]],
      ]);
    } finally {
      writeFeed(dir, "weld", D2, dateTwo(parcels(60)));
    }
  });

  it("refuses duplicate and null keys as a unique constraint would, naming the key and the rows", async () => {
    const store = fresh();
    const base = parcels(30);
    writeFeed(dir, "larimer", D1, [...base, { ...(base[7] as Parcel), x: -104 }]);
    const dup = await refreshPartition({
      store,
      task,
      partition: { dataset: "parcels", region: "larimer", date: D1 },
      versions: {},
    });
    expect(dup.outcome).toBe("invalid");
    expect(dup.message).toMatch(/duplicate key parcel_id = \["P-0007"\] in rows \d+ and \d+/);
    writeFeed(dir, "larimer", D1, [...base, { ...(base[3] as Parcel), parcel_id: null, x: -104 }]);
    const nul = await refreshPartition({
      store,
      task,
      partition: { dataset: "parcels", region: "larimer", date: D1 },
      versions: {},
    });
    expect(nul.outcome).toBe("invalid");
    expect(nul.message).toMatch(/1 row has a null key parcel_id \(row \d+\)/);
    const all: string[] = [];
    for await (const e of store.list("")) all.push(e.key);
    // Nothing published; the refusal is recorded for ls and show.
    expect(all.filter((k) => !k.startsWith("_probe"))).toEqual([
      "refusals/parcels/region=larimer/date=2026-03-01.json",
    ]);
  });
});
