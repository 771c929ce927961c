import { mkdtempSync, writeFileSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
import { backfill } from "./src/pipeline/backfill.ts"; import { loadTask } from "./src/pipeline/task-ref.ts"; import { FsStore } from "./src/store/fs.ts";
const dir = mkdtempSync(join(tmpdir(), "exp-")); process.env.GEOREFRESH_BENCH_INPUT = join(dir, "p.json"); writeFileSync(process.env.GEOREFRESH_BENCH_INPUT, "[]");
const TASKS = new URL("./scripts/bench-tasks.ts", import.meta.url).href; const heavy = await loadTask({ module: TASKS, export: "heavy" });
const w = Number(process.argv[2]);
const store = new FsStore(join(dir, "s"));
const t = performance.now();
await backfill({ store, dataset: "h", task: heavy, versions: {}, from: "2024-01-01", to: "2024-01-04", concurrency: 2, workers: w, threads: 0, taskRef: { module: TASKS, export: "heavy" }, storeUrl: store.root, onResult: (r, d) => console.log(d, ((performance.now() - t) / 1000).toFixed(2)) });
