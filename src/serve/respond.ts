import type { IncomingMessage, ServerResponse } from "node:http";
import type { Table } from "apache-arrow";
import type { Dataset, DatasetView, ViewPartition } from "../views/reader.js";
import type { ArtifactCache } from "./artifact-cache.js";
import { escapeHtml, page } from "./html.js";
import { pageTag } from "./items.js";
import type { ServeOptions } from "./options.js";
import type { ItemsQuery } from "./request.js";

/** One request's context: what routes share. */
export interface Ask {
  o: ServeOptions & { maxRead: number };
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  base: string;
  html: boolean;
  read: (view: DatasetView) => (p: ViewPartition) => Promise<Table>;
  cache: ArtifactCache;
  /** The served datasets, by name: the only ones a path can name. */
  datasets: ReadonlyMap<string, Dataset>;
}

/**
 * Sets the response's ETag (the artifacts it is made of, and the request) and its caching; true when the body
 * must be made, false when a 304 has answered an If-None-Match of the same tag.
 */
export function cached(ask: Ask, query: ItemsQuery, parts: readonly ViewPartition[]): boolean {
  const tag = pageTag(parts, `${ask.url.pathname}${ask.url.search}${ask.html ? "\0html" : ""}`);
  ask.res.setHeader("ETag", tag);
  // A snapshot's id names content that never changes; anything else follows the manifests, so ask each time.
  const fixed = query.snapshot !== undefined && query.snapshot !== "latest";
  ask.res.setHeader("Cache-Control", fixed ? "public, max-age=31536000, immutable" : "no-cache");
  if (ask.req.headers["if-none-match"] !== tag) return true;
  ask.res.writeHead(304).end();
  return false;
}

export function json(ask: Ask, doc: unknown, title: string): void {
  if (ask.html)
    return sendHtml(
      ask,
      page(title, `<pre>${escapeHtml(JSON.stringify(doc, null, 2))}</pre>`, `${ask.url.pathname}?f=json`),
    );
  send(ask.res, ask.req, 200, "application/json", `${JSON.stringify(doc)}\n`);
}

export function sendHtml(ask: Ask, body: string): void {
  send(ask.res, ask.req, 200, "text/html; charset=utf-8", body);
}

export function send(
  res: ServerResponse,
  req: IncomingMessage,
  status: number,
  type: string,
  body: string | Buffer,
): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}
