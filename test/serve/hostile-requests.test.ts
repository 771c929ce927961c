/**
 * What a hostile page or client sends a features server: a DNS name rebound to the loopback (DNS rebinding, 421
 * unless allowed), impossible dates (400, not an empty 200), a bbox across the antimeridian (allowed by OGC API –
 * Features: both bands answered), errors that would show where the store lies on disk (they say the key), and
 * connections that never finish their headers (slowloris: cut off).
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featuresServer } from "../../src/serve/server.js";
import { loadStore } from "../../src/store/backends.js";
import type { ObjectStore } from "../../src/store/types.js";
import { runCliHere } from "../helpers/cli.js";
import { startServe } from "../helpers/serve.js";

let dir: string;
let config: string;
const stops: (() => void)[] = [];

/** A GET with the Host header a browser on another site would send (fetch cannot set Host). */
function get(base: string, path: string, host?: string): Promise<{ status: number; body: string }> {
  const u = new URL(path, base);
  return new Promise((ok, fail) => {
    const r = request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, headers: host ? { Host: host } : {} },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => ok({ status: res.statusCode ?? 0, body }));
      },
    );
    r.on("error", fail);
    r.end();
  });
}

async function serve(args: string[] = []): Promise<string> {
  const { child, base } = await startServe(config, args);
  stops.push(() => child.kill("SIGTERM"));
  return base;
}

describe("serve, asked by a hostile page or client", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-serve-hostile-"));
    const point = (name: string, lon: number) => ({
      type: "Feature",
      properties: { name },
      geometry: { type: "Point", coordinates: [lon, 0.5] },
    });
    const features = [point("east of the line", 179.5), point("west of the line", -179.5), point("greenwich", 0)];
    writeFileSync(join(dir, "pts.geojson"), JSON.stringify({ type: "FeatureCollection", features }));
    writeFileSync(join(dir, "tampered.geojson"), JSON.stringify({ type: "FeatureCollection", features }));
    config = join(dir, "georefresh.config.json");
    const dataset = (url: string) => ({ source: { url }, regions: ["pacific"], cadence: "monthly" });
    writeFileSync(
      config,
      JSON.stringify({
        store: "./data",
        datasets: { pts: dataset("./pts.geojson"), tampered: dataset("./tampered.geojson") },
      }),
    );
    for (const name of ["pts", "tampered"]) {
      const b = await runCliHere([
        "backfill",
        "--config",
        config,
        "--dataset",
        name,
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
      ]);
      expect(b.code, b.stderr).toBe(0);
    }
    // One artifact's bytes changed under its manifest: a read of it fails with the artifact's key.
    const folder = join(dir, "data", "artifacts", "tampered", "region=pacific", "date=2026-01-01");
    const file = join(folder, readdirSync(folder)[0] as string);
    const bytes = readFileSync(file);
    bytes[bytes.length - 20] = (bytes[bytes.length - 20] as number) ^ 0xff;
    writeFileSync(file, bytes);
  }, 120_000);
  afterAll(() => {
    for (const stop of stops) stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers only the loopback's names, IP literals and the names --allowed-host declares (421 otherwise)", async () => {
    const base = await serve();
    const port = new URL(base).port;
    expect((await get(base, "/collections", `127.0.0.1:${port}`)).status).toBe(200);
    expect((await get(base, "/collections", `localhost:${port}`)).status).toBe(200);
    const rebound = await get(base, "/collections/pts/items", `attacker.example:${port}`);
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toMatch(/greenwich/);
    expect(JSON.parse(rebound.body).description).toMatch(/--allowed-host attacker\.example/);
    const allowing = await serve(["--allowed-host", "maps.example.org"]);
    expect((await get(allowing, "/collections/pts/items", "maps.example.org")).status).toBe(200);
    expect((await get(allowing, "/collections/pts/items", "attacker.example")).status).toBe(421);
  });

  it("refuses a date the calendar does not have (400), in a date, an interval and an instant", async () => {
    const base = await serve();
    for (const datetime of ["2026-02-30", "2026-01-01/2026-02-30", "2026-02-30T12:00:00Z", "2026-13-01"]) {
      const r = await get(base, `/collections/pts/items?datetime=${encodeURIComponent(datetime)}`);
      expect(r.status, datetime).toBe(400);
      expect(JSON.parse(r.body).description, datetime).toMatch(/is not a date of the calendar|an instant/);
    }
    expect((await get(base, "/collections/pts/items?datetime=2026-02-28")).status).toBe(200);
  });

  it("answers a bbox across the antimeridian (minLon > maxLon) with both bands", async () => {
    const base = await serve();
    const r = await get(base, "/collections/pts/items?bbox=179,-10,-179,10");
    expect(r.status, r.body).toBe(200);
    const names = (JSON.parse(r.body) as { features: { properties: { name: string } }[] }).features
      .map((f) => f.properties.name)
      .sort();
    expect(names).toEqual(["east of the line", "west of the line"]);
  });

  it("says the artifact's key in an error, never the store's path on this machine", async () => {
    const base = await serve();
    const r = await get(base, "/collections/tampered/items");
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body).toMatch(/artifacts\/tampered\/region=pacific\/date=2026-01-01\//);
    expect(r.body).not.toContain(dir);
  });

  it("cuts off connections that never finish their headers, and keeps answering others", async () => {
    const store: ObjectStore = await loadStore(join(dir, "data"));
    const server: Server = featuresServer({
      store,
      datasets: ["pts"],
      base: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      headersTimeoutMs: 1000,
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const port = (server.address() as AddressInfo).port;
    const slow = Array.from({ length: 50 }, () => {
      const s = connect(port, "127.0.0.1");
      s.on("connect", () => s.write("GET /collections HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
      s.on("error", () => undefined);
      s.resume(); // read what the server says (its 408), so its end closes the socket
      return new Promise<number>((ok) => s.on("close", () => ok(Date.now())));
    });
    const started = Date.now();
    // Meanwhile a well-behaved client is answered.
    expect((await get(`http://127.0.0.1:${port}`, "/collections")).status).toBe(200);
    const closed = await Promise.all(slow);
    // Cut within the timeout plus one check interval (500 ms), with slack for a loaded machine.
    expect(Math.max(...closed) - started).toBeLessThan(6000);
    server.close();
    await store.close();
  });
});
