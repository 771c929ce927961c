/**
 * Issue 40 items 2 and 3: a repair that empties a geometry is never a silent row. Falls Church, VA (51610) collapses
 * to a line in us-atlas's 1:10m boundaries; MakeValid leaves nothing of it. us-counties drops it with ctx.drop, and
 * the drop is in the artifact's footer, the manifest entry, the outcome line and the report; county-points, built on
 * it, then runs (it failed in turf, naming no county, when the empty polygon was promoted).
 */
import { readFileSync, rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeValidPolygonal, RepairError } from "../../src/geo/repair.js";
import { decodeWkb } from "../../src/geo/wkb.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-empty-repair-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const show = async (dataset: string) =>
  JSON.parse((await runCli(["show", dataset, "--region", "VA", "--date", "2026-01-01", "--store", dir])).stdout) as {
    current: { rows: number; artifact: string; dropped?: { rows: number; why: string[] } };
  };

describe("a repair that leaves no area", () => {
  it("throws RepairError instead of returning an empty polygon", async () => {
    // Falls Church as us-atlas has it: a ring that goes out and back along one segment.
    const collapsed = {
      type: "Polygon" as const,
      coordinates: [
        [
          [-77.1719, 38.893],
          [-77.1504, 38.8758],
          [-77.1719, 38.893],
          [-77.1719, 38.893],
        ],
      ],
    };
    await expect(makeValidPolygonal(collapsed)).rejects.toBeInstanceOf(RepairError);
    // A bow-tie still repairs into area.
    const bowtie = {
      type: "Polygon" as const,
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
    };
    expect((await makeValidPolygonal(bowtie)).type).toMatch(/Polygon/);
  });

  it("us-counties drops Falls Church, says so everywhere, and keeps no empty row; county-points runs on it", async () => {
    const window = ["--from", "2026-01-01", "--to", "2026-01-31", "--regions", "VA", "--store", dir];
    const first = await runCli(["backfill", "--dataset", "us-counties", ...window]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/1 promoted; 1 row dropped by the task in 1 partition \(why: georefresh show/);

    const entry = (await show("us-counties")).current;
    expect(entry.dropped?.rows).toBe(1);
    expect(entry.dropped?.why[0]).toMatch(/^51610 Falls Church: its boundary has no area/);

    const bytes = readFileSync(join(dir, entry.artifact));
    const { table } = await readGeoParquet(bytes, entry.artifact);
    const geoids = table.getChild("geoid")?.toArray() as string[];
    expect(geoids).not.toContain("51610");
    expect(table.numRows).toBe(entry.rows);
    const geometry = table.getChild("geometry");
    const area = table.getChild("area_km2");
    for (let i = 0; i < table.numRows; i++) {
      const g = decodeWkb(geometry?.get(i) as Uint8Array, i);
      expect(JSON.stringify(g.type === "GeometryCollection" ? g.geometries : g.coordinates), geoids[i]).toMatch(/\d/);
      expect(area?.get(i), geoids[i]).toBeGreaterThan(0);
    }

    // The artifact itself says it, for a reader with only the file.
    const conn = await duckdb();
    const kv = await rows(
      conn,
      `SELECT decode(value) AS v FROM parquet_kv_metadata('${join(dir, entry.artifact)}') WHERE decode(key) = 'georefresh:dropped'`,
    );
    expect(JSON.parse(String(kv[0]?.v))).toEqual(entry.dropped);

    // A run that finds the artifact already stored (a crash after publishing) records the same drop.
    rmSync(join(dir, "manifests", "us-counties", "region=VA", "date=2026-01-01.json"));
    rmSync(join(dir, "snapshots"), { recursive: true, force: true });
    const again = await runCli([
      "run",
      "--dataset",
      "us-counties",
      "--region",
      "VA",
      "--date",
      "2026-01-01",
      "--store",
      dir,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/reconciled: .*1 row dropped by the task: 51610 Falls Church/);
    expect((await show("us-counties")).current.dropped).toEqual(entry.dropped);

    const report = join(dir, "report.html");
    expect((await runCli(["report", "us-counties", "--store", dir, "--html", report])).code).toBe(0);
    expect(readFileSync(report, "utf8")).toMatch(/<ul id="dropped"><li>VA 2026-01-01: 1 row — 51610 Falls Church/);

    const points = await runCli(["backfill", "--dataset", "county-points", ...window]);
    expect(points.code, points.stdout + points.stderr).toBe(0);
    expect(points.stdout).toMatch(/1 promoted/);
    expect((await show("county-points")).current.rows).toBe(entry.rows);
  }, 120_000);
});
