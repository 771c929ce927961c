/**
 * A config-only dataset lives like a coded one: it backfills, a re-run is a no-op, a changed feed is an input change
 * in the dry run and promotes only its region; its artifacts can be a source in turn (GeoParquet, with the CRS in
 * its PROJJSON); and it runs on worker threads, which build the same task from the config's plain value.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { writeFixtures } from "../helpers/source-corpus.js";

let dir: string;
const config = () => join(dir, "georefresh.config.json");
const cli = (...args: string[]) => runCliHere([...args, "--config", config()]);

describe("a dataset from config alone", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-source-life-"));
    writeFixtures(dir);
    mkdirSync(join(dir, "feeds"));
    mkdirSync(join(dir, "remote"));
    for (const region of ["weld", "larimer"])
      copyFileSync(join(dir, "parcels-base.geojson"), join(dir, "feeds", `${region}.geojson`));
    writeFileSync(
      config(),
      JSON.stringify({
        store: "./data",
        datasets: {
          parcels: {
            source: {
              url: "./feeds/{region}.geojson",
              // One file for every month of the window, said so (issue 40: an undated url is otherwise today's only).
              undated: "every-date",
              key: "parcel_id",
              columns: { parcel_id: "parcel_id", zoning: "zoning", acres: "acres" },
            },
            regions: ["weld", "larimer"],
            cadence: "monthly",
            storageCrs: "EPSG:26913",
          },
          // The first dataset's artifacts, as a feed: GeoParquet in EPSG:26913 (its PROJJSON), back to CRS84.
          again: { source: { url: "./data-link/{region}.parquet" }, regions: ["weld"], cadence: "monthly" },
        },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("backfills, re-runs as a no-op, and a changed feed is an input change for its region only", async () => {
    const first = await cli(
      "backfill",
      "--dataset",
      "parcels",
      "--from",
      "2026-01-01",
      "--to",
      "2026-03-31",
      "--threads",
      "2",
    );
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/parcels: 6 partitions: 6 promoted/);
    const again = await cli("backfill", "--dataset", "parcels", "--from", "2026-01-01", "--to", "2026-03-31");
    expect(again.stdout).toMatch(/parcels: 6 partitions: 6 unchanged/);
    // Weld's feed changes: one parcel rezoned.
    const feed = join(dir, "feeds", "weld.geojson");
    writeFileSync(feed, readFileSync(feed, "utf8").replace('"zoning":"Commercé"', '"zoning":"Commercial"'));
    const dry = await cli(
      "backfill",
      "--dataset",
      "parcels",
      "--from",
      "2026-03-01",
      "--to",
      "2026-03-31",
      "--dry-run",
      "--json",
    );
    expect(dry.code, dry.stderr).toBe(0);
    const { plans } = JSON.parse(dry.stdout) as {
      plans: { partition: { region: string }; status: string; reasons: string[] }[];
    };
    const weld = plans.find((p) => p.partition.region === "weld");
    const larimer = plans.find((p) => p.partition.region === "larimer");
    expect(weld?.status).toBe("changed");
    expect(weld?.reasons?.join(" ")).toMatch(/^input source sha256:[0-9a-f]+… → sha256:[0-9a-f]+…$/);
    expect(larimer?.status).toBe("unchanged");
    const run = await cli("backfill", "--dataset", "parcels", "--from", "2026-03-01", "--to", "2026-03-31");
    expect(run.stdout).toMatch(/2 partitions: 1 promoted, 1 unchanged/);
    // The change is one row's, by key.
    const changes = await cli("changes", "parcels", "--region", "weld", "--date", "2026-03-01", "--json");
    expect(changes.code, changes.stderr).toBe(0);
    const counts = (JSON.parse(changes.stdout) as { counts: Record<string, number> }).counts;
    expect(counts).toEqual({ added: 0, removed: 0, geometry_changed: 0, attributes_changed: 1, unchanged: 29 });
  }, 120_000);

  it("an artifact is a GeoParquet source in turn: its PROJJSON CRS (EPSG:26913) is read and undone to CRS84", async () => {
    const urls = await cli("urls", "parcels", "--latest-date");
    const weld = urls.stdout.split("\n").find((u) => u.includes("region=weld")) as string;
    mkdirSync(join(dir, "data-link"));
    copyFileSync(weld.replace(/^file:\/\//, ""), join(dir, "data-link", "weld.parquet"));
    const r = await cli("backfill", "--dataset", "again", "--from", "2026-03-01", "--to", "2026-03-31");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const read = await cli("read", "again", "--region", "weld", "--latest-date", "--format", "geojson");
    const features = (
      JSON.parse(read.stdout) as {
        features: { properties: Record<string, unknown>; geometry: { coordinates: number[][][] } | null }[];
      }
    ).features;
    expect(features).toHaveLength(30);
    const base = JSON.parse(readFileSync(join(dir, "parcels-base.geojson"), "utf8")) as typeof features;
    const p7 = features.find((f) => f.properties.parcel_id === "P-0007");
    const original = (base as unknown as { features: typeof features }).features.find(
      (f) => f.properties.parcel_id === "P-0007",
    );
    expect(p7?.properties).toEqual({ parcel_id: "P-0007", zoning: "Agrícola", acres: 9.59 });
    // CRS84 → 26913 → CRS84 comes back within a nanodegree.
    const a = p7?.geometry?.coordinates.flat() as number[][];
    const b = original?.geometry?.coordinates.flat() as number[][];
    expect(a.length).toBe(b.length);
    a.forEach((p, i) => {
      expect(Math.abs((p[0] as number) - ((b[i] as number[])[0] as number))).toBeLessThan(1e-9);
      expect(Math.abs((p[1] as number) - ((b[i] as number[])[1] as number))).toBeLessThan(1e-9);
    });
  });

  it("a remote feed is downloaded once per run, however many partitions and worker processes read it", async () => {
    // A zipped Shapefile, served over HTTP with a strong ETag; three months of one region read the same file.
    execFileSync("ogr2ogr", [
      "-f",
      "ESRI Shapefile",
      "-t_srs",
      "EPSG:26913",
      join(dir, "remote", "parcels.shp"),
      join(dir, "parcels-base.geojson"),
    ]);
    execFileSync("zip", [
      "-q",
      "-j",
      join(dir, "remote.zip"),
      ...["shp", "shx", "dbf", "prj"].map((e) => join(dir, "remote", `parcels.${e}`)),
    ]);
    const body = readFileSync(join(dir, "remote.zip"));
    const gets: string[] = [];
    const server = createServer((req, res) => {
      if (req.method === "GET") gets.push(req.url ?? "");
      res.writeHead(200, { ETag: '"feed-v1"', "Content-Length": body.length, "Content-Type": "application/zip" });
      res.end(req.method === "HEAD" ? undefined : body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feeds/{region}/parcels.zip`;
      const remote = join(dir, "remote.config.json");
      writeFileSync(
        remote,
        JSON.stringify({
          store: "./data",
          datasets: { remote: { source: { url, undated: "every-date" }, regions: ["weld"], cadence: "monthly" } },
        }),
      );
      const r = await runCliHere([
        "backfill",
        "--config",
        remote,
        "--dataset",
        "remote",
        "--from",
        "2026-01-01",
        "--to",
        "2026-03-31",
        "--workers",
        "2",
        "--worker-processes",
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/remote: 3 partitions: 3 promoted/);
      expect(gets).toEqual(["/feeds/weld/parcels.zip"]);
    } finally {
      server.close();
    }
  }, 120_000);
});
