/**
 * The sink conformance suite (Go CDK's drivertest shape): every kind of sink runs the same tests through its
 * harness. Whatever the database, a sink twice gives the same whole table (each row's write version included); a
 * change writes exactly the changed rows; a changelog's delta gives what the whole comparison gives; absent keys
 * are retired and come back un-retired; a partial payload retires nothing; a region gone is retired; a dataset
 * without a key is replaced per partition, the others untouched; a column whose type changed is refused, the
 * table left as it was; two sinks at once equal one; kill -9 at random moments leaves the old table or the whole
 * new one, and the re-run ends where a clean sink ends.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { sinkDataset } from "../../src/sinks/run-sink.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { DatasetView, openDataset } from "../../src/views/reader.js";
import { runCli, spawnCli } from "../helpers/cli.js";
import { parcelsProject } from "../helpers/parcels-project.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import type { Parcel } from "../helpers/parcels-task.js";

/** A table's row as the suite compares it: every column, values as text, and `version`, which any write changes. */
export type SinkRow = Record<string, string | null>;

export interface SinkHarness {
  /** A `--to` of its own for `name` (a schema, a file), empty. */
  target(name: string): string;
  /**
   * The table's rows in (region, parcel_id, valid_from) order, every column as text (geometry as hex), plus
   * `version`: the row's write version (PostgreSQL's xmin; for SQLite, its rowid and how many UPDATEs it has
   * had). Empty when the table does not exist.
   */
  rows(to: string, table: string): Promise<SinkRow[]>;
  /** Resolves once a sink process writing into `to` is inside its transaction (or has exited). */
  inTransaction(to: string, child: ChildProcess): Promise<void>;
  cleanup(): Promise<void>;
}

const [D1, D2, D3] = ["2026-03-01", "2026-03-02", "2026-03-03"];
/** Rows per region in the process tests: enough that a kill lands inside the load. */
const N = 8000;
let stores = 0;

const withoutVersion = (rows: SinkRow[]) => rows.map(({ version, ...r }) => r);

export function describeSinkConformance(kind: string, harness: () => SinkHarness): void {
  describe(`sink conformance: ${kind}`, () => {
    let dir: string;
    let h: SinkHarness;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), `georefresh-conformance-${kind}-`));
      h = harness();
    });
    afterAll(async () => {
      await h.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    async function promote(store: ObjectStore, task: TaskDefinition, region: string, date: string, rows: Parcel[]) {
      writeFeed(dir, region, date, rows);
      const r = await refreshPartition({ store, task, partition: { dataset: task.name, region, date }, versions: {} });
      expect(r.outcome, r.message).toBe("promoted");
    }
    const view = async (store: ObjectStore, dataset: string, date = "9999-12-31") => {
      const v = await openDataset(store, dataset).current();
      return new DatasetView(
        v.store,
        v.dataset,
        "current",
        v.partitions.filter((p) => p.date <= date),
      );
    };

    it("twice is the same whole table; a change writes exactly the changed rows; a key comes back un-retired; a delta equals the whole comparison", async () => {
      const store = new MemoryStore(`conformance-${kind}-${process.pid}-${stores++}`);
      const task = parcelsTask(dir, { name: "conf-parcels" });
      for (const region of ["weld", "larimer"]) await promote(store, task, region, D1, parcels(60));
      const to = h.target("lifecycle");
      const sink = async (table = "parcels", date?: string) =>
        sinkDataset({ view: await view(store, task.name, date), key: ["parcel_id"], to, table });

      const first = await sink();
      expect(first.partitions).toEqual({ applied: 2, unchanged: 0, gone: 0 });
      expect(first.rows).toEqual({ inserted: 120, updated: 0, unchanged: 0, retired: 0, deleted: 0 });
      const a = await h.rows(to, "parcels");
      expect(a).toHaveLength(120);
      const again = await sink();
      expect(again.partitions).toEqual({ applied: 0, unchanged: 2, gone: 0 });
      expect(await h.rows(to, "parcels")).toEqual(a);

      // Weld's next date: 3 added, 2 removed, 4 moved, 5 edited (P-0010 both): 13 rows change, 107 stay as they were.
      await promote(store, task, "weld", D2, dateTwo(parcels(60)));
      const second = await sink();
      expect(second.rows).toEqual({ inserted: 3, updated: 8, unchanged: 50 + 60, retired: 2, deleted: 0 });
      expect(second.applied.map((x) => x.delta)).toEqual([true]);
      const b = await h.rows(to, "parcels");
      const before = new Map(a.map((r) => [`${r.region}/${r.parcel_id}`, r]));
      const written = b.filter((r) => before.get(`${r.region}/${r.parcel_id}`)?.version !== r.version);
      expect(written).toHaveLength(13);
      expect(written.every((r) => r.region === "weld")).toBe(true);
      for (const r of b.filter((x) => !written.includes(x)))
        expect(r).toEqual(before.get(`${r.region}/${r.parcel_id}`));
      const weld = new Map(b.filter((r) => r.region === "weld").map((r) => [r.parcel_id, r]));
      expect(weld.get("P-0001")).toMatchObject({ retired_at: D2, retired_by: second.run, valid_from: D1 });
      expect(weld.get("P-0020")).toMatchObject({ zoning: "MU", valid_from: D2, sink_run: second.run });
      expect(weld.get("P-0030")).toMatchObject({ valid_from: D1, sink_run: first.run });

      // The same dates through the whole comparison (the changelog gone from the store) give the same table.
      await sink("parcels_full", D1);
      const d2 = (await openDataset(store, task.name).manifest("weld", { date: D2 })).current;
      const changelog = d2?.changes?.changelog as string;
      const kept = (await store.get(changelog)).body;
      await store.delete(changelog);
      const full = await sink("parcels_full", D2);
      expect(full.applied.map((x) => x.delta)).toEqual([false]);
      expect(full.rows).toEqual(second.rows);
      const provenance = (rows: SinkRow[]) => withoutVersion(rows).map(({ sink_run, retired_by, ...r }) => r);
      expect(provenance(await h.rows(to, "parcels_full"))).toEqual(provenance(b));
      await store.put(changelog, kept);

      // Date 3 brings P-0001 back as it was: un-retired, with date 3's provenance.
      await promote(store, task, "weld", D3, [...dateTwo(parcels(60)), parcels(60)[1] as Parcel]);
      expect((await sink()).rows).toMatchObject({ inserted: 0, updated: 1, retired: 0 });
      const c = await h.rows(to, "parcels");
      expect(c.find((r) => r.region === "weld" && r.parcel_id === "P-0001")).toMatchObject({
        retired_at: null,
        retired_by: null,
        valid_from: D3,
      });
    });

    it("a partial payload retires nothing it does not name; a region gone from the view is retired, not deleted", async () => {
      const store = new MemoryStore(`conformance-${kind}-${process.pid}-${stores++}`);
      const task = parcelsTask(dir, { name: "conf-partial", payload: "partial" });
      await promote(store, task, "weld", D1, parcels(20));
      await promote(store, task, "larimer", D1, parcels(5));
      const to = h.target("partial");
      await sinkDataset({ view: await view(store, task.name), key: ["parcel_id"], to, table: "partial" });
      const base = parcels(20);
      await promote(store, task, "weld", D2, [
        { ...(base[3] as Parcel), zoning: "MU" },
        { ...(base[4] as Parcel), deleted: true },
      ]);
      const r = await sinkDataset({ view: await view(store, task.name), key: ["parcel_id"], to, table: "partial" });
      expect(r.rows).toEqual({ inserted: 0, updated: 1, unchanged: 18 + 5, retired: 1, deleted: 0 });
      const rows = await h.rows(to, "partial");
      expect(rows.filter((x) => x.region === "weld" && x.retired_at !== null).map((x) => x.parcel_id)).toEqual([
        "P-0004",
      ]);
      const v = await view(store, task.name);
      const without = new DatasetView(
        v.store,
        v.dataset,
        "current",
        v.partitions.filter((p) => p.region !== "larimer"),
      );
      const gone = await sinkDataset({ view: without, key: ["parcel_id"], to, table: "partial" });
      expect(gone.partitions).toEqual({ applied: 0, unchanged: 1, gone: 1 });
      expect(gone.rows.retired).toBe(5);
      const after = await h.rows(to, "partial");
      expect(after).toHaveLength(25);
      expect(after.filter((x) => x.region === "larimer").every((x) => x.retired_at === D2)).toBe(true);
    });

    it("a dataset without a key is replaced per partition, the other partitions' rows untouched", async () => {
      const store = new MemoryStore(`conformance-${kind}-${process.pid}-${stores++}`);
      const task = parcelsTask(dir, { name: "conf-unkeyed", key: undefined });
      await promote(store, task, "weld", D1, parcels(30));
      await promote(store, task, "weld", D2, parcels(30));
      await promote(store, task, "larimer", D1, parcels(10));
      const to = h.target("unkeyed");
      const sink = async () => sinkDataset({ view: await view(store, task.name), key: [], to, table: "unkeyed" });
      expect((await sink()).rows.inserted).toBe(70);
      const a = await h.rows(to, "unkeyed");
      await promote(store, task, "weld", D2, dateTwo(parcels(30)));
      const second = await sink();
      expect(second.partitions).toEqual({ applied: 1, unchanged: 2, gone: 0 });
      expect(second.rows).toMatchObject({ inserted: 31, deleted: 30 }); // 30 - 2 removed + 3 added
      const b = await h.rows(to, "unkeyed");
      const others = (rows: SinkRow[]) => rows.filter((r) => !(r.region === "weld" && r.valid_from === D2));
      expect(others(b)).toEqual(others(a));
      expect(b.filter((r) => r.region === "weld" && r.valid_from === D2)).toHaveLength(31);
    });

    it("refuses a column whose type changed, saying which, and leaves the table as it was", async () => {
      const store = new MemoryStore(`conformance-${kind}-${process.pid}-${stores++}`);
      const text = parcelsTask(dir, { name: "conf-typed" });
      await promote(store, text, "weld", D1, parcels(10));
      const to = h.target("typed");
      await sinkDataset({ view: await view(store, text.name), key: ["parcel_id"], to, table: "typed" });
      const before = await h.rows(to, "typed");
      // The same table, from a dataset whose zoning is a number.
      const numeric = parcelsTask(dir, {
        name: "conf-typed-int",
        columns: [
          { name: "parcel_id", type: "string" },
          { name: "zoning", type: "int32" },
          { name: "owner", type: "string" },
        ],
        compute: async () =>
          parcels(10).map((p, i) => ({
            geometry: { type: "Point" as const, coordinates: [p.x, p.y] },
            properties: { parcel_id: p.parcel_id, zoning: i, owner: p.owner },
          })),
      });
      await promote(store, numeric, "weld", D2, parcels(10));
      await expect(
        sinkDataset({ view: await view(store, numeric.name), key: ["parcel_id"], to, table: "typed" }),
      ).rejects.toThrow(/column "zoning" is \w+.*, but the artifact's Int32 needs \w+/);
      expect(await h.rows(to, "typed")).toEqual(before);
    });

    describe("in processes", () => {
      let project: Awaited<ReturnType<typeof parcelsProject>>;
      const sinkArgs = (to: string, ...extra: string[]) => [
        "sink",
        "parcels",
        "--config",
        project.config,
        "--to",
        to,
        ...extra,
      ];
      beforeAll(async () => {
        const own = mkdtempSync(join(dir, "project-"));
        project = await parcelsProject(own);
        for (const region of ["weld", "larimer"]) await project.promote(region, D1, parcels(N));
      }, 120_000);

      it("kill -9 at random moments leaves the old table or the whole new one; the re-run ends where a clean sink ends", async () => {
        const clean = h.target("clean");
        const first = await runCli(sinkArgs(clean));
        expect(first.code, first.stderr).toBe(0);
        const expected = withoutVersion(await h.rows(clean, "parcels"));
        expect(expected).toHaveLength(2 * N);
        const seen = { inside: 0, before: 0, after: 0 };
        for (let trial = 0; trial < 4; trial++) {
          const to = h.target(`kill${trial}`);
          const child = spawnCli(sinkArgs(to));
          const exited = new Promise((r) => child.on("exit", r));
          // The first trial kills at a moment anywhere in the run (startup included); the others a random moment
          // into the writing transaction.
          if (trial === 0) await new Promise((r) => setTimeout(r, 300 + 1500 * Math.random()));
          else {
            await h.inTransaction(to, child);
            await new Promise((r) => setTimeout(r, 200 * Math.random()));
          }
          const inside = trial > 0 && child.exitCode === null;
          child.kill("SIGKILL");
          await exited;
          const left = withoutVersion(await h.rows(to, "parcels"));
          expect([0, 2 * N]).toContain(left.length);
          seen[left.length ? "after" : inside ? "inside" : "before"]++;
          if (left.length) expect(left).toEqual(expected);
          const rerun = await runCli(sinkArgs(to));
          expect(rerun.code, rerun.stderr).toBe(0);
          expect(withoutVersion(await h.rows(to, "parcels"))).toEqual(expected);
        }
        expect(seen.inside).toBeGreaterThan(0);
      }, 240_000);

      it("two sinks at once equal one: one applies, the other waits and finds the work done", async () => {
        const to = h.target("two");
        const [a, b] = await Promise.all([runCli(sinkArgs(to, "--json")), runCli(sinkArgs(to, "--json"))]);
        expect([a.code, b.code], `${a.stderr}${b.stderr}`).toEqual([0, 0]);
        const applied = [a, b].map(
          (r) => (JSON.parse(r.stdout) as { partitions: { applied: number } }).partitions.applied,
        );
        expect(applied.sort()).toEqual([0, 2]);
        const once = h.target("once");
        expect((await runCli(sinkArgs(once))).code).toBe(0);
        expect(withoutVersion(await h.rows(to, "parcels"))).toEqual(withoutVersion(await h.rows(once, "parcels")));

        // A change, sunk by two at once: its 13 changed rows written once, nothing else touched.
        await project.promote("weld", D2, dateTwo(parcels(N)));
        const before = await h.rows(to, "parcels");
        const [c, d] = await Promise.all([runCli(sinkArgs(to, "--json")), runCli(sinkArgs(to, "--json"))]);
        expect([c.code, d.code], `${c.stderr}${d.stderr}`).toEqual([0, 0]);
        const counts = [c, d].map(
          (x) => (JSON.parse(x.stdout) as { rows: { inserted: number; updated: number; retired: number } }).rows,
        );
        expect(counts.reduce((n, x) => n + x.inserted + x.updated + x.retired, 0)).toBe(13);
        const after = await h.rows(to, "parcels");
        const was = new Map(before.map((r) => [r.parcel_id + "/" + r.region, r.version]));
        expect(after.filter((r) => was.get(r.parcel_id + "/" + r.region) !== r.version)).toHaveLength(13);
      }, 120_000);
    });
  });
}
