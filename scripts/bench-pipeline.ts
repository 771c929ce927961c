/**
 * npm run bench:pipeline — a backfill of 366 logical dates × 10 regions of a small task on the filesystem store
 * and on Ceph RGW: first-run time; no-op re-run time and store requests per partition without and with the
 * snapshot path (targets: ≤ 2% of the first run, ≤ 0.1 requests per partition); what finalize costs per partition;
 * stac's first run and no-op re-run; urls --bbox against all urls; then a CPU-heavy task with geometry
 * validation on 1 vs 2 worker threads; then scale-out: the same heavy backfill as one process with 1 worker, one
 * with 2, and 2 shard processes (target ≥ 1.6× for 2 vs 1 on 2 cores). `--only fs|rgw|heavy|scale` runs one part.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { backfill } from "../src/orchestrate/backfill.js";
import { finalize } from "../src/orchestrate/finalize.js";
import { openDataset } from "../src/views/reader.js";
import { writeStac } from "../src/stac/publish.js";
import { loadTask } from "../src/task/task-ref.js";
import { FsStore } from "../src/store/fs.js";
import { S3Store } from "../src/store/s3.js";
import { CountingStore } from "../src/store/counting.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-pipeline-"));
process.env.GEOREFRESH_BENCH_INPUT = join(dir, "points.json"); // set before any worker starts: they copy env
writeFileSync(
  process.env.GEOREFRESH_BENCH_INPUT,
  JSON.stringify(Array.from({ length: 400 }, (_, i) => [i, -120 + (i % 40), 30 + Math.floor(i / 40)])),
);
const TASKS = new URL(`./bench-tasks${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url).href;
const small = await loadTask({ module: TASKS, export: "small" });
const heavy = await loadTask({ module: TASKS, export: "heavy" });
const heavyArrow = await loadTask({ module: TASKS, export: "heavyArrow" });

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await f();
  return [out, (performance.now() - t0) / 1000];
}

const rows: string[][] = [];
/** Times run on 2 worker threads; requests are counted on an extra re-run on this thread, where the store is visible. */
async function benchStore(label: string, store: CountingStore, storeUrl: string): Promise<void> {
  const common = { dataset: "bench", task: small, versions: {}, from: "2024-01-01", to: "2024-12-31", concurrency: 8 };
  const run = (snapshots = true) =>
    backfill({ ...common, store, workers: 2, taskRef: { module: TASKS, export: "small" }, storeUrl, snapshots });
  const [first, tFirst] = await timed(() => run());
  const [before, tBefore] = await timed(() => run(false));
  const [after, tAfter] = await timed(() => run(true));
  const requests = async (snapshots: boolean) => {
    store.reset();
    const counted = await backfill({ ...common, store, threads: 0, snapshots });
    return store.total / counted.total;
  };
  const [rBefore, rAfter] = [await requests(false), await requests(true)];
  rows.push([
    `${label}: first run, ${first.total} partitions (${first.counts.promoted} promoted), 2 worker threads, snapshot committed`,
    `${tFirst.toFixed(1)} s`,
    "",
  ]);
  rows.push([
    `${label}: no-op re-run (${before.counts.unchanged} unchanged), a manifest GET per partition`,
    `${tBefore.toFixed(2)} s`,
    `${((tBefore / tFirst) * 100).toFixed(1)}% of the first run`,
  ]);
  rows.push([
    `${label}: no-op re-run (${after.counts.unchanged} unchanged), settled by the snapshot + one manifest LIST`,
    `${tAfter.toFixed(2)} s`,
    `${((tAfter / tFirst) * 100).toFixed(1)}% of the first run (target ≤ 2%), ${(tBefore / tAfter).toFixed(1)}× faster`,
  ]);
  rows.push([
    `${label}: store requests per partition on a no-op re-run, without vs with the snapshot`,
    `${rBefore.toFixed(3)} vs ${rAfter.toFixed(3)}`,
    "target ≤ 0.1 with",
  ]);
  store.reset();
  const [checked, tFinalize] = await timed(() => finalize({ ...common, store }));
  if (checked.incomplete.length) throw new Error(`finalize found ${checked.incomplete.length} incomplete partitions`);
  rows.push([
    `${label}: finalize of ${checked.total} partitions: store requests per partition`,
    (store.total / checked.total).toFixed(2),
    `${tFinalize.toFixed(2)} s in all`,
  ]);
  await benchAnalysts(label, store, first.total);
}

/** The catalog and the readers' views on the same dataset: stac first run and no-op, urls --bbox vs all urls. */
async function benchAnalysts(label: string, store: CountingStore, partitions: number): Promise<void> {
  store.reset();
  const [first, tFirst] = await timed(() => writeStac(store, "bench", { cadence: "daily" }));
  const firstRequests = store.total;
  store.reset();
  const [again, tAgain] = await timed(() => writeStac(store, "bench", { cadence: "daily" }));
  rows.push([
    `${label}: stac, first run (${first.items} Items written, ${firstRequests} requests)`,
    `${tFirst.toFixed(2)} s`,
    "",
  ]);
  rows.push([
    `${label}: stac, no-op re-run (${again.written} written, ${store.total} requests)`,
    `${tAgain.toFixed(2)} s`,
    `${((tAgain / tFirst) * 100).toFixed(0)}% of the first run`,
  ]);
  const ds = openDataset(store, "bench");
  // Region k of the bench task is the band at 30 + k °N: this box touches r0–r2, three regions of ten.
  const box: [number, number, number, number] = [-121, 29, -80, 32.5];
  for (const source of ["current", "snapshot"] as const) {
    const view = () => (source === "current" ? ds.current() : ds.snapshot("latest"));
    const [all, tAll] = await timed(async () => (await view()).urls());
    const [some, tSome] = await timed(async () => (await view()).urls({ bbox: box }));
    rows.push([
      `${label}: urls --bbox vs all urls, ${source === "current" ? "from the manifests" : "from the latest snapshot"}: partitions, time`,
      `${some.length} vs ${all.length} of ${partitions}; ${tSome.toFixed(2)} s vs ${tAll.toFixed(2)} s`,
      `${((some.length / all.length) * 100).toFixed(0)}% of the partitions`,
    ]);
  }
}

/** `georefresh backfill` as its own process (the CLI from source, as an engine's task would run it). */
function cliProcess(config: string, args: string[], nodeFlags: string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        "--import",
        "tsx",
        "src/cli/main.ts",
        "backfill",
        "--dataset",
        "heavy",
        "--from",
        "2024-01-01",
        "--to",
        "2024-01-08",
        "--concurrency",
        "4",
        "--config",
        config,
        ...args,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`backfill ${args.join(" ")} exited ${code}: ${stderr.slice(-2000)}`)),
    );
  });
}

/** CPU time of the whole machine (all processes), in seconds: the scale-out runs are several processes. */
function machineCpu(): number {
  return cpus().reduce((t, c) => t + c.times.user + c.times.sys + c.times.nice + c.times.irq, 0) / 1000;
}

/** The run's wall time, and the cores it kept busy (machine CPU time / wall time). */
async function timedCores(f: () => Promise<unknown>): Promise<[number, number]> {
  const cpu0 = machineCpu();
  const [, t] = await timed(f);
  return [t, (machineCpu() - cpu0) / t];
}

/** The same heavy backfill split five ways, each timed from process start to exit (start-up included). */
async function benchScaleOut(): Promise<void> {
  const config = (name: string) => {
    const path = join(dir, `scale-${name}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        store: join(dir, `scale-${name}`),
        versions: "./versions.json",
        datasets: { heavy: { module: fileURLToPath(TASKS), export: "heavy" } },
      }),
    );
    return path;
  };
  writeFileSync(join(dir, "versions.json"), "{}");
  const runs: [string, () => Promise<unknown>][] = [
    ["1 process × 1 worker thread", () => cliProcess(config("one"), ["--workers", "1"])],
    ["1 process × 2 worker threads", () => cliProcess(config("two"), ["--workers", "2"])],
    [
      "1 process × 1 worker process (--worker-processes: --single-threaded-gc)",
      () => cliProcess(config("proc"), ["--workers", "1", "--worker-processes"]),
    ],
    [
      "1 process × 2 worker processes (--worker-processes: --single-threaded-gc each)",
      () => cliProcess(config("procs"), ["--workers", "2", "--worker-processes"]),
    ],
    [
      "2 shard processes × 1 worker thread",
      () => Promise.all([0, 1].map((i) => cliProcess(config("shards"), ["--shard", `${i}/2`, "--workers", "1"]))),
    ],
    [
      "2 shard processes × 1 worker thread, node --single-threaded-gc",
      () =>
        Promise.all(
          [0, 1].map((i) =>
            cliProcess(config("shards-gc"), ["--shard", `${i}/2`, "--workers", "1"], ["--single-threaded-gc"]),
          ),
        ),
    ],
  ];
  let base = 0;
  for (const [i, [label, run]] of runs.entries()) {
    const [t, cores] = await timedCores(run);
    if (i === 0) base = t;
    rows.push([
      `${i === 0 ? "scale-out, CPU-heavy backfill (32 partitions), whole processes: " : "  "}${label}`,
      `${t.toFixed(2)} s, ${cores.toFixed(2)} cores busy`,
      i === 0 ? "1.00×" : `${(base / t).toFixed(2)}× (target ≥ 1.6×)`,
    ]);
  }
}

const onlyAt = process.argv.indexOf("--only");
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;
const wanted = (part: string) => only === undefined || only === part;

try {
  if (wanted("fs")) await benchStore("fs", new CountingStore(new FsStore(join(dir, "store"))), join(dir, "store"));
  if (wanted("rgw") && process.env.GEOREFRESH_SKIP_S3 !== "1") {
    if (!process.env.S3_ENDPOINT) {
      execFileSync("bash", ["scripts/s3-server.sh", "start"], { stdio: "inherit" });
      for (const line of execFileSync("bash", ["scripts/s3-server.sh", "env"], { encoding: "utf8" }).split("\n")) {
        const m = /^export (\w+)=(.*)$/.exec(line);
        if (m?.[1]) process.env[m[1]] = m[2] ?? "";
      }
    }
    const bucket = process.env.GEOREFRESH_TEST_S3_BUCKET ?? "georefresh-test";
    const client = new S3Client({ endpoint: process.env.S3_ENDPOINT, region: "us-east-1", forcePathStyle: true });
    await client.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined);
    client.destroy();
    const s3 = new S3Store({
      bucket,
      prefix: `bench-pipeline/${performance.timeOrigin.toFixed(0)}`,
      endpoint: process.env.S3_ENDPOINT,
      forcePathStyle: true,
    });
    await benchStore(
      "rgw",
      new CountingStore(s3),
      `s3://${bucket}/${s3.prefix}?endpoint=${encodeURIComponent(process.env.S3_ENDPOINT as string)}&path_style=true`,
    );
    await s3.close();
  }
  // Whole partitions on 1 vs 2 worker threads; 32 partitions, so thread start-up (tsx, GEOS and parquet-wasm
  // compilation, about 0.5 s per thread) weighs as little as it does in a real backfill.
  for (const [label, exportName] of [
    ["features", "heavy"],
    ["Arrow", "heavyArrow"],
  ] as const) {
    if (!wanted("heavy")) break;
    const task = exportName === "heavy" ? heavy : heavyArrow;
    const times: number[] = [];
    const cores: string[] = [];
    for (const threads of [1, 2]) {
      const store = new FsStore(join(dir, `${exportName}-${threads}`));
      const cpu0 = process.cpuUsage();
      const [r, t] = await timed(() =>
        backfill({
          store,
          dataset: "heavy",
          task,
          versions: {},
          from: "2024-01-01",
          to: "2024-01-08",
          concurrency: 4,
          workers: threads,
          taskRef: { module: TASKS, export: exportName },
          storeUrl: store.root,
        }),
      );
      if (r.counts.failed + r.counts.invalid > 0) throw new Error(`heavy backfill: ${JSON.stringify(r.counts)}`);
      const cpu = process.cpuUsage(cpu0);
      cores.push(((cpu.user + cpu.system) / 1e6 / t).toFixed(2));
      times.push(t);
    }
    rows.push([
      `CPU-heavy backfill, compute returns ${label} (32 partitions × 3,000 polygons × 200 vertices): 2 worker threads vs 1`,
      `${(times[1] as number).toFixed(2)} s vs ${(times[0] as number).toFixed(2)} s`,
      `${((times[0] as number) / (times[1] as number)).toFixed(2)}× faster`,
    ]);
    // One worker already keeps more than one core busy (V8's concurrent GC, libuv I/O), which bounds the ratio.
    rows.push([`  cores busy (process CPU time / wall time), 1 worker thread vs 2`, `${cores[0]} vs ${cores[1]}`, ""]);
  }
  if (wanted("scale")) await benchScaleOut();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(w[i] ?? 0) : c.padStart(w[i] ?? 0))).join("  "));
