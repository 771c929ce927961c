/**
 * Issue 40 item 8: `read --bbox` returns the features whose geometry's box meets the query box — the rows
 * GeoPandas' read_parquet(bbox=) returns from the same artifact — not every row of each partition it touches.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere as runCli } from "../helpers/cli.js";
import { geopandasPython } from "../helpers/geopandas.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-read-bbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Northern Virginia around Arlington: a handful of counties and cities of VA's 133. */
const BOX = [-77.2, 38.8, -77.0, 38.95] as const;

const ids = (stdout: string) =>
  (JSON.parse(stdout) as { features: { properties: { geoid: string } }[] }).features.map((f) => f.properties.geoid);

describe("read --bbox", () => {
  beforeAll(async () => {
    const r = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-31",
      "--regions",
      "VA,MD",
      "--store",
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("returns the rows GeoPandas' read_parquet(bbox=) returns, from every partition the box meets", async () => {
    const read = await runCli(["read", "us-counties", "--store", dir, "--bbox", BOX.join(","), "--latest-date"]);
    expect(read.code, read.stderr).toBe(0);
    const ours = ids(read.stdout).sort();
    const whole = await runCli(["read", "us-counties", "--store", dir, "--region", "VA", "--latest-date"]);
    const all = ids(whole.stdout);
    // A few features, not whole partitions.
    expect(ours.length).toBeGreaterThan(2);
    expect(ours.length).toBeLessThan(20);
    expect(all.length).toBeGreaterThan(100);

    const urls = JSON.parse(
      (await runCli(["urls", "us-counties", "--store", dir, "--latest-date", "--json", "--bbox", BOX.join(",")]))
        .stdout,
    ) as string[];
    expect(urls).toHaveLength(2); // VA and MD both meet the box
    const script = `import geopandas, json, sys
ids = []
for path in json.loads(sys.argv[1]):
    ids += list(geopandas.read_parquet(path, bbox=tuple(json.loads(sys.argv[2])))["geoid"])
print(json.dumps(sorted(ids)))`;
    const theirs = JSON.parse(
      execFileSync(geopandasPython(), ["-c", script, JSON.stringify(urls), JSON.stringify(BOX)], { encoding: "utf8" }),
    ) as string[];
    expect(ours).toEqual(theirs);
    // Arlington (51013) is in the box; Richmond city (51760) is not.
    expect(ours).toContain("51013");
    expect(ours).not.toContain("51760");

    // One named partition is filtered the same way.
    const va = [
      "read",
      "us-counties",
      "--store",
      dir,
      "--region",
      "VA",
      "--date",
      "2026-01-01",
      "--bbox",
      BOX.join(","),
    ];
    const one = await runCli([...va, "--format", "ndjson"]);
    expect(one.code, one.stderr).toBe(0);
    const vaOnly = one.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { properties: { geoid: string } }).properties.geoid)
      .sort();
    expect(vaOnly).toEqual(theirs.filter((g) => g.startsWith("51")));
    // Parquet out is the file as it is: with --bbox it is refused, not silently unfiltered.
    const parquet = await runCli([...va, "--format", "parquet", "--out", join(dir, "x.parquet")]);
    expect(parquet.code).toBe(2);
    expect(parquet.stderr).toMatch(/--bbox picks rows; --format parquet writes a partition's file as it is/);
  });
});
