/**
 * `georefresh validate` on our own files, on GeoParquet that DuckDB wrote, and on a corpus of bad files — each
 * must fail with the rule that names its problem.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import type { Geometry } from "../../src/geo/geometry.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import { validateGeoParquetFile } from "../../src/geoparquet/validate.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { geoFor, writeDuckFile } from "../helpers/duck-file.js";
import type { DuckFileOptions } from "../helpers/duck-file.js";
import { sampleFeatures } from "../helpers/sample.js";
import { INVALID } from "../geo/corpus.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-validate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD: Geometry[] = [
  { type: "Point", coordinates: [-100, 40] },
  {
    type: "Polygon",
    coordinates: [
      [
        [-100, 40],
        [-99, 40],
        [-99, 41],
        [-100, 41],
        [-100, 40],
      ],
    ],
  },
];

const duckFile = (name: string, geoms: Geometry[], geo: unknown, opts?: DuckFileOptions) =>
  writeDuckFile(join(dir, name), geoms, geo, opts);

describe("validate", () => {
  let ours: string;
  beforeAll(async () => {
    const { table, stats } = featuresToTable(sampleFeatures(4000, 5));
    ours = join(dir, "ours.parquet");
    writeFileSync(ours, (await writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), idColumn: "id", stats })).bytes);
  });

  it("passes our own artifact (CLI, exit 0, one quiet line)", async () => {
    const r = await runCli(["validate", ours, "--expect-crs", "OGC:CRS84"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${ours}: ok (4000 rows, OGC:CRS84)\n`);
  });

  it("passes GeoParquet written by DuckDB: another column name, no covering, no crs key, empty geometry_types", async () => {
    const path = await duckFile("duck-good.parquet", GOOD, geoFor("geom", []));
    const report = await validateGeoParquetFile(readFileSync(path), path);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => w.rule)).toEqual(["no-covering"]); // a best-practice warning only
    expect(report).toMatchObject({ ok: true, rows: 2, crs: "OGC:CRS84" });
  });

  it("fails every invalid geometry of the corpus with GEOS's reason and its row", async () => {
    const geoms = INVALID.map((c) => c.geometry);
    const path = await duckFile("duck-invalid.parquet", geoms, geoFor("geom", []));
    const report = await validateGeoParquetFile(readFileSync(path), path, { threads: 1 });
    expect(report.ok).toBe(false);
    for (const [row, c] of INVALID.entries()) {
      const found = report.errors.filter((f) => f.row === row);
      expect(
        found.map((f) => f.rule),
        c.name,
      ).toContain(`geometry-${c.kind}`);
      expect(found.map((f) => f.message).join(" | "), c.name).toMatch(c.reason);
    }
    const cli = await runCli(["validate", path, "--json"]);
    expect(cli.code).toBe(1);
    const json = JSON.parse(cli.stdout) as { ok: boolean; files: { errors: { rule: string }[] }[] };
    expect(json.ok).toBe(false);
    expect(json.files[0]?.errors.length).toBeGreaterThanOrEqual(INVALID.length);
  });

  const metadataCases: { name: string; file: () => Promise<string>; rule: string; message: RegExp }[] = [
    {
      name: "no geo metadata",
      file: () => duckFile("no-geo.parquet", GOOD, undefined),
      rule: "geo-metadata",
      message: /not GeoParquet: no 'geo' key/,
    },
    {
      name: "schema-invalid geo",
      file: () =>
        duckFile("wkt.parquet", GOOD, {
          ...geoFor("geom", []),
          columns: { geom: { encoding: "WKT", geometry_types: [] } },
        }),
      rule: "geo-schema",
      message: /encoding/,
    },
    {
      name: "primary column missing",
      file: () => duckFile("no-primary.parquet", GOOD, geoFor("geometry", [])),
      rule: "geometry-column",
      message: /'geometry' is described in 'geo' but missing/,
    },
    {
      name: "geometry column not binary",
      file: () => duckFile("varchar.parquet", GOOD, geoFor("geom", []), { columnSql: "$WKB" }),
      rule: "geometry-column",
      message: /must be a top-level BYTE_ARRAY/,
    },
    {
      name: "geometry_types that lie",
      file: () => duckFile("types.parquet", GOOD, geoFor("geom", ["Point"])),
      rule: "geometry-types",
      message: /data holds Polygon, which geometry_types \[Point\] does not declare/,
    },
    {
      name: "bbox that lies",
      file: () => duckFile("bbox.parquet", GOOD, geoFor("geom", [], { bbox: [-100, 40, -99.5, 40.5] })),
      rule: "bbox",
      message: /does not contain the data's extent/,
    },
    {
      name: "covering that lies",
      file: () =>
        duckFile(
          "covering.parquet",
          GOOD,
          geoFor("geom", [], {
            covering: {
              bbox: { xmin: ["bbox", "xmin"], ymin: ["bbox", "ymin"], xmax: ["bbox", "xmax"], ymax: ["bbox", "ymax"] },
            },
          }),
          {
            extra: ", {'xmin': 0.0::DOUBLE, 'ymin': 0.0::DOUBLE, 'xmax': 1.0::DOUBLE, 'ymax': 1.0::DOUBLE} AS bbox",
          },
        ),
      rule: "covering",
      message: /does not contain the geometry's bbox/,
    },
  ];
  for (const c of metadataCases) {
    it(`fails a file with ${c.name}`, async () => {
      const path = await c.file();
      const report = await validateGeoParquetFile(readFileSync(path), path, { threads: 0 });
      expect(report.ok).toBe(false);
      const finding = report.errors.find((f) => f.rule === c.rule);
      expect(finding?.message, JSON.stringify(report.errors)).toMatch(c.message);
      const cli = await runCli(["validate", path]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(new RegExp(`FAIL[\\s\\S]*error +${c.rule}`));
    });
  }

  it("warns on crs: null and fails it against --expect-crs", async () => {
    const path = await duckFile("crs-null.parquet", GOOD, geoFor("geom", [], { crs: null }));
    const report = await validateGeoParquetFile(readFileSync(path), path);
    expect(report.ok).toBe(true);
    expect(report.warnings.find((w) => w.rule === "crs")?.message).toMatch(/has no CRS \(crs: null means unknown\)/);
    const cli = await runCli(["validate", path, "--expect-crs", "EPSG:4326"]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/expected EPSG:4326, the file's primary column is in an unknown CRS/);
  });

  it("exits 2 with a clear message for a truncated footer, a wrong magic, a missing file and a bad option", async () => {
    const bytes = readFileSync(ours);
    const truncated = join(dir, "truncated.parquet");
    writeFileSync(truncated, bytes.subarray(0, bytes.byteLength - 100));
    const magic = join(dir, "magic.parquet");
    writeFileSync(magic, Buffer.concat([Buffer.from("NOPE"), bytes.subarray(4)]));
    const cases: [string[], RegExp][] = [
      [[truncated], /is truncated: it does not end with the 'PAR1' footer magic/],
      [[magic], /is not a Parquet file: it does not start with the 'PAR1' magic/],
      [[join(dir, "absent.parquet")], /absent.parquet: no such file/],
      [[ours, "--expect-crs", "EPSG:1"], /unknown CRS "EPSG:1"/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["validate", ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
