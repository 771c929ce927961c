/**
 * npm run bench:serve — `georefresh serve` answering items of one state's counties (the main job's us-counties,
 * ?region=TX: 254 features) to 8 concurrent clients: p50/p99 latency and requests/s, and the server's peak RSS
 * above its idle RSS, beside the same rows read by DuckDB (one thread, read_parquet of the artifact, every row
 * materialized) in the same run, as a ratio of p50s; then a z10 vector tile over Austin (10/233/421) the same
 * way, beside DuckDB reading the rows that tile needs (those whose bbox column meets the tile's box: DuckDB has no
 * vector-tile encoder without its spatial extension, which is downloaded, not on npm). `--requests N` (default
 * 400). The first request of each (reading, verifying and decoding the partition, or cutting its tile index) is
 * printed apart: later ones come from the server's cache.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { tileBbox } from "../src/serve/tiles.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const REQUESTS = Number(arg("requests") ?? 400);
const CLIENTS = 8;
const ROOT = resolve(".");
const CLI = join(ROOT, "dist", "cli", "main.js");

const kib = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface Load {
  /** One client at a time: the latency to set beside DuckDB's one query at a time. */
  alone: number[];
  many: number[];
  perSecond: number;
}

/** 100 requests one at a time, then REQUESTS from CLIENTS clients at once: sorted latencies (ms). */
async function load(url: string): Promise<Load> {
  const alone: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    await (await fetch(url)).arrayBuffer();
    alone.push(performance.now() - t);
  }
  const many: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < REQUESTS) {
        next++;
        const t = performance.now();
        const r = await fetch(url);
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        many.push(performance.now() - t);
      }
    }),
  );
  const perSecond = REQUESTS / ((performance.now() - t0) / 1000);
  return { alone: alone.sort((a, b) => a - b), many: many.sort((a, b) => a - b), perSecond };
}

type Conn = Awaited<
  ReturnType<Awaited<ReturnType<typeof import("@duckdb/node-api").DuckDBInstance.create>>["connect"]>
>;

/** A query's latencies in DuckDB, its rows materialized as JS values (as serve materializes features). */
async function duckTimes(conn: Conn, sql: string): Promise<number[]> {
  await conn.runAndReadAll(sql);
  const times: number[] = [];
  for (let i = 0; i < Math.min(REQUESTS, 200); i++) {
    const t = performance.now();
    (await conn.runAndReadAll(sql)).getRowObjectsJS();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-serve-"));
  const store = join(dir, "store");
  try {
    execFileSync(
      process.execPath,
      [
        CLI,
        "backfill",
        "--dataset",
        "us-counties",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
        "--store",
        store,
        "--quiet",
      ],
      { cwd: ROOT, stdio: "inherit" },
    );
    const server = spawn(process.execPath, [CLI, "serve", "--store", store, "--port", "0"], { cwd: ROOT });
    const base = await new Promise<string>((ok, fail) => {
      let said = "";
      server.stdout.on("data", (d: Buffer) => {
        said += d.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(said);
        if (m) ok(m[1] as string);
      });
      server.once("exit", (code) => fail(new Error(`serve exited (${code})`)));
    });
    const items = `${base}/collections/us-counties/items?region=TX&limit=1000`;
    const tile = `${base}/collections/us-counties/tiles/WebMercatorQuad/10/233/421`;
    const idle = kib(server.pid as number, "VmRSS");
    const first = async (url: string) => {
      const t = performance.now();
      const r = await fetch(url);
      const bytes = (await r.arrayBuffer()).byteLength;
      if (r.status !== 200) throw new Error(`HTTP ${r.status} from ${url}`);
      return { ms: performance.now() - t, bytes };
    };
    const cold = { items: await first(items), tile: await first(tile) };
    const served = { items: await load(items), tile: await load(tile) };
    const peak = kib(server.pid as number, "VmHWM");
    server.kill("SIGTERM");
    // DuckDB on the same artifact: the partition's file, every row and column read into JS values.
    const tx = execFileSync(process.execPath, [CLI, "urls", "us-counties", "--store", store, "--latest-date"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .find((u) => u.includes("/region=TX/")) as string;
    const { DuckDBInstance } = await import("@duckdb/node-api");
    const conn = await (await DuckDBInstance.create(":memory:", { threads: "1" })).connect();
    const file = `read_parquet('${tx.replace(/^file:\/\//, "")}')`;
    const [w, s, e, n] = tileBbox({ z: 10, x: 233, y: 421 });
    const duck = {
      items: await duckTimes(conn, `SELECT * FROM ${file}`),
      tile: await duckTimes(
        conn,
        `SELECT * FROM ${file} WHERE bbox.xmax >= ${w} AND bbox.xmin <= ${e} AND bbox.ymax >= ${s} AND bbox.ymin <= ${n}`,
      ),
    };

    const line = (what: string, c: { ms: number; bytes: number }, r: Load, d: number[]) => {
      const p50 = quantile(r.alone, 0.5);
      console.log(`${what} (${c.bytes.toLocaleString("en-US")} bytes a response), ${REQUESTS} requests:`);
      console.log(
        `  serve, first request  ${c.ms.toFixed(1)} ms (read, verify, decode${what.includes("tile") ? ", cut" : ""})`,
      );
      console.log(`  serve, one client     p50 ${p50.toFixed(1)} ms · p99 ${quantile(r.alone, 0.99).toFixed(1)} ms`);
      console.log(
        `  serve, ${CLIENTS} clients     p50 ${quantile(r.many, 0.5).toFixed(1)} ms · p99 ${quantile(r.many, 0.99).toFixed(1)} ms · ${r.perSecond.toFixed(0)} req/s`,
      );
      console.log(
        `  DuckDB                p50 ${quantile(d, 0.5).toFixed(1)} ms · p99 ${quantile(d, 0.99).toFixed(1)} ms (one query at a time, 1 thread)`,
      );
      console.log(
        `  ratio                 serve p50 (one client) / DuckDB p50 = ${(p50 / quantile(d, 0.5)).toFixed(2)}×`,
      );
    };
    line("items of TX (254 features)", cold.items, served.items, duck.items);
    line("z10 tile 10/233/421 (Austin)", cold.tile, served.tile, duck.tile);
    console.log(
      `memory: peak RSS ${((peak - idle) / 1024).toFixed(0)} MiB above idle (${(idle / 1024).toFixed(0)} MiB) over both runs of ${CLIENTS} clients: ${((peak - idle) / 1024 / CLIENTS).toFixed(1)} MiB a request in flight`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
