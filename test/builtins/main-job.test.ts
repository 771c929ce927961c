/** The README's main job through the real CLI on real data (us-atlas counties, GeoNames places). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { snapshot } from "../helpers/snapshot.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-main-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("main job", () => {
  it("builds validated, manifest-pointed county partitions that DuckDB reads; a re-run changes nothing", async () => {
    const args = [
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-02-01",
      "--regions",
      "CA,RI,AK",
      "--store",
      dir,
    ];
    const first = await runCli(args);
    expect(first.stderr).not.toMatch(/failed|invalid/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^us-counties: 6 partitions: 6 promoted; snapshot [0-9a-f]{16}\n$/);
    const before = await snapshot(new FsStore(dir));
    const again = await runCli(args);
    const id = /snapshot ([0-9a-f]{16})/.exec(first.stdout)?.[1];
    expect(again.stdout).toBe(`us-counties: 6 partitions: 6 unchanged; snapshot ${id}\n`);
    expect(await snapshot(new FsStore(dir))).toEqual(before);

    const urls = await runCli(["urls", "us-counties", "--latest-date", "--store", dir, "--json"]);
    const files = JSON.parse(urls.stdout) as string[];
    expect(files).toHaveLength(3);
    const conn = await duckdb();
    const [r] = await rows(
      conn,
      `SELECT count(*)::INTEGER AS n, count(DISTINCT state)::INTEGER AS states, sum(repaired::INTEGER)::INTEGER AS repaired FROM read_parquet([${files.map((f) => `'${f}'`).join(",")}])`,
    );
    expect(r).toEqual({ n: 58 + 5 + 29, states: 3, repaired: expect.any(Number) });
    const validate = await runCli(["validate", ...files, "--expect-crs", "OGC:CRS84"]);
    expect(validate.code).toBe(0);
  }, 120_000);

  it("catchments use each date's pinned model: the February model makes larger catchments", async () => {
    const r = await runCli([
      "backfill",
      "--dataset",
      "city-catchments",
      "--from",
      "2026-01-01",
      "--to",
      "2026-02-28",
      "--regions",
      "RI",
      "--store",
      dir,
      "--json",
    ]);
    expect(r.code).toBe(0);
    const jan = JSON.parse(
      (await runCli(["show", "city-catchments", "--region", "RI", "--date", "2026-01-01", "--store", dir])).stdout,
    );
    const feb = JSON.parse(
      (await runCli(["show", "city-catchments", "--region", "RI", "--date", "2026-02-01", "--store", dir])).stdout,
    );
    expect(jan.current.pins.catchment_model).toBe("catchment-v1");
    expect(feb.current.pins.catchment_model).toBe("catchment-v2");
    expect(feb.current.area_m2).toBeGreaterThan(jan.current.area_m2);
    expect(feb.current.rows).toBe(jan.current.rows);
  }, 120_000);

  it("explains bad arguments with exit 2", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["backfill", "--dataset", "nope", "--from", "2026-01-01", "--to", "2026-01-02", "--store", dir],
        /no dataset "nope"/,
      ],
      [
        [
          "backfill",
          "--dataset",
          "us-counties",
          "--from",
          "2026-01-01",
          "--to",
          "2026-01-31",
          "--regions",
          "XX",
          "--store",
          dir,
        ],
        /unknown region\(s\) XX/,
      ],
      [
        ["backfill", "--dataset", "us-counties", "--from", "2026-03-01", "--to", "2026-01-01", "--store", dir],
        /is after --to/,
      ],
      [
        ["run", "--dataset", "us-counties", "--region", "CA", "--date", "2026-01-15", "--store", dir],
        /monthly dates are the 1st of a month/,
      ],
      [
        [
          "backfill",
          "--dataset",
          "us-counties",
          "--from",
          "2026-01-01",
          "--to",
          "2026-01-02",
          "--shard",
          "3/2",
          "--store",
          dir,
        ],
        /--shard 3\/2/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 60_000);
});
