import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Binary, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { crsFromCode, crsFromGeoParquet } from "../../src/geo/crs/crs.js";
import type { Geometry } from "../../src/geo/geometry.js";
import { decodeWkb } from "../../src/geo/wkb.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { readGeoParquet, readRowGroups } from "../../src/geoparquet/read.js";
import { writeGeoParquet, WRITER_ID } from "../../src/geoparquet/write.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { sampleFeatures } from "../helpers/sample.js";

const CRS84 = crsFromCode("OGC:CRS84");
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const dir = mkdtempSync(join(tmpdir(), "georefresh-gpq-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function save(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const EVERY_TYPE: Geometry[] = [
  { type: "Point", coordinates: [-100, 40] },
  {
    type: "LineString",
    coordinates: [
      [-100, 40],
      [-99, 41],
    ],
  },
  {
    type: "Polygon",
    coordinates: [
      [
        [-100, 40],
        [-99, 40],
        [-99, 41],
        [-100, 40],
      ],
    ],
  },
  {
    type: "MultiPoint",
    coordinates: [
      [-100, 40],
      [-98, 42],
    ],
  },
  {
    type: "MultiLineString",
    coordinates: [
      [
        [-100, 40],
        [-99, 41],
      ],
      [
        [-98, 40],
        [-97, 41],
      ],
    ],
  },
  {
    type: "MultiPolygon",
    coordinates: [
      [
        [
          [-100, 40],
          [-99, 40],
          [-99, 41],
          [-100, 40],
        ],
      ],
      [
        [
          [-90, 30],
          [-89, 30],
          [-89, 31],
          [-90, 30],
        ],
      ],
    ],
  },
  {
    type: "GeometryCollection",
    geometries: [
      { type: "Point", coordinates: [-95, 35] },
      {
        type: "LineString",
        coordinates: [
          [-95, 35],
          [-94, 36],
        ],
      },
    ],
  },
  { type: "Point", coordinates: [-101, 39, 250.5] },
  { type: "Polygon", coordinates: [] },
];

describe("GeoParquet write and read", () => {
  it("round-trips every geometry type, with truthful geometry_types, bbox and covering", async () => {
    const features: Feature[] = EVERY_TYPE.map((geometry, id) => ({ geometry, properties: { id, label: `g${id}` } }));
    const { table, stats } = featuresToTable(features);
    const out = await writeGeoParquet(table, { crs: CRS84, idColumn: "id", stats });
    expect(out.geometryTypes).toEqual([
      "Point",
      "Point Z",
      "LineString",
      "Polygon",
      "MultiPoint",
      "MultiLineString",
      "MultiPolygon",
      "GeometryCollection",
    ]);
    expect(out.bbox).toEqual([-101, 30, -89, 42]);
    const back = await readGeoParquet(out.bytes, "every-type.parquet");
    const column = back.geo.columns.geometry;
    expect(column?.geometry_types).toEqual(out.geometryTypes);
    expect(column?.bbox).toEqual([-101, 30, -89, 42]);
    expect(column?.covering?.bbox.xmin).toEqual(["bbox", "xmin"]);
    expect("crs" in (column ?? {})).toBe(false); // OGC:CRS84 is omitted, as the spec says
    const ids = back.table.getChild("id")?.toArray() as Float64Array;
    const geoms = back.table.getChild("geometry");
    const bbox = back.table.getChild("bbox");
    for (let i = 0; i < back.table.numRows; i++) {
      const id = ids[i] as number;
      expect(decodeWkb(geoms?.get(i) as Uint8Array)).toEqual(EVERY_TYPE[id]);
      const box = bbox?.get(i);
      if (id === 8)
        expect(box).toBeNull(); // an empty geometry has no extent
      else expect([box?.xmin, box?.ymin, box?.xmax, box?.ymax]).toEqual([...stats.bboxes.subarray(4 * id, 4 * id + 4)]);
    }
    expect(back.footer.createdBy).toBe(WRITER_ID);
  });

  it("writes PROJJSON for a projected CRS that reads back as the same CRS", async () => {
    const { table } = featuresToTable([{ geometry: { type: "Point", coordinates: [0, 0] }, properties: { id: 1 } }]);
    const out = await writeGeoParquet(table, { crs: crsFromCode("EPSG:5070") });
    const back = await readGeoParquet(out.bytes, "albers.parquet");
    expect(crsFromGeoParquet(back.geo.columns.geometry ?? {}, "albers.parquet").id).toBe("EPSG:5070");
  });

  it("is byte-identical for identical rows: twice, in any input order, and in another process", async () => {
    const features = sampleFeatures(5000);
    const write = async (fs: Feature[]) =>
      sha((await writeGeoParquet(featuresToTable(fs).table, { crs: CRS84, idColumn: "id" })).bytes);
    const first = await write(features);
    expect(await write(features)).toBe(first);
    expect(await write([...features].reverse())).toBe(first);
    const child = execFileSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("../helpers/write-sample.ts", import.meta.url)), "5000"],
      { encoding: "utf8" },
    );
    expect(child).toBe(first);
    // And the file really depends on the data: one changed value changes it.
    const changed = features.map((f) =>
      f.properties.id === 42 ? { ...f, properties: { ...f.properties, value: -1 } } : f,
    );
    expect(await write(changed)).not.toBe(first);
  });

  it("writes row groups of 65,536 rows, in Hilbert order, read back group by group", async () => {
    const n = 70_000;
    const { table, stats } = featuresToTable(sampleFeatures(n, 7));
    const out = await writeGeoParquet(table, { crs: CRS84, idColumn: "id", stats });
    const groups: number[] = [];
    let centreJumps = 0;
    for await (const g of readRowGroups(out.bytes, "big.parquet")) {
      groups.push(g.table.numRows);
      const bbox = g.table.getChild("bbox");
      for (let i = 1; i < Math.min(2000, g.table.numRows); i++) {
        const a = bbox?.get(i - 1);
        const b = bbox?.get(i);
        if (Math.abs(a.xmin - b.xmin) > 5 || Math.abs(a.ymin - b.ymin) > 5) centreJumps++;
      }
    }
    expect(groups).toEqual([65_536, 4_464]);
    // Neighbours in the file are neighbours on the map (random order would jump almost every row).
    expect(centreJumps).toBeLessThan(50);
  });

  it("is read by DuckDB with the same rows, the same geo JSON and the same WKB bytes", async () => {
    const { table, stats } = featuresToTable(sampleFeatures(3000, 3));
    const out = await writeGeoParquet(table, { crs: crsFromCode("EPSG:4326"), idColumn: "id", stats });
    const path = save("duck.parquet", out.bytes);
    const conn = await duckdb();
    await conn.run("SET enable_geoparquet_conversion = false");
    const [count] = await rows(conn, `SELECT count(*)::INTEGER AS n FROM read_parquet('${path}')`);
    expect(count?.n).toBe(3000);
    const [kv] = await rows(
      conn,
      `SELECT decode(value) AS geo FROM parquet_kv_metadata('${path}') WHERE decode(key) = 'geo'`,
    );
    expect(kv?.geo).toBe(out.geo);
    const ours = await readGeoParquet(out.bytes, "duck.parquet");
    const theirs = await rows(conn, `SELECT id, geometry, bbox.xmin AS xmin FROM read_parquet('${path}')`);
    const oursGeom = ours.table.getChild("geometry");
    expect(theirs).toHaveLength(ours.table.numRows);
    for (const [i, row] of theirs.entries()) {
      expect(row.id).toBe(ours.table.getChild("id")?.get(i));
      expect(Buffer.from(row.geometry as Uint8Array).equals(Buffer.from(oursGeom?.get(i) as Uint8Array))).toBe(true);
    }
    const groups = await rows(
      conn,
      `SELECT count(DISTINCT row_group_id)::INTEGER AS g FROM parquet_metadata('${path}')`,
    );
    expect(groups[0]?.g).toBe(1);
  });

  it("writes an empty table that DuckDB reads as zero rows", async () => {
    const out = await writeGeoParquet(featuresToTable([]).table, { crs: CRS84 });
    const conn = await duckdb();
    const [r] = await rows(
      conn,
      `SELECT count(*)::INTEGER AS n FROM read_parquet('${save("empty.parquet", out.bytes)}')`,
    );
    expect(r?.n).toBe(0);
    expect(out.geometryTypes).toEqual([]);
  });

  it("refuses tables it cannot write truthfully", async () => {
    const strings = new Table({ geometry: vectorFromArray(["POINT (1 2)"], new Utf8()) });
    await expect(writeGeoParquet(strings, { crs: CRS84 })).rejects.toThrow(
      /'geometry' is Utf8, not a WKB binary column/,
    );
    await expect(writeGeoParquet(featuresToTable([]).table, { crs: CRS84, geometryColumn: "geom" })).rejects.toThrow(
      /no 'geom' column/,
    );
    await expect(writeGeoParquet(featuresToTable([]).table, { crs: CRS84, rowGroupRows: 1000 })).rejects.toThrow(
      /multiple of 1024/,
    );
    const xym = Uint8Array.from(Buffer.from("01d1070000" + "0".repeat(48), "hex"));
    const measured = new Table({ geometry: vectorFromArray([xym], new Binary()) });
    await expect(writeGeoParquet(measured, { crs: CRS84 })).rejects.toThrow(
      /'geometry' holds Point M: M coordinates are not supported/,
    );
  });
});
