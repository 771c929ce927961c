import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect } from "vitest";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { FsStore } from "../../src/store/fs.js";
import { loadTask } from "../../src/task/task-ref.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { writeFeed } from "./parcels-task.js";
import type { Parcel } from "./parcels-task.js";

/**
 * A user's project in `dir` around the keyed parcels task (parcels-task.ts): a task module, a config naming the
 * dataset "parcels" over the store `dir/data`, and `promote` to write a feed and refresh its partition in-process.
 */
export async function parcelsProject(dir: string): Promise<{
  config: string;
  task: TaskDefinition;
  store: FsStore;
  promote(region: string, date: string, rows: Parcel[]): Promise<void>;
}> {
  const helper = pathToFileURL(fileURLToPath(new URL("./parcels-task.ts", import.meta.url))).href;
  writeFileSync(
    join(dir, "task.mjs"),
    `import { parcelsTask } from ${JSON.stringify(helper)};\nexport default parcelsTask(${JSON.stringify(dir)});\n`,
  );
  const config = join(dir, "georefresh.config.json");
  writeFileSync(config, JSON.stringify({ store: "./data", datasets: { parcels: { module: "./task.mjs" } } }));
  const task = await loadTask({ module: pathToFileURL(join(dir, "task.mjs")).href, export: "default" });
  const store = new FsStore(join(dir, "data"));
  return {
    config,
    task,
    store,
    async promote(region, date, rows) {
      writeFeed(dir, region, date, rows);
      const r = await refreshPartition({ store, task, partition: { dataset: "parcels", region, date }, versions: {} });
      expect(r.outcome, r.message).toBe("promoted");
    },
  };
}
