/**
 * HTTP(S) inputs against a real HTTP server on 127.0.0.1 that changes the file mid-run, answers 500 then 200,
 * drops the connection, serves weak ETags, redirects and never recovers.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { resolveInput } from "../../src/inputs/resolve.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS } from "../helpers/points-task.js";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const points = (n: number, seed = 0) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => [i, -100 + ((i * 7 + seed) % 50) * 0.5, 30 + (i % 2) * 15]));

describe("HTTP inputs", () => {
  let server: Server;
  let base: string;
  const routes = new Map<string, Handler>();
  const hits = new Map<string, string[]>();
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-http-"));
    server = createServer((req, res) => {
      const path = (req.url ?? "").split("?")[0] as string;
      const seen = hits.get(path) ?? [];
      seen.push(req.method as string);
      hits.set(path, seen);
      const route = routes.get(path);
      if (!route) return void res.writeHead(404).end("no such file");
      route(req, res, seen.length);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  const serve =
    (body: string, headers: Record<string, string>): Handler =>
    (req, res) => {
      res.writeHead(200, { "content-length": String(Buffer.byteLength(body)), ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
  const gets = (path: string) => (hits.get(path) ?? []).filter((m) => m === "GET").length;

  it("a strong ETag is the identity; 12 partitions sharing the file download it once", async () => {
    routes.set("/strong.json", serve(points(40), { etag: '"v1"' }));
    const store = new FsStore(join(dir, "strong"));
    const r = await backfill({
      store,
      dataset: "h",
      task: pointsTask(`${base}/strong.json`),
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-06",
      threads: 0,
    });
    expect(r.counts.promoted).toBe(12);
    expect(gets("/strong.json")).toBe(1);
    const m = (await readManifest(store, "manifests/h/region=north/date=2026-01-02.json"))?.manifest;
    expect(m?.current?.inputs.points).toEqual({ uri: `${base}/strong.json`, identity: 'http-etag:"v1"' });
    // A new ETag is a new key on the next run.
    routes.set("/strong.json", serve(points(41), { etag: '"v2"' }));
    const again = await backfill({
      store,
      dataset: "h",
      task: pointsTask(`${base}/strong.json`),
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-06",
      threads: 0,
      regions: ["north"],
    });
    expect(again.results.every((x) => x.key !== undefined)).toBe(true);
    expect(
      (await readManifest(store, "manifests/h/region=north/date=2026-01-02.json"))?.manifest.current?.inputs.points
        ?.identity,
    ).toBe('http-etag:"v2"');
  });

  it("weak ETags are not trusted: Last-Modified + Content-Length, else the sha256 of the body", async () => {
    routes.set("/weak-lm.json", serve(points(10), { etag: 'W/"x"', "last-modified": "Tue, 01 Dec 2026 08:00:00 GMT" }));
    routes.set("/weak.json", serve(points(10), { etag: 'W/"x"' }));
    expect((await resolveInput(`${base}/weak-lm.json`)).identity).toBe(
      `http-modified:2026-12-01T08:00:00.000Z;${points(10).length}`,
    );
    const weak = await resolveInput(`${base}/weak.json`);
    expect(weak.identity).toMatch(/^sha256:[0-9a-f]{64}$/);
    await weak.read();
    await weak.read();
    expect(gets("/weak.json")).toBe(1); // identified by the download, which read() then reuses
  });

  it("a file replaced mid-run fails the read instead of mixing versions", async () => {
    routes.set("/moving.json", serve(points(10), { etag: '"a"' }));
    const input = await resolveInput(`${base}/moving.json`);
    routes.set("/moving.json", serve(points(11), { etag: '"b"' }));
    await expect(input.read()).rejects.toThrow(
      `input ${base}/moving.json changed during the run (http-etag:"a" → http-etag:"b"); run again`,
    );
    routes.set("/moving-sha.json", serve(points(10), {}));
    const bytes = await resolveInput(`${base}/moving-sha.json`);
    expect(bytes.identity).toMatch(/^sha256:/);
  });

  it("500 then 200, and a dropped connection, are retried; redirects are followed within limits", async () => {
    routes.set("/flaky.json", (req, res, n) =>
      n <= 2 ? res.writeHead(500).end("busy") : serve(points(10), { etag: '"f"' })(req, res, n),
    );
    const flaky = await resolveInput(`${base}/flaky.json`);
    expect(flaky.identity).toBe('http-etag:"f"');
    expect(new TextDecoder().decode(await flaky.read())).toBe(points(10));
    routes.set("/dropped.json", (req, res, n) =>
      n === 1 ? req.socket.destroy() : serve(points(10), { etag: '"d"' })(req, res, n),
    );
    expect((await resolveInput(`${base}/dropped.json`)).identity).toBe('http-etag:"d"');
    routes.set("/moved.json", (_req, res) => res.writeHead(302, { location: "/strong.json" }).end());
    expect((await resolveInput(`${base}/moved.json`)).identity).toBe('http-etag:"v2"');
    routes.set("/loop.json", (_req, res) => res.writeHead(302, { location: "/loop.json" }).end());
    await expect(resolveInput(`${base}/loop.json`)).rejects.toThrow(/more than 5 redirects/);
    await expect(resolveInput(`${base}/missing.json`)).rejects.toThrow(
      `input ${base}/missing.json: HTTP 404 Not Found`,
    );
    await expect(resolveInput(`http://user:secret@127.0.0.1:1/x.json`)).rejects.toThrow(
      /credentials do not belong in an input URL/,
    );
    await expect(resolveInput(`http://user:secret@127.0.0.1:1/x.json`)).rejects.not.toThrow(/secret/);
  });

  it("a server that never recovers: the run exits 75 (transient), naming the input", async () => {
    routes.set("/down.json", (_req, res) => res.writeHead(503).end("maintenance"));
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
    const helper = new URL("../helpers/points-task.ts", import.meta.url).href;
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(`${base}/down.json`)});\n`,
    );
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        store: join(dir, "down-store"),
        versions: "./versions.json",
        datasets: { h: { module: "./task.mjs" } },
      }),
    );
    const r = await runCli(
      ["run", "--dataset", "h", "--region", "north", "--date", "2026-01-02", "--config", join(dir, "config.json")],
      { GEOREFRESH_HTTP_ATTEMPTS: "2" },
    );
    expect(r.code, r.stderr + r.stdout).toBe(75);
    expect(r.stderr + r.stdout).toContain(`input ${base}/down.json kept failing (HTTP 503, 2 attempts)`);
  });
});
