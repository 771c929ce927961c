/**
 * What the GeoPackage sink declares, judged by GDAL: all-Polygon data is a Polygon layer (it was "Unknown (any)"),
 * a 32-bit integer column is GDAL's Integer (MEDIUMINT, not INTEGER's Integer64), and a later partition of
 * another geometry type widens the layer to "Unknown (any)" with validate_gpkg.py still passing (the column's SQL
 * type and gpkg_geometry_columns agree, requirement 31) and every row kept. Its state table is a registered
 * attributes table (requirement 119: an INTEGER PRIMARY KEY), upgraded in place from the layout before.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { sinkDataset } from "../../src/sinks/run-sink.js";
import { FsStore } from "../../src/store/fs.js";
import { defineTask } from "../../src/task/task.js";
import { openDataset } from "../../src/views/reader.js";

const VALIDATE = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py";
const dir = mkdtempSync(join(tmpdir(), "georefresh-gpkg-types-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const square = (x: number, y: number) => [
  [
    [x, y],
    [x + 0.01, y],
    [x + 0.01, y + 0.01],
    [x, y + 0.01],
    [x, y],
  ],
];

const task = defineTask({
  name: "test-blocks",
  version: "1",
  cadence: "daily",
  regions: ["weld", "larimer"],
  inputs: () => ({}),
  crs: "OGC:CRS84",
  key: ["block_id"],
  columns: [
    { name: "block_id", type: "string" },
    { name: "pop", type: "int32" },
  ],
  async compute(ctx) {
    // larimer's blocks are MultiPolygons: a second geometry type, in a partition sunk after weld's
    const multi = ctx.partition.region === "larimer";
    return [0, 1, 2].map((k) => ({
      geometry: multi
        ? { type: "MultiPolygon" as const, coordinates: [square(-105 + k * 0.02, 40.5)] }
        : { type: "Polygon" as const, coordinates: square(-104.8 + k * 0.02, 40.4) },
      properties: { block_id: `${ctx.partition.region}-${k}`, pop: 100 * k },
    }));
  },
});

describe("the GeoPackage sink's declared types", () => {
  const store = new FsStore(join(dir, "data"));
  const file = join(dir, "blocks.gpkg");
  const refresh = async (region: string) => {
    const r = await refreshPartition({
      store,
      task,
      partition: { dataset: "blocks", region, date: "2026-03-01" },
      versions: {},
    });
    expect(r.outcome, r.message).toBe("promoted");
  };
  const sink = async () =>
    sinkDataset({ view: await openDataset(store, "blocks").current(), key: ["block_id"], to: file });
  const info = () => execFileSync("ogrinfo", ["-so", "-ro", file, "blocks"], { encoding: "utf8" });

  it("all-Polygon data is a Polygon layer; an int32 column is Integer", async () => {
    await refresh("weld");
    await sink();
    execFileSync("/usr/bin/python3", [VALIDATE, file]);
    expect(info()).toMatch(/^Geometry: Polygon$/m);
    expect(info()).toMatch(/^pop: Integer \(/m);
  });

  it("a partition of MultiPolygons widens it to any geometry, GDAL-valid, every row kept", async () => {
    await refresh("larimer");
    const r = await sink();
    expect(r.rows.inserted).toBe(3);
    execFileSync("/usr/bin/python3", [VALIDATE, file]);
    expect(info()).toMatch(/^Geometry: Unknown \(any\)$/m);
    expect(info()).toMatch(/^Feature Count: 6$/m);
    const again = await sink(); // and the next sink, on the widened table, applies nothing
    expect(again.rows).toMatchObject({ inserted: 0, updated: 0 });
  });

  it("its state table is a registered attributes table; one made before (no id) is upgraded, its rows kept", async () => {
    const db = new Database(file);
    const contents = db.prepare(`SELECT data_type FROM gpkg_contents WHERE table_name = 'georefresh_sink_state'`).get();
    expect(contents).toEqual({ data_type: "attributes" });
    const rows = db
      .prepare(`SELECT table_name, region, logical_date, sha256 FROM georefresh_sink_state ORDER BY region`)
      .all();
    expect(rows).toHaveLength(2);
    // The layout the sink wrote until now: the partition as the primary key, no id, not registered.
    db.exec(`DELETE FROM gpkg_contents WHERE table_name = 'georefresh_sink_state';
      ALTER TABLE georefresh_sink_state RENAME TO s;
      CREATE TABLE georefresh_sink_state (table_name TEXT NOT NULL, dataset TEXT NOT NULL, region TEXT NOT NULL,
        logical_date DATE NOT NULL, sha256 TEXT NOT NULL, sink_run TEXT NOT NULL, PRIMARY KEY (table_name, region, logical_date));
      INSERT INTO georefresh_sink_state SELECT table_name, dataset, region, logical_date, sha256, sink_run FROM s; DROP TABLE s;`);
    db.close();
    const noop = await sink(); // what was applied is still known: nothing applied, the file not opened for writing
    expect(noop.rows).toMatchObject({ inserted: 0, updated: 0 });
    // The next sink that applies something upgrades it, in its transaction.
    const r = await refreshPartition({
      store,
      task,
      partition: { dataset: "blocks", region: "weld", date: "2026-03-02" },
      versions: {},
    });
    expect(r.outcome, r.message).toBe("promoted");
    const next = await sink();
    expect(next.applied).toHaveLength(1);
    execFileSync("/usr/bin/python3", [VALIDATE, file]);
    const after = new Database(file, { readonly: true });
    try {
      const kept = after
        .prepare(
          `SELECT table_name, region, logical_date, sha256 FROM georefresh_sink_state ORDER BY region, logical_date`,
        )
        .all();
      // one row per region for a keyed table: larimer's kept as it was, weld's now at its new date
      expect(kept).toHaveLength(2);
      expect(kept).toContainEqual((rows as { region: string }[]).find((x) => x.region === "larimer"));
      expect(kept).toContainEqual(expect.objectContaining({ region: "weld", logical_date: "2026-03-02" }));
      expect(after.prepare(`SELECT name FROM pragma_table_info('georefresh_sink_state') WHERE pk = 1`).get()).toEqual({
        name: "id",
      });
    } finally {
      after.close();
    }
  });
});
