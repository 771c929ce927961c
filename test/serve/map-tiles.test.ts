/**
 * `georefresh serve`'s vector tiles and map page, as real clients read them: Mapbox's own decoder
 * (@mapbox/vector-tile) reads a tile equal to `read`; the map page in Debian's Chromium (playwright-core) draws
 * the tiles with MapLibre GL, the date slider changes what is drawn (a pixel count), and no request leaves the
 * loopback. Also: time travel (an instant before a re-promotion gives the old rows), a snapshot's URL is
 * immutable and answers 304, one feature by the natural key, the HTML pages, and the read cap.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorTile } from "@mapbox/vector-tile";
import Pbf from "pbf";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { readFeatures, startServe } from "../helpers/serve.js";
import type { Feature } from "../helpers/serve.js";
import { sourceConfig, writeFeedProject } from "../helpers/source-corpus.js";

const CHROMIUM = process.env.GEOREFRESH_CHROMIUM ?? "/usr/bin/chromium";
let dir: string;
let config: string;
let server: ChildProcessWithoutNullStreams;
let base: string;
let janSnapshot: string;
/** When weld's February partition was first promoted, and when it was promoted again (from its manifest). */
let promotions: { first: string; again: string };

const read = (args: string[]) => readFeatures("parcels", config, args);

async function backfill(date: string): Promise<string> {
  const r = await runCliHere(["backfill", "--config", config, "--from", date, "--to", date, "--override-plausibility"]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout + r.stderr;
}

const serve = (args: string[] = []) => startServe(config, args);

/** The features of a tile, decoded by Mapbox's reference decoder: each one's properties and geometry type. */
async function tile(path: string): Promise<{ props: Record<string, unknown>; type: number }[]> {
  const r = await fetch(`${base}/collections/parcels/tiles/WebMercatorQuad/${path}`);
  expect(r.status, await r.clone().text()).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
  const vt = new VectorTile(new Pbf(new Uint8Array(await r.arrayBuffer())));
  const layer = vt.layers.parcels;
  if (!layer) return [];
  expect(layer.extent).toBe(4096);
  return Array.from({ length: layer.length }, (_, i) => {
    const f = layer.feature(i);
    return { props: f.properties, type: f.type };
  });
}

const ids = (fs: { region?: unknown; parcel_id?: unknown }[]) =>
  fs.map((p) => `${String(p.region)}/${String(p.parcel_id)}`).sort();

describe("georefresh serve: vector tiles and the map page", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-serve-map-"));
    config = writeFeedProject(dir, ["weld", "larimer"]);
    janSnapshot = /snapshot ([0-9a-f]{16})/.exec(await backfill("2026-01-01"))?.[1] as string;
    expect(janSnapshot).toMatch(/^[0-9a-f]{16}$/);
    // February: weld's feed keeps every other parcel. Then February is refreshed from a feed of every fourth: a
    // re-promotion of weld's February partition.
    const feed = join(dir, "feeds", "weld.geojson");
    const fc = JSON.parse(readFileSync(feed, "utf8")) as { features: unknown[] };
    const every = (n: number) => JSON.stringify({ ...fc, features: fc.features.filter((_, i) => i % n === 0) });
    writeFileSync(feed, every(2));
    await backfill("2026-02-01");
    writeFileSync(feed, every(4));
    await backfill("2026-02-01");
    const manifest = JSON.parse(
      readFileSync(join(dir, "data", "manifests", "parcels", "region=weld", "date=2026-02-01.json"), "utf8"),
    ) as { current: { promoted_at: string }; history: { promoted_at: string }[] };
    promotions = { first: manifest.history[0]?.promoted_at as string, again: manifest.current.promoted_at };
    expect(promotions.first < promotions.again).toBe(true);
    ({ child: server, base } = await serve());
  }, 90_000);
  afterAll(() => {
    server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("a tile holds the features of its partitions, equal to read; a date interval draws each region as it stood then", async () => {
    // The z12 tiles over the collection's extent hold every parcel (at z8, parcels smaller than a pixel drop out,
    // as simplification per zoom means).
    const collection = (await (await fetch(`${base}/collections/parcels`)).json()) as {
      extent: { spatial: { bbox: [number, number, number, number][] } };
    };
    const [w, s, e, n] = collection.extent.spatial.bbox[0] as [number, number, number, number];
    const col = (lon: number) => Math.floor(((lon + 180) / 360) * 4096);
    const row = (lat: number) => Math.floor(((1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2) * 4096);
    const z12 = async (q = "") => {
      const seen = new Set<string>();
      for (let x = col(w); x <= col(e); x++)
        for (let y = row(n); y <= row(s); y++)
          for (const f of await tile(`12/${x}/${y}${q}`)) seen.add(ids([f.props])[0] as string);
      return [...seen].sort();
    };
    // A row with an empty geometry (the fixture's P-0013) is in read's output but not on a map: no coordinates.
    const drawable = (fs: Feature[]) =>
      ids(fs.filter((f) => /\d/.test(JSON.stringify(f.geometry))).map((f) => f.properties));
    const latest = await read(["--latest-date", "--from", "2026-01-01"]);
    expect(latest.length).toBeGreaterThan(10);
    expect(await z12()).toEqual(drawable(latest));
    const readJan = await read(["--from", "2026-01-01", "--to", "2026-01-01"]);
    expect(await z12("?datetime=../2026-01-01")).toEqual(drawable(readJan));
    expect(readJan.length).toBeGreaterThan(latest.length);
    // z8 tile 53/96 holds the whole fixture (Weld and Larimer counties, Colorado): polygons, most of them.
    const now = await tile("8/53/96");
    expect(now.length).toBeGreaterThan(latest.length / 2);
    expect(new Set(now.map((f) => f.type))).toEqual(new Set([3]));
    // A column filter, as items take it; a tile far away is empty, and a tile out of the matrix is a 404.
    const zoning = String(latest[0]?.properties.zoning);
    const filtered = await z12(`?zoning=${encodeURIComponent(zoning)}`);
    expect(filtered).toEqual(
      ids(latest.filter((f) => String(f.properties.zoning) === zoning).map((f) => f.properties)),
    );
    expect(await tile("8/0/0")).toEqual([]);
    expect((await fetch(`${base}/collections/parcels/tiles/WebMercatorQuad/3/8/0`)).status).toBe(404);
    const bad = await fetch(`${base}/collections/parcels/tiles/WebMercatorQuad/8/53/96?bbox=0,0,1,1`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { parameter: string }).parameter).toBe("bbox");
    const nope = await fetch(`${base}/collections/parcels/tiles/WebMercatorQuad/8/53/96?acre=1`);
    expect(nope.status).toBe(400);
    expect(((await nope.json()) as { description: string }).description).toMatch(/acres/);
  });

  it("the map page draws the tiles in Chromium, the date slider changes what is drawn, and nothing leaves the loopback", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const cleanups: (() => void)[] = [];
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
      const elsewhere: string[] = [];
      const tiles: string[] = [];
      page.on("request", (r) => {
        const u = new URL(r.url());
        if (u.protocol === "blob:" || u.protocol === "data:") return; // MapLibre's worker, made in the page
        if (u.hostname !== new URL(base).hostname) elsewhere.push(r.url());
        if (u.pathname.includes("/tiles/")) tiles.push(r.url());
      });
      const failed: string[] = [];
      page.on("response", (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      // A cold server (its own process, nothing decoded yet), as a user first meets it: the regions' outlines are
      // drawn from the manifests as soon as the map loads, with a "loading" line until the first tiles arrive.
      const cold = await serve();
      cleanups.push(() => cold.child.kill("SIGTERM"));
      await page.goto(`${cold.base}/collections/parcels/map`);
      await page.waitForSelector("body[data-outlines='2']", { timeout: 30_000 });
      await page.waitForSelector("body[data-state=idle][data-date='2026-02-01']", { timeout: 30_000 });
      expect(
        await page.evaluate(`(() => { document.body.dataset.state = "loading";
          const shown = getComputedStyle(document.getElementById("status")).display;
          document.body.dataset.state = "idle"; return shown; })()`),
      ).toBe("block");
      // What the map drew: the canvas's pixels, counted by how much of the parcels' colour each holds.
      // (In the page's own JavaScript: this project's types hold no DOM.)
      const drawn = () =>
        page.evaluate(`(() => {
          const gl = document.querySelector("#map canvas");
          const c = document.createElement("canvas");
          [c.width, c.height] = [gl.width, gl.height];
          const ctx = c.getContext("2d");
          ctx.drawImage(gl, 0, 0);
          const px = ctx.getImageData(0, 0, c.width, c.height).data;
          let painted = 0;
          let deep = 0; // where two regions' parcels overlap, the colour is deeper
          for (let i = 0; i < px.length; i += 4) {
            if (px[i + 2] < 230) painted++;
            if (px[i + 2] < 150) deep++;
          }
          return { painted, deep };
        })()`) as Promise<{ painted: number; deep: number }>;
      const february = await drawn();
      expect(february.painted).toBeGreaterThan(5000); // not blank
      await page.locator("#date").fill("0");
      await page.waitForSelector("body[data-state=idle][data-date='2026-01-01']", { timeout: 30_000 });
      const january = await drawn();
      // In January both regions held every parcel (the fixture gives both the same feed): more overlap drawn.
      expect(january.deep).toBeGreaterThan(february.deep * 1.3);
      expect(tiles.some((u) => u.includes("datetime=..%2F2026-01-01") || u.includes("datetime=../2026-01-01"))).toBe(
        true,
      );
      expect(elsewhere).toEqual([]);
      expect(failed.filter((f) => !f.endsWith("/favicon.ico"))).toEqual([]);
    } finally {
      for (const c of cleanups.splice(0)) c();
      await browser.close();
    }
  }, 90_000);

  it("time travel: an instant before the re-promotion gives the old rows; a snapshot's URL is immutable and answers 304", async () => {
    const between = new Date((Date.parse(promotions.first) + Date.parse(promotions.again)) / 2).toISOString();
    const items = async (q: string) =>
      (await (
        await fetch(`${base}/collections/parcels/items?limit=10000&region=weld&date=2026-02-01&${q}`)
      ).json()) as {
        features: Feature[];
      };
    const old = await items(`datetime=${between}`);
    const now = await items("");
    const readOld = await read(["--as-of", between, "--region", "weld", "--date", "2026-02-01"]);
    const parcels = (fs: Feature[]) => fs.map((f) => String(f.properties.parcel_id)).sort();
    expect(parcels(old.features)).toEqual(parcels(readOld));
    expect(old.features.length).toBeGreaterThan(now.features.length); // every 2nd parcel then, every 4th now
    expect(now.features.length).toBeGreaterThan(0);

    const url = `${base}/collections/parcels/items?snapshot=${janSnapshot}&region=weld`;
    const first = await fetch(url);
    expect(first.headers.get("cache-control")).toMatch(/immutable/);
    const inSnapshot = (await first.json()) as { features: Feature[] };
    expect(parcels(inSnapshot.features)).toEqual(parcels(await read(["--date", "2026-01-01", "--region", "weld"])));
    const again = await fetch(url, { headers: { "If-None-Match": first.headers.get("etag") as string } });
    expect(again.status).toBe(304);
    // The current view may change: clients ask again each time.
    expect((await fetch(`${base}/collections/parcels/items`)).headers.get("cache-control")).toBe("no-cache");
    const unknown = await fetch(`${base}/collections/parcels/items?snapshot=0123456789abcdef`);
    expect(unknown.status).toBe(404);
    expect((await fetch(`${base}/collections/parcels/items?snapshot=../../x`)).status).toBe(400);
  });

  it("one feature by the natural key; HTML for a browser; a request past --max-read is refused saying what to narrow", async () => {
    const [one] = await read(["--region", "weld", "--latest-date", "--from", "2026-01-01"]);
    const id = String(one?.properties.parcel_id);
    const both = await fetch(`${base}/collections/parcels/items/${id}`);
    expect(both.status).toBe(400); // in weld and in larimer
    expect(((await both.json()) as { description: string }).description).toMatch(/add \?region=/);
    const f = (await (await fetch(`${base}/collections/parcels/items/${id}?region=weld`)).json()) as Feature & {
      id?: unknown;
    };
    expect(f.properties).toEqual(one?.properties);
    // Every item carries the id /items/{id} takes (issue 51: clients could not find one), the one feature too.
    expect(f.id).toBe(`weld:${String(one?.properties.date)}:${id}`);
    const again = (await (await fetch(`${base}/collections/parcels/items/${String(f.id)}`)).json()) as Feature;
    expect(again.properties).toEqual(one?.properties); // the id alone finds it: no ?region= needed
    const page = (await (await fetch(`${base}/collections/parcels/items?region=weld`)).json()) as {
      features: (Feature & { id?: unknown })[];
    };
    expect(page.features.length).toBeGreaterThan(1);
    expect(page.features.map((x) => x.id)).toEqual(
      page.features.map((x) => `weld:${String(x.properties.date)}:${String(x.properties.parcel_id)}`),
    );
    expect(new Set(page.features.map((x) => x.id)).size).toBe(page.features.length);
    expect((await fetch(`${base}/collections/parcels/items/no-such-parcel?region=weld`)).status).toBe(404);

    const html = await fetch(`${base}/collections/parcels/items?region=weld`, { headers: { Accept: "text/html" } });
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    const text = await html.text();
    expect(text).toContain(`<td>${id}</td>`);
    expect(text).toContain("/collections/parcels/map");
    const landing = await (await fetch(`${base}/`, { headers: { Accept: "text/html,application/xhtml+xml" } })).text();
    expect(landing).toContain(`${base}/collections`);

    // A dataset of 4,000 parcels (a partition of some 100 KiB) in the same store, and a server that reads at most
    // 64 KiB per request: its tiles and pages are refused, saying what to narrow; the small dataset still serves.
    const squares = Array.from({ length: 4000 }, (_, i) => {
      const [x, y] = [-104 + (i % 80) * 0.001 + ((i * 7919) % 97) * 1e-6, 40 + Math.floor(i / 80) * 0.001];
      const ring = [
        [x, y],
        [x + 5e-4, y],
        [x + 5e-4, y + 5e-4],
        [x, y + 5e-4],
        [x, y],
      ];
      return { type: "Feature", properties: { n: i }, geometry: { type: "Polygon", coordinates: [ring] } };
    });
    writeFileSync(join(dir, "dense.geojson"), JSON.stringify({ type: "FeatureCollection", features: squares }));
    const dense = sourceConfig(dir, "dense", { url: "./dense.geojson" });
    const b = await runCliHere(["backfill", "--config", dense, "--from", "2026-01-01", "--to", "2026-01-01"]);
    expect(b.code, b.stderr).toBe(0);
    const small = await serve(["--max-read", "64KiB"]);
    try {
      const refused = await fetch(`${small.base}/collections/dense/tiles/WebMercatorQuad/8/54/96`);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { description: string }).description).toMatch(
        /weld 2026-01-01 is \d+ KiB, more than this server reads for one request \(64 KiB, serve --max-read\)/,
      );
      const page = await fetch(`${small.base}/collections/dense/items?limit=5`);
      expect(page.status).toBe(400);
      const ok = await fetch(`${small.base}/collections/parcels/tiles/WebMercatorQuad/8/53/96`);
      expect(ok.status).toBe(200); // the parcels' partitions are a few KiB each
    } finally {
      small.child.kill("SIGTERM");
    }
  });

  it("a promotion while serving: seen at once with --recheck 0, not before the recheck with --recheck 3600", async () => {
    const [now, later] = [await serve(["--recheck", "0"]), await serve(["--recheck", "3600"])];
    try {
      const matched = async (b: string) =>
        (
          (await (await fetch(`${b}/collections/parcels/items?limit=1&datetime=2026-01-01/2026-12-31`)).json()) as {
            numberMatched: number;
          }
        ).numberMatched;
      const before = await matched(now.base);
      expect(await matched(later.base)).toBe(before);
      await backfill("2026-03-01");
      expect(await matched(now.base)).toBeGreaterThan(before);
      expect(await matched(later.base)).toBe(before); // one read of the manifests serves it for an hour
    } finally {
      now.child.kill("SIGTERM");
      later.child.kill("SIGTERM");
    }
  });
});
