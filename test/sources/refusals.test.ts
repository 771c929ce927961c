/**
 * A source file that cannot become rows fails its partition with exit 5, naming the file and what to do, and
 * publishes nothing: no CRS, a CRS the config contradicts, a corrupt file, a zip bomb, an entry climbing out of its
 * archive, a multi-layer file with no layer named. Mistakes in the config itself are exit 2 when it loads.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { backfillSource, writeCorpus } from "../helpers/source-corpus.js";

let dir: string;

function zipWith(path: string, entries: Record<string, string>, script = ""): void {
  const code = `import zipfile, sys
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
${Object.entries(entries)
  .map(([name, expr]) => `z.writestr(${JSON.stringify(name)}, ${expr})`)
  .join("\n")}
${script}
z.close()`;
  execFileSync("python3", ["-c", code, path]);
}

const backfill = (dataset: string, source: Record<string, unknown>) => backfillSource(dir, dataset, source);

describe("a source file that cannot become rows fails its partition and publishes nothing", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-source-refusals-"));
    writeCorpus(dir);
    const w = join(dir, "weld");
    // The zipped Shapefile without its .prj: a dropped CRS.
    const feed = join(w, "zip", "feed");
    execFileSync("zip", [
      "-q",
      "-j",
      join(w, "noprj.zip"),
      ...["shp", "shx", "dbf", "cpg"].map((e) => join(feed, `parcels.${e}`)),
    ]);
    // 200 MiB of zeros behind a Shapefile's name: a zip bomb (about 200 KiB compressed).
    zipWith(join(w, "bomb.zip"), { "parcels.shp": 'b"\\0" * (200 * 2**20)', "parcels.dbf": 'b"\\0" * 64' });
    // An entry climbing out of the archive.
    zipWith(join(w, "climb.zip"), { "../../parcels.shp": 'b"\\0" * 100', "../../parcels.dbf": 'b"\\0" * 64' });
    // Corrupt files: a GeoPackage cut in half, a FlatGeobuf of noise, a Shapefile whose .shp stops mid-record.
    const gpkg = readFileSync(join(w, "parcels.gpkg"));
    writeFileSync(join(w, "half.gpkg"), gpkg.subarray(0, gpkg.length >> 1));
    writeFileSync(join(w, "noise.fgb"), Buffer.alloc(4096, 7));
    mkdirSync(join(w, "cut"));
    const shp = readFileSync(join(feed, "parcels.shp"));
    writeFileSync(join(w, "cut", "parcels.shp"), shp.subarray(0, shp.length - 40));
    for (const e of ["dbf", "prj"])
      writeFileSync(join(w, "cut", `parcels.${e}`), readFileSync(join(feed, `parcels.${e}`)));
    // The placeholder newer GDAL writes for a layer without a CRS: srs_id 99999, "Undefined SRS", a LOCAL_CS.
    writeFileSync(join(w, "undefined.gpkg"), gpkg);
    execFileSync("python3", [
      "-c",
      `import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("""INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined SRS', 99999, 'GDAL', 99999,
  'LOCAL_CS["Undefined SRS",LOCAL_DATUM["unknown",32767],UNIT["unknown",0],AXIS["Easting",EAST],AXIS["Northing",NORTH]]',
  'undefined Cartesian coordinate reference system')""")
c.execute("UPDATE gpkg_geometry_columns SET srs_id = 99999 WHERE table_name = 'parcels'")
c.commit()`,
      join(w, "undefined.gpkg"),
    ]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a CSV with no CRS, and a Shapefile without its .prj, say so and how to declare one (exit 5)", async () => {
    for (const [dataset, url] of [
      ["nocrs-csv", "./{region}/parcels.csv"],
      ["nocrs-shp", "./{region}/noprj.zip"],
    ] as const) {
      const r = await backfill(dataset, { url });
      expect(r.code, r.out).toBe(5);
      expect(r.out).toMatch(
        /does not say its CRS \(.*(carries no CRS|has no \.prj)\) and the source declares none; add "crs": "EPSG:<code>"/,
      );
      expect(r.out).toContain(url.replace("{region}", "weld").slice(2));
      expect(r.published).toBe(false);
    }
  });

  it("GDAL's \"Undefined SRS\" (srs_id 99999) is no CRS: refused asking for one, and the source's crs is used", async () => {
    const r = await backfill("undefined-srs", { url: "./{region}/undefined.gpkg", layer: "parcels" });
    expect(r.code, r.out).toBe(5);
    expect(r.out).toMatch(/undefined\.gpkg does not say its CRS .* add "crs": "EPSG:<code>"/);
    expect(r.published).toBe(false);
    const declared = await backfill("undefined-declared", {
      url: "./{region}/undefined.gpkg",
      layer: "parcels",
      crs: "EPSG:26913",
    });
    expect(declared.code, declared.out).toBe(0);
    expect(declared.published).toBe(true);
  });

  it('a datum PROJ shifts only by its ballpark is refused, naming datumShift; with "datumShift": "ballpark" it is read as PROJ\'s ballpark reads it', async () => {
    // WGS 66 (EPSG:4760): EPSG registers no transformation to WGS 84 at all, so PROJ can only keep lon/lat.
    const source = { url: "./{region}/points.csv", crs: "EPSG:4760", geometry: { x: "X", y: "Y", z: "Z" } };
    const r = await backfill("wgs66", source);
    expect(r.code, r.out).toBe(5);
    expect(r.out).toMatch(
      /EPSG:4760 \(WGS 66\): PROJ has no transformation from WGS 66 \(EPSG:4760\) to WGS 84 for \(.*\) that runs without a grid file.*set "datumShift": "ballpark" on the source to accept it/,
    );
    expect(r.published).toBe(false);
    const accepted = await backfill("wgs66-ballpark", { ...source, datumShift: "ballpark" });
    expect(accepted.code, accepted.out).toBe(0);
    const rowCount =
      readFileSync(join(dir, "weld", "points.csv"), "utf8")
        .trim()
        .split("\n").length - 1;
    // The outcome says what it took, and so does the artifact's own footer, for a reader of the file alone.
    expect(accepted.out).toContain(`${rowCount} positions through PROJ's ballpark datum shift in 1 partition`);
    const artifacts = readdirSync(join(dir, "data", "artifacts", "wgs66-ballpark"), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".parquet"));
    expect(artifacts).toHaveLength(1);
    const conn = await duckdb();
    const kv = await rows(
      conn,
      `SELECT decode(value) AS v FROM parquet_kv_metadata('${join(dir, "data", "artifacts", "wgs66-ballpark", artifacts[0] as string)}') WHERE decode(key) = 'georefresh:datum_shift'`,
    );
    expect(JSON.parse(String(kv[0]?.v))).toMatchObject({
      method: "ballpark",
      positions: rowCount,
      datums: ["WGS 66 (EPSG:4760)"],
    });
    const read = await runCliHere([
      "read",
      "wgs66-ballpark",
      "--config",
      join(dir, "wgs66-ballpark.config.json"),
      "--region",
      "weld",
      "--latest-date",
      "--format",
      "geojson",
    ]);
    expect(read.code, read.stderr).toBe(0);
    const ours = (JSON.parse(read.stdout) as { features: { geometry: { coordinates: number[] } }[] }).features;
    const csv = readFileSync(join(dir, "weld", "points.csv"), "utf8")
      .trim()
      .split("\n");
    const header = (csv[0] as string).split(",");
    const [xi, yi] = [header.indexOf("X"), header.indexOf("Y")];
    const theirs = csv.slice(1).map((line) => line.split(",").map(Number));
    expect(ours).toHaveLength(theirs.length);
    // The ballpark keeps lon/lat as they are (PROJ: "Ballpark geographic offset from WGS 66 to WGS 84").
    const key = (p: number[]) => `${(p[0] as number).toFixed(9)} ${(p[1] as number).toFixed(9)}`;
    expect(new Set(ours.map((f) => key(f.geometry.coordinates)))).toEqual(
      new Set(theirs.map((row) => key([row[xi] as number, row[yi] as number]))),
    );
  });

  it("a file's CRS that the config contradicts is refused; an ESRI .prj equal to the config's EPSG code is not", async () => {
    const r = await backfill("conflict", { url: "./{region}/parcels.gpkg", layer: "parcels", crs: "EPSG:3857" });
    expect(r.code, r.out).toBe(5);
    expect(r.out).toMatch(
      /says the CRS is EPSG:26913, but the source's "crs" is EPSG:3857; a file's own CRS wins, so remove "crs"/,
    );
    expect(r.published).toBe(false);
    const same = await backfill("esri-same", { url: "./{region}/parcels.zip", crs: "EPSG:26913" });
    expect(same.code, same.out).toBe(0);
    expect(same.out).toMatch(/1 promoted/);
  });

  it("corrupt files name the file and what is wrong", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        "half-gpkg",
        { url: "./{region}/half.gpkg" },
        /half\.gpkg cannot be opened as a GeoPackage|half\.gpkg is not a GeoPackage|database disk image is malformed/,
      ],
      [
        "noise-fgb",
        { url: "./{region}/noise.fgb" },
        /noise\.fgb (cannot be read as FlatGeobuf|is not a FlatGeobuf file)/,
      ],
      ["cut-shp", { url: "./{region}/cut/parcels.shp" }, /parcels\.shp: the \.shp is truncated at record 30/],
    ];
    for (const [dataset, source, message] of cases) {
      const r = await backfill(dataset, source);
      expect(r.code, `${dataset}: ${r.out}`).toBe(5);
      expect(r.out).toMatch(message);
      expect(r.published).toBe(false);
    }
  });

  it("a zip bomb and an entry named ../ are refused before anything is unpacked", async () => {
    const bomb = await backfill("bomb", { url: "./{region}/bomb.zip", crs: "EPSG:26913" });
    expect(bomb.code, bomb.out).toBe(5);
    expect(bomb.out).toMatch(/bomb\.zip: entry parcels\.shp unpacks \d+× .* it looks like a zip bomb; refusing it/);
    expect(bomb.published).toBe(false);
    const climb = await backfill("climb", { url: "./{region}/climb.zip", crs: "EPSG:26913" });
    expect(climb.code, climb.out).toBe(5);
    expect(climb.out).toMatch(
      /climb\.zip holds an entry whose name leaves the archive \(invalid relative path: \.\.\/\.\.\/parcels\.shp\); refusing it/,
    );
    expect(climb.published).toBe(false);
    // Nothing was written beside the store or the corpus.
    expect(existsSync(join(dir, "parcels.shp"))).toBe(false);
  });

  it("a GeoPackage of several layers needs one named, a layer it lacks is named with the ones it has, and so is a key", async () => {
    const none = await backfill("nolayer", { url: "./{region}/parcels.gpkg" });
    expect(none.code).toBe(5);
    expect(none.out).toMatch(
      /parcels\.gpkg has 3 layers \(mixed, parcels, points3d\); name one with "layer" in the source/,
    );
    const wrong = await backfill("wronglayer", { url: "./{region}/parcels.gpkg", layer: "roads" });
    expect(wrong.code).toBe(5);
    expect(wrong.out).toMatch(/has no features layer "roads" \(its layers: mixed, parcels, points3d\); fix "layer"/);
    const key = await backfill("wrongkey", { url: "./{region}/parcels.zip", key: "PARCEL_ID" });
    expect(key.code).toBe(5);
    expect(key.out).toMatch(
      /has no column "PARCEL_ID" for the source's "key" \(its columns: parcel_id, zoning, acres, units, owner\)/,
    );
    expect(key.published).toBe(false);
  });

  it("config mistakes are exit 2 when the config loads, naming the dataset and the key", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: "./x.gpkg", layr: "a" }, /dataset 'c': "source" has an unknown key "layr"/],
      [{ url: "./x.dat" }, /cannot tell the format of "\.\/x\.dat" from its name; add "format"/],
      [
        { url: "./x.gpkg", format: "kml" },
        /"source\.format" must be one of geojson, geojsonseq, flatgeobuf, shapefile, gpkg, csv, geoparquet/,
      ],
      [{ url: "./{county}/x.gpkg" }, /"source\.url" has \{county\}; only \{region\} and \{date\} are filled in/],
      [
        { url: "./x.gpkg", key: ["id"], columns: { ID: "parcel_id" } },
        /"source\.key" names "id", which "columns" does not keep/,
      ],
      [{ url: "./x.gpkg", crs: "EPSG:999999" }, /unknown CRS "EPSG:999999"/],
      [
        { url: "./x.gpkg", complete: false },
        /"source\.complete": false merges each file into the previous version by its key: add "key"/,
      ],
    ];
    for (const [source, message] of cases) {
      const config = join(dir, "bad.config.json");
      writeFileSync(config, JSON.stringify({ store: "./data", datasets: { c: { source, regions: ["weld"] } } }));
      const r = await runCliHere([
        "backfill",
        "--config",
        config,
        "--dataset",
        "c",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
      ]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    writeFileSync(
      join(dir, "bad.config.json"),
      JSON.stringify({ store: "./data", datasets: { c: { source: { url: "./x.gpkg" } } } }),
    );
    const r = await runCliHere(["ls", "c", "--config", join(dir, "bad.config.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a source dataset needs "regions"/);
  });
});
