/**
 * The STAC catalog `georefresh stac` writes: every Item and the Collection valid against our own schema of STAC
 * 1.1 and its extensions (test/stac/stac.schema.json), checksums true to the artifacts, items.parquet read by
 * DuckDB, and a re-run that writes only what changed.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { writeStac } from "../../src/stac/publish.js";
import { CountingStore } from "../../src/store/counting.js";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints, writePointsConfig } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const schema = JSON.parse(readFileSync(new URL("./stac.schema.json", import.meta.url), "utf8")) as object;
// Strict about keywords and schema shape; not strictTypes or strictRequired, which would demand "type" and "properties"
// beside every fragment that is mixed into an object by allOf or tested by if.
const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
ajv.addSchema(schema);
const validItem = ajv.getSchema("https://georefresh.invalid/test/stac.schema.json#/$defs/item");
const validCollection = ajv.getSchema("https://georefresh.invalid/test/stac.schema.json#/$defs/collection");

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function expectValid(doc: unknown, validate: typeof validItem, where: string): void {
  const ok = validate?.(doc);
  expect(validate?.errors ?? [], where).toEqual([]);
  expect(ok).toBe(true);
}

describe("georefresh stac", () => {
  let dir: string;
  let store: FsStore;
  let input: string;
  const load = (key: string) => JSON.parse(readFileSync(join(store.root, key), "utf8")) as Json;
  const stacFiles = async () => snapshot(store, "stac/");
  const run = (dataset: string, task: ReturnType<typeof pointsTask>, from = "2026-01-01", to = "2026-01-03") =>
    backfill({ store, dataset, task, versions: VERSIONS, from, to, threads: 0 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-stac-"));
    input = join(dir, "points.json");
    writePoints(input, 20);
    store = new FsStore(join(dir, "store"));
    await run("d", pointsTask(input));
    await run("d", pointsTask(input, { version: "2" }), "2026-01-01", "2026-01-01"); // history for 01-01
    await run("p", { ...pointsTask(input), storageCrs: "EPSG:5070" });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes Items and a Collection that validate, with true checksums, links that resolve and versions", async () => {
    const s = await writeStac(store, "d", { cadence: "daily", license: "CC-BY-4.0" });
    expect(s).toMatchObject({ items: 6, versions: 2, written: 10, deleted: 0 });
    const collection = load("stac/d/collection.json");
    expectValid(collection, validCollection, "collection");
    expect(collection.license).toBe("CC-BY-4.0");
    const items = (collection.links as Json[]).filter((l) => l.rel === "item");
    expect(items).toHaveLength(6);
    for (const link of items) {
      const at = resolve(join(store.root, "stac/d"), link.href as string);
      const item = JSON.parse(readFileSync(at, "utf8")) as Json;
      expectValid(item, validItem, link.href as string);
      const artifact = readFileSync(resolve(dirname(at), item.assets.data.href as string));
      expect(item.assets.data["file:checksum"]).toBe(`1220${createHash("sha256").update(artifact).digest("hex")}`);
      expect(item.assets.data["file:size"]).toBe(artifact.byteLength);
      expect(item.properties.datetime).toBe(`${item.properties["georefresh:logical_date"]}T00:00:00Z`);
      expect(item.properties["georefresh:pins"]).toEqual({ square_size: "1" });
      expect(item.properties["proj:bbox"]).toBeUndefined(); // stored in lon/lat: bbox says it all
      const older = (item.links as Json[]).find((l) => l.rel === "predecessor-version");
      expect(Boolean(older)).toBe(item.properties["georefresh:logical_date"] === "2026-01-01");
      if (older) {
        const previous = JSON.parse(readFileSync(resolve(dirname(at), older.href as string), "utf8")) as Json;
        expectValid(previous, validItem, older.href as string);
        expect(previous.properties.deprecated).toBe(true);
        expect(previous.properties["georefresh:code_version"]).toBe("test-squares@1");
        const bytes = readFileSync(
          resolve(dirname(at), older.href as string, "..", previous.assets.data.href as string),
        );
        expect(previous.assets.data["file:checksum"]).toBe(`1220${createHash("sha256").update(bytes).digest("hex")}`);
      }
    }
    // The schema can fail: an extension's fields without the extension declared are refused.
    const one = load("stac/d/items/d-north-2026-01-02.json");
    one.stac_extensions = (one.stac_extensions as string[]).filter((e) => !e.includes("/projection/"));
    expect(validItem?.(one)).toBe(false);
  });

  it("a projected storage CRS gets proj:code and proj:bbox, with the lon/lat bbox around it; monthly cadence spans the month", async () => {
    const said: [string, number, number][] = [];
    const s = await writeStac(store, "p", {
      cadence: "monthly",
      onProgress: (step, done, total) => said.push([step, done, total]),
    });
    // How far it got, step by step, to the end of each: 6 manifests read, then each object written once.
    const read = said.filter(([step]) => step === "manifests read");
    expect(read.map(([, done]) => done)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(read.every(([, , total]) => total === 6)).toBe(true);
    const objects = s.items + s.versions + 2;
    expect(said.filter(([step]) => step === "objects written")).toEqual(
      Array.from({ length: objects }, (_, i) => ["objects written", i + 1, objects]),
    );
    const item = load("stac/p/items/p-south-2026-01-02.json");
    expectValid(item, validItem, "p item");
    expect(item.properties["proj:code"]).toBe("EPSG:5070");
    expect(item.properties["proj:bbox"][0]).toBeGreaterThan(-3e6); // metres, not degrees
    // The lon/lat box holds the data (south squares: 30–30.7°N), with some margin from the Albers box's curved edges.
    expect(item.bbox[1]).toBeLessThanOrEqual(30);
    expect(item.bbox[3]).toBeGreaterThanOrEqual(30.6);
    expect(item.bbox[3] - item.bbox[1]).toBeLessThan(5);
    expect(item.properties).toMatchObject({
      datetime: null,
      start_datetime: "2026-01-01T00:00:00Z",
      end_datetime: "2026-01-31T23:59:59Z",
    });
    expectValid(load("stac/p/collection.json"), validCollection, "p collection");
  });

  it("DuckDB chooses partitions from items.parquet by bbox and date, and reads their artifacts", async () => {
    const conn = await duckdb();
    const picked = await rows(
      conn,
      `SELECT id, assets.data.href AS href FROM read_parquet('${join(store.root, "stac/d/items.parquet")}')
       WHERE bbox.ymin >= 40 AND datetime >= TIMESTAMPTZ '2026-01-02 00:00:00+00' ORDER BY id`,
    );
    expect(picked.map((r) => r.id)).toEqual(["d-north-2026-01-02", "d-north-2026-01-03"]);
    const [n] = await rows(
      conn,
      `SELECT count(*)::INTEGER AS n FROM read_parquet([${picked.map((r) => `'${String(r.href)}'`).join(",")}])`,
    );
    expect(n?.n).toBe(20);
    conn.closeSync();
  });

  it("a re-run writes nothing; a promotion rewrites only its Items, items.parquet and the Collection; a retired region loses its Items", async () => {
    const before = await stacFiles();
    expect(await writeStac(store, "d", { cadence: "daily", license: "CC-BY-4.0" })).toMatchObject({
      written: 0,
      deleted: 0,
    });
    expect(await stacFiles()).toEqual(before);

    writePoints(input, 22); // two more points: 2026-01-03 of each region changes
    await run("d", pointsTask(input, { version: "2" }), "2026-01-03", "2026-01-03");
    await writeStac(store, "d", { cadence: "daily", license: "CC-BY-4.0" });
    const after = await stacFiles();
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    expect(changed.sort()).toEqual([
      "stac/d/collection.json",
      "stac/d/items.parquet",
      "stac/d/items/d-north-2026-01-03.json",
      "stac/d/items/d-south-2026-01-03.json",
      expect.stringMatching(/^stac\/d\/versions\/d-north-2026-01-03\/[0-9a-f]{16}\.json$/),
      expect.stringMatching(/^stac\/d\/versions\/d-south-2026-01-03\/[0-9a-f]{16}\.json$/),
    ]);

    await run("d", pointsTask(input, { version: "2", regions: ["north"] }), "2026-01-01", "2026-01-03");
    const config = writePointsConfig(dir, input, { d: { catalog: { license: "CC-BY-4.0" } } });
    const cli = await runCli(["stac", "d", "--config", config, "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    const summary = JSON.parse(cli.stdout) as { written: number; bytes_written: number };
    expect(summary).toMatchObject({ ok: true, items: 3, deleted: 5 });
    expect(summary.bytes_written).toBeGreaterThan(summary.written * 100); // each object written is counted by its bytes
    // The outcome line says what it wrote, not only where; a re-run, that it wrote nothing.
    const again = await runCli(["stac", "d", "--config", config]);
    expect(again.stdout).toMatch(
      /^stac d → .*collection\.json: a Collection, 3 Items of current partitions and \d+ Items? of earlier versions, items\.parquet; nothing written \(all \d+ objects as they should be\)\n$/,
    );
    const left = Object.keys(await stacFiles());
    expect(left.filter((k) => k.startsWith("stac/d/") && k.includes("south"))).toEqual([]);
    expect(load("stac/d/collection.json").summaries["georefresh:region"]).toEqual(["north"]);
  });

  it("on a store that lists versions (S3), a re-run proves from two listings that nothing changed, and notices what did", async () => {
    const name = `stac-${process.pid}`;
    const listing = Object.assign(Object.create(new MemoryStore(name)) as ObjectStore, { prefersListing: true });
    const counted = new CountingStore(listing);
    try {
      await backfill({
        store: counted,
        dataset: "m",
        task: pointsTask(input),
        versions: VERSIONS,
        from: "2026-01-01",
        to: "2026-01-03",
        threads: 0,
      });
      const first = await writeStac(counted, "m", { cadence: "daily" });
      counted.reset();
      const again = await writeStac(counted, "m", { cadence: "daily" });
      expect(again).toMatchObject({ items: first.items, versions: first.versions, written: 0, deleted: 0 });
      expect(counted.calls).toMatchObject({ get: 1, put: 0, delete: 0, head: 0 }); // the state; no manifest GET
      // An Item edited by hand is noticed by its listed version, and written back.
      const item = "stac/m/items/m-north-2026-01-02.json";
      const original = (await counted.get(item)).body;
      await counted.put(item, new TextEncoder().encode("{}"));
      expect((await writeStac(counted, "m", { cadence: "daily" })).written).toBe(1);
      expect((await counted.get(item)).body).toEqual(original);
      // Other options mean another catalog: the full run writes the Collection anew.
      expect((await writeStac(counted, "m", { cadence: "daily", license: "CC0-1.0" })).written).toBeGreaterThanOrEqual(
        1,
      );
    } finally {
      MemoryStore.reset(name);
    }
  });
});
