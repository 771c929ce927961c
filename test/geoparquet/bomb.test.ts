/**
 * A decompression bomb: a small zstd file whose text column declares hundreds of MB uncompressed. What
 * `validate` and `read` decode is bounded before any page is inflated, and the refusal says what happened.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { runCli } from "../helpers/cli.js";
import { duckdb } from "../helpers/duckdb.js";

const POINT = "0101000000000000000000f03f0000000000000040"; // WKB POINT (1 2)
const GEO = JSON.stringify({ version: "1.1.0", primary_column: "geometry", columns: { geometry: { encoding: "WKB", geometry_types: ["Point"] } } });

describe("decompression bombs", () => {
  let dir: string;
  let bomb: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-bomb-"));
    bomb = join(dir, "bomb.parquet");
    const conn = await duckdb();
    // 24 rows × 10 MB of one repeated letter: ~240 MB declared, a few hundred KB on disk.
    await conn.run(`COPY (SELECT i::INTEGER AS id, from_hex('${POINT}') AS geometry, repeat('a', 10000000) AS note FROM range(24) t(i)) TO '${bomb}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000, KV_METADATA {geo: '${GEO}'})`);
    expect(statSync(bomb).size).toBeLessThan(2_000_000);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reading the whole file stops at the limit, in slices, and says why", async () => {
    const old = process.env.GEOREFRESH_MAX_DECODE_BYTES;
    process.env.GEOREFRESH_MAX_DECODE_BYTES = String(64 * 2 ** 20);
    try {
      await expect(readGeoParquet(readFileSync(bomb), bomb)).rejects.toThrow(/refusing to decode more than 64 MiB .* over the limit of 64 MiB \(GEOREFRESH_MAX_DECODE_BYTES\)\. It may be a decompression bomb/);
      // Only the columns asked for count: the geometry alone is tiny and reads.
      const { table } = await readGeoParquet(readFileSync(bomb), bomb, { columns: ["id", "geometry"] });
      expect(table.numRows).toBe(24);
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
