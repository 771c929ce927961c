/**
 * The writer encodes row groups one file each (on this thread or on workers), compresses their pages with
 * zstd-wasm and splices them: the splice must equal parquet-rs's own multi-group layout, the pages must be read
 * back by DuckDB and hyparquet, every offset must point where it says, and the bytes must not depend on threads.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeVector, Table, tableToIPC, vectorFromArray } from "apache-arrow";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import * as parquet from "parquet-wasm";
import { afterAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { splitFooter } from "../../src/geoparquet/footer.js";
import { spliceRowGroups } from "../../src/geoparquet/splice.js";
import { decodeStruct, field, listField } from "../../src/geoparquet/thrift.js";
import type { ThriftStruct } from "../../src/geoparquet/thrift.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { zstdPages, zstdReady } from "../../src/geoparquet/zstd-pages.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { chunkMetas } from "../helpers/footer-edit.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-threads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Points and polygons, a dictionary-encoded name with nulls, ids out of order: every column kind we write. */
function features(n: number): Feature[] {
  return Array.from({ length: n }, (_, i) => {
    const x = ((i * 7919) % 3600) / 10 - 180;
    const y = ((i * 104729) % 1700) / 10 - 85;
    return {
      geometry:
        i % 3 === 0
          ? {
              type: "Polygon",
              coordinates: [
                [
                  [x, y],
                  [x + 0.01, y],
                  [x + 0.01, y + 0.01],
                  [x, y],
                ],
              ],
            }
          : { type: "Point", coordinates: [x, y] },
      properties: { id: (i * 31) % n, name: i % 5 === 0 ? null : `n${i % 11}` },
    };
  });
}

describe("row groups encoded apart, then spliced", () => {
  it("splicing one-group files equals parquet-rs writing the groups into one file", async () => {
    const groups = [0, 1, 2].map(
      (k) =>
        new Table({
          id: makeVector(Float64Array.from({ length: 3000 }, (_, i) => k * 3000 + i)),
          name: vectorFromArray(Array.from({ length: 3000 }, (_, i) => `g${k}-${i % 17}`)),
        }),
    );
    const props = () =>
      new parquet.WriterPropertiesBuilder()
        .setCompression(parquet.Compression.SNAPPY)
        .setMaxRowGroupSize(3000)
        .setCreatedBy("test")
        .build();
    const one = (t: Table) => parquet.writeParquet(parquet.Table.fromIPCStream(tableToIPC(t, "stream")), props());
    let k = 0;
    const stream = new ReadableStream<parquet.RecordBatch>({
      pull(c) {
        const t = groups[k++];
        if (!t) return c.close();
        for (const rb of parquet.Table.fromIPCStream(tableToIPC(t, "stream")).recordBatches()) c.enqueue(rb);
      },
    });
    const chunks: Uint8Array[] = [];
    for await (const c of (await parquet.transformParquetStream(
      stream,
      props(),
    )) as unknown as AsyncIterable<Uint8Array>)
      chunks.push(c);
    const whole = Buffer.concat(chunks);
    expect(Buffer.compare(spliceRowGroups(groups.map(one)), whole)).toBe(0);
  });

  it("zstd pages: every offset index entry lands on a page header of the size it states", async () => {
    await zstdReady();
    const t = new Table({ id: makeVector(Float64Array.from({ length: 300_000 }, (_, i) => Math.sin(i))) });
    const plain = parquet.writeParquet(
      parquet.Table.fromIPCStream(tableToIPC(t, "stream")),
      new parquet.WriterPropertiesBuilder().setCompression(parquet.Compression.UNCOMPRESSED).build(),
    );
    const z = zstdPages(plain);
    expect(z.byteLength).toBeLessThan(plain.byteLength);
    const [chunk] = chunkMetas(splitFooter(z).metadata);
    expect(field(chunk?.meta as ThriftStruct, 4)).toBe(6); // ZSTD
    const rg = (listField(splitFooter(z).metadata, 4) as ThriftStruct[])[0] as ThriftStruct;
    const cc = (listField(rg, 1) as ThriftStruct[])[0] as ThriftStruct;
    const oi = decodeStruct(z, Number(field(cc, 4)), Number(field(cc, 4)) + Number(field(cc, 5))).struct;
    const locations = listField(oi, 1) as ThriftStruct[];
    expect(locations.length).toBeGreaterThan(1); // 2.4 MB of doubles: several 1 MB pages
    for (const loc of locations) {
      const at = Number(field(loc, 1));
      const { struct: header, end } = decodeStruct(z, at);
      expect(end - at + Number(field(header, 3))).toBe(field(loc, 2));
    }
    const file = join(dir, "z.parquet");
    writeFileSync(file, z);
    const [sum] = await rows(await duckdb(), `SELECT sum(id) AS s, count(*)::INT AS n FROM '${file}'`);
    expect(sum?.n).toBe(300_000);
    expect(sum?.s as number).toBeCloseTo(
      Array.from({ length: 300_000 }, (_, i) => Math.sin(i)).reduce((a, b) => a + b),
      6,
    );
  });

  it("writes the same bytes on 1, 2 and 3 threads, in 1.1 and 2.0, for 1 or many row groups", async () => {
    const { table, stats } = featuresToTable(features(150_000));
    for (const format of ["geoparquet-1.1", "geoparquet-2.0"] as const)
      for (const rowGroupRows of [65_536, 8192]) {
        const write = (threads: number) =>
          writeGeoParquet(table, {
            crs: crsFromCode("OGC:CRS84"),
            idColumn: "id",
            stats,
            rowGroupRows,
            format,
            threads,
          });
        const [a, b, c] = [(await write(1)).bytes, (await write(2)).bytes, (await write(3)).bytes];
        expect(Buffer.compare(a, b), `${format} ${rowGroupRows} 2 threads`).toBe(0);
        expect(Buffer.compare(a, c), `${format} ${rowGroupRows} 3 threads`).toBe(0);
      }
  });

  it("DuckDB and hyparquet read every row of a many-group file back, all columns zstd", async () => {
    const fs = features(40_000);
    const { table, stats } = featuresToTable(fs);
    const out = await writeGeoParquet(table, {
      crs: crsFromCode("OGC:CRS84"),
      idColumn: "id",
      stats,
      rowGroupRows: 4096,
      threads: 2,
    });
    const file = join(dir, "many.parquet");
    writeFileSync(file, out.bytes);
    const conn = await duckdb();
    const codecs = await rows(conn, `SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
    expect(codecs).toEqual([{ compression: "ZSTD" }]);
    const [agg] = await rows(
      conn,
      `SELECT count(*)::INT AS n, count(DISTINCT id)::INT AS ids, count(name)::INT AS names, sum(octet_length(ST_AsWKB(geometry)))::BIGINT AS wkb FROM '${file}'`,
    );
    const names = fs.filter((f) => f.properties.name !== null).length;
    const wkbBytes = (table.getChild("geometry")?.data ?? []).reduce((n, d) => n + d.values.byteLength, 0);
    expect(agg).toEqual({
      n: 40_000,
      ids: 40_000,
      names,
      wkb: BigInt(wkbBytes),
    });
    const ab = out.bytes.buffer.slice(out.bytes.byteOffset, out.bytes.byteOffset + out.bytes.byteLength) as ArrayBuffer;
    expect(parquetMetadata(ab).row_groups).toHaveLength(10);
    const read = (await parquetReadObjects({ file: ab, compressors, columns: ["id", "name"] })) as {
      id: number;
      name: string | null;
    }[];
    const byId = new Map(fs.map((f) => [f.properties.id as number, f.properties.name]));
    expect(read).toHaveLength(40_000);
    for (const r of read) expect(r.name).toBe(byId.get(r.id));
  });
});
