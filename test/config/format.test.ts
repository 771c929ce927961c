/**
 * The file format is chosen per dataset in the config ("format"), reaches worker threads, and is part of every
 * key: the 2.0 dataset's artifacts are native GEOMETRY files under other keys than the 1.1 dataset's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { footerFacts } from "../../src/geoparquet/footer-facts.js";
import { loadConfig } from "../../src/config/config.js";
import { BUILTINS } from "../../src/builtins/index.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { writePoints, writePointsConfig } from "../helpers/points-task.js";

const bytesOf = (u: string) => new Uint8Array(readFileSync(u.startsWith("file:") ? new URL(u) : u));

describe("format per dataset", () => {
  let dir: string;
  let config: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-format-"));
    const input = join(dir, "points.json");
    writePoints(input, 24);
    config = writePointsConfig(dir, input, { v11: {}, v20: { format: "geoparquet-2.0" } });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes 2.0 files for the dataset that asks, from worker threads, under keys of their own", async () => {
    const urls: Record<string, string[]> = {};
    for (const ds of ["v11", "v20"]) {
      const r = await runCli([
        "backfill",
        "--dataset",
        ds,
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
        "--workers",
        "1",
        "--config",
        config,
      ]);
      expect(r.code, r.stderr).toBe(0);
      urls[ds] = JSON.parse((await runCli(["urls", ds, "--json", "--config", config])).stdout) as string[];
    }
    const key = (u: string) => /([0-9a-f]{16})\.parquet$/.exec(u)?.[1];
    expect(urls.v20).toHaveLength(2);
    expect(urls.v20?.map(key)).not.toEqual(urls.v11?.map(key)); // v11 and v20 differ only by format
    for (const u of urls.v20 ?? []) {
      const facts = footerFacts(bytesOf(u));
      expect(facts.columns.get("geometry")?.geo?.kind).toBe("GEOMETRY");
      expect(facts.rowGroups[0]?.columns.find((c) => c.path[0] === "geometry")?.geo?.types).toEqual([3]);
    }
    for (const u of urls.v11 ?? []) expect(footerFacts(bytesOf(u)).columns.get("geometry")?.geo).toBeUndefined();
    const shown = await runCli(["read", "v20", "--region", "north", "--date", "2026-01-01", "--config", config]);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { features: unknown[] }).features.length).toBeGreaterThan(0);
  });

  it("refuses an unknown format, naming the dataset and the choices", async () => {
    const bad = join(dir, "bad.json");
    const doc = JSON.parse(readFileSync(config, "utf8")) as { datasets: Record<string, Record<string, unknown>> };
    (doc.datasets.v20 as Record<string, unknown>).format = "geoparquet-3";
    writeFileSync(bad, JSON.stringify(doc));
    // The bad entry fails alone (issue 40 item 6): the other datasets still load.
    const loaded = await loadConfig(bad, BUILTINS);
    expect(loaded.broken.v20?.message).toMatch(
      /dataset 'v20': "format" must be one of "geoparquet-1.1", "geoparquet-2.0" \(got "geoparquet-3"\)/,
    );
    expect(loaded.datasets.v20).toBeUndefined();
    expect(Object.keys(loaded.datasets).length).toBeGreaterThan(0);
  });
});
