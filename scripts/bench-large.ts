/**
 * npm run bench:large — one large partition, end to end: `refreshPartition` (compute through promote) of a task
 * that yields Arrow batches of random points (1M, 2M, 4M, 10M) or small polygons (200k, 1M), on the filesystem store, each
 * in its own process so that its peak RSS (VmHWM) is its own, set up as `georefresh run` of one partition is:
 * everything on the partition's thread (cli/commands/run.ts: "none for one partition"); `--threads N` sets
 * validation and row-group encoding on N threads, as `run --threads N` does. Beside each, in the same run: DuckDB's 1-thread
 * `COPY … (FORMAT parquet, COMPRESSION zstd)` of the same rows (our WKB, input order), loaded from our artifact
 * untimed. Prints wall, peak RSS, artifact bytes and the ratios the issue targets (run ≤ 5× COPY, RSS ≤ 2×
 * (Arrow table + one row group), 10M/1M ≤ 11×, points ≤ 1.3× DuckDB's file, polygons ≤ 1.1×).
 * It runs compiled to JavaScript (tsconfig.bench.json → .bench-build/), as the published CLI runs: under tsx the
 * loader's own thread added ~50 MiB to every peak RSS and slowed the workers' start.
 * `--sizes 2M,200k-polygons` picks scenarios (issue 37's: 2M points ≤ 5× and ≤ 400 MB peak, 200k polygons ≤ 5×);
 * `--max-memory 64MiB` passes a cap to the run.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { GeometryValidator } from "../src/geo/validity.js";
import { parseBytes } from "../src/protocol/memory-budget.js";
import { refreshPartition } from "../src/protocol/refresh.js";
import { FsStore } from "../src/store/fs.js";
import { largePoints, largePolygons } from "./bench-tasks.js";

interface ChildResult {
  outcome: string;
  message: string;
  wall: number;
  peakMiB: number;
  baseMiB: number;
  bytes: number;
  artifact: string;
}

const KINDS = { points: largePoints, polygons: largePolygons };
const SCENARIOS: { label: string; kind: keyof typeof KINDS; rows: number; bytesPerRow: number }[] = [
  { label: "1M", kind: "points", rows: 1_000_000, bytesPerRow: 4 + 21 + 4 },
  { label: "2M", kind: "points", rows: 2_000_000, bytesPerRow: 4 + 21 + 4 },
  { label: "4M", kind: "points", rows: 4_000_000, bytesPerRow: 4 + 21 + 4 },
  { label: "10M", kind: "points", rows: 10_000_000, bytesPerRow: 4 + 21 + 4 },
  { label: "200k-polygons", kind: "polygons", rows: 200_000, bytesPerRow: 4 + 13 + 16 * 9 + 4 },
  { label: "1M-polygons", kind: "polygons", rows: 1_000_000, bytesPerRow: 4 + 13 + 16 * 9 + 4 },
];

function kib(field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"));
  return Number(m?.[1] ?? 0);
}

async function child(
  kind: keyof typeof KINDS,
  dir: string,
  maxMemory?: string,
  threads?: string,
): Promise<ChildResult> {
  const store = new FsStore(dir);
  const base = kib("VmRSS");
  const t0 = performance.now();
  // As `georefresh run` of one partition: no helper threads unless --threads asks (then N for each, as run does).
  const n = threads ? Number(threads) : 0;
  const validator = new GeometryValidator({ threads: n <= 1 ? 0 : n });
  const result = await refreshPartition({
    store,
    task: KINDS[kind],
    partition: { dataset: "large", region: "la", date: "2026-12-01" },
    versions: {},
    validator,
    encodeThreads: Math.max(1, n),
    ...(maxMemory ? { maxMemory: parseBytes(maxMemory, "--max-memory") } : {}),
  });
  const wall = (performance.now() - t0) / 1000;
  await validator.close();
  const entry = result.manifest?.current;
  return {
    outcome: result.outcome,
    message: result.message,
    wall,
    peakMiB: kib("VmHWM") / 1024,
    baseMiB: base / 1024,
    bytes: entry?.bytes ?? 0,
    artifact: entry ? store.locate(entry.artifact) : "",
  };
}

async function duckCopy(artifact: string, out: string): Promise<number> {
  const { DuckDBInstance } = await import("@duckdb/node-api"); // not in the measured child
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await db.connect();
  await conn.run(
    `SET enable_geoparquet_conversion = false; CREATE TABLE t AS SELECT id, geometry FROM read_parquet('${artifact}') ORDER BY id`,
  );
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await conn.run(`COPY t TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
    times.push((performance.now() - t0) / 1000);
  }
  conn.closeSync();
  return times.sort((a, b) => a - b)[1] as number;
}

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

if (arg("--child")) {
  const r = await child(
    arg("--child") as keyof typeof KINDS,
    arg("--dir") as string,
    arg("--max-memory"),
    arg("--threads"),
  );
  process.stdout.write(JSON.stringify(r));
} else {
  const wanted = arg("--sizes")?.split(",");
  const rows: string[][] = [["scenario", "georefresh", "DuckDB COPY 1 thread", "ratio", "target"]];
  const walls: Record<string, number> = {};
  for (const s of SCENARIOS.filter((x) => !wanted || wanted.includes(x.label))) {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-large-"));
    try {
      const args = [...process.execArgv, fileURLToPath(import.meta.url), "--child", s.kind, "--dir", dir];
      for (const flag of ["--max-memory", "--threads"]) if (arg(flag)) args.push(flag, arg(flag) as string);
      const out = execFileSync(process.execPath, args, {
        encoding: "utf8",
        maxBuffer: 1 << 24,
        env: { ...process.env, GEOREFRESH_BENCH_ROWS: String(s.rows) },
      });
      const r = JSON.parse(out) as ChildResult;
      if (r.outcome !== "promoted") throw new Error(`${s.label}: ${r.outcome}: ${r.message}`);
      const duckFile = join(dir, "duck.parquet");
      const tDuck = await duckCopy(r.artifact, duckFile);
      const duckBytes = statSync(duckFile).size;
      const arrowMiB = (s.rows * s.bytesPerRow) / 2 ** 20;
      const groupMiB = (65_536 * s.bytesPerRow) / 2 ** 20;
      walls[s.label] = r.wall;
      const name = `${s.label} ${s.kind}`;
      rows.push([
        `${name}: run, compute → promote`,
        `${r.wall.toFixed(2)} s`,
        `${tDuck.toFixed(3)} s`,
        `${(r.wall / tDuck).toFixed(1)}×`,
        "≤ 5×",
      ]);
      rows.push([
        `${name}: peak RSS vs (Arrow table + one row group)`,
        `${r.peakMiB.toFixed(0)} MiB (${r.baseMiB.toFixed(0)} at start)`,
        `${(arrowMiB + groupMiB).toFixed(0)} MiB`,
        `${(r.peakMiB / (arrowMiB + groupMiB)).toFixed(2)}×`,
        s.label === "2M" ? "≤ 2×, and ≤ 400 MB" : "≤ 2×",
      ]);
      rows.push([
        `${name}: artifact bytes vs DuckDB's file`,
        `${(r.bytes / 2 ** 20).toFixed(1)} MiB`,
        `${(duckBytes / 2 ** 20).toFixed(1)} MiB`,
        `${(r.bytes / duckBytes).toFixed(2)}×`,
        s.kind === "points" ? "≤ 1.3×" : "≤ 1.1×",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (walls["1M"] && walls["10M"])
    rows.push(["points: run time 10M / 1M", `${(walls["10M"] / walls["1M"]).toFixed(1)}×`, "", "", "≤ 11× (linear)"]);
  const w = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(w[i] as number)).join("  "));
  writeFileSync(join(tmpdir(), "georefresh-bench-large.json"), JSON.stringify(rows));
}
