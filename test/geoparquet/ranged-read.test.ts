import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openRanged } from "../../src/geoparquet/ranged-read.js";
import { setField, T } from "../../src/geoparquet/thrift.js";
import type { ThriftStruct } from "../../src/geoparquet/thrift.js";
import { geoFor, writeDuckFile } from "../helpers/duck-file.js";
import { duckdb } from "../helpers/duckdb.js";
import { chunkMetas, editFooter } from "../helpers/footer-edit.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-ranged-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("reading a Parquet file by ranges, one row group at a time", () => {
  it("decodes another writer's row groups exactly and hashes every byte in order, never reading the whole file at once", async () => {
    const path = join(dir, "duck.parquet");
    await (
      await duckdb()
    ).run(
      `COPY (SELECT i AS id, ('POINT(' || i || ' 1)')::GEOMETRY AS geometry FROM range(5000) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 1024)`,
    );
    const file = new Uint8Array(readFileSync(path));
    const reads: [number, number][] = [];
    const source = {
      size: file.byteLength,
      read: async (offset: number, length: number) => {
        reads.push([offset, length]);
        return file.subarray(offset, offset + length);
      },
    };
    const ranged = await openRanged(source, "duck.parquet", { chunkBytes: 1024 });
    let rows = 0;
    const ids: number[] = [];
    for await (const g of ranged.rowGroups()) {
      expect(g.firstRow).toBe(rows);
      rows += g.rows;
      const id = g.table.getChild("id")?.data[0]?.values as ArrayLike<number | bigint>;
      for (let i = 0; i < g.rows; i++) ids.push(Number(id[i]));
    }
    expect(rows).toBe(5_000);
    expect(ranged.groups).toBe(3); // DuckDB rounds ROW_GROUP_SIZE up to its 2,048-row vectors
    expect(ids).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect(await ranged.sha256()).toBe(createHash("sha256").update(file).digest("hex"));
    expect(Math.max(...reads.map(([, l]) => l))).toBeLessThan(file.byteLength);
  });

  it("refuses a truncated file and a row group that claims bytes outside the data, naming the file", async () => {
    const points = [{ type: "Point" as const, coordinates: [1, 2] }];
    const file = new Uint8Array(
      readFileSync(await writeDuckFile(join(dir, "one.parquet"), points, geoFor("geom", ["Point"]))),
    );
    const source = (b: Uint8Array) => ({
      size: b.byteLength,
      read: async (o: number, l: number) => b.subarray(o, o + l),
    });
    await expect(
      openRanged(source(file.subarray(0, file.byteLength - 3)), "cut.parquet", { chunkBytes: 64 }),
    ).rejects.toThrow(/cut\.parquet is truncated/);
    const moved = editFooter(file, (m) => {
      const chunk = chunkMetas(m)[0] as { meta: ThriftStruct };
      setField(chunk.meta, 9, T.I64, BigInt(file.byteLength)); // data_page_offset past the data
    });
    await expect(openRanged(source(moved), "moved.parquet", { chunkBytes: 64 })).rejects.toThrow(
      /moved\.parquet: row group 0 claims bytes .* outside the file's data/,
    );
  });
});

describe("a projection", () => {
  it("decodes only the chosen columns (nested ones whole), with the same values, and still hashes every byte", async () => {
    const { writeGeoParquet } = await import("../../src/geoparquet/write.js");
    const { featuresToTable } = await import("../../src/geoparquet/features.js");
    const { crsFromCode } = await import("../../src/geo/crs/crs.js");
    const features = Array.from({ length: 3000 }, (_, i) => ({
      geometry: { type: "Point" as const, coordinates: [i * 0.01, 1 + (i % 7) * 0.1] },
      properties: { id: i, name: `n${i % 13}`, value: i / 3 },
    }));
    const { table, stats } = featuresToTable(features);
    const { bytes } = await writeGeoParquet(table, {
      crs: crsFromCode("OGC:CRS84"),
      idColumn: "id",
      stats,
      rowGroupRows: 1024,
    });
    const source = { size: bytes.byteLength, read: async (o: number, l: number) => bytes.subarray(o, o + l) };
    const all = await openRanged(source, "p.parquet", { chunkBytes: 4096 });
    expect(all.columns).toEqual(["id", "name", "value", "geometry", "bbox"]);
    const some = await openRanged(source, "p.parquet", { chunkBytes: 4096 });
    const full: unknown[][] = [];
    for await (const g of all.rowGroups())
      for (let i = 0; i < g.rows; i++)
        full.push([g.table.getChild("name")?.get(i), g.table.getChild("bbox")?.get(i)?.toJSON()]);
    const part: unknown[][] = [];
    for await (const g of some.rowGroups(["bbox", "name"])) {
      expect(g.table.schema.fields.map((f) => f.name)).toEqual(["name", "bbox"]); // file order
      for (let i = 0; i < g.rows; i++)
        part.push([g.table.getChild("name")?.get(i), g.table.getChild("bbox")?.get(i)?.toJSON()]);
    }
    expect(part).toEqual(full);
    expect(await some.sha256()).toBe(createHash("sha256").update(bytes).digest("hex"));
  });
});
