import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { ObjectStore } from "../store/types.js";
import type { Dataset, DatasetView, ViewPartition } from "../views/reader.js";
import { ArtifactCache } from "./artifact-cache.js";
import { collectionDoc } from "./collections.js";
import { featureById, naturalKey } from "./feature.js";
import { linkList, page, propertyTable, wantsHtml } from "./html.js";
import { itemsPage, pageTag, partitionsFor, viewFor } from "./items.js";
import { mapAssets, mapPage } from "./map-page.js";
import { openApi } from "./openapi.js";
import { rowsOf } from "./partition-rows.js";
import { ServedDataset } from "./served-dataset.js";
import { HttpError, itemsQuery, tileQuery, viewQuery } from "./request.js";
import type { ItemsQuery } from "./request.js";
import { tileAddress, tileOf } from "./tiles.js";

/** What the server serves: one store, and the datasets in it (the only collection ids a path can name). */
export interface ServeOptions {
  store: ObjectStore;
  datasets: readonly string[];
  /** Where links point, as clients reach the server: http://host:port, given the request's Host header. */
  base: (host: string | undefined) => string;
  /** The most artifact bytes one request reads (a page ends early; a tile or feature past it is refused). */
  maxRead?: number;
  /** How many artifact bytes' worth of decoded partitions and tile indexes the server keeps between requests. */
  cacheBytes?: number;
  /** A partition up to this size is decoded whole and cached; a larger one is paged by row group. */
  wholeBytes?: number;
  /** How long one read of a dataset's manifests serves requests, in ms (0: read them for every request). */
  recheckMs?: number;
  /** Each request that failed on the server's side (not the client's), for the operator's log. */
  onError?: (error: unknown, path: string) => void;
}

export const DEFAULT_MAX_READ = 256 * 2 ** 20;
export const DEFAULT_CACHE = 512 * 2 ** 20;
export const DEFAULT_RECHECK_MS = 1000;
export const DEFAULT_WHOLE = 32 * 2 ** 20;

const CONFORMANCE = [
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
];

/** One request's context: what routes share. */
interface Ask {
  o: ServeOptions & { maxRead: number };
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  base: string;
  html: boolean;
  read: (view: DatasetView) => (p: ViewPartition) => Promise<import("apache-arrow").Table>;
  cache: ArtifactCache;
  /** The served datasets, by name: the only ones a path can name. */
  datasets: ReadonlyMap<string, Dataset>;
}

/**
 * A read-only OGC API – Features and vector tiles server over a store's datasets (docs/serve.md): it reads only
 * through the views (each region's current partition, a snapshot, or the dataset as of an instant) and has no
 * route that writes.
 */
export function featuresServer(options: ServeOptions): Server {
  const o = { ...options, maxRead: options.maxRead ?? DEFAULT_MAX_READ };
  const cache = new ArtifactCache(options.cacheBytes ?? DEFAULT_CACHE);
  const read = (view: DatasetView) => (p: ViewPartition) => cache.get("table", p.entry, () => view.read(p));
  const recheck = options.recheckMs ?? DEFAULT_RECHECK_MS;
  const datasets = new Map(o.datasets.map((d) => [d, new ServedDataset(o.store, d, recheck)]));
  return createServer((req, res) => {
    void answer({ o, cache, read, datasets }, req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) o.onError?.(error, req.url ?? "");
      const body = {
        code: status === 500 ? "ServerError" : status === 404 ? "NotFound" : "InvalidParameterValue",
        description: error instanceof Error ? error.message : String(error),
        ...(error instanceof HttpError && error.parameter ? { parameter: error.parameter } : {}),
      };
      if (!res.headersSent) send(res, req, status, "application/json", `${JSON.stringify(body)}\n`);
      else res.destroy();
    });
  });
}

async function answer(
  { o, cache, read, datasets }: Pick<Ask, "o" | "cache" | "read" | "datasets">,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    throw new HttpError(405, `${req.method} is not served: this server is read-only (GET, HEAD)`);
  }
  const base = o.base(req.headers.host);
  const url = new URL(req.url ?? "/", base);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const html = wantsHtml(req.headers.accept, url.searchParams.get("f"));
  const ask: Ask = { o, req, res, url, base, html, read, cache, datasets };
  if (path === "/") return landing(ask);
  if (path === "/conformance") return json(ask, { conformsTo: CONFORMANCE }, "conformance");
  if (path === "/api")
    return send(res, req, 200, "application/vnd.oai.openapi+json;version=3.0", `${JSON.stringify(openApi(base))}\n`);
  if (path === "/collections") return collections(ask);
  if (path === "/favicon.ico") {
    res.writeHead(204).end(); // a browser asks; there is none, and saying 404 would only fill its console
    return;
  }
  const asset = /^\/assets\/([^/]+)$/.exec(path);
  if (asset) {
    const a = mapAssets().get(asset[1] as string);
    if (!a) throw new HttpError(404, `no asset ${url.pathname}`);
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable"); // named by MapLibre's version
    return send(res, req, 200, a.type, a.body);
  }
  const m =
    /^\/collections\/([^/]+)(?:\/(items|map|tiles\/WebMercatorQuad)(?:\/([^/]+)|\/(\d+)\/(\d+)\/(\d+))?)?$/.exec(path);
  // The id is compared with the known datasets' names, never used to build a key: no path reaches anything else.
  const id = m ? safeDecode(m[1] as string) : undefined;
  const ds = id === undefined ? undefined : datasets.get(id);
  if (!m || ds === undefined) throw new HttpError(404, `no ${m ? "collection" : "resource"} at ${url.pathname}`);
  const [, , sub, featureId, z, x, y] = m;
  if (sub === undefined) {
    const doc = collectionDoc(await ds.current(), base);
    return ask.html ? collectionHtml(ask, doc) : json(ask, doc, "collection");
  }
  if (sub === "map") return send(res, req, 200, "text/html; charset=utf-8", mapPage(await ds.current(), base));
  if (sub === "items" && featureId !== undefined) return feature(ask, ds, safeDecode(featureId) ?? "");
  if (sub === "items") return items(ask, ds);
  if (z !== undefined) return tile(ask, ds, z, x as string, y as string);
  throw new HttpError(404, `no resource at ${url.pathname}`);
}

async function landing(ask: Ask): Promise<void> {
  const { base } = ask;
  const links: [string, string, string][] = [
    [`${base}/api`, "service-desc", "the API (OpenAPI 3.0)"],
    [`${base}/conformance`, "conformance", "conformance classes"],
    [`${base}/collections`, "data", "the datasets"],
  ];
  if (ask.html) return sendHtml(ask, page("georefresh", linkList(links.map(([h, , t]) => [h, t])), `${base}/?f=json`));
  return json(
    ask,
    {
      title: "georefresh",
      description: "The datasets of one georefresh store, as OGC API – Features and vector tiles",
      links: [
        { href: `${base}/`, rel: "self", type: "application/json" },
        { href: `${base}/?f=html`, rel: "alternate", type: "text/html" },
        ...links.map(([href, rel, title]) => ({
          href,
          rel,
          title,
          type: rel === "service-desc" ? "application/vnd.oai.openapi+json;version=3.0" : "application/json",
        })),
      ],
    },
    "georefresh",
  );
}

async function collections(ask: Ask): Promise<void> {
  const docs = [];
  for (const ds of ask.datasets.values()) docs.push(collectionDoc(await ds.current(), ask.base));
  if (ask.html) {
    const list = ask.o.datasets.map((d): [string, string] => [`${ask.base}/collections/${d}?f=html`, d]);
    return sendHtml(ask, page("collections", linkList(list), `${ask.base}/collections?f=json`));
  }
  return json(
    ask,
    {
      links: [{ href: `${ask.base}/collections`, rel: "self", type: "application/json" }],
      collections: docs,
    },
    "collections",
  );
}

function collectionHtml(ask: Ask, doc: Record<string, unknown>): void {
  const id = String(doc.id);
  const self = `${ask.base}/collections/${id}`;
  const extent = doc.extent as { spatial: { bbox: number[][] }; temporal: { interval: string[][] } };
  const body = `<p>extent ${extent.spatial.bbox[0]?.map((n) => n.toFixed(4)).join(", ")} (lon/lat); logical dates ${extent.temporal.interval[0]?.join(" to ")}</p>
${linkList([
  [`${self}/map`, "map (vector tiles, with a date slider)"],
  [`${self}/items?f=html`, "items"],
  [`${self}/items?f=json`, "items as GeoJSON"],
])}`;
  sendHtml(ask, page(id, body, `${self}?f=json`));
}

async function items(ask: Ask, ds: Dataset): Promise<void> {
  const query = itemsQuery(ask.url.searchParams);
  const view = await viewFor(ds, query);
  const parts = partitionsFor(view, query);
  if (!cached(ask, query, parts)) return;
  const rows = rowsOf(view, ask.cache, ask.o.wholeBytes ?? DEFAULT_WHOLE);
  const text = await itemsPage(rows, parts, query, ask.url, ask.o.maxRead);
  if (!ask.html) return send(ask.res, ask.req, 200, "application/geo+json", text);
  const doc = JSON.parse(text) as {
    features: { properties: Record<string, unknown> }[];
    links: { rel: string; href: string }[];
  };
  const next = doc.links.find((l) => l.rel === "next");
  const body = `<p>${doc.features.length} features${next ? ` · <a href="${next.href.replace(/([?&])f=json\b/, "$1f=html")}">next page</a>` : ""} · <a href="${ask.base}/collections/${ds.name}/map">map</a></p>
${propertyTable(doc.features.map((f) => f.properties))}`;
  const asJson = new URL(ask.url);
  asJson.searchParams.set("f", "json");
  sendHtml(ask, page(`${ds.name}: items`, body, asJson.href));
}

async function feature(ask: Ask, ds: Dataset, id: string): Promise<void> {
  const query = viewQuery(ask.url.searchParams);
  const view = await viewFor(ds, query);
  const key = naturalKey(view) ?? naturalKey(await ds.current());
  if (!key)
    throw new HttpError(
      404,
      `${ds.name} has no natural key (its task or source names none: key), so its features have no id to be fetched by; page through items instead`,
    );
  const parts = partitionsFor(view, query);
  if (!cached(ask, query, parts)) return;
  const f = await featureById(ask.read(view), parts, key, id, ds.name);
  if (ask.html)
    return sendHtml(ask, page(`${ds.name}: ${id}`, propertyTable([f.properties]), `${ask.url.pathname}?f=json`));
  const { featureText } = await import("../views/geojson-text.js");
  send(ask.res, ask.req, 200, "application/geo+json", `${featureText(f)}\n`);
}

async function tile(ask: Ask, ds: Dataset, z: string, x: string, y: string): Promise<void> {
  const at = tileAddress(z, x, y);
  const query = tileQuery(ask.url.searchParams);
  const view = await viewFor(ds, query);
  const parts = partitionsFor(view, query, true);
  if (!cached(ask, query, parts)) return;
  const body = await tileOf(view, parts, at, query, ask.cache, ask.o.maxRead);
  send(ask.res, ask.req, 200, "application/vnd.mapbox-vector-tile", Buffer.from(body));
}

/**
 * Sets the response's ETag (the artifacts it is made of, and the request) and its caching; true when the body
 * must be made, false when a 304 has answered an If-None-Match of the same tag.
 */
function cached(ask: Ask, query: ItemsQuery, parts: readonly ViewPartition[]): boolean {
  const tag = pageTag(parts, `${ask.url.pathname}${ask.url.search}${ask.html ? "\0html" : ""}`);
  ask.res.setHeader("ETag", tag);
  // A snapshot's id names content that never changes; anything else follows the manifests, so ask each time.
  const fixed = query.snapshot !== undefined && query.snapshot !== "latest";
  ask.res.setHeader("Cache-Control", fixed ? "public, max-age=31536000, immutable" : "no-cache");
  if (ask.req.headers["if-none-match"] !== tag) return true;
  ask.res.writeHead(304).end();
  return false;
}

function json(ask: Ask, doc: unknown, title: string): void {
  if (ask.html)
    return sendHtml(
      ask,
      page(
        title,
        `<pre>${JSON.stringify(doc, null, 2).replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>`,
        `${ask.url.pathname}?f=json`,
      ),
    );
  send(ask.res, ask.req, 200, "application/json", `${JSON.stringify(doc)}\n`);
}

function sendHtml(ask: Ask, body: string): void {
  send(ask.res, ask.req, 200, "text/html; charset=utf-8", body);
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}
