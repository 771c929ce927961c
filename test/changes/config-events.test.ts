/** The dataset config's "events" and "initialEvents": checked when the config loads (exit 2), and applied. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { BUILTINS } from "../../src/builtins/index.js";
import { runCliHere } from "../helpers/cli.js";

describe("events in the dataset config", () => {
  let dir: string;
  const helper = fileURLToPath(new URL("../helpers/parcels-task.ts", import.meta.url));
  let tasks = 0;
  const config = (dataset: Record<string, unknown>, keyed = true) => {
    // A module of its own each time: the in-process CLI's import cache would hand back an earlier one.
    const module = `./task-${tasks++}.mjs`;
    writeFileSync(
      join(dir, module),
      `import { parcelsTask } from ${JSON.stringify(helper)};\nexport default parcelsTask(${JSON.stringify(dir)}${keyed ? "" : ", { key: undefined }"});\n`,
    );
    const path = join(dir, "config.json");
    writeFileSync(path, JSON.stringify({ store: "./store", datasets: { parcels: { module, ...dataset } } }));
    return path;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-config-events-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("applies events and initialEvents to the task, in every thread (through the task's reference)", async () => {
    const loaded = await loadConfig(config({ events: "changes", initialEvents: true }), BUILTINS);
    const ds = loaded.datasets.parcels;
    expect(ds?.task.events).toBe("changes");
    expect(ds?.task.initialEvents).toBe(true);
    expect(ds?.ref).toMatchObject({ events: "changes", initialEvents: true });
  });

  it("refuses an unknown mode, a non-boolean initialEvents, and change events without a key: exit 2", async () => {
    for (const [dataset, keyed, message] of [
      [{ events: "sometimes" }, true, /"events" must be "partition" .* or "changes"/],
      [{ initialEvents: "yes" }, true, /"initialEvents" must be true or false/],
      [{ events: "changes" }, false, /events "changes" announces changed rows by their natural key/],
    ] as const) {
      const r = await runCliHere(["ls", "parcels", "--config", config(dataset, keyed)]);
      expect(r.code, `${JSON.stringify(dataset)}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
