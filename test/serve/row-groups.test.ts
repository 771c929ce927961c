/**
 * Items of a partition larger than the server decodes whole are read by row group: the pages (across a row-group
 * boundary, with a filter, to the end) are byte for byte those of the whole-partition path, and an artifact whose
 * bytes no longer match its sha256 is refused, though the page's own row group was intact.
 */
import { openSync, readdirSync, readSync, rmSync, writeFileSync, writeSync, closeSync, mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featuresServer } from "../../src/serve/server.js";
import { loadStore } from "../../src/store/backends.js";
import type { ObjectStore } from "../../src/store/types.js";
import { runCliHere } from "../helpers/cli.js";
import { sourceConfig } from "../helpers/source-corpus.js";

const ROWS = 70_000; // two row groups: 65,536 and 4,464 rows
let dir: string;
let store: ObjectStore;
const servers: Server[] = [];

async function listen(wholeBytes?: number): Promise<string> {
  const server = featuresServer({
    store,
    datasets: ["points"],
    base: () => base,
    ...(wholeBytes === undefined ? {} : { wholeBytes }),
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return base;
}

describe("serve: a large partition's pages, by row group", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-serve-groups-"));
    const lines = Array.from({ length: ROWS }, (_, i) =>
      JSON.stringify({
        type: "Feature",
        properties: { n: i, kind: i % 7 === 0 ? "seven" : "other" },
        geometry: { type: "Point", coordinates: [-105 + (i % 300) * 0.001, 40 + Math.floor(i / 300) * 0.001] },
      }),
    );
    writeFileSync(join(dir, "points.geojsonl"), `${lines.join("\n")}\n`);
    const config = sourceConfig(dir, "points", { url: "./points.geojsonl", key: "n" });
    const b = await runCliHere(["backfill", "--config", config, "--from", "2026-01-01", "--to", "2026-01-01"]);
    expect(b.code, b.stderr).toBe(0);
    store = await loadStore(join(dir, "data"));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) s.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pages across the row-group boundary, filtered and to the end, equal to the whole-partition path", async () => {
    const [byGroup, whole] = [await listen(0), await listen()];
    for (const query of [
      "limit=10000&next=0.60000",
      "limit=5&next=0.65534",
      "kind=seven&limit=2000&next=0.60000",
      "limit=3&next=0.69998",
    ]) {
      const [a, b] = await Promise.all(
        [byGroup, whole].map(async (base) => {
          const r = await fetch(`${base}/collections/points/items?${query}`);
          expect(r.status, query).toBe(200);
          return (await r.text()).replaceAll(base, "BASE");
        }),
      );
      expect(a, query).toBe(b);
      const page = JSON.parse(a as string) as { features: { properties: { n: number } }[]; links: { rel: string }[] };
      expect(page.features.length).toBeGreaterThan(0);
      if (query.startsWith("limit=10000")) {
        // rows 60,000 to 69,999 (in the file's order, which is spatial): both sides of the boundary at 65,536
        expect(new Set(page.features.map((f) => f.properties.n)).size).toBe(10_000);
        expect(page.links.some((l) => l.rel === "next")).toBe(false);
      }
    }
  }, 60_000);

  it("refuses the page when any byte of the artifact differs from its sha256, even outside the page's row group", async () => {
    const base = await listen(0);
    const folder = join(dir, "data", "artifacts", "points");
    const find = (d: string): string => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const path = join(d, e.name);
        if (e.isDirectory()) return find(path);
        if (e.name.endsWith(".parquet")) return path;
      }
      return "";
    };
    const file = find(folder);
    expect(file).not.toBe("");
    // Flip a byte near the start: inside the first row group's data, which a page of the last rows does not decode.
    const fd = openSync(file, "r+");
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, 100);
    one[0] = (one[0] as number) ^ 0xff;
    writeSync(fd, one, 0, 1, 100);
    closeSync(fd);
    const r = await fetch(`${base}/collections/points/items?limit=3&next=0.69990`);
    expect(r.status).toBe(500);
    expect(((await r.json()) as { description: string }).description).toMatch(/but its entry promised .*refusing/);
  });
});
