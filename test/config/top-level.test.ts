/** A config's top-level keys: a misspelt one is refused when the config loads (exit 2), naming the ones there are. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTINS } from "../../src/builtins/index.js";
import { loadConfig } from "../../src/config/config.js";
import { runCliHere } from "../helpers/cli.js";

describe("a config's top-level keys", () => {
  let dir: string;
  const write = (doc: unknown) => {
    const path = join(dir, "config.json");
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-config-top-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const datasets = { parcels: { source: { url: "./{region}.geojson" }, regions: ["weld"], cadence: "daily" } };

  it("takes store, versions, datasets, inputs and $schema", async () => {
    const loaded = await loadConfig(write({ $schema: "./schema.json", store: "./data", datasets }), BUILTINS);
    expect(Object.keys(loaded.datasets)).toEqual(["parcels"]);
  });

  it("refuses a misspelt one with exit 2, naming it and the keys a config takes", async () => {
    for (const key of ["evnets", "inptus", "constructor", "__proto__"]) {
      const path = join(dir, "config.json");
      writeFileSync(path, `{"store":"./data","datasets":${JSON.stringify(datasets)},${JSON.stringify(key)}:{}}`);
      const r = await runCliHere([
        "backfill",
        "--config",
        path,
        "--dataset",
        "parcels",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
      ]);
      expect(r.code, `${key}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(
        `unknown top-level key ${JSON.stringify(key)} (a config takes store, versions, datasets, inputs, $schema`,
      );
    }
    await expect(loadConfig(write([datasets]), BUILTINS)).rejects.toThrow(/a config is a JSON object/);
  });
});
