/**
 * Coordinates a float's rounding past the world's edge (Natural Earth's and world-borders' 180.00000000000003):
 * put on ±180 / ±90 when within 1e-9°, counted in the outcome and in the artifact's footer; farther out is still
 * refused, naming the coordinate.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { positions, readRows } from "../helpers/geojson-rows.js";

let dir: string;
let config: string;
const EDGE = 180.00000000000003;

function feed(name: string, ring: number[][]): void {
  const features = [
    {
      type: "Feature",
      properties: { name: "Chukotka" },
      geometry: { type: "Polygon", coordinates: [ring] },
    },
  ];
  writeFileSync(join(dir, "world", `${name}.geojson`), JSON.stringify({ type: "FeatureCollection", features }));
}

const backfill = (dataset: string) =>
  runCliHere([
    "backfill",
    "--config",
    config,
    "--dataset",
    dataset,
    "--from",
    "2026-01-01",
    "--to",
    "2026-01-31",
    "--json",
  ]);

describe("coordinates a hair past the world's edge", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-world-edge-"));
    mkdirSync(join(dir, "world"));
    // Two positions past the edge by rounding: one in longitude, one in both (counted once each).
    feed("hair", [
      [170, 60],
      [EDGE, 60],
      [EDGE, 90.00000000000001],
      [170, 60],
    ]);
    feed("beyond", [
      [170, 60],
      [180.001, 60],
      [180.001, 70],
      [170, 60],
    ]);
    config = join(dir, "georefresh.config.json");
    const dataset = (name: string) => ({
      source: { url: `./{region}/${name}.geojson` },
      regions: ["world"],
      cadence: "monthly",
    });
    writeFileSync(
      config,
      JSON.stringify({
        store: "./data",
        datasets: { hair: dataset("hair"), "hair-text": dataset("hair"), beyond: dataset("beyond") },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("within 1e-9° is put on the edge and counted, in the outcome and the file's footer", async () => {
    const r = await backfill("hair");
    expect(r.code, r.stderr).toBe(0);
    const result = (JSON.parse(r.stdout) as { results: { outcome: string; message: string; key: string }[] })
      .results[0];
    expect(result?.outcome).toBe("promoted");
    expect(result?.message).toMatch(/2 coordinates within 1e-9° past ±180°\/±90° put on the world's edge/);
    const [row] = await readRows("hair", config, "world");
    const xs = positions(row?.geometry ?? null).map((p) => p[0] as number);
    const ys = positions(row?.geometry ?? null).map((p) => p[1] as number);
    expect(Math.max(...xs)).toBe(180);
    expect(Math.max(...ys)).toBe(90);
    const conn = await duckdb();
    const artifact = join(
      dir,
      "data",
      "artifacts",
      "hair",
      "region=world",
      "date=2026-01-01",
      `${result?.key}.parquet`,
    );
    const kv = await rows(
      conn,
      `SELECT decode(value) AS v FROM parquet_kv_metadata('${artifact}') WHERE decode(key) = 'georefresh:snapped_to_world_edge'`,
    );
    expect(kv[0]?.v).toBe("2");
    // A person at a terminal sees it in the run's one outcome line.
    const human = await runCliHere([
      "backfill",
      "--config",
      config,
      "--dataset",
      "hair-text",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /hair-text: 1 partition: 1 promoted; 2 coordinates within 1e-9° past ±180°\/±90° put on the world's edge in 1 partition/,
    );
  });

  it("farther out is refused, naming the coordinate, and nothing is published", async () => {
    const r = await backfill("beyond");
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/coordinate \(180\.001 60\) is outside lon\/lat \[-180,180\]/);
    // The refusal names the file the rows were read from.
    expect(r.stdout + r.stderr).toMatch(
      /validation failed for beyond world 2026-01-01 \(read from \S*world\/beyond\.geojson;/,
    );
  });
});
