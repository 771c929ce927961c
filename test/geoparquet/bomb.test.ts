/**
 * A decompression bomb: a small zstd file whose text column declares hundreds of MB uncompressed. What
 * `validate` and `read` decode is bounded before any page is inflated, and the refusal says what happened.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { longestDictionaryValues } from "../../src/geoparquet/dictionary-bound.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { duckdb } from "../helpers/duckdb.js";

const POINT = "0101000000000000000000f03f0000000000000040"; // WKB POINT (1 2)
const GEO = JSON.stringify({
  version: "1.1.0",
  primary_column: "geometry",
  columns: { geometry: { encoding: "WKB", geometry_types: ["Point"] } },
});

describe("decompression bombs", () => {
  let dir: string;
  let bomb: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-bomb-"));
    bomb = join(dir, "bomb.parquet");
    const conn = await duckdb();
    // 24 rows × 10 MB of one repeated letter: ~240 MB declared, a few hundred KB on disk.
    await conn.run(
      `COPY (SELECT i::INTEGER AS id, from_hex('${POINT}') AS geometry, repeat('a', 10000000) AS note FROM range(24) t(i)) TO '${bomb}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000, KV_METADATA {geo: '${GEO}'})`,
    );
    expect(statSync(bomb).size).toBeLessThan(2_000_000);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reading the whole file stops at the limit, in slices, and says why", async () => {
    const old = process.env.GEOREFRESH_MAX_DECODE_BYTES;
    process.env.GEOREFRESH_MAX_DECODE_BYTES = String(64 * 2 ** 20);
    try {
      await expect(readGeoParquet(readFileSync(bomb), bomb)).rejects.toThrow(
        /refusing to decode more than 64 MiB .* over the limit of 64 MiB \(GEOREFRESH_MAX_DECODE_BYTES\)\. It may be a decompression bomb/,
      );
      // Only the columns asked for count: the geometry alone is tiny and reads.
      const { table } = await readGeoParquet(readFileSync(bomb), bomb, { columns: ["id", "geometry"] });
      expect(table.numRows).toBe(24);
    } finally {
      if (old === undefined) delete process.env.GEOREFRESH_MAX_DECODE_BYTES;
      else process.env.GEOREFRESH_MAX_DECODE_BYTES = old;
    }
  });

  it("a dictionary's longest value is read from its page: the bomb's is 10 MB, an honest column's its longest string", async () => {
    expect(longestDictionaryValues(readFileSync(bomb), 2 ** 30)[0]?.get("note")).toBe(10_000_000);
    const names = Array.from({ length: 70_000 }, (_, i) => `parcel ${i} on ${"Main Street ".repeat(1 + (i % 3))}`);
    const { table, stats } = featuresToTable(
      names.map((name, i) => ({
        geometry: { type: "Point", coordinates: [(i % 100) * 0.01, Math.floor(i / 100) * 0.01] },
        properties: { id: i, name },
      })),
      [
        { name: "id", type: "int32" },
        { name: "name", type: "string" },
      ],
    );
    const { bytes } = await writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), idColumn: "id", stats });
    const longest = longestDictionaryValues(bytes, 2 ** 30);
    expect(longest.length).toBe(2);
    // The writer keeps the first dictionary page to ~1 MB and writes the rest plain: its longest value is one of the names.
    const first = longest[0]?.get("name") as number;
    expect(names.some((n) => n.length === first)).toBe(true);
    expect(first).toBeLessThanOrEqual(Math.max(...names.map((n) => n.length)));
    // Bounded by that, not by "every row as large as the whole chunk", the file reads in one go under a small limit.
    const old = process.env.GEOREFRESH_MAX_DECODE_BYTES;
    process.env.GEOREFRESH_MAX_DECODE_BYTES = String(32 * 2 ** 20);
    try {
      const back = await readGeoParquet(bytes, "names");
      expect(back.table.numRows).toBe(70_000);
      const ids = back.table.getChild("id");
      const got = back.table.getChild("name");
      for (let i = 0; i < back.table.numRows; i += 997) expect(got?.get(i)).toBe(names[Number(ids?.get(i))]); // rows are in Hilbert order
    } finally {
      if (old === undefined) delete process.env.GEOREFRESH_MAX_DECODE_BYTES;
      else process.env.GEOREFRESH_MAX_DECODE_BYTES = old;
    }
  });

  it("validate decodes only what it checks: the bomb's text column never reaches memory", async () => {
    const r = await runCli(["validate", bomb, "--json"], { GEOREFRESH_MAX_DECODE_BYTES: String(16 * 2 ** 20) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
  }, 60_000);
});
