/**
 * `sinkDataset` on the real server (scripts/postgres.sh) over promoted partitions: twice gives the same whole table
 * (every column and xmin); a change in one partition rewrites exactly the changed rows; retired keys get the
 * logical date and come back un-retired; a partial payload retires nothing; a dataset without a key is replaced
 * per partition; geometry arrives with its SRID, valid, byte for byte the artifact's WKB.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { binaryColumn } from "../../src/geoparquet/columns.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { sinkDataset } from "../../src/sinks/run-sink.js";
import { quoteIdent } from "../../src/sinks/sql-names.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import { defineTask } from "../../src/task/task.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { DatasetView, openDataset } from "../../src/views/reader.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import type { Parcel } from "../helpers/parcels-task.js";

const [D1, D2, D3] = ["2026-03-01", "2026-03-02", "2026-03-03"];
const url = () => inject("postgres") as string;
let stores = 0;

describe("sink to PostGIS", () => {
  let dir: string;
  let client: pg.Client;
  const schema = `sink_${process.pid}`;
  const to = () => `${url()}?schema=${schema}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sink-"));
    client = new pg.Client({ connectionString: url() });
    await client.connect();
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  async function promote(store: ObjectStore, task: TaskDefinition, region: string, date: string, rows: Parcel[]) {
    writeFeed(dir, region, date, rows);
    const r = await refreshPartition({ store, task, partition: { dataset: task.name, region, date }, versions: {} });
    expect(r.outcome, r.message).toBe("promoted");
  }
  const sink = async (store: ObjectStore, dataset: string, key: string[], table: string) =>
    sinkDataset({ view: await openDataset(store, dataset).current(), key, to: to(), table });
  const rowsOf = async (table: string) =>
    (
      await client.query(
        `SELECT xmin::text AS xmin, region, parcel_id, zoning, owner, encode(ST_AsBinary(geom), 'hex') AS geom,
                valid_from::text, content_digest, artifact_key, artifact_sha256, sink_run, retired_at::text, retired_by
           FROM ${quoteIdent(schema)}.${quoteIdent(table)} ORDER BY region, parcel_id, valid_from`,
      )
    ).rows as Record<string, string | null>[];

  it("applies a keyed dataset row by row: twice is identical, a change touches exactly the changed rows", async () => {
    const store = new MemoryStore(`sink-${process.pid}-${stores++}`);
    const task = parcelsTask(dir, { name: "sink-parcels" });
    for (const region of ["weld", "larimer"]) await promote(store, task, region, D1, parcels(60));

    const first = await sink(store, task.name, ["parcel_id"], "parcels");
    expect(first.partitions).toEqual({ applied: 2, unchanged: 0, gone: 0 });
    expect(first.rows).toEqual({ inserted: 120, updated: 0, unchanged: 0, retired: 0, deleted: 0 });
    const a = await rowsOf("parcels");
    expect(a).toHaveLength(120);

    // Again: the state table says both partitions are applied; nothing is read or written, xmin included.
    const again = await sink(store, task.name, ["parcel_id"], "parcels");
    expect(again.partitions).toEqual({ applied: 0, unchanged: 2, gone: 0 });
    expect(await rowsOf("parcels")).toEqual(a);

    // Weld's next date: 3 added, 2 removed, 4 moved, 5 edited (P-0010 both): 13 rows change, 107 stay as they were.
    await promote(store, task, "weld", D2, dateTwo(parcels(60)));
    const second = await sink(store, task.name, ["parcel_id"], "parcels");
    expect(second.partitions).toEqual({ applied: 1, unchanged: 1, gone: 0 });
    // Unchanged: weld's 50 rows not rewritten, and larimer's 60 (its partition not even read).
    expect(second.rows).toEqual({ inserted: 3, updated: 8, unchanged: 50 + 60, retired: 2, deleted: 0 });
    const b = await rowsOf("parcels");
    const before = new Map(a.map((r) => [`${r.region}/${r.parcel_id}`, r]));
    const moved = b.filter((r) => before.get(`${r.region}/${r.parcel_id}`)?.xmin !== r.xmin);
    expect(moved).toHaveLength(13);
    expect(moved.every((r) => r.region === "weld")).toBe(true);
    for (const r of b.filter((r) => !moved.includes(r))) expect(r).toEqual(before.get(`${r.region}/${r.parcel_id}`));
    const weld = new Map(b.filter((r) => r.region === "weld").map((r) => [r.parcel_id, r]));
    expect(weld.get("P-0001")).toMatchObject({ retired_at: D2, retired_by: second.run, valid_from: D1 });
    expect(weld.get("P-0020")).toMatchObject({ zoning: "MU", valid_from: D2, sink_run: second.run });
    expect(weld.get("P-0030")).toMatchObject({ valid_from: D1, sink_run: first.run }); // provenance kept

    // Date 3 brings P-0001 back as it was: un-retired, with date 3's provenance.
    await promote(store, task, "weld", D3, [...dateTwo(parcels(60)), parcels(60)[1] as Parcel]);
    const third = await sink(store, task.name, ["parcel_id"], "parcels");
    expect(third.rows).toMatchObject({ inserted: 0, updated: 1, retired: 0 });
    const c = new Map((await rowsOf("parcels")).map((r) => [`${r.region}/${r.parcel_id}`, r]));
    expect(c.get("weld/P-0001")).toMatchObject({ retired_at: null, retired_by: null, valid_from: D3 });

    // Those re-runs applied each changelog (the table held the version it was computed against). The same two
    // dates through the whole comparison (the changelog removed from the store) give the same table.
    const at = async (date: string) => {
      const v = await openDataset(store, task.name).current();
      return new DatasetView(
        v.store,
        v.dataset,
        "current",
        v.partitions.filter((p) => p.date <= date),
      );
    };
    await sinkDataset({ view: await at(D1), key: ["parcel_id"], to: to(), table: "parcels_delta" });
    await sinkDataset({ view: await at(D2), key: ["parcel_id"], to: to(), table: "parcels_delta" });
    await sinkDataset({ view: await at(D1), key: ["parcel_id"], to: to(), table: "parcels_full" });
    const d2 = (await openDataset(store, task.name).manifest("weld", { date: D2 })).current;
    await store.delete(d2?.changes?.changelog as string);
    const full = await sinkDataset({ view: await at(D2), key: ["parcel_id"], to: to(), table: "parcels_full" });
    expect(full.rows).toEqual(second.rows);
    expect(second.applied.map((a) => a.delta)).toEqual([true]);
    expect(full.applied.map((a) => a.delta)).toEqual([false]);
    const same = (rows: Record<string, string | null>[]) => rows.map(({ xmin, sink_run, retired_by, ...r }) => r);
    expect(same(await rowsOf("parcels_full"))).toEqual(same(await rowsOf("parcels_delta")));

    // Geometry: SRID 4326, valid, and exactly the artifact's WKB.
    const check = (
      await client.query(
        `SELECT count(*) FILTER (WHERE NOT ST_IsValid(geom))::int AS invalid, array_agg(DISTINCT ST_SRID(geom)) AS srids
           FROM ${quoteIdent(schema)}.parcels`,
      )
    ).rows[0];
    expect(check).toEqual({ invalid: 0, srids: [4326] });
    const { table } = await openDataset(store, task.name).read("larimer", { date: D1 });
    const wkb = binaryColumn(table.getChild("geometry") as never, "geometry");
    const ids = table.getChild("parcel_id");
    for (let i = 0; i < table.numRows; i++)
      expect(c.get(`larimer/${ids?.get(i)}`)?.geom).toBe(
        Buffer.from(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1])).toString("hex"),
      );
  });

  it("retires nothing for a partial payload's absent keys, and retires a region gone from the view", async () => {
    const store = new MemoryStore(`sink-${process.pid}-${stores++}`);
    const task = parcelsTask(dir, { name: "sink-partial", payload: "partial" });
    await promote(store, task, "weld", D1, parcels(20));
    await promote(store, task, "larimer", D1, parcels(5));
    await sink(store, task.name, ["parcel_id"], "partial");
    // A delta naming two keys: one edited, one deleted; the 18 others are absent from it, and stay.
    const base = parcels(20);
    await promote(store, task, "weld", D2, [
      { ...(base[3] as Parcel), zoning: "MU" },
      { ...(base[4] as Parcel), deleted: true },
    ]);
    const r = await sink(store, task.name, ["parcel_id"], "partial");
    expect(r.rows).toEqual({ inserted: 0, updated: 1, unchanged: 18 + 5, retired: 1, deleted: 0 }); // + larimer's 5
    const rows = await rowsOf("partial");
    expect(rows.filter((x) => x.region === "weld" && x.retired_at !== null).map((x) => x.parcel_id)).toEqual([
      "P-0004",
    ]);

    // Larimer retired from the dataset (no longer in the view): its rows are retired, not deleted.
    const view = await openDataset(store, task.name).current();
    const without = new (view.constructor as typeof import("../../src/views/reader.js").DatasetView)(
      view.store,
      view.dataset,
      "current",
      view.partitions.filter((p) => p.region !== "larimer"),
    );
    const gone = await sinkDataset({ view: without, key: ["parcel_id"], to: to(), table: "partial" });
    expect(gone.partitions).toEqual({ applied: 0, unchanged: 1, gone: 1 });
    expect(gone.rows.retired).toBe(5);
    const after = await rowsOf("partial");
    expect(after.filter((x) => x.region === "larimer").every((x) => x.retired_at === D2)).toBe(true);
    expect(after).toHaveLength(25);
  });

  it("keeps a history table when asked: every state applied, so a parcel on any applied date is one query", async () => {
    const store = new MemoryStore(`sink-${process.pid}-${stores++}`);
    const task = parcelsTask(dir, { name: "sink-history" });
    await promote(store, task, "weld", D1, parcels(60));
    const run = async () =>
      sinkDataset({
        view: await openDataset(store, task.name).current(),
        key: ["parcel_id"],
        to: to(),
        table: "hist",
        history: true,
      });
    await run();
    await promote(store, task, "weld", D2, dateTwo(parcels(60)));
    await run();
    await run(); // nothing new: no history row added or rewritten
    const rows = (
      await client.query(
        `SELECT xmin::text AS xmin, parcel_id, zoning, valid_from::text, retired FROM ${quoteIdent(schema)}.hist_history ORDER BY parcel_id, valid_from`,
      )
    ).rows as { xmin: string; parcel_id: string; zoning: string; valid_from: string; retired: boolean }[];
    expect(rows.filter((r) => r.valid_from === D1)).toHaveLength(60);
    const second = rows.filter((r) => r.valid_from === D2);
    expect(second).toHaveLength(13); // 3 added, 8 changed, 2 retired
    expect(second.filter((r) => r.retired).map((r) => r.parcel_id)).toEqual(["P-0001", "P-0002"]);
    const on = async (date: string) =>
      (
        await client.query(
          `SELECT DISTINCT ON (parcel_id) parcel_id, zoning, retired FROM ${quoteIdent(schema)}.hist_history
            WHERE region = 'weld' AND parcel_id = ANY($2) AND valid_from <= $1::date ORDER BY parcel_id, valid_from DESC`,
          [date, ["P-0001", "P-0020"]],
        )
      ).rows;
    expect(await on(D1)).toEqual([
      { parcel_id: "P-0001", zoning: "R2", retired: false },
      { parcel_id: "P-0020", zoning: "R1", retired: false },
    ]);
    expect(await on(D2)).toEqual([
      { parcel_id: "P-0001", zoning: "R2", retired: true },
      { parcel_id: "P-0020", zoning: "MU", retired: false },
    ]);
    // Asking a GeoPackage for history is refused, saying where it is kept.
    const gpkg = join(dir, "hist.gpkg");
    await expect(
      sinkDataset({ view: await openDataset(store, task.name).current(), key: ["parcel_id"], to: gpkg, history: true }),
    ).rejects.toThrow(/history table is kept in PostGIS only for now/);
  });

  it("replaces a dataset without a key per partition, leaving the others' rows untouched", async () => {
    const store = new MemoryStore(`sink-${process.pid}-${stores++}`);
    const task = parcelsTask(dir, { name: "sink-unkeyed", key: undefined });
    await promote(store, task, "weld", D1, parcels(30));
    await promote(store, task, "weld", D2, parcels(30));
    await promote(store, task, "larimer", D1, parcels(10));
    const first = await sink(store, task.name, [], "unkeyed");
    expect(first.partitions.applied).toBe(3);
    expect(first.rows.inserted).toBe(70);
    const a = await rowsOf("unkeyed");
    await promote(store, task, "weld", D2, dateTwo(parcels(30)));
    const second = await sink(store, task.name, [], "unkeyed");
    expect(second.partitions).toEqual({ applied: 1, unchanged: 2, gone: 0 });
    expect(second.rows).toMatchObject({ inserted: 31, deleted: 30 }); // 30 - 2 removed + 3 added
    const b = await rowsOf("unkeyed");
    const untouched = (rows: typeof a) => rows.filter((r) => !(r.region === "weld" && r.valid_from === D2));
    expect(untouched(b)).toEqual(untouched(a));
    expect(b.filter((r) => r.region === "weld" && r.valid_from === D2)).toHaveLength(31);
  });
});

describe("sink to PostGIS and GeoPackage: 3D", () => {
  it("keeps Z: a GeometryZ column, and each point's z as the artifact has it", async () => {
    const store = new MemoryStore(`sink-z-${process.pid}`);
    const task = defineTask({
      name: "sink-z",
      version: "1",
      cadence: "daily",
      regions: ["weld"],
      inputs: () => ({}),
      crs: "OGC:CRS84",
      key: ["id"],
      columns: [{ name: "id", type: "string" }],
      compute: async () =>
        Array.from({ length: 5 }, (_, i) => ({
          geometry: { type: "Point" as const, coordinates: [-105 + i * 0.01, 40, 1500 + i] },
          properties: { id: `W-${i}` },
        })),
    });
    const r = await refreshPartition({
      store,
      task,
      partition: { dataset: "sink-z", region: "weld", date: D1 },
      versions: {},
    });
    expect(r.outcome, r.message).toBe("promoted");
    const view = await openDataset(store, "sink-z").current();
    const schema = `sink_z_${process.pid}`;
    const url = inject("postgres") as string;
    await sinkDataset({ view, key: ["id"], to: `${url}?schema=${schema}`, table: "wells" });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query(
        `SELECT id, ST_Z(geom) AS z, GeometryType(geom) AS t, ST_CoordDim(geom) AS dims,
                format_type(a.atttypid, a.atttypmod) AS col
           FROM ${quoteIdent(schema)}.wells, pg_attribute a
          WHERE a.attrelid = '${schema}.wells'::regclass AND a.attname = 'geom' ORDER BY id`,
      );
      expect(rows.rows.map((x) => [x.id, x.z, x.dims])).toEqual(
        Array.from({ length: 5 }, (_, i) => [`W-${i}`, 1500 + i, 3]),
      );
      expect(rows.rows[0].col).toBe("geometry(GeometryZ,4326)");
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    }
    const dir = mkdtempSync(join(tmpdir(), "georefresh-sink-z-"));
    try {
      const file = join(dir, "wells.gpkg");
      await sinkDataset({ view, key: ["id"], to: file, table: "wells" });
      execFileSync("/usr/bin/python3", ["/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py", file]);
      const info = execFileSync("ogrinfo", ["-ro", "-q", file, "wells", "-where", "id = 'W-3'"]).toString();
      expect(info).toMatch(/POINT Z \(-104\.97 40\.0 1503\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
