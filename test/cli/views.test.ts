/** The analysts' views from the command line: --bbox, --from/--to, --snapshot, --as-of, and their errors. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints, writePointsConfig } from "../helpers/points-task.js";

const NORTH = "-101,44,-70,46"; // the points task's north squares lie at 45–46°N, its south ones near 30°N

describe("urls, read and show over views", () => {
  let dir: string;
  let cli: (args: string[]) => ReturnType<typeof runCli>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-views-"));
    const input = join(dir, "points.json");
    writePoints(input, 24);
    const config = writePointsConfig(dir, input);
    const r = await backfill({
      store: new FsStore(join(dir, "store")),
      dataset: "pts",
      task: pointsTask(input),
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-04",
      threads: 0,
    });
    expect(r.counts.promoted).toBe(8);
    cli = (args) => runCli([...args, "--config", config]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("urls --bbox keeps only the partitions that touch the box; --from/--to and --snapshot narrow further", async () => {
    const [all, north, ranged] = await Promise.all([
      cli(["urls", "pts", "--json"]),
      cli(["urls", "pts", "--bbox", NORTH, "--json"]),
      cli(["urls", "pts", "--snapshot", "latest", "--from", "2026-01-02", "--to", "2026-01-03", "--json"]),
    ]);
    expect(JSON.parse(all.stdout)).toHaveLength(8);
    const n = JSON.parse(north.stdout) as string[];
    expect(n).toHaveLength(4);
    expect(n.every((u) => u.includes("region=north"))).toBe(true);
    const r = JSON.parse(ranged.stdout) as string[];
    expect(r.map((u) => /date=([\d-]+)/.exec(u)?.[1])).toEqual([
      "2026-01-02",
      "2026-01-03",
      "2026-01-02",
      "2026-01-03",
    ]);
  });

  it("read --bbox returns the rows of every selected partition; bad input is a usage error; --as-of before anything is empty", async () => {
    const [rows, bad, early] = await Promise.all([
      cli(["read", "pts", "--bbox", NORTH, "--from", "2026-01-01", "--to", "2026-01-02", "--format", "ndjson"]),
      cli(["urls", "pts", "--bbox", "1,2,3"]),
      cli(["show", "pts", "--region", "north", "--date", "2026-01-01", "--as-of", "2020-01-01T00:00:00Z"]),
    ]);
    expect(rows.code, rows.stderr).toBe(0);
    const features = rows.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { properties: { side: string; region: string; date: string } });
    expect(features).toHaveLength(24); // 12 north squares on each of the two dates
    expect(features.every((f) => f.properties.side === "north")).toBe(true);
    // Rows of many partitions say which one they came from (issue 27 item 3).
    const from = features.map((f) => `${f.properties.region} ${f.properties.date}`);
    expect(from.filter((x) => x === "north 2026-01-01")).toHaveLength(12);
    expect(from.filter((x) => x === "north 2026-01-02")).toHaveLength(12);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bbox "1,2,3": give four numbers minx,miny,maxx,maxy/);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(
      /as of 2020-01-01T00:00:00.000Z\): no promoted, unretired partition for region north on 2026-01-01/,
    );
  });
});
