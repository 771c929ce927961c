/**
 * A backfill's progress hears the stages of partitions that run on worker threads and worker processes: without a
 * terminal, a line while a partition runs says its stage and the rows its reader has read so far.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let dir: string;
let config: string;
const REGIONS = ["weld", "larimer"];

/** A GeoJSON text sequence of `n` keyed points: big enough that reading it takes several progress ticks. */
function feed(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(
      `{"type":"Feature","properties":{"id":"P${i}"},"geometry":{"type":"Point","coordinates":[${-105 + (i % 997) / 1000},${40 + (i % 991) / 1000}]}}`,
    );
  return `${lines.join("\n")}\n`;
}

describe("progress from worker threads and processes", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-progress-"));
    mkdirSync(join(dir, "feeds"));
    const text = feed(100_000); // two batches of the reader (65,536 rows each): a count while it reads
    for (const region of REGIONS) writeFileSync(join(dir, "feeds", `${region}.geojsonl`), text);
    config = join(dir, "georefresh.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: "./data",
        datasets: { points: { source: { url: "./feeds/{region}.geojsonl", key: "id" }, regions: REGIONS } },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [kind, flags] of [
    ["threads", []],
    ["processes", ["--worker-processes"]],
  ] as const)
    it(`says each partition's stage and rows read, from worker ${kind}`, async () => {
      const r = await runCli(
        [
          "backfill",
          "--config",
          config,
          "--dataset",
          "points",
          "--from",
          "2026-01-01",
          "--to",
          "2026-01-01",
          "--store",
          join(dir, kind),
          "--workers",
          "2",
          ...flags,
        ],
        { GEOREFRESH_PROGRESS_SECONDS: "0.05" },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/points: 2 partitions: 2 promoted/);
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("progress: "));
      expect(lines.length, r.stderr).toBeGreaterThan(0);
      for (const line of lines)
        expect(line).toMatch(
          /^progress: \[[#.]{20}\] [012]\/2 .*( · points (weld|larimer) 2026-01-01: [a-z ,()]+(, [\d,]+ rows read from (weld|larimer)\.geojsonl)?, \d+s in)?$/,
        );
      expect(
        lines.some((l) => / [\d,]+ rows read from (weld|larimer)\.geojsonl, /.test(l)),
        r.stderr,
      ).toBe(true);
    }, 60_000);

  it("stac and gc say how far they got, step by step, without a terminal", async () => {
    const store = join(dir, "threads");
    const env = { GEOREFRESH_PROGRESS_SECONDS: "0.000001" };
    const stac = await runCli(["stac", "points", "--config", config, "--store", store], env);
    expect(stac.code, stac.stderr).toBe(0);
    expect(stac.stderr).toMatch(/^progress: stac points: manifests read: \[#{10}\.{10}\] 1\/2 /m);
    expect(stac.stderr).toMatch(/^progress: stac points: objects written: \[[#.]{20}\] 1\/\d+ /m);
    const gc = await runCli(["gc", "--config", config, "--store", store], env);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stderr).toMatch(/^progress: gc: datasets: \[\.{20}\] 0\/1 /m);
    const json = await runCli(["stac", "points", "--config", config, "--store", store, "--json"], env);
    expect(json.stderr).toBe("");
  }, 60_000);
});
