import { featureText } from "../views/geojson-text.js";
import type { Dataset } from "../views/reader.js";
import { collectionDoc } from "./collections.js";
import { featureById, naturalKey } from "./feature.js";
import { linkList, page, propertyTable } from "./html.js";
import { itemsPage, partitionsFor, viewFor } from "./items.js";
import { DEFAULT_WHOLE } from "./options.js";
import { mapPage } from "./map-page.js";
import { rowsOf } from "./partition-rows.js";
import { HttpError, itemsQuery, tileQuery, viewQuery } from "./request.js";
import { cached, json, send, sendHtml } from "./respond.js";
import type { Ask } from "./respond.js";
import { tileAddress, tileOf } from "./tiles.js";

/** What each route answers, given the request's context (respond.ts); server.ts says which route a path is. */

export const CONFORMANCE = [
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
];

export async function landing(ask: Ask): Promise<void> {
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

export async function collections(ask: Ask): Promise<void> {
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

export async function collection(ask: Ask, ds: Dataset): Promise<void> {
  const doc = collectionDoc(await ds.current(), ask.base);
  return ask.html ? collectionHtml(ask, doc) : json(ask, doc, "collection");
}

export async function map(ask: Ask, ds: Dataset): Promise<void> {
  sendHtml(ask, mapPage(await ds.current(), ask.base));
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

export async function items(ask: Ask, ds: Dataset): Promise<void> {
  const query = itemsQuery(ask.url.searchParams);
  const view = await viewFor(ds, query);
  const parts = partitionsFor(view, query);
  if (!cached(ask, query, parts)) return;
  const rows = rowsOf(view, ask.cache, ask.o.wholeBytes ?? DEFAULT_WHOLE);
  const text = await itemsPage(rows, parts, query, ask.url, ask.o.maxRead, naturalKey(view));
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

export async function feature(ask: Ask, ds: Dataset, id: string): Promise<void> {
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
  send(ask.res, ask.req, 200, "application/geo+json", `${featureText(f)}\n`);
}

export async function tile(ask: Ask, ds: Dataset, z: string, x: string, y: string): Promise<void> {
  const at = tileAddress(z, x, y);
  const query = tileQuery(ask.url.searchParams);
  const view = await viewFor(ds, query);
  const parts = partitionsFor(view, query, true);
  if (!cached(ask, query, parts)) return;
  const body = await tileOf(view, parts, at, query, ask.cache, ask.o.maxRead);
  send(ask.res, ask.req, 200, "application/vnd.mapbox-vector-tile", Buffer.from(body));
}
