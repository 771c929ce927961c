/**
 * Why defineTask warns about columns named like our paths' Hive keys: DuckDB replaces the file's own values with
 * the path's, measured here on a real file, and the warning fires.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { defineTask } from "../../src/task/task.js";
import { duckdb, rows } from "../helpers/duckdb.js";

describe("columns named like a Hive partition key", () => {
  const dir = mkdtempSync(join(tmpdir(), "georefresh-hive-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("DuckDB reads the path's value instead of the file's (measured)", async () => {
    const { table, stats } = featuresToTable([
      { geometry: { type: "Point", coordinates: [1, 2] }, properties: { id: 1, region: "from-the-file" } },
    ]);
    const { bytes } = await writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), idColumn: "id", stats });
    const at = join(dir, "artifacts", "d", "region=from-the-path", "date=2026-01-01");
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "0123456789abcdef.parquet"), bytes);
    const conn = await duckdb();
    const [r] = await rows(conn, `SELECT region FROM read_parquet('${join(at, "0123456789abcdef.parquet")}')`);
    expect(r?.region).toBe("from-the-path"); // DuckDB's default: hive partitioning detected from the path
    const [plain] = await rows(
      conn,
      `SELECT region FROM read_parquet('${join(at, "0123456789abcdef.parquet")}', hive_partitioning = false)`,
    );
    expect(plain?.region).toBe("from-the-file");
    conn.closeSync();
  });

  it("defineTask warns, once per task and column, naming the column and the fix", async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    const task = (name: string) =>
      defineTask({
        name,
        version: "1",
        cadence: "daily",
        regions: ["a"],
        inputs: () => ({}),
        crs: "OGC:CRS84",
        columns: [
          { name: "id", type: "int32" },
          { name: "Date", type: "string" },
        ],
        compute: () => Promise.resolve([]),
      });
    task("hive-a");
    task("hive-a");
    task("hive-b");
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    process.off("warning", listen);
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === "GEOREFRESH_HIVE_COLUMN");
    expect(ours.map((w) => w.message.split(" ")[1])).toEqual(["hive-a", "hive-b"]);
    expect(ours[0]?.message).toMatch(/column named "Date".*date=….*Rename the column/);
  });
});
