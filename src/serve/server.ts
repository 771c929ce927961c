import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { DatasetView, ViewPartition } from "../views/reader.js";
import { ArtifactCache } from "./artifact-cache.js";
import { wantsHtml } from "./html.js";
import { mapAssets } from "./map-page.js";
import { openApi } from "./openapi.js";
import {
  DEFAULT_CACHE,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_READ,
  DEFAULT_RECHECK_MS,
  MAX_CONNECTIONS,
} from "./options.js";
import type { ServeOptions } from "./options.js";
import { HttpError } from "./request.js";
import { json, send } from "./respond.js";
import type { Ask } from "./respond.js";
import { collection, collections, CONFORMANCE, feature, items, landing, map, tile } from "./routes.js";
import { ServedDataset } from "./served-dataset.js";

export { DEFAULT_CACHE, DEFAULT_MAX_READ, DEFAULT_RECHECK_MS, DEFAULT_WHOLE } from "./options.js";
export type { ServeOptions } from "./options.js";

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
  const root = storeRoot(o.store);
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const server = createServer(
    // Slow clients (slowloris) are cut off once their headers are late; timeouts are checked every half of it.
    {
      headersTimeout,
      requestTimeout: 2 * headersTimeout,
      connectionsCheckingInterval: Math.max(100, headersTimeout / 2),
    },
    (req, res) => {
      void answer({ o, cache, read, datasets }, req, res).catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        if (status === 500) o.onError?.(error, req.url ?? "");
        const message = error instanceof Error ? error.message : String(error);
        const body = {
          code: CODES[status] ?? "InvalidParameterValue",
          // A client is told the store's keys, never where the store lies on this machine.
          description: root ? message.replaceAll(root, "") : message,
          ...(error instanceof HttpError && error.parameter ? { parameter: error.parameter } : {}),
        };
        if (!res.headersSent) send(res, req, status, "application/json", `${JSON.stringify(body)}\n`);
        else res.destroy();
      });
    },
  );
  server.maxConnections = MAX_CONNECTIONS;
  return server;
}

const CODES: Record<number, string> = { 500: "ServerError", 404: "NotFound", 421: "MisdirectedRequest" };

/** What the store's locations start with (a local directory's absolute path), to leave out of answers. */
function storeRoot(store: ServeOptions["store"]): string | undefined {
  try {
    const probe = "datasets";
    const where = store.locate(probe);
    return where.endsWith(probe) && where.length > probe.length ? where.slice(0, -probe.length) : undefined;
  } catch {
    return undefined;
  }
}

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;
const IP_LITERAL = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[[0-9a-f:.]+\])$/i;

/**
 * The Host a request names, checked: a page on another site that rebinds its own DNS name to this machine
 * (DNS rebinding) sends that name, so only the loopback's names, IP literals (no name to rebind) and the names
 * the operator allowed are answered.
 */
function checkHost(host: string | undefined, allowed: readonly string[]): void {
  const name = (host ?? "").replace(/:\d{1,5}$/, "").toLowerCase();
  // No Host at all (HTTP/1.0) names nothing to rebind.
  if (!name || LOOPBACK.test(name) || IP_LITERAL.test(name) || allowed.includes("*") || allowed.includes(name)) return;
  throw new HttpError(
    421,
    `this server does not answer for the host ${JSON.stringify(name.slice(0, 100))}: a name it does not know may be a DNS-rebinding page; if clients reach it by that name, start serve with --allowed-host ${/^[a-z0-9.-]{1,253}$/.test(name) ? name : "<name>"}`,
  );
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
  checkHost(req.headers.host, o.allowedHosts ?? []);
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
  if (!m) throw new HttpError(404, `no resource at ${url.pathname}`);
  if (ds === undefined)
    throw new HttpError(
      404,
      `no collection ${id ?? m[1]}: this server has ${[...datasets.keys()].join(", ") || "none (backfill a dataset, then restart serve)"}`,
    );
  const [, , sub, featureId, z, x, y] = m;
  if (sub === undefined) return collection(ask, ds);
  if (sub === "map") return map(ask, ds);
  if (sub === "items" && featureId !== undefined) return feature(ask, ds, safeDecode(featureId) ?? "");
  if (sub === "items") return items(ask, ds);
  if (z !== undefined) return tile(ask, ds, z, x as string, y as string);
  throw new HttpError(404, `no resource at ${url.pathname}`);
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
