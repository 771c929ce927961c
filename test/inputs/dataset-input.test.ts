/**
 * Upstream datasets as inputs: `county-points` reads `dataset:us-counties`, that dataset's partition for the same
 * state and month, through its manifest. Blocked (not a crash) before the upstream exists; keyed by the upstream
 * artifact's sha256, so an upstream change shows in the dry run and makes new keys.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { booleanPointInPolygon } from "@turf/turf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeWkb } from "../../src/geo/wkb.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { planBackfill } from "../../src/orchestrate/dry-run.js";
import { resolveInput } from "../../src/inputs/resolve.js";
import { FsStore } from "../../src/store/fs.js";
import { countyPoints } from "../../src/builtins/county-points.js";
import { usCounties } from "../../src/builtins/us-counties.js";
import { runCliHere as runCli } from "../helpers/cli.js";

const V1 = { boundary_vintage: [{ from: "2020-01-01", value: "census-2017-us-atlas-3" }] };
const V2 = {
  boundary_vintage: [
    { from: "2020-01-01", value: "census-2017-us-atlas-3" },
    { from: "2026-02-01", value: "census-2017-us-atlas-3-rev" },
  ],
};
const WINDOW = { from: "2026-01-01", to: "2026-02-28", regions: ["CA", "NV"], threads: 0 };

describe("dataset:<name> inputs", () => {
  let dir: string;
  let store: FsStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-upstream-"));
    store = new FsStore(join(dir, "store"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = async (dataset: string, region: string, date: string) =>
    (await readManifest(store, `manifests/${dataset}/region=${region}/date=${date}.json`))?.manifest;

  it("before the upstream exists: blocked, nothing written, exit 75 naming what to run", async () => {
    const early = await backfill({ store, dataset: "county-points", task: countyPoints, versions: V1, ...WINDOW });
    expect(early.counts).toMatchObject({ blocked: 4, promoted: 0, failed: 0 });
    expect(early.results[0]?.message).toBe(
      "upstream us-counties CA 2026-01-01 has no manifest: run its backfill first (georefresh backfill --dataset us-counties …); nothing was written, a re-run picks it up",
    );
    const written: string[] = [];
    for await (const e of store.list("")) if (!e.key.startsWith("_probe/")) written.push(e.key);
    expect(written).toEqual([]);
    writeFileSync(join(dir, "versions.json"), JSON.stringify(V1));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        store: join(dir, "store"),
        versions: "./versions.json",
        // The upstream must be named too: a config reading a dataset it does not name is refused at load.
        datasets: { "county-points": { task: "county-points" }, "us-counties": { task: "us-counties" } },
      }),
    );
    const cli = await runCli([
      "run",
      "--dataset",
      "county-points",
      "--region",
      "CA",
      "--date",
      "2026-01-01",
      "--config",
      join(dir, "config.json"),
    ]);
    expect(cli.code).toBe(75);
    expect(cli.stderr).toContain(
      "blocked county-points CA 2026-01-01: upstream us-counties CA 2026-01-01 has no manifest: run its backfill first",
    );
  }, 120_000);

  it("after the upstream backfill: one point inside each county, keyed by the upstream artifact's sha256", async () => {
    expect(
      (await backfill({ store, dataset: "us-counties", task: usCounties, versions: V1, ...WINDOW })).counts.promoted,
    ).toBe(4);
    const r = await backfill({ store, dataset: "county-points", task: countyPoints, versions: V1, ...WINDOW });
    expect(r.counts.promoted).toBe(4);
    const upstream = await manifest("us-counties", "CA", "2026-01-01");
    const down = await manifest("county-points", "CA", "2026-01-01");
    expect(down?.current?.inputs.counties).toEqual({
      uri: "dataset:us-counties?region=CA&date=2026-01-01",
      identity: `sha256:${upstream?.current?.sha256}`,
    });
    const counties = (await readGeoParquet((await store.get(upstream?.current?.artifact as string)).body, "up")).table;
    const points = (await readGeoParquet((await store.get(down?.current?.artifact as string)).body, "down")).table;
    expect(points.numRows).toBe(counties.numRows);
    const byId = new Map<string, unknown>();
    for (let i = 0; i < counties.numRows; i++)
      byId.set(
        String(counties.getChild("geoid")?.get(i)),
        decodeWkb(counties.getChild("geometry")?.get(i) as Uint8Array),
      );
    for (let i = 0; i < points.numRows; i++) {
      const point = decodeWkb(points.getChild("geometry")?.get(i) as Uint8Array);
      expect(booleanPointInPolygon(point as never, byId.get(String(points.getChild("geoid")?.get(i))) as never)).toBe(
        true,
      );
    }
    // The explicit form names another partition.
    const nv = await resolveInput("dataset:us-counties?region=NV&date=2026-02-01", { store });
    expect(nv.identity).toBe(`sha256:${(await manifest("us-counties", "NV", "2026-02-01"))?.current?.sha256}`);
  }, 120_000);

  it("an upstream change: the dry run names it, the re-run makes new keys for exactly those partitions", async () => {
    expect(
      (await backfill({ store, dataset: "us-counties", task: usCounties, versions: V2, ...WINDOW })).counts.promoted,
    ).toBe(2); // February
    const before = (await manifest("us-counties", "CA", "2026-02-01"))?.history[0]?.sha256 as string;
    const after = (await manifest("us-counties", "CA", "2026-02-01"))?.current?.sha256 as string;
    const planned = await planBackfill({
      store,
      dataset: "county-points",
      task: countyPoints,
      versions: V2,
      ...WINDOW,
    });
    expect(planned.counts).toMatchObject({ unchanged: 2, changed: 2 });
    const ca = planned.plans.find((p) => p.partition.region === "CA" && p.partition.date === "2026-02-01");
    expect(ca?.reasons).toEqual([`input counties sha256:${before.slice(0, 12)}… → sha256:${after.slice(0, 12)}…`]);
    const rerun = await backfill({ store, dataset: "county-points", task: countyPoints, versions: V2, ...WINDOW });
    expect(rerun.counts).toMatchObject({ unchanged: 2, rekeyed: 2 }); // new keys; these points did not move
  }, 120_000);

  it("refuses malformed names", async () => {
    await expect(resolveInput("dataset:../x?region=CA&date=2026-01-01", { store })).rejects.toThrow(
      /dataset name "\.\.\/x" is not allowed/,
    );
    await expect(resolveInput("dataset:us-counties?region=CA&date=2026-01-01&as_of=latest", { store })).rejects.toThrow(
      /unknown: as_of/,
    );
    await expect(resolveInput("dataset:us-counties", { store })).rejects.toThrow(/name the region and date/);
    await expect(resolveInput("dataset:us-counties?region=CA&date=2026-01-01")).rejects.toThrow(
      /read from the run's store/,
    );
  });
});
