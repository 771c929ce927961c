/**
 * The guarded upsert of a keyed partition, on the real server: a second run leaves the whole table identical
 * (xmin included, so no row was even rewritten); a change touches exactly the changed rows; absence retires only
 * on a complete payload; a key that comes back is un-retired; duplicate keys apply nothing.
 */
import { Binary, Table, Utf8, vectorFromArray } from "apache-arrow";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { partitionBatch } from "../../src/sinks/partition-rows.js";
import { Loader } from "../../src/sinks/loader.js";
import { postgisSink } from "../../src/sinks/postgis/database.js";
import { PostgisDialect } from "../../src/sinks/postgis/dialect.js";
import { STATE_TABLE } from "../../src/sinks/sink-table.js";
import type { PartitionMeta, SinkTableShape } from "../../src/sinks/sink.js";
import { tableStatements } from "../../src/sinks/postgis/table.js";
import { quoteIdent } from "../../src/sinks/sql-names.js";

function point(x: number, y: number): Uint8Array {
  const b = new Uint8Array(21);
  const v = new DataView(b.buffer);
  b[0] = 1;
  v.setUint32(1, 1, true);
  v.setFloat64(5, x, true);
  v.setFloat64(13, y, true);
  return b;
}

type Parcel = [id: string, zoning: string, x: number];
/** The parcels as an artifact's columns (digests are computed from them, as from any artifact). */
function tableOf(parcels: Parcel[]): Table {
  const wkb = parcels.map(([, , x]) => point(x, 40));
  return new Table({
    parcel_id: vectorFromArray(
      parcels.map(([id]) => id),
      new Utf8(),
    ),
    zoning: vectorFromArray(
      parcels.map(([, zoning]) => zoning),
      new Utf8(),
    ),
    geometry: vectorFromArray(wkb, new Binary()),
  });
}

describe("applying a keyed partition to PostGIS", () => {
  let client: pg.Client;
  const schema = `apply_${process.pid}`;
  const shape: SinkTableShape = {
    dataset: "parcels",
    key: ["parcel_id"],
    columns: [
      { name: "parcel_id", type: "Utf8" },
      { name: "zoning", type: "Utf8" },
    ],
    crs: "OGC:CRS84",
    hasZ: false,
  };
  // The loader over the PostGIS dialect, on this test's own connection and transaction.
  const loader = (run: string) =>
    new Loader(
      new PostgisDialect(client, schema, "parcels", `${quoteIdent(schema)}.${STATE_TABLE}`),
      postgisSink.capabilities,
      run,
      false,
    );
  const partition = (date: string, parcels: Parcel[], region = "weld"): { meta: PartitionMeta; rows: Table } => ({
    meta: {
      region,
      date,
      artifactKey: `artifacts/parcels/region=${region}/date=${date}/k.parquet`,
      sha256: date.replace(/-/g, "").padEnd(64, "0"),
      rows: parcels.length,
    },
    rows: tableOf(parcels),
  });
  // Two batches, as two row groups would come (sliced: the encoders must honour Arrow's offsets).
  async function* batches(rows: Table) {
    yield await partitionBatch(rows.slice(0, 1), ["parcel_id"], ["parcel_id", "zoning"]);
    yield await partitionBatch(rows.slice(1), ["parcel_id"], ["parcel_id", "zoning"]);
  }
  const apply = async (run: string, p: { meta: PartitionMeta; rows: Table }) => {
    await client.query("BEGIN");
    try {
      const counts = await loader(run).apply(shape, p.meta, batches(p.rows));
      await client.query("COMMIT");
      return counts;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  };
  const snapshot = async () =>
    (
      await client.query(
        `SELECT xmin::text AS xmin, parcel_id, zoning, ST_AsText(geom) AS geom, valid_from::text, content_digest, sink_run, retired_at::text, retired_by
           FROM ${quoteIdent(schema)}.parcels ORDER BY parcel_id`,
      )
    ).rows as Record<string, string | null>[];

  beforeAll(async () => {
    client = new pg.Client({ connectionString: inject("postgres") as string });
    await client.connect();
    for (const sql of tableStatements({
      schema,
      table: "parcels",
      key: ["parcel_id"],
      columns: [
        { name: "parcel_id", type: "Utf8" },
        { name: "zoning", type: "Utf8" },
        { name: "geometry", type: "Binary" },
      ],
      crs: "OGC:CRS84",
      hasZ: false,
    }))
      await client.query(sql);
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
  });

  it("leaves unchanged rows untouched, touches exactly the changed ones, retires absent keys and un-retires returning ones", async () => {
    const d1: Parcel[] = [
      ["P1", "R1", -105],
      ["P2", "R1", -105.1],
      ["P3", "AG", -105.2],
    ];
    expect(await apply("run-a", partition("2026-03-01", d1))).toEqual({
      inserted: 3,
      updated: 0,
      unchanged: 0,
      retired: 0,
      deleted: 0,
    });
    const first = await snapshot();
    // The same partition again, by another run: nothing is written, not even a new row version.
    expect(await apply("run-b", partition("2026-03-01", d1))).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 3,
      retired: 0,
      deleted: 0,
    });
    expect(await snapshot()).toEqual(first);

    // Date 2: P2 rezoned, P3 gone, P4 new.
    const d2: Parcel[] = [
      ["P1", "R1", -105],
      ["P2", "C1", -105.1],
      ["P4", "R2", -105.3],
    ];
    expect(await apply("run-c", partition("2026-03-02", d2))).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: 1,
      retired: 1,
      deleted: 0,
    });
    const second = await snapshot();
    const byId = (rows: Record<string, string | null>[]) => new Map(rows.map((r) => [r.parcel_id, r]));
    const [a, b] = [byId(first), byId(second)];
    expect(b.get("P1")).toEqual(a.get("P1")); // untouched: same xmin, provenance still run-a and date 1
    expect(b.get("P2")?.xmin).not.toBe(a.get("P2")?.xmin);
    expect(b.get("P2")).toMatchObject({ zoning: "C1", valid_from: "2026-03-02", sink_run: "run-c", retired_at: null });
    expect(b.get("P3")).toMatchObject({ zoning: "AG", retired_by: "run-c" });
    expect(b.get("P3")?.retired_at).toMatch(/^2026-03-02/); // the logical date, not the wall clock
    expect(b.get("P4")).toMatchObject({ zoning: "R2", sink_run: "run-c" });

    // P3 comes back: un-retired.
    expect(
      await apply(
        "run-e",
        partition("2026-03-04", [
          ["P1", "R1", -105],
          ["P2", "C1", -105.1],
          ["P3", "AG", -105.2],
          ["P4", "R2", -105.3],
        ]),
      ),
    ).toEqual({ inserted: 0, updated: 1, unchanged: 3, retired: 0, deleted: 0 });
    expect(byId(await snapshot()).get("P3")).toMatchObject({ retired_at: null, retired_by: null, sink_run: "run-e" });
  });

  it("refuses a row count unlike the manifest's, and duplicate keys before they reach ON CONFLICT, applying nothing", async () => {
    const before = await snapshot();
    const short = partition("2026-03-05", [["P1", "R9", -105]]);
    await expect(apply("run-x", { ...short, meta: { ...short.meta, rows: 2 } })).rejects.toThrow(
      /weld 2026-03-05: 1 rows read from .*, but its manifest records 2; nothing was applied/,
    );
    expect(await snapshot()).toEqual(before);
    await expect(
      apply(
        "run-x",
        partition("2026-03-05", [
          ["P9", "R1", -104],
          ["P9", "R2", -104.1],
        ]),
      ),
    ).rejects.toThrow(/duplicate keys in the partition \(\["P9"\]\); nothing was applied/);
    expect(await snapshot()).toEqual(before);
    // A region's first load is COPYed straight in: the unique constraint refuses the duplicate, named.
    await expect(
      apply(
        "run-x",
        partition(
          "2026-03-05",
          [
            ["P9", "R1", -104],
            ["P9", "R2", -104.1],
          ],
          "larimer",
        ),
      ),
    ).rejects.toThrow(
      /larimer 2026-03-05: duplicate key in the partition \(\(region, parcel_id\)=\(larimer, P9\) already exists\.\); nothing was applied/,
    );
    expect(await snapshot()).toEqual(before);
  });
});
