/**
 * The guarded upsert of a keyed partition, on the real server: a second run leaves the whole table identical
 * (xmin included, so no row was even rewritten); a change touches exactly the changed rows; absence retires only
 * on a complete payload; a key that comes back is un-retired; duplicate keys apply nothing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyKeyedPartition } from "../../src/sinks/postgis-apply.js";
import type { ApplyTarget, PartitionRows } from "../../src/sinks/postgis-apply.js";
import { tableStatements } from "../../src/sinks/postgis-table.js";
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
const rowsOf = (parcels: Parcel[]) => parcels.map(([id, zoning, x]) => [id, zoning, point(x, 40), `${zoning}@${x}`]);

describe("applying a keyed partition to PostGIS", () => {
  let client: pg.Client;
  const schema = `apply_${process.pid}`;
  const target = (run: string): ApplyTarget => ({
    table: `${quoteIdent(schema)}.${quoteIdent("parcels")}`,
    srid: 4326,
    key: ["parcel_id"],
    columns: [
      { name: "parcel_id", copy: "text" },
      { name: "zoning", copy: "text" },
    ],
    run,
  });
  const partition = (date: string, parcels: Parcel[], complete = true): PartitionRows => ({
    region: "weld",
    date,
    artifactKey: `artifacts/parcels/region=weld/date=${date}/k.parquet`,
    sha256: date.replace(/-/g, "").padEnd(64, "0"),
    complete,
    rows: rowsOf(parcels),
  });
  const apply = async (run: string, p: PartitionRows) => {
    await client.query("BEGIN");
    try {
      const counts = await applyKeyedPartition(client, target(run), p);
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

  it("leaves unchanged rows untouched, touches exactly the changed ones, retires only on complete payloads", async () => {
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
    });
    const first = await snapshot();
    // The same partition again, by another run: nothing is written, not even a new row version.
    expect(await apply("run-b", partition("2026-03-01", d1))).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 3,
      retired: 0,
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

    // A partial payload (a delta with P1 only) retires nothing.
    expect(await apply("run-d", partition("2026-03-03", [["P1", "MU", -105]], false))).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0,
      retired: 0,
    });
    expect((await snapshot()).filter((r) => r.retired_at === null).map((r) => r.parcel_id)).toEqual(["P1", "P2", "P4"]);

    // P3 comes back: un-retired.
    expect(
      await apply(
        "run-e",
        partition("2026-03-04", [
          ["P1", "MU", -105],
          ["P2", "C1", -105.1],
          ["P3", "AG", -105.2],
          ["P4", "R2", -105.3],
        ]),
      ),
    ).toEqual({ inserted: 0, updated: 1, unchanged: 3, retired: 0 });
    expect(byId(await snapshot()).get("P3")).toMatchObject({ retired_at: null, retired_by: null, sink_run: "run-e" });
  });

  it("refuses duplicate keys before they reach ON CONFLICT, and applies nothing", async () => {
    const before = await snapshot();
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
  });
});
