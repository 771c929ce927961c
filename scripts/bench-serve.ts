/**
 * npm run bench:serve — `georefresh serve` answering items of one state's counties (the main job's us-counties,
 * ?region=TX: 254 features) to 8 concurrent clients: p50/p99 latency and requests/s, and the server's peak RSS
 * above its idle RSS, beside the same rows read by DuckDB (one thread, read_parquet of the artifact, every row
 * materialized) in the same run, as a ratio of p50s. `--requests N` (default 400). Vector tiles are not built
 * yet, so the z10 tile is not measured.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

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
    const url = `${base}/collections/us-counties/items?region=TX&limit=1000`;
    const warm = (await (await fetch(url)).json()) as { numberReturned: number };
    const idle = kib(server.pid as number, "VmRSS");
    // One client at a time: the latency to set beside DuckDB's one query at a time.
    const alone: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      await (await fetch(url)).arrayBuffer();
      alone.push(performance.now() - t);
    }
    alone.sort((a, b) => a - b);

    const latencies: number[] = [];
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
          latencies.push(performance.now() - t);
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    const peak = kib(server.pid as number, "VmHWM");
    server.kill("SIGTERM");
    latencies.sort((a, b) => a - b);

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
    const sql = `SELECT * FROM read_parquet('${tx.replace(/^file:\/\//, "")}')`;
    await conn.runAndReadAll(sql);
    const duck: number[] = [];
    for (let i = 0; i < Math.min(REQUESTS, 200); i++) {
      const t = performance.now();
      (await conn.runAndReadAll(sql)).getRowObjectsJS();
      duck.push(performance.now() - t);
    }
    duck.sort((a, b) => a - b);

    const p50 = quantile(alone, 0.5);
    const duckP50 = quantile(duck, 0.5);
    console.log(`items of TX (${warm.numberReturned} features), ${REQUESTS} requests, ${CLIENTS} clients:`);
    console.log(`  serve, one client   p50 ${p50.toFixed(1)} ms · p99 ${quantile(alone, 0.99).toFixed(1)} ms`);
    console.log(
      `  serve, ${CLIENTS} clients   p50 ${quantile(latencies, 0.5).toFixed(1)} ms · p99 ${quantile(latencies, 0.99).toFixed(1)} ms · ${(REQUESTS / wall).toFixed(0)} req/s · peak RSS ${((peak - idle) / 1024).toFixed(0)} MiB above idle (${(idle / 1024).toFixed(0)} MiB)`,
    );
    console.log(
      `  DuckDB              p50 ${duckP50.toFixed(1)} ms · p99 ${quantile(duck, 0.99).toFixed(1)} ms (one query at a time, 1 thread)`,
    );
    console.log(`  ratio               serve p50 (one client) / DuckDB p50 = ${(p50 / duckP50).toFixed(1)}×`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
