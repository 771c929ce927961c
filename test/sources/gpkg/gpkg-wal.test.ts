/**
 * A GeoPackage in WAL mode, as GDAL leaves it with OGR_SQLITE_JOURNAL=WAL or a writer killed before its checkpoint:
 * its latest edit lives only in `<file>-wal`. That edit is part of the input (the next run promotes it, where it
 * was reported unchanged), and reading the file writes nothing beside it (no -wal or -shm appears).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../../helpers/cli.js";
import { readRows } from "../../helpers/geojson-rows.js";

const GDAL = `
import os, sys
from osgeo import gdal, ogr, osr
gdal.UseExceptions()
path, action, value = sys.argv[1], sys.argv[2], int(sys.argv[3])
if action == "create":
    gdal.SetConfigOption("OGR_SQLITE_JOURNAL", "WAL")
    ds = gdal.GetDriverByName("GPKG").Create(path, 0, 0, 0, gdal.GDT_Unknown)
    srs = osr.SpatialReference(); srs.ImportFromEPSG(4326)
    lyr = ds.CreateLayer("parcels", srs, ogr.wkbPoint)
    lyr.CreateField(ogr.FieldDefn("v", ogr.OFTInteger))
    f = ogr.Feature(lyr.GetLayerDefn()); f.SetField("v", value)
    f.SetGeometry(ogr.CreateGeometryFromWkt("POINT (-104.8 40.4)")); lyr.CreateFeature(f)
    ds = None  # closed: checkpointed, no -wal or -shm left
else:
    ds = gdal.OpenEx(path, gdal.OF_UPDATE | gdal.OF_VECTOR)
    lyr = ds.GetLayer(0); f = lyr.GetNextFeature(); f.SetField("v", value); lyr.SetFeature(f)
    ds.FlushCache()
    os._exit(0)  # not closed: the edit stays in the -wal, as a killed writer leaves it
`;

let dir: string;
let config: string;
const file = () => join(dir, "north", "parcels.gpkg");
const gdal = (action: string, value: number) =>
  execFileSync("/usr/bin/python3", ["-c", GDAL, file(), action, String(value)]);
const backfill = () =>
  runCliHere(["backfill", "--config", config, "--dataset", "parcels", "--from", "2026-01-01", "--to", "2026-01-31"]);

describe("a WAL-mode GeoPackage", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-gpkg-wal-"));
    execFileSync("mkdir", ["-p", join(dir, "north")]);
    config = join(dir, "georefresh.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: "./data",
        datasets: { parcels: { source: { url: "./{region}/parcels.gpkg" }, regions: ["north"], cadence: "monthly" } },
      }),
    );
    gdal("create", 1);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is read without writing a -wal or -shm beside it", async () => {
    const r = await backfill();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readdirSync(join(dir, "north")).sort()).toEqual(["parcels.gpkg"]);
    expect((await readRows("parcels", config, "north")).map((f) => f.properties.v)).toEqual([1]);
  });

  it("an edit only in its -wal is promoted by the next run, as OGR reads it", async () => {
    gdal("edit", 2);
    expect(existsSync(`${file()}-wal`)).toBe(true);
    const before = readdirSync(join(dir, "north")).sort();
    const r = await backfill();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/1 promoted/);
    expect((await readRows("parcels", config, "north")).map((f) => f.properties.v)).toEqual([2]);
    // The files GDAL left, as it left them: nothing new beside them, and the -wal not checkpointed away.
    expect(readdirSync(join(dir, "north")).sort()).toEqual(before);
    expect(existsSync(join(dir, "north", "parcels.gpkg-wal"))).toBe(true);
  });
});
