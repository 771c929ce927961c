/**
 * Hostile feeds: each fails its partition with exit 5 naming the file and what is wrong, publishes nothing, and
 * prints no stack trace — a symlinked zip entry, entries that together expand past the input cap, headers that
 * lie, GeoJSON nested without end, NaN and Infinity coordinates, a GeoPackage with views and triggers of its own
 * (read without executing any of it), a file that changes while it is read.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runCliHere, spawnCli } from "../helpers/cli.js";
import { backfillSource, sourceConfig, writeCorpus } from "../helpers/source-corpus.js";

let dir: string;

function python(code: string, ...args: string[]): void {
  execFileSync("/usr/bin/python3", ["-c", code, ...args]);
}

const configFor = (dataset: string, source: Record<string, unknown>) => sourceConfig(dir, dataset, source);
const backfill = (dataset: string, source: Record<string, unknown>, env: Record<string, string> = {}) =>
  backfillSource(dir, dataset, source, env);

function refused(r: { code: number | null; out: string; published: boolean }, message: RegExp): void {
  expect(r.code, r.out).toBe(5);
  expect(r.out).toMatch(message);
  expect(r.out).not.toMatch(/\n\s+at .*:\d+:\d+\)?\n/);
  expect(r.published).toBe(false);
}

describe("hostile feeds are refused naming the file, and nothing is promoted", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-hostile-feeds-"));
    writeCorpus(dir);
    const w = join(dir, "weld");
    const feed = join(w, "zip", "feed");
    // A zip whose .shp entry is a symbolic link (to /etc/passwd), beside a real .dbf.
    python(
      `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], "w")
i = zipfile.ZipInfo("parcels.shp"); i.create_system = 3; i.external_attr = (0o120777 << 16)
z.writestr(i, "/etc/passwd")
z.write(sys.argv[2], "parcels.dbf")
z.close()`,
      join(w, "symlink.zip"),
      join(feed, "parcels.dbf"),
    );
    // Lying headers: a .dbf that says 3 records (the .shp has 30); a .shp whose record says 2^30 words.
    for (const name of ["dbf-lies", "shp-lies"]) {
      mkdirSync(join(w, name));
      for (const e of ["shp", "shx", "dbf", "prj"])
        writeFileSync(join(w, name, `parcels.${e}`), readFileSync(join(feed, `parcels.${e}`)));
    }
    const dbf = readFileSync(join(w, "dbf-lies", "parcels.dbf"));
    dbf.writeUInt32LE(3, 4);
    writeFileSync(join(w, "dbf-lies", "parcels.dbf"), dbf);
    const shp = readFileSync(join(w, "shp-lies", "parcels.shp"));
    shp.writeInt32BE(2 ** 30, 100 + 4);
    writeFileSync(join(w, "shp-lies", "parcels.shp"), shp);
    // A FlatGeobuf (no index: features follow the header) whose first feature says it is 4 GiB long.
    execFileSync("ogr2ogr", [
      "-f",
      "FlatGeobuf",
      "-lco",
      "SPATIAL_INDEX=NO",
      join(w, "lies.fgb"),
      join(dir, "parcels-base.geojson"),
    ]);
    const fgb = readFileSync(join(w, "lies.fgb"));
    fgb.writeUInt32LE(0xfffffff0, 12 + fgb.readUInt32LE(8));
    writeFileSync(join(w, "lies.fgb"), fgb);
    // GeoJSON nested without end: a geometry 100,000 collections deep, and properties 100,000 objects deep.
    const deep = (n: number) => '{"type":"GeometryCollection","geometries":['.repeat(n) + "]}".repeat(n);
    writeFileSync(
      join(w, "deep-geometry.geojson"),
      `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":${deep(100_000)}}]}`,
    );
    writeFileSync(
      join(w, "deep-properties.geojson"),
      `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}},"geometry":{"type":"Point","coordinates":[-104.8,40.4]}}]}`,
    );
    writeFileSync(
      join(w, "deep.geojsons"),
      `{"type":"Feature","properties":{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}},"geometry":null}\n`,
    );
    // Coordinates a double holds but a place cannot be: 1e999 (Infinity), NaN in a Shapefile, a CSV and WKT.
    writeFileSync(
      join(w, "infinite.geojson"),
      '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":1},"geometry":{"type":"Point","coordinates":[1e999,40.4]}}]}',
    );
    writeFileSync(join(w, "nan.csv"), 'id,wkt\n1,"POINT (NaN 40.4)"\n2,"POINT (-104.8 inf)"\n');
    mkdirSync(join(w, "nan"));
    for (const e of ["shx", "dbf", "prj"])
      writeFileSync(join(w, "nan", `parcels.${e}`), readFileSync(join(feed, `parcels.${e}`)));
    const nan = readFileSync(join(feed, "parcels.shp"));
    nan.writeDoubleLE(Number.NaN, 100 + 8 + 4 + 32 + 8 + 4); // record 1: the first point's x
    writeFileSync(join(w, "nan", "parcels.shp"), nan);
    // A GeoPackage with a trigger on its table and a features layer that is a view calling a function.
    python(
      `import sqlite3, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2])
c.executescript('''
CREATE TABLE log (what TEXT);
CREATE TRIGGER t AFTER UPDATE ON parcels BEGIN INSERT INTO log VALUES ('updated'); END;
CREATE VIEW sneaky AS SELECT fid, geom, zoning, random() AS r FROM parcels;
INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('sneaky', 'features', 'sneaky', 26913);
INSERT INTO gpkg_geometry_columns VALUES ('sneaky', 'geom', 'GEOMETRY', 26913, 0, 0);
''')
c.commit()`,
      join(w, "parcels.gpkg"),
      join(w, "triggers.gpkg"),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a FlatGeobuf header claiming an index over zero features ends (it spun forever): zero rows", async () => {
    // GDAL's own zero-feature file, its index node size set to 16: the R-tree size of 0 features never converges.
    const file = join(dir, "weld", "zero-indexed.fgb");
    execFileSync("ogr2ogr", ["-f", "FlatGeobuf", file, join(dir, "weld", "parcels.geojson"), "-where", "1 = 0"]);
    python(
      `import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
table = 12 + struct.unpack_from("<I", b, 12)[0]
vtable = table - struct.unpack_from("<i", b, table)[0]
at = struct.unpack_from("<H", b, vtable + 4 + 2 * 9)[0]  # Header field 9: index_node_size, written as 0
assert at, "GDAL wrote no index_node_size"
struct.pack_into("<H", b, table + at, 16)
open(sys.argv[1], "wb").write(b)`,
      file,
    );
    // Its own process: a reader that spins would never give the test's thread back.
    const r = await runCli([
      "backfill",
      "--config",
      configFor("zero-indexed", { url: "./{region}/zero-indexed.fgb" }),
      "--dataset",
      "zero-indexed",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
    ]);
    expect(r.stdout + r.stderr).toMatch(/0 rows, fewer than the minimum 1/);
    expect(r.code).toBe(1);
  }, 60_000);

  it("a zip entry that is a symbolic link is refused, never followed", async () => {
    refused(
      await backfill("symlink", { url: "./{region}/symlink.zip", crs: "EPSG:26913" }),
      /symlink\.zip: entry parcels\.shp is a symbolic link/,
    );
  });

  it("the input cap applies to what a zip's entries expand to together", async () => {
    const shp = readFileSync(join(dir, "weld", "zip", "feed", "parcels.shp")).length;
    const r = await backfill(
      "capped",
      { url: "./{region}/parcels.zip" },
      { GEOREFRESH_MAX_INPUT_BYTES: String(shp + 100) },
    );
    refused(
      r,
      /parcels\.zip: its entries would unpack to \d+ bytes together, over the input cap of \d+ \(GEOREFRESH_MAX_INPUT_BYTES\)/,
    );
  });

  it("headers that lie: a .dbf's record count, a .shp record's length", async () => {
    refused(
      await backfill("dbf-lies", { url: "./{region}/dbf-lies/parcels.shp" }),
      /dbf-lies\/parcels\.shp: the \.dbf says 3 records but the \.shp has more \(record 4\)/,
    );
    refused(
      await backfill("shp-lies", { url: "./{region}/shp-lies/parcels.shp" }),
      /shp-lies\/parcels\.shp: the \.shp is truncated at record 1/,
    );
  });

  it("GeoJSON nested without end is refused, in a geometry, in properties, and in a sequence", async () => {
    refused(
      await backfill("deep-geometry", { url: "./{region}/deep-geometry.geojson" }),
      /deep-geometry\.geojson.*nested deeper than \d+ levels/,
    );
    refused(
      await backfill("deep-properties", { url: "./{region}/deep-properties.geojson" }),
      /deep-properties\.geojson.*nested deeper than \d+ levels/,
    );
    refused(
      await backfill("deep-seq", { url: "./{region}/deep.geojsons" }),
      /deep\.geojsons.*nested deeper than \d+ levels/,
    );
  });

  it("NaN and Infinity coordinates are refused, naming the file and the row", async () => {
    refused(
      await backfill("infinite", { url: "./{region}/infinite.geojson" }),
      /infinite\.geojson, feature 1: .*not (a )?finite number/,
    );
    refused(
      await backfill("nan-csv", { url: "./{region}/nan.csv", crs: "EPSG:4326" }),
      /nan\.csv, line 2: .*(not (a )?finite number|NaN)/,
    );
    refused(
      await backfill("nan-shp", { url: "./{region}/nan/parcels.shp" }),
      /nan\/parcels\.shp, record 1: .*not (a )?finite number/,
    );
  });

  it("a GeoPackage's views and triggers run nothing: the file is left byte for byte, a view calling a function is refused", async () => {
    const file = join(dir, "weld", "triggers.gpkg");
    const before = createHash("sha256").update(readFileSync(file)).digest("hex");
    const table = await backfill("gpkg-trigger", { url: "./{region}/triggers.gpkg", layer: "parcels" });
    expect(table.code, table.out).toBe(0);
    refused(
      await backfill("gpkg-view", { url: "./{region}/triggers.gpkg", layer: "sneaky" }),
      /triggers\.gpkg: layer "sneaky" is a view/,
    );
    expect(createHash("sha256").update(readFileSync(file)).digest("hex")).toBe(before);
    expect(existsSync(`${file}-wal`) || existsSync(`${file}-journal`)).toBe(false);
  });

  it("a file that grows while it is read fails its partition: exit 5, nothing promoted", async () => {
    // Large enough that reading it takes a while. The run opens it three times: identified when planned (a lone
    // partition runs on the planning thread, which knows the identity already), checked again when handed to the
    // reader, then read; it grows during the third.
    const big = join(dir, "weld", "growing.geojsons");
    const line = JSON.stringify({
      type: "Feature",
      properties: { id: "x".repeat(200) },
      geometry: { type: "Point", coordinates: [-104.8, 40.4] },
    });
    writeFileSync(big, `${line}\n`.repeat(120_000));
    const config = configFor("growing", { url: "./{region}/growing.geojsons" });
    const child = spawnCli([
      "backfill",
      "--config",
      config,
      "--dataset",
      "growing",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
    ]);
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    let open = false;
    let opens = 0;
    const holds = () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === big;
          } catch {
            return false; // closed meanwhile
          }
        });
      } catch {
        return false;
      }
    };
    const watch = setInterval(() => {
      const now = holds();
      if (now && !open && ++opens === 3) appendFileSync(big, `${line}\n`);
      open = now;
    }, 1);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearInterval(watch);
    expect(opens, out).toBeGreaterThanOrEqual(3);
    expect(code, out).toBe(5);
    expect(out).toMatch(/growing\.geojsons changed while it was read .*run again once the file is complete/);
    expect(existsSync(join(dir, "data", "artifacts", "growing"))).toBe(false);
  }, 60_000);
});
