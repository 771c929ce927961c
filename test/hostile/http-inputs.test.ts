/**
 * Issue 22, items 1–4: HTTP inputs served by a real hostile server on 127.0.0.1 and 127.0.0.2. Redirects into a
 * metadata service or another host's loopback are refused before any connection; bodies stream to disk under a
 * cap (an endless one stops at the cap, with memory near the base); one download per run however many workers;
 * a 206 is never the file; two URLs with equal validators are two inputs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { planBackfill } from "../../src/orchestrate/dry-run.js";
import { resolveInput } from "../../src/inputs/resolve.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli, spawnCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePointsConfig } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const points = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => [i, -100 + ((i * 7) % 50) * 0.5, 30 + (i % 2) * 15]));

describe("hostile HTTP inputs", () => {
  const servers: Server[] = [];
  let base: string; // http://127.0.0.1:port
  let other: string; // http://127.0.0.2:port, another host of this machine
  let port: number;
  const routes = new Map<string, Handler>();
  const hits = new Map<string, string[]>();
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-hostile-http-"));
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? "").split("?")[0] as string;
      hits.set(path, [...(hits.get(path) ?? []), req.method as string]);
      const route = routes.get(path);
      if (!route) return void res.writeHead(404).end("no such file");
      route(req, res);
    };
    const a = createServer(handler);
    await new Promise<void>((r) => a.listen(0, "127.0.0.1", r));
    port = (a.address() as AddressInfo).port;
    const b = createServer(handler);
    await new Promise<void>((r) => b.listen(port, "127.0.0.2", r));
    servers.push(a, b);
    base = `http://127.0.0.1:${port}`;
    other = `http://127.0.0.2:${port}`;
  });
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const serve =
    (body: string, headers: Record<string, string> = {}): Handler =>
    (req, res) => {
      res.writeHead(200, { "content-length": String(Buffer.byteLength(body)), ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
  const redirect =
    (location: string): Handler =>
    (_req, res) =>
      res.writeHead(302, { location }).end();
  const count = (path: string, method?: string) => (hits.get(path) ?? []).filter((m) => !method || m === method).length;
  /** A CLI config whose dataset `h` reads `url`, in its own folder with its own store. */
  const configFor = (name: string, url: string, extra: object = {}) => {
    const at = mkdtempSync(join(dir, `${name}-`));
    const config = writePointsConfig(at, url);
    const doc = JSON.parse(readFileSync(config, "utf8")) as Record<string, unknown>;
    writeFileSync(config, JSON.stringify({ ...doc, datasets: { h: { module: "./task.mjs" } }, ...extra }));
    return { config, store: new FsStore(join(at, "store")) };
  };
  const run = (config: string, env: Record<string, string> = {}) =>
    runCli(["run", "--dataset", "h", "--region", "north", "--date", "2026-01-02", "--config", config], {
      GEOREFRESH_HTTP_ATTEMPTS: "3",
      ...env,
    });

  it("1: a redirect to the metadata address is refused at once, naming it; nothing is published", async () => {
    routes.set("/meta.json", redirect("http://169.254.169.254/latest/meta-data/iam/security-credentials/role"));
    const { config, store } = configFor("meta", `${base}/meta.json`);
    const started = Date.now();
    const r = await run(config);
    expect(r.code, r.stderr + r.stdout).toBe(5);
    expect(r.stdout + r.stderr).toMatch(
      /refused to connect to 169\.254\.169\.254 \(redirected from 127\.0\.0\.1\): a link-local or cloud metadata address.*GEOREFRESH_ALLOW_HOSTS/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(count("/meta.json")).toBe(1); // no retry loop
    expect(await snapshot(store, "artifacts/")).toEqual({});
    expect(await snapshot(store, "manifests/")).toEqual({});
    // By URL too, and by the metadata services' names (refused before any lookup or connection).
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fe80::1]/x",
      "http://metadata.google.internal/computeMetadata/v1/",
    ])
      await expect(resolveInput(url)).rejects.toThrow(/refused to connect to .*(link-local|metadata)/);
  }, 60_000);

  it("1: a redirect from one host to another host's loopback address is refused; an allowed host is followed", async () => {
    routes.set("/secret.json", serve(points(10), { etag: '"internal"' }));
    routes.set("/hop.json", redirect(`http://localhost:${port}/secret.json`));
    // localhost is a name: what it resolves to (loopback) is what is judged.
    await expect(resolveInput(`${other}/hop.json`)).rejects.toThrow(
      new RegExp(
        `127\\.0\\.0\\.2 redirected to localhost \\(127\\.0\\.0\\.1|::1\\), a loopback or private address of another host; refused`,
      ),
    );
    expect(count("/secret.json")).toBe(0);
    // The input's own loopback URL is the user's choice, and a same-host redirect stays there.
    routes.set("/same.json", redirect("/secret.json"));
    expect((await resolveInput(`${base}/same.json`)).identity).toBe('http-etag:"internal"');
    const allowed = process.env.GEOREFRESH_ALLOW_HOSTS;
    process.env.GEOREFRESH_ALLOW_HOSTS = "localhost";
    try {
      expect((await resolveInput(`${other}/hop.json`)).identity).toBe('http-etag:"internal"');
    } finally {
      if (allowed === undefined) delete process.env.GEOREFRESH_ALLOW_HOSTS;
      else process.env.GEOREFRESH_ALLOW_HOSTS = allowed;
    }
    // Through the CLI, allowed by the config.
    const { config } = configFor("allowed", `${other}/hop.json`, {
      inputs: { allowHosts: ["localhost", "127.0.0.0/8"] },
    });
    const r = await run(config);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const refused = configFor("not-allowed", `${other}/hop.json`);
    expect((await run(refused.config)).code).toBe(5);
  }, 60_000);

  it("2: an endless body stops at the cap (exit 5 naming input, cap and setting), memory near the base", async () => {
    const chunk = Buffer.alloc(1 << 20, 0x5b);
    routes.set("/endless.json", (req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "HEAD") return void res.end();
      let sent = 0;
      const pump = () => {
        while (sent < 2048 && res.write(chunk)) sent++;
        if (sent >= 2048) res.end();
        else res.once("drain", pump);
      };
      pump();
    });
    const { config, store } = configFor("endless", `${base}/endless.json`);
    const child = spawnCli(["run", "--dataset", "h", "--region", "north", "--date", "2026-01-02", "--config", config], {
      GEOREFRESH_MAX_INPUT_BYTES: "512MiB",
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    let peak = 0;
    const watch = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
      } catch {
        // exited
      }
    }, 20);
    const code = await new Promise<number | null>((r) => child.on("close", r));
    clearInterval(watch);
    expect(code, output).toBe(5);
    expect(output).toMatch(
      /input http:\/\/127\.0\.0\.1:\d+\/endless\.json is larger than the input cap of 512\.00 MiB \(536870912 bytes; .*\).*GEOREFRESH_MAX_INPUT_BYTES/,
    );
    // 512 MiB arrived and went to disk; buffering it would have cost more than that in memory.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(400 * 2 ** 20);
    expect(await snapshot(store, "manifests/")).toEqual({});
    // A declared length over the cap is refused before the body is read.
    routes.set("/declared.json", serve("x".repeat(100_000)));
    const declared = await run(configFor("declared", `${base}/declared.json`).config, {
      GEOREFRESH_MAX_INPUT_BYTES: "65536",
    });
    expect(declared.code).toBe(5);
    expect(declared.stdout + declared.stderr).toMatch(/the server declares 100000 bytes/);
  }, 120_000);

  it("2: two workers, four partitions: the file is downloaded once and the workers share the copy", async () => {
    routes.set("/shared.json", serve(points(40), { etag: '"s1"' }));
    const { config, store } = configFor("shared", `${base}/shared.json`);
    const r = await runCli([
      "backfill",
      "--dataset",
      "h",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-02",
      "--workers",
      "2",
      "--config",
      config,
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(Object.keys(await snapshot(store, "manifests/"))).toHaveLength(4);
    expect(count("/shared.json", "GET")).toBe(1);
  }, 60_000);

  it("3: a 206 without a Range request is not the file: nothing promoted, the answer named", async () => {
    const body = points(3);
    routes.set("/partial.json", (req, res) => {
      const part = body.slice(0, 91);
      res.writeHead(206, { "content-range": `bytes 0-90/${body.length}`, "content-length": String(part.length) });
      res.end(req.method === "HEAD" ? undefined : part);
    });
    const { config, store } = configFor("partial", `${base}/partial.json`);
    const r = await run(config);
    expect(r.code).toBe(5);
    expect(r.stdout + r.stderr).toMatch(
      new RegExp(`HTTP 206 Partial Content \\(Content-Range: bytes 0-90/${body.length}\\) is not the whole file`),
    );
    expect(await snapshot(store, "manifests/")).toEqual({});
  }, 60_000);

  it("4: another URL whose validators happen to match is another input: a new key, and the dry run says it moved", async () => {
    const same = { etag: '"same"', "last-modified": "Tue, 01 Dec 2026 08:00:00 GMT" };
    routes.set("/y2024.json", serve(points(20), same));
    routes.set("/y2025.json", serve(points(21).replace("[0,", "[0,"), same));
    const store = new FsStore(join(dir, "moved-store"));
    const opts = {
      store,
      dataset: "h",
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-01",
      regions: ["north"],
      threads: 0,
    };
    const first = await backfill({ ...opts, task: pointsTask(`${base}/y2024.json`) });
    expect(first.counts.promoted).toBe(1);
    const plan = await planBackfill({ ...opts, task: pointsTask(`${base}/y2025.json`) });
    expect(plan.plans[0]?.status).toBe("changed");
    expect(plan.plans[0]?.reasons.join(" ")).toMatch(/input points moved: .*\/y2024\.json → .*\/y2025\.json/);
    const second = await backfill({ ...opts, task: pointsTask(`${base}/y2025.json`) });
    expect(second.counts.rekeyed, second.results[0]?.message).toBe(1); // the same points under another URL
    expect(second.results[0]?.key).not.toBe(first.results[0]?.key);
    const m = (await readManifest(store, "manifests/h/region=north/date=2026-01-01.json"))?.manifest;
    expect(m?.current?.inputs.points?.uri).toBe(`${base}/y2025.json`);
    // A signature in the query is not part of where the file is: a re-signed URL is the same input.
    routes.set("/signed.json", serve(points(20), { etag: '"sig"' }));
    const a = await resolveInput(`${base}/signed.json?X-Amz-Signature=aaa&X-Amz-Date=1&v=1`);
    const b = await resolveInput(`${base}/signed.json?X-Amz-Signature=bbb&X-Amz-Date=2&v=1`);
    expect(a.location).toBe(`${base}/signed.json?v=1`);
    expect(b.location).toBe(a.location);
  }, 60_000);
});
