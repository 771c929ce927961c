/**
 * Whole partitions on worker threads or worker processes: the same artifacts as on the calling thread, from a task
 * loaded by reference; a worker process that dies fails only its partition.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { loadTask } from "../../src/task/task-ref.js";
import { FsStore } from "../../src/store/fs.js";
import { VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-workers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("backfill on worker threads", () => {
  it("produces byte-identical artifacts to a run on the calling thread", async () => {
    writePoints(join(dir, "points.json"), 60);
    const helper = pathToFileURL(new URL("../helpers/points-task.ts", import.meta.url).pathname).href;
    const module = join(dir, "task.mjs");
    writeFileSync(
      module,
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))});\n`,
    );
    const taskRef = { module: pathToFileURL(module).href, export: "default" };
    const task = await loadTask(taskRef);
    const common = { dataset: "w", task, versions: VERSIONS, from: "2026-01-01", to: "2026-01-04", concurrency: 4 };
    const inline = new FsStore(join(dir, "inline"));
    const threaded = new FsStore(join(dir, "threaded"));
    const a = await backfill({ ...common, store: inline, threads: 0 });
    const b = await backfill({ ...common, store: threaded, workers: 2, taskRef, storeUrl: threaded.root });
    expect(a.counts.promoted).toBe(8);
    expect(b.counts.promoted).toBe(8);
    expect(await snapshot(threaded, "artifacts/")).toEqual(await snapshot(inline, "artifacts/"));
    const m = await readManifest(threaded, manifestKey({ dataset: "w", region: "north", date: "2026-01-03" }));
    expect(m?.manifest.current?.rows).toBe(30);
    // And a re-run on worker threads is a no-op.
    const again = await backfill({ ...common, store: threaded, workers: 2, taskRef, storeUrl: threaded.root });
    expect(again.counts.unchanged).toBe(8);
  }, 60_000);

  it("from a process that imported backfill alone, where no store scheme had registered itself", () => {
    // bench:pipeline did this and got "unsupported store URL scheme '://'": backfill asked the scheme registry
    // whether workers could open the store before anything had loaded the store's backend.
    writePoints(join(dir, "points-lone.json"), 60);
    const src = (path: string) =>
      JSON.stringify(pathToFileURL(new URL(`../../src/${path}`, import.meta.url).pathname).href);
    const helper = pathToFileURL(new URL("../helpers/points-task.ts", import.meta.url).pathname).href;
    const module = join(dir, "task-lone.mjs");
    writeFileSync(
      module,
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points-lone.json"))});\n`,
    );
    const script = join(dir, "lone.mts");
    writeFileSync(
      script,
      [
        `import { backfill } from ${src("orchestrate/backfill.ts")};`,
        `import { FsStore } from ${src("store/fs.ts")};`,
        `import { loadTask } from ${src("task/task-ref.ts")};`,
        `const taskRef = { module: ${JSON.stringify(pathToFileURL(module).href)}, export: "default" };`,
        `const store = new FsStore(${JSON.stringify(join(dir, "lone"))});`,
        `const r = await backfill({ store, dataset: "w", task: await loadTask(taskRef), taskRef, versions: ${JSON.stringify(VERSIONS)},`,
        `  from: "2026-01-01", to: "2026-01-04", workers: 2, storeUrl: store.root });`,
        `console.log(JSON.stringify(r.counts));`,
      ].join("\n"),
    );
    const out = execFileSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 60_000 });
    expect(JSON.parse(out.trim().split("\n").pop() as string)).toMatchObject({ promoted: 8, failed: 0 });
  }, 90_000);

  it("on worker processes: the same bytes, and a task that kills its process fails that partition alone", async () => {
    writePoints(join(dir, "points-p.json"), 60);
    const helper = pathToFileURL(new URL("../helpers/points-task.ts", import.meta.url).pathname).href;
    const flag = join(dir, "crashed-once");
    const module = join(dir, "task-p.mjs");
    // The task's compute for south 2026-01-02 kills its own process the first time (as a native crash or an OOM
    // kill would): on a worker thread that would take the whole backfill down.
    writeFileSync(
      module,
      [
        `import { existsSync, writeFileSync } from "node:fs";`,
        `import { pointsTask } from ${JSON.stringify(helper)};`,
        `const base = pointsTask(${JSON.stringify(join(dir, "points-p.json"))});`,
        `export default { ...base, compute(ctx) {`,
        `  if (ctx.partition.region === "south" && ctx.partition.date === "2026-01-02" && !existsSync(${JSON.stringify(flag)})) { writeFileSync(${JSON.stringify(flag)}, String(process.pid)); process.kill(process.pid, "SIGKILL"); }`,
        `  return base.compute(ctx);`,
        `} };`,
      ].join("\n"),
    );
    const taskRef = { module: pathToFileURL(module).href, export: "default" };
    const task = await loadTask(taskRef);
    const common = { dataset: "p", task, versions: VERSIONS, from: "2026-01-01", to: "2026-01-04", concurrency: 4 };
    const inline = new FsStore(join(dir, "inline-p"));
    const procs = new FsStore(join(dir, "processes"));
    writeFileSync(flag, "not on the calling thread");
    expect((await backfill({ ...common, store: inline, threads: 0 })).counts.promoted).toBe(8);
    rmSync(flag);
    // One partition in flight per worker process, so the kill fails exactly one.
    const first = await backfill({
      ...common,
      concurrency: 2,
      store: procs,
      workers: 2,
      workerProcesses: true,
      taskRef,
      storeUrl: procs.root,
    });
    expect(existsSync(flag)).toBe(true);
    expect(first.counts).toMatchObject({ promoted: 7, failed: 1 });
    const failed = first.results.find((r) => r.outcome === "failed");
    expect([failed?.partition.region, failed?.partition.date]).toEqual(["south", "2026-01-02"]);
    expect(failed?.message).toMatch(/worker process exited \(SIGKILL\).*nothing of it was promoted, run again/);
    // The re-run (on a replacement process) finishes it, and the store equals the calling thread's.
    const again = await backfill({
      ...common,
      store: procs,
      workers: 2,
      workerProcesses: true,
      taskRef,
      storeUrl: procs.root,
    });
    expect(again.counts).toMatchObject({ promoted: 1, unchanged: 7 });
    expect(await snapshot(procs, "artifacts/")).toEqual(await snapshot(inline, "artifacts/"));
  }, 120_000);
});
