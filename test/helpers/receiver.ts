import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { signature } from "../../src/outbox/deliver.js";

/** A real local webhook receiver that records every POST and applies each Idempotency-Key once. */
export interface Receiver {
  url: string;
  posts: { key: string; body: string; signed: boolean }[];
  applied: Map<string, unknown>;
  failNext: number;
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const r: Omit<Receiver, "url" | "close"> = { posts: [], applied: new Map(), failNext: 0 };
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const key = String(req.headers["idempotency-key"] ?? "");
    r.posts.push({ key, body, signed: req.headers["x-georefresh-signature"] === signature(secret, body) });
    if (r.failNext > 0) {
      r.failNext--;
      res.writeHead(503).end("try later");
      return;
    }
    if (!r.applied.has(key)) r.applied.set(key, JSON.parse(body));
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return Object.assign(r, { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}
