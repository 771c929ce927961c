/**
 * `sinkDataset` on the real server (scripts/postgres.sh), what only PostGIS does: geometry arrives with its SRID,
 * valid, byte for byte the artifact's WKB; the history table; Z. What every sink does is the conformance suite's
 * (conformance.ts, run by postgis.conformance.postgis.test.ts).
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
import { openDataset } from "../../src/views/reader.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import type { Parcel } from "../helpers/parcels-task.js";

const [D1, D2] = ["2026-03-01", "2026-03-02"];
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

  it("writes each geometry with its SRID, valid, byte for byte the artifact's WKB", async () => {
    const store = new MemoryStore(`sink-${process.pid}-${stores++}`);
    const task = parcelsTask(dir, { name: "sink-geometry" });
    await promote(store, task, "larimer", D1, parcels(60));
    await sink(store, task.name, ["parcel_id"], "parcels");
    const check = (
      await client.query(
        `SELECT count(*) FILTER (WHERE NOT ST_IsValid(geom))::int AS invalid, array_agg(DISTINCT ST_SRID(geom)) AS srids
           FROM ${quoteIdent(schema)}.parcels`,
      )
    ).rows[0];
    expect(check).toEqual({ invalid: 0, srids: [4326] });
    const c = new Map((await rowsOf("parcels")).map((r) => [`${r.region}/${r.parcel_id}`, r]));
    const { table } = await openDataset(store, task.name).read("larimer", { date: D1 });
    const wkb = binaryColumn(table.getChild("geometry") as never, "geometry");
    const ids = table.getChild("parcel_id");
    expect(table.numRows).toBe(60);
    for (let i = 0; i < table.numRows; i++)
      expect(c.get(`larimer/${ids?.get(i)}`)?.geom).toBe(
        Buffer.from(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1])).toString("hex"),
      );
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
