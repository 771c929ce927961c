import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { ObjectStore } from "../store/types.js";
import { Dataset } from "../views/reader.js";
import { collectionDoc } from "./collections.js";
import { itemsPage, pageTag, partitionsFor, viewFor } from "./items.js";
import { openApi } from "./openapi.js";
import { HttpError, itemsQuery } from "./request.js";

/** What the server serves: one store, and the datasets in it (the only collection ids a path can name). */
export interface ServeOptions {
  store: ObjectStore;
  datasets: readonly string[];
  /** Where links point, as clients reach the server: http://host:port, given the request's Host header. */
  base: (host: string | undefined) => string;
  /** Each request that failed on the server's side (not the client's), for the operator's log. */
  onError?: (error: unknown, path: string) => void;
}

const CONFORMANCE = [
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
  "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
];

/**
 * A read-only OGC API – Features server over a store's datasets (docs/serve.md): it reads only through the views
 * (each region's current partition, or the dataset as of an instant) and has no route that writes.
 */
export function featuresServer(o: ServeOptions): Server {
  return createServer((req, res) => {
    void answer(o, req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) o.onError?.(error, req.url ?? "");
      const body = {
        code: status === 500 ? "ServerError" : "InvalidParameterValue",
        description: error instanceof Error ? error.message : String(error),
        ...(error instanceof HttpError && error.parameter ? { parameter: error.parameter } : {}),
      };
      if (!res.headersSent) send(res, req, status, "application/json", `${JSON.stringify(body)}\n`);
      else res.destroy();
    });
  });
}

async function answer(o: ServeOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    throw new HttpError(405, `${req.method} is not served: this server is read-only (GET, HEAD)`);
  }
  const base = o.base(req.headers.host);
  const url = new URL(req.url ?? "/", base);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const json = (doc: unknown) => send(res, req, 200, "application/json", `${JSON.stringify(doc)}\n`);
  if (path === "/")
    return json({
      title: "georefresh",
      description: "The datasets of one georefresh store, as OGC API – Features",
      links: [
        { href: `${base}/`, rel: "self", type: "application/json" },
        { href: `${base}/api`, rel: "service-desc", type: "application/vnd.oai.openapi+json;version=3.0" },
        { href: `${base}/conformance`, rel: "conformance", type: "application/json" },
        { href: `${base}/collections`, rel: "data", type: "application/json" },
      ],
    });
  if (path === "/conformance") return json({ conformsTo: CONFORMANCE });
  if (path === "/api")
    return send(res, req, 200, "application/vnd.oai.openapi+json;version=3.0", `${JSON.stringify(openApi(base))}\n`);
  if (path === "/collections") {
    const docs = [];
    for (const name of o.datasets) docs.push(collectionDoc(await new Dataset(o.store, name).current(), base));
    return json({ links: [{ href: `${base}/collections`, rel: "self", type: "application/json" }], collections: docs });
  }
  const m = /^\/collections\/([^/]+)(\/items)?$/.exec(path);
  // The id is compared with the known datasets' names, never used to build a key: no path reaches anything else.
  const name = m ? o.datasets.find((d) => d === safeDecode(m[1] as string)) : undefined;
  if (!m || name === undefined) throw new HttpError(404, `no ${m ? "collection" : "resource"} at ${url.pathname}`);
  const ds = new Dataset(o.store, name);
  if (!m[2]) return json(collectionDoc(await ds.current(), base));
  const query = itemsQuery(url.searchParams);
  const view = await viewFor(ds, query);
  const parts = partitionsFor(view, query);
  const tag = pageTag(parts, url.search);
  res.setHeader("ETag", tag);
  if (req.headers["if-none-match"] === tag) {
    res.writeHead(304).end();
    return;
  }
  send(res, req, 200, "application/geo+json", await itemsPage(view, parts, query, url));
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}
