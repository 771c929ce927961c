/** Whole partitions on worker threads: the same artifacts as on the calling thread, from a task loaded by reference. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/pipeline/backfill.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { loadTask } from "../../src/pipeline/task-ref.js";
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
    writeFileSync(module, `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))});\n`);
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
});
