/**
 * npm run bench:sink — `georefresh sink` into PostGIS and into a GeoPackage, each beside its reference in the same
 * run: 1M keyed points and 200k keyed polygons (4 regions each), first load against a raw binary COPY of the same
 * rows into a bare table (no index, no constraint: the limit) and against ogr2ogr (Debian's GDAL, PG_USE_COPY=YES)
 * loading the same rows from a GeoPackage; then a no-op re-run and a 1 %-changed re-run against the first load.
 * GeoPackage: features/s beside ogr2ogr writing a GeoPackage from the same rows (and Kart's published ~8.5k
 * features/s). Targets: ≥ 0.5× raw COPY, ≥ 2× ogr2ogr, no-op ≤ 2 %, 1 % change ≤ 10 %, GeoPackage ≥ 100k
 * features/s and ≥ 1× ogr2ogr. Needs scripts/postgres.sh (started when GEOREFRESH_TEST_POSTGRES_URL is unset) and
 * gdal-bin. `--points 200000 --polygons 50000` for a quick look.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { performance } from "node:perf_hooks";
import type { Table } from "apache-arrow";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { syntheticParcels } from "./synthetic-parcels.js";
import { binaryColumn } from "../src/geoparquet/columns.js";
import { refreshPartition } from "../src/protocol/refresh.js";
import { openArtifactRows } from "../src/sinks/artifact-rows.js";
import { writeBatch } from "../src/sinks/postgis/copy-columns.js";
import type { PartitionBatch } from "../src/sinks/partition-rows.js";
import { BinaryCopyWriter } from "../src/sinks/postgis/copy-binary.js";
import type { CopyType } from "../src/sinks/postgis/copy-binary.js";
import { copyTypeOf } from "../src/sinks/postgis/types.js";
import { sinkDataset } from "../src/sinks/run-sink.js";
import { MemoryStore } from "../src/store/memory.js";
import { defineTask } from "../src/task/task.js";
import { DatasetView, openDataset } from "../src/views/reader.js";
import type { ViewPartition } from "../src/views/reader.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const POINTS = Number(arg("points") ?? 1_000_000);
const POLYGONS = Number(arg("polygons") ?? 200_000);
const REGIONS = ["r1", "r2", "r3", "r4"];

function postgresUrl(): string {
  if (!process.env.GEOREFRESH_TEST_POSTGRES_URL) {
    execFileSync("bash", ["scripts/postgres.sh", "start"], { stdio: "inherit" });
    for (const line of execFileSync("bash", ["scripts/postgres.sh", "env"]).toString().split("\n")) {
      const m = /^export (\w+)=(.*)$/.exec(line);
      if (m) process.env[m[1] as string] = m[2];
    }
  }
  return process.env.GEOREFRESH_TEST_POSTGRES_URL as string;
}

/** n keyed features of one region; version 1 changes 1 % of them (0.5 % moved, 0.5 % with an edited attribute). */
const features = (kind: "point" | "polygon", n: number, region: number, version: 0 | 1): Table =>
  syntheticParcels(n, version, { kind, idPrefix: `P-${region}-`, shift: region });

/**
 * Each region's partition of a date promoted by the real protocol (read-back validation, the changelog against the
 * previous date, the manifest), so the sink reads what it reads in production; and the tables, for raw COPY.
 */
async function promote(
  store: MemoryStore,
  dataset: string,
  kind: "point" | "polygon",
  total: number,
  date: string,
  version: 0 | 1,
): Promise<Table[]> {
  const tables = REGIONS.map((_, r) => features(kind, total / REGIONS.length, r, version));
  const task = defineTask({
    name: dataset,
    version: "1",
    cadence: "daily",
    regions: REGIONS,
    inputs: () => ({}),
    crs: "OGC:CRS84",
    key: ["parcel_id"],
    columns: [
      { name: "parcel_id", type: "string" },
      { name: "zoning", type: "string" },
      { name: "value", type: "float64" },
    ],
    compute: async (ctx) => tables[REGIONS.indexOf(ctx.partition.region)] as Table,
  });
  for (const region of REGIONS) {
    const r = await refreshPartition({ store, task, partition: { dataset, region, date }, versions: {} });
    if (r.outcome !== "promoted") throw new Error(`${region} ${date}: ${r.outcome}: ${r.message}`);
  }
  return tables;
}

/** The limit: the same rows, already decoded, encoded and COPYed into a bare table. */
async function rawCopy(client: pg.Client, schema: string, tables: Table[]): Promise<number> {
  await client.query(`DROP TABLE IF EXISTS ${schema}.bare`);
  await client.query(
    `CREATE TABLE ${schema}.bare (region text, parcel_id text, zoning text, value float8, geom geometry(Geometry, 4326))`,
  );
  const t = performance.now();
  const writer = new BinaryCopyWriter(["text", "text", "text", "float8", "geometry"], 4326);
  async function* chunks() {
    for (const [r, table] of tables.entries()) {
      const ids = table.getChild("parcel_id");
      const zoning = table.getChild("zoning");
      const value = table.getChild("value");
      const wkb = binaryColumn(table.getChild("geometry") as never, "geometry");
      for (let i = 0; i < table.numRows; i++) {
        writer.row([
          REGIONS[r],
          ids?.get(i),
          zoning?.get(i),
          value?.get(i),
          wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]),
        ]);
        if (writer.size > 1 << 20) yield Buffer.from(writer.take());
      }
    }
    yield Buffer.from(writer.take());
    yield Buffer.from([0xff, 0xff]);
  }
  await pipeline(Readable.from(chunks()), client.query(copyFrom(`COPY ${schema}.bare FROM STDIN (FORMAT binary)`)));
  return performance.now() - t;
}

/**
 * The limit for the sink's own rows: the same columns (provenance and digest included), already read and digested,
 * encoded and COPYed into a bare copy of the sink's table (LIKE it: no index, no constraint).
 */
async function rawCopyOfSinkRows(
  client: pg.Client,
  schema: string,
  store: MemoryStore,
  parts: readonly ViewPartition[],
) {
  const batches: { p: ViewPartition; batch: PartitionBatch; columns: { name: string; type: string }[] }[] = [];
  for (const p of parts) {
    const rows = await openArtifactRows(store, p.entry, ["parcel_id"]);
    for await (const batch of rows.batches()) batches.push({ p, batch, columns: rows.columns });
  }
  await client.query(`DROP TABLE IF EXISTS ${schema}.bare_like`);
  await client.query(`CREATE TABLE ${schema}.bare_like (LIKE ${schema}.sink)`);
  const names = batches[0]?.columns.map((c) => `"${c.name}"`) ?? [];
  const types: CopyType[] = [
    "text",
    ...(batches[0]?.columns.map((c) => copyTypeOf(c.type, c.name)) ?? []),
    "geometry",
    "text",
    "date",
    "text",
    "text",
    "text",
  ];
  const t = performance.now();
  const writer = new BinaryCopyWriter(types, 4326);
  const constants = new Map<ViewPartition, { before: unknown[]; after: unknown[] }>();
  async function* chunks() {
    for (const { p, batch } of batches) {
      let c = constants.get(p);
      if (!c)
        constants.set(p, (c = { before: [p.region], after: [p.date, p.entry.artifact, p.entry.sha256, "sink-bench"] }));
      writeBatch(writer, batch, types, c.before, c.after);
      yield Buffer.from(writer.take());
    }
    yield Buffer.from([0xff, 0xff]);
  }
  const columns = [
    "region",
    ...names,
    "geom",
    "content_digest",
    "valid_from",
    "artifact_key",
    "artifact_sha256",
    "sink_run",
  ];
  await pipeline(
    Readable.from(chunks()),
    client.query(copyFrom(`COPY ${schema}.bare_like (${columns.join(", ")}) FROM STDIN (FORMAT binary)`)),
  );
  return performance.now() - t;
}

/** Runs a sink with its stage times (GEOREFRESH_STAGE_TIMES) recorded: its wall time and the stages, summed. */
async function withStages<T>(dir: string, work: () => Promise<T>): Promise<{ value: T; ms: number; stages: string }> {
  const file = join(dir, `stages-${stageRuns++}.jsonl`);
  process.env.GEOREFRESH_STAGE_TIMES = file;
  const t = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - t;
    const sums = new Map<string, number>();
    for (const line of (existsSync(file) ? readFileSync(file, "utf8") : "").split("\n").filter(Boolean)) {
      const { stage, ms: took } = JSON.parse(line) as { stage: string; ms: number };
      sums.set(stage, (sums.get(stage) ?? 0) + took);
    }
    return { value, ms, stages: [...sums].map(([k, v]) => `${k.replace(/^sink: /, "")} ${s(v)}`).join(" · ") };
  } finally {
    delete process.env.GEOREFRESH_STAGE_TIMES;
  }
}
let stageRuns = 0;

const rate = (rows: number, ms: number) => `${Math.round(rows / (ms / 1000)).toLocaleString("en-US")} rows/s`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

async function bench(kind: "point" | "polygon", total: number, url: string, dir: string): Promise<void> {
  const dataset = `bench-${kind}s`;
  const schema = `bench_${kind}s`;
  const store = new MemoryStore(`bench-sink-${kind}-${process.pid}`);
  let t = performance.now();
  const tables = await promote(store, dataset, kind, total, "2026-03-01", 0);
  await promote(store, dataset, kind, total, "2026-03-02", 1);
  console.log(
    `\n${total.toLocaleString("en-US")} keyed ${kind}s (${REGIONS.length} regions), two dates promoted in ${s(performance.now() - t)}`,
  );
  const current = await openDataset(store, dataset).current();
  const view = (date: string) =>
    new DatasetView(
      store,
      dataset,
      "bench",
      current.partitions.filter((p) => p.date <= date),
    );
  const one = { parts: view("2026-03-01").partitions, tables };
  const two = { parts: view("2026-03-02").partitions };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  const to = `${url}?schema=${schema}`;
  const at = (parts: readonly ViewPartition[]) => new DatasetView(store, dataset, "bench", parts);
  const firstRun = await withStages(dir, () =>
    sinkDataset({ view: at(one.parts), key: ["parcel_id"], to, table: "sink" }),
  );
  const [first, sinkMs] = [firstRun.value, firstRun.ms];
  if (first.rows.inserted !== total) throw new Error(`sink inserted ${first.rows.inserted}, not ${total}`);
  const copyMs = await rawCopy(client, schema, one.tables);
  const likeMs = await rawCopyOfSinkRows(client, schema, store, one.parts);

  const gpkg = join(dir, `${kind}s.gpkg`);
  const gpkgRun = await withStages(dir, () =>
    sinkDataset({ view: at(one.parts), key: ["parcel_id"], to: gpkg, table: "sink" }),
  );
  const gpkgMs = gpkgRun.ms;

  const u = new URL(url);
  t = performance.now();
  execFileSync("ogr2ogr", [
    ...["-f", "PostgreSQL", `PG:host=${u.hostname} port=${u.port} user=${u.username} dbname=${u.pathname.slice(1)}`],
    ...[gpkg, "sink", "-nln", `${schema}.ogr`, "-lco", "GEOMETRY_NAME=geom", "--config", "PG_USE_COPY", "YES"],
  ]);
  const ogrMs = performance.now() - t;
  const ogrGpkg = join(dir, `${kind}s-ogr.gpkg`);
  t = performance.now();
  execFileSync("ogr2ogr", ["-f", "GPKG", ogrGpkg, gpkg, "sink", "-nln", "ogr"]);
  const ogrGpkgMs = performance.now() - t;

  t = performance.now();
  const noop = await sinkDataset({ view: at(one.parts), key: ["parcel_id"], to, table: "sink" });
  const noopMs = performance.now() - t;
  if (noop.partitions.applied !== 0) throw new Error("the no-op sink applied something");
  const changedRun = await withStages(dir, () =>
    sinkDataset({ view: at(two.parts), key: ["parcel_id"], to, table: "sink" }),
  );
  const [changed, changedMs] = [changedRun.value, changedRun.ms];
  t = performance.now();
  await sinkDataset({ view: at(one.parts), key: ["parcel_id"], to: gpkg, table: "sink" });
  const gpkgNoopMs = performance.now() - t;
  const gpkgChangedRun = await withStages(dir, () =>
    sinkDataset({ view: at(two.parts), key: ["parcel_id"], to: gpkg, table: "sink" }),
  );
  const [gpkgChanged, gpkgChangedMs] = [gpkgChangedRun.value, gpkgChangedRun.ms];
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();

  const c = changed.rows;
  if (!changed.applied.every((a) => a.delta)) throw new Error("the 1 % re-run did not apply the changelogs");
  console.log(
    [
      `  PostGIS first load   ${s(sinkMs)}  ${rate(total, sinkMs)}`,
      `    stages: ${firstRun.stages}`,
      `    raw binary COPY, 5-column bare table      ${s(copyMs)}  ${rate(total, copyMs)}   sink/raw ${ratio(copyMs, sinkMs)} (target ≥ 0.5×)`,
      `    raw binary COPY of the sink's rows (its columns, provenance included; read and digested beforehand) into a bare copy of its table: ${s(likeMs)}  ${rate(total, likeMs)}   sink/raw ${ratio(likeMs, sinkMs)}`,
      `    ogr2ogr from GPKG  ${s(ogrMs)}  ${rate(total, ogrMs)}   sink/ogr2ogr ${ratio(ogrMs, sinkMs)} (target ≥ 2×)`,
      `  PostGIS no-op re-run ${s(noopMs)}  ${((100 * noopMs) / sinkMs).toFixed(1)} % of the first load (target ≤ 2 %)`,
      `  PostGIS 1 % changed  ${s(changedMs)}  ${((100 * changedMs) / sinkMs).toFixed(1)} % of the first load (target ≤ 10 %): ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged, ${c.retired} retired`,
      `    stages: ${changedRun.stages}`,
      `  GeoPackage first load ${s(gpkgMs)}  ${rate(total, gpkgMs).replace("rows", "features")} (target ≥ 100,000; Kart's checkout ~8,500)`,
      `    stages: ${gpkgRun.stages}`,
      `    ogr2ogr GPKG→GPKG  ${s(ogrGpkgMs)}  ${rate(total, ogrGpkgMs).replace("rows", "features")}   sink/ogr2ogr ${ratio(ogrGpkgMs, gpkgMs)} (target ≥ 1×)`,
      `  GeoPackage no-op    ${s(gpkgNoopMs)}  ${((100 * gpkgNoopMs) / gpkgMs).toFixed(1)} %; 1 % changed ${s(gpkgChangedMs)}  ${((100 * gpkgChangedMs) / gpkgMs).toFixed(1)} % (${gpkgChanged.rows.updated} updated)`,
      `    stages of the 1 % change: ${gpkgChangedRun.stages}`,
    ].join("\n"),
  );
}

async function main(): Promise<void> {
  const url = postgresUrl();
  const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-sink-"));
  try {
    await bench("point", POINTS, url, dir);
    await bench("polygon", POLYGONS, url, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
