/**
 * One file per rule of `validate` beyond the basics in validate.test.ts: each breaks only that rule (written by
 * DuckDB, or our writer's output with its footer edited), and the valid variants of every GeoParquet version and
 * encoding pass. Warnings pass unless --strict.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import type { Geometry, Position } from "../../src/geo/geometry.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { RULES, validateGeoParquetFile } from "../../src/geoparquet/validate.js";
import type { FileReport, ValidateFileOptions } from "../../src/geoparquet/validate.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { field, setField, structField, T, utf8 } from "../../src/geoparquet/thrift.js";
import type { ThriftStruct } from "../../src/geoparquet/thrift.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { duckdb } from "../helpers/duckdb.js";
import { geoFor, writeDuckFile } from "../helpers/duck-file.js";
import type { DuckFileOptions } from "../helpers/duck-file.js";
import { chunkMetas, editFooter, editGeo, setGeo } from "../helpers/footer-edit.js";
import { INVALID } from "../geo/corpus.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-rules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ring = (x: number, y: number, d = 1): Position[] => [
  [x, y],
  [x + d, y],
  [x + d, y + d],
  [x, y + d],
  [x, y],
];
const square = (x: number, y: number): Geometry => ({ type: "Polygon", coordinates: [ring(x, y)] });
const duck = (name: string, geoms: Geometry[], geo: unknown, opts?: DuckFileOptions) =>
  writeDuckFile(join(dir, name), geoms, geo, opts);
const seen = new Set<string>();
const check = async (bytes: Uint8Array | string, options: ValidateFileOptions = {}): Promise<FileReport> => {
  const r = await validateGeoParquetFile(typeof bytes === "string" ? readFileSync(bytes) : bytes, "test.parquet", {
    threads: 0,
    ...options,
  });
  for (const f of [...r.errors, ...r.warnings]) seen.add(f.rule);
  return r;
};
const rules = (fs: { rule: string }[]) => [...new Set(fs.map((f) => f.rule))];

/** A DuckDB literal in GeoArrow's separated layout: {x, y} structs nested in lists. */
function arrowSql(coords: unknown): string {
  if (typeof (coords as number[])[0] === "number") {
    const [x, y] = coords as number[];
    return `{'x': ${x}::DOUBLE, 'y': ${y}::DOUBLE}`;
  }
  return `[${(coords as unknown[]).map(arrowSql).join(", ")}]`;
}

async function nativeFile(name: string, encoding: string, coords: unknown[], version = "1.1.0") {
  const path = join(dir, name);
  const values = coords.map((c, i) => `(${i}, ${arrowSql(c)})`).join(", ");
  const geo = { version, primary_column: "geometry", columns: { geometry: { encoding, geometry_types: [] } } };
  await (
    await duckdb()
  ).run(
    `COPY (SELECT * FROM (VALUES ${values}) t(id, geometry)) TO '${path}' (FORMAT parquet, COMPRESSION zstd, KV_METADATA {geo: '${JSON.stringify(geo)}'})`,
  );
  return path;
}

const editGeoTypes = (geo: { columns: { geometry: object } }, types: string[]) => ({
  ...geo,
  columns: { geometry: { ...geo.columns.geometry, geometry_types: types } },
});

describe("validate rules", () => {
  let ours11: Uint8Array;
  let ours20: Uint8Array;
  beforeAll(async () => {
    const features: Feature[] = Array.from({ length: 4000 }, (_, i) => ({
      geometry: { type: "Point", coordinates: [-100 + (i % 63) * 0.1, 40 + Math.floor(i / 63) * 0.1] },
      properties: { id: i },
    }));
    const { table, stats } = featuresToTable(features);
    const w = (format: "geoparquet-1.1" | "geoparquet-2.0") =>
      writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), idColumn: "id", stats, rowGroupRows: 1024, format });
    ours11 = (await w("geoparquet-1.1")).bytes;
    ours20 = (await w("geoparquet-2.0")).bytes;
  });

  it("our 1.1 and 2.0 files pass --strict: no error, no warning", async () => {
    for (const bytes of [ours11, ours20]) {
      const r = await check(bytes, { strict: true });
      expect([...r.errors, ...r.warnings]).toEqual([]);
      expect(r.ok).toBe(true);
    }
  });

  it("every GeoArrow encoding of 1.1 passes, decoded and checked row by row; an invalid native polygon fails", async () => {
    const cases: [string, unknown[]][] = [
      [
        "point",
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [
        "linestring",
        [
          [
            [0, 0],
            [1, 1],
          ],
          [
            [2, 2],
            [3, 5],
          ],
        ],
      ],
      ["polygon", [[ring(0, 0)], [ring(5, 5, 2), ring(5.5, 5.5, 0.5).reverse()]]],
      [
        "multipoint",
        [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      ],
      [
        "multilinestring",
        [
          [
            [
              [0, 0],
              [1, 1],
            ],
            [
              [2, 2],
              [3, 3],
            ],
          ],
        ],
      ],
      ["multipolygon", [[[ring(0, 0)], [ring(3, 3)]]]],
    ];
    for (const [encoding, coords] of cases) {
      const r = await check(await nativeFile(`native-${encoding}.parquet`, encoding, coords));
      expect(r.errors, encoding).toEqual([]);
      expect(r.rows).toBe(coords.length);
    }
    const bowtie = [
      [
        [0, 0],
        [1, 1],
        [1, 0],
        [0, 1],
        [0, 0],
      ],
    ];
    const bad = await check(await nativeFile("native-bowtie.parquet", "polygon", [bowtie]));
    expect(bad.errors.map((e) => [e.rule, e.row])).toEqual([["geometry-invalid", 0]]);
    expect(bad.errors[0]?.message).toMatch(/Self-intersection/);
  });

  it("a GeoArrow column whose nesting is not its encoding's fails (geometry-column)", async () => {
    const r = await check(await nativeFile("native-wrong.parquet", "polygon", [[1, 2]]));
    expect(r.errors.map((e) => e.message)).toEqual([
      "geometry column 'geometry' cannot hold encoding 'polygon': level 1 is Struct<{x:Float64, y:Float64}>, expected a list",
    ]);
  });

  it("WKB that does not decode fails with its row (geometry-wkb); past maxRowFindings a summary counts the rest", async () => {
    const bowtie = INVALID.find((c) => c.name === "bow-tie")?.geometry as Geometry;
    const truncated = await duck("truncated-wkb.parquet", [square(0, 0)], geoFor("geom", []), {
      columnSql: "from_hex('0101000000000000000000f03f')",
    });
    const r = await check(truncated);
    expect(r.errors.map((e) => [e.rule, e.row])).toEqual([["geometry-wkb", 0]]);
    expect(r.errors[0]?.message).toMatch(/truncated: coordinate needs 16 bytes, 8 left/);
    const many = await check(await duck("bowties.parquet", [bowtie, bowtie, bowtie], geoFor("geom", [])), {
      maxRowFindings: 1,
    });
    expect(many.errors.map((e) => e.rule)).toEqual(["geometry-invalid", "summary"]);
    expect(many.errors[1]?.message).toBe("2 more row findings not listed (3 in all)");
  });

  it("1.0 and 2.0 refuse native encodings (encoding)", async () => {
    for (const version of ["1.0.0", "2.0.0"]) {
      const r = await check(await nativeFile(`native-${version}.parquet`, "point", [[1, 2]], version));
      expect(rules(r.errors), version).toEqual(["encoding"]);
    }
  });

  it("an unknown version fails (version); 2.0-dev and 2.0.0 pass", async () => {
    const bad = await check(editGeo(ours11, (g) => (g.version = "3.0.0")));
    expect(rules(bad.errors)).toEqual(["version"]);
    for (const v of ["2.0-dev", "2.0.0"])
      expect((await check(editGeo(ours20, (g) => (g.version = v)))).errors).toEqual([]);
  });

  it("M and ZM types need 2.0 (geometry-types); in 2.0 they are accepted", async () => {
    const m = (g: Record<string, any>) => (g.columns.geometry.geometry_types = ["Point", "Point M", "Point ZM"]);
    expect(rules((await check(editGeo(ours11, m))).errors)).toEqual(["geometry-types"]);
    const r20 = await check(editGeo(ours20, m));
    expect(r20.errors).toEqual([]);
    expect(r20.warnings.map((w) => w.message)).toEqual([
      "geometry_types declares Point M, Point ZM, which no row holds",
    ]);
  });

  it("XYM and XYZM rows of a 2.0 file (DuckDB's native GEOMETRY) pass, each checked by GEOS", async () => {
    const path = join(dir, "m.parquet");
    const wkt = ["POINT M (1 2 3)", "LINESTRING ZM (0 0 1 2, 1 1 3 4)", "POLYGON M ((0 0 1, 1 0 1, 1 1 1, 0 0 1))"];
    const values = wkt.map((w, i) => `(${i}, '${w}'::GEOMETRY)`).join(", ");
    await (
      await duckdb()
    ).run(
      `COPY (SELECT * FROM (VALUES ${values}) t(id, geometry)) TO '${path}' (FORMAT parquet, COMPRESSION zstd, GEOPARQUET_VERSION 'V2')`,
    );
    // DuckDB writes the native type and statistics for M but no `geo` key; the one it would write is added.
    const types = ["Point M", "LineString ZM", "Polygon M"];
    const geo = {
      version: "2.0.0",
      primary_column: "geometry",
      columns: { geometry: { encoding: "WKB", geometry_types: types } },
    };
    const r = await check(setGeo(new Uint8Array(readFileSync(path)), geo));
    expect(r.errors).toEqual([]);
    const lying = await check(
      setGeo(new Uint8Array(readFileSync(path)), editGeoTypes(geo, ["Point", "LineString", "Polygon"])),
    );
    expect(lying.errors.map((e) => e.message)).toEqual([
      "data holds Point M, LineString ZM, Polygon M, which geometry_types [Point, LineString, Polygon] does not declare",
    ]);
  });

  it("a crs that is not PROJJSON fails (crs, crs-projjson)", async () => {
    const str = await check(editGeo(ours11, (g) => (g.columns.geometry.crs = "EPSG:4326")));
    expect(rules(str.errors)).toContain("crs");
    const partial = await check(
      editGeo(ours11, (g) => (g.columns.geometry.crs = { type: "GeographicCRS", name: "x" })),
    );
    expect(partial.skipped).toEqual([]); // PROJ's schema is installed here (scripts/test-deps.sh)
    expect(rules(partial.errors)).toEqual(["crs-projjson"]);
  });

  it("2.0 needs the native type (native-type)", async () => {
    const r = await check(editGeo(ours11, (g) => (g.version = "2.0.0")));
    expect(rules(r.errors)).toEqual(["native-type"]);
    expect(r.errors[0]?.message).toMatch(/needs 'geometry' annotated with Parquet's GEOMETRY or GEOGRAPHY/);
  });

  it("the geo crs and the native type's crs must agree, and 2.0 wants it inline (native-crs)", async () => {
    const projected = crsFromCode("EPSG:5070").projjson;
    const other = await check(editGeo(ours20, (g) => (g.columns.geometry.crs = projected)));
    expect(rules(other.errors)).toContain("native-crs");
    expect(other.errors.find((e) => e.rule === "native-crs")?.message).toMatch(
      /'geo' says the crs is EPSG:5070, the GEOMETRY type says OGC:CRS84/,
    );
    const srid = editFooter(ours20, (m) => {
      const schema = (m.fields.find((f) => f.id === 2)?.value as { items: ThriftStruct[] }).items;
      const el = schema.find((s) => new TextDecoder().decode(field(s, 4) as Uint8Array) === "geometry") as ThriftStruct;
      const geometry = structField(structField(el, 10) as ThriftStruct, 17) as ThriftStruct;
      setField(geometry, 1, T.BINARY, utf8("srid:5070"));
    });
    const r = await check(srid);
    expect(rules(r.errors)).toEqual(["native-crs"]);
    expect(r.errors[0]?.message).toMatch(/requires an inline PROJJSON crs/);
  });

  it("spherical edges on a GEOMETRY column fail (native-edges) and warn without orientation", async () => {
    const r = await check(editGeo(ours20, (g) => (g.columns.geometry.edges = "spherical")));
    expect(rules(r.errors)).toEqual(["native-edges"]);
    expect(rules(r.warnings)).toEqual(["spherical-orientation"]);
  });

  it("orientation counterclockwise is checked on every ring (orientation)", async () => {
    const geo = geoFor("geom", ["Polygon"], { orientation: "counterclockwise" });
    const ccw: Geometry = { type: "Polygon", coordinates: [ring(0, 0, 4), ring(1, 1).reverse()] };
    expect((await check(await duck("ccw.parquet", [ccw], geo))).errors).toEqual([]);
    const cw: Geometry = { type: "Polygon", coordinates: [ring(0, 0).reverse()] };
    const r = await check(await duck("cw.parquet", [ccw, cw], geo));
    expect(r.errors.map((e) => [e.rule, e.row])).toEqual([["orientation", 1]]);
    expect(r.errors[0]?.message).toMatch(/an exterior ring is clockwise/);
  });

  it("a bbox may cross the antimeridian in a geographic CRS; rows outside it and a projected one fail (bbox)", async () => {
    const pts = (...xs: number[]): Geometry[] => xs.map((x) => ({ type: "Point", coordinates: [x, 0] }));
    const geo = geoFor("geom", ["Point"], { bbox: [170, -10, -170, 10] });
    expect((await check(await duck("am-ok.parquet", pts(175, -175), geo))).errors).toEqual([]);
    const out = await check(await duck("am-bad.parquet", pts(175, -175, 0), geo));
    expect(out.errors.map((e) => [e.rule, e.row])).toEqual([["bbox", 2]]);
    const projected = geoFor("geom", ["Point"], { bbox: [170, -10, -170, 10], crs: crsFromCode("EPSG:5070").projjson });
    const p = await check(await duck("am-projected.parquet", pts(175, -175), projected));
    expect(p.errors.map((e) => e.message)).toEqual([
      "declared bbox has xmin 170 > xmax -170, which only a geographic CRS may use (to cross the antimeridian)",
    ]);
  });

  it("best practice: compression, no-covering, spatial-order are warnings; --strict fails them; --ignore drops them", async () => {
    // 500 points in a scrambled order, written with snappy and no covering.
    const scrambled = Array.from({ length: 500 }, (_, i): Geometry => {
      const k = (i * 7919) % 500;
      return { type: "Point", coordinates: [(k % 25) * 0.1, Math.floor(k / 25) * 0.1] };
    });
    const path = await duck("practice.parquet", scrambled, geoFor("geom", ["Point"]), { compression: "snappy" });
    const r = await check(path);
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    expect(rules(r.warnings).sort()).toEqual(["compression", "no-covering", "spatial-order"]);
    expect((await check(path, { strict: true })).ok).toBe(false);
    const cli = await runCli(["validate", path, "--json", "--strict", "--ignore", "no-covering,spatial-order"]);
    expect(cli.code).toBe(1);
    const json = JSON.parse(cli.stdout) as { files: { warnings: { rule: string }[] }[] };
    expect(json.files[0]?.warnings.map((w) => w.rule)).toEqual(["compression"]);
    const ignored = await runCli(["validate", path, "--strict", "--ignore", "compression,no-covering,spatial-order"]);
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toBe(`${path}: ok (500 rows, OGC:CRS84)\n`);
    const typo = await runCli(["validate", path, "--ignore", "compresion"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--ignore: unknown rule "compresion" \(rules: geo-metadata, /);
  });

  it("row groups far from 50k–150k rows in a big file warn (row-group-size)", async () => {
    const r = await check(ours11, { practice: { rowGroupAdviceBytes: 1 } });
    expect(rules(r.warnings)).toEqual(["row-group-size"]);
    expect(r.warnings[0]?.message).toMatch(/3 of 4 row groups hold fewer than 50000 or more than 150000 rows/);
    expect((await check(ours11)).warnings).toEqual([]); // a 4000-row file is not "big"
  });

  it("covering columns without min/max statistics warn (covering-statistics)", async () => {
    const stripped = editFooter(ours11, (m) => {
      for (const c of chunkMetas(m)) if (c.path[0] === "bbox") setField(c.meta, 12, T.STRUCT, undefined);
    });
    const r = await check(stripped);
    expect(r.errors).toEqual([]);
    expect(rules(r.warnings)).toEqual(["covering-statistics"]);
  });

  it("prints warnings on a passing file and exits 0", async () => {
    const path = join(dir, "warned.parquet");
    writeFileSync(
      path,
      editGeo(ours20, (g) => (g.columns.geometry.geometry_types = ["Point", "Polygon"])),
    );
    const cli = await runCli(["validate", path]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(
      /ok \(4000 rows, OGC:CRS84\)\n {2}warning geometry-types \(column geometry\): geometry_types declares Polygon/,
    );
  });

  it("every rule a finding carried in these tests is a listed rule name", () => {
    for (const r of seen) expect(RULES as readonly string[]).toContain(r);
    expect(seen.size).toBeGreaterThanOrEqual(15);
  });
});
