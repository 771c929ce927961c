/**
 * `georefresh serve` as real clients read it: GDAL's OAPIF driver (Debian's gdal-bin) counts the features of the
 * current view, filters by a box and copies every feature, equal to `read`; QGIS 3.22 (headless) adds it as an
 * OGC API – Features layer and draws it; every bad parameter is a 400 naming it;
 * a page answers 304 to its ETag; an instant before the first promotion is an empty dataset.
 */
import { execFileSync } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { readFeatures, startServe } from "../helpers/serve.js";
import type { Feature } from "../helpers/serve.js";
import { writeFeedProject } from "../helpers/source-corpus.js";

const JUDGE = fileURLToPath(new URL("../helpers/qgis_judge.py", import.meta.url));
let dir: string;
let config: string;
let server: ChildProcessWithoutNullStreams;
let base: string;

/** The features `read` gives for each region's latest partition, as a user would ask for them. */
const readAll = (extra: string[] = []) =>
  readFeatures("parcels", config, ["--latest-date", "--from", "2026-01-01", ...extra]);

const ids = (fs: Feature[]) => fs.map((f) => `${String(f.properties.region)}/${String(f.properties.parcel_id)}`).sort();

describe("georefresh serve: OGC API – Features", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-serve-"));
    config = writeFeedProject(dir, ["weld", "larimer"]);
    const b = await runCliHere(["backfill", "--config", config, "--from", "2026-01-01", "--to", "2026-01-01"]);
    expect(b.code, b.stderr).toBe(0);
    ({ child: server, base } = await startServe(config));
  }, 60_000);
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("GDAL counts, filters and copies the current view's features, equal to read", async () => {
    const all = await readAll();
    expect(all.length).toBeGreaterThan(10);
    const layer = `OAPIF:${base}/collections/parcels`;
    const info = execFileSync("ogrinfo", ["-ro", "-so", "-al", layer], { encoding: "utf8" });
    expect(info).toContain(`Feature Count: ${all.length}`);
    expect(info).toMatch(/Layer SRS WKT:[\s\S]*WGS 84/);

    // ogr2ogr to a GeoPackage, read back by GDAL: row for row, every attribute, equal to read's.
    const gpkg = join(dir, "copy.gpkg");
    execFileSync("ogr2ogr", ["-f", "GPKG", gpkg, layer, "-nln", "parcels"]);
    const out = join(dir, "copy.geojson");
    execFileSync("ogr2ogr", ["-f", "GeoJSON", out, gpkg, "parcels"]);
    const copied = (JSON.parse(readFileSync(out, "utf8")) as { features: Feature[] }).features;
    expect(ids(copied)).toEqual(ids(all));
    const byId = (fs: Feature[]) =>
      Object.fromEntries(fs.map((f) => [`${String(f.properties.region)}/${String(f.properties.parcel_id)}`, f]));
    const [got, want] = [byId(copied), byId(all)];
    for (const [id, f] of Object.entries(want)) {
      const { id: _gdalId, ...props } = got[id]?.properties ?? {};
      expect(props, id).toEqual(f.properties);
    }

    // A box: GDAL asks the server with bbox= and keeps what meets it, a subset of what read --bbox keeps.
    const box = ["-105.2", "40.2", "-104.8", "40.6"];
    const picked = join(dir, "box.geojson");
    execFileSync("ogr2ogr", ["-f", "GeoJSON", "-spat", ...box, picked, layer]);
    const inBox = (JSON.parse(readFileSync(picked, "utf8")) as { features: Feature[] }).features;
    const readBox = await readAll(["--bbox", box.join(",")]);
    expect(inBox.length).toBeGreaterThan(0);
    expect(inBox.length).toBeLessThan(all.length);
    expect(ids(readBox)).toEqual(expect.arrayContaining(ids(inBox)));
  }, 60_000);

  it("pages by next links without losing or repeating a feature", async () => {
    const seen: Feature[] = [];
    let url: string | undefined = `${base}/collections/parcels/items?limit=7`;
    let matched: number | undefined;
    for (let pages = 0; url && pages < 100; pages++) {
      const page = (await (await fetch(url)).json()) as {
        numberMatched: number;
        numberReturned: number;
        features: Feature[];
        links: { rel: string; href: string }[];
      };
      matched = page.numberMatched;
      expect(page.numberReturned).toBe(page.features.length);
      expect(page.features.length).toBeLessThanOrEqual(7);
      seen.push(...page.features);
      url = page.links.find((l) => l.rel === "next")?.href;
    }
    expect(ids(seen)).toEqual(ids(await readAll()));
    expect(matched).toBe(seen.length);
  });

  it("refuses bad input with a 400 naming the parameter, and knows only its own collections", async () => {
    const bad: [string, string][] = [
      ["bbox=1,2,3", "bbox"],
      ["bbox=0,10,10,0", "bbox"], // minLat > maxLat (minLon > maxLon crosses the antimeridian: allowed)
      ["bbox=0,0,200,10", "bbox"],
      ["limit=0", "limit"],
      ["limit=100001", "limit"],
      ["datetime=yesterday", "datetime"],
      ["datetime=2026-03-01/2026-01-01", "datetime"],
      ["next=../../etc", "next"],
      ["constructor=x", "constructor"],
      ["limit=1&limit=2", "limit"],
    ];
    for (const [query, parameter] of bad) {
      const r = await fetch(`${base}/collections/parcels/items?${query}`);
      expect(r.status, query).toBe(400);
      expect(((await r.json()) as { parameter: string }).parameter, query).toBe(parameter);
    }
    for (const path of [
      "/collections/nope",
      "/collections/..%2F..%2Fmanifests",
      "/collections/parcels/../../x",
      "/etc/passwd",
    ])
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    // A misspelt collection is told the ones there are.
    expect(((await (await fetch(`${base}/collections/parcel`)).json()) as { description: string }).description).toBe(
      "no collection parcel: this server has parcels",
    );
    // A store that is not there is a mistyped --store, never a server of nothing.
    const none = await runCliHere(["serve", "--store", join(dir, "no-such-store"), "--port", "0"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/the store \S+no-such-store does not exist: check --store/);
    const post = await fetch(`${base}/collections/parcels/items`, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("a page's ETag answers 304; an instant before the first promotion is an empty dataset; a zoning filter matches read", async () => {
    const url = `${base}/collections/parcels/items?limit=5`;
    const first = await fetch(url);
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await fetch(url, { headers: { "If-None-Match": tag as string } })).status).toBe(304);
    expect((await fetch(`${base}/collections/parcels/items?limit=6`)).headers.get("etag")).not.toBe(tag);

    const before = (await (await fetch(`${base}/collections/parcels/items?datetime=2000-01-01T00:00:00Z`)).json()) as {
      features: unknown[];
    };
    expect(before.features).toEqual([]);

    const all = await readAll();
    const zoning = String(all[0]?.properties.zoning);
    const want = all.filter((f) => String(f.properties.zoning) === zoning);
    const got = (await (
      await fetch(`${base}/collections/parcels/items?limit=10000&zoning=${encodeURIComponent(zoning)}`)
    ).json()) as { features: Feature[] };
    expect(ids(got.features)).toEqual(ids(want));
    expect(want.length).toBeLessThan(all.length);
    // ?region= and ?date= pick partitions: one region's features, all of them.
    const weld = (await (
      await fetch(`${base}/collections/parcels/items?limit=10000&region=weld&date=2026-01-01`)
    ).json()) as { features: Feature[]; numberMatched: number };
    expect(ids(weld.features)).toEqual(ids(all.filter((f) => f.properties.region === "weld")));
    expect(weld.numberMatched).toBe(weld.features.length); // from the manifests: region and date pick partitions
    expect(weld.features.length).toBeGreaterThan(0);
  });

  it("QGIS adds the collection as an OGC API – Features layer: its count, CRS and one feature's attributes, and draws it", async () => {
    const all = await readAll();
    const one = all.find((f) => f.properties.region === "weld") as Feature;
    const judged = execFileSync(
      "/usr/bin/python3",
      [
        JUDGE,
        `url='${base}' typename='parcels'`,
        "OAPIF",
        join(dir, "qgis.png"),
        `"region" = 'weld' AND "parcel_id" = '${String(one.properties.parcel_id)}'`,
      ],
      { encoding: "utf8", env: { ...process.env, QT_QPA_PLATFORM: "offscreen" }, timeout: 120_000 },
    );
    const seen = JSON.parse(judged.trim().split("\n").at(-1) as string) as {
      valid: boolean;
      count: number;
      crs: string;
      chosen: Record<string, string> | null;
      colours: number;
    };
    expect(seen.valid, judged).toBe(true);
    expect(seen.count).toBe(all.length);
    expect(seen.crs).toBe("EPSG:4326");
    expect(seen.chosen?.parcel_id).toBe(String(one.properties.parcel_id));
    expect(seen.chosen?.zoning).toBe(String(one.properties.zoning));
    expect(seen.colours).toBeGreaterThan(1); // drawn, not blank
  }, 120_000);
});
