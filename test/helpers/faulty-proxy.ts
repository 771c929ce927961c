import { createServer, request } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy in front of the real S3 server that loses answers on purpose: it can pass a request on
 * and then answer 500 (the write landed, the client cannot know), answer 500 without passing it on, or pass it on
 * and never answer (a timeout). Signatures stay valid because the Host header is forwarded unchanged.
 */
export type Fault = "pass" | "forward-then-500" | "500-without-forward" | "forward-then-hang";

export interface FaultyProxy {
  endpoint: string;
  /** Requests seen, as "METHOD path". */
  seen: string[];
  close(): Promise<void>;
}

export async function startFaultyProxy(
  target: string,
  decide: (req: IncomingMessage, index: number) => Fault,
): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const hanging: (() => void)[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const fault = decide(req, seen.length);
    seen.push(`${req.method} ${req.url}`);
    const fail500 = () => {
      res.writeHead(500, { "content-type": "application/xml" });
      res.end('<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
    };
    if (fault === "500-without-forward") return fail500();
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const upChunks: Buffer[] = [];
        up.on("data", (c: Buffer) => upChunks.push(c));
        up.on("end", () => {
          if (fault === "forward-then-500") return fail500();
          if (fault === "forward-then-hang") return void hanging.push(() => res.destroy());
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(Buffer.concat(upChunks));
        });
      },
    );
    forwarded.on("error", () => fail500());
    forwarded.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      for (const h of hanging) h();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
