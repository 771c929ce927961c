/**
 * What the GeoPackage sink declares, judged by GDAL: all-Polygon data is a Polygon layer (it was "Unknown (any)"),
 * a 32-bit integer column is GDAL's Integer (MEDIUMINT, not INTEGER's Integer64), and a later partition of
 * another geometry type widens the layer to "Unknown (any)" with validate_gpkg.py still passing (the column's SQL
 * type and gpkg_geometry_columns agree, requirement 31) and every row kept.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
});
