/**
 * The manifest schema's validator is compiled ahead of time (src/manifest/schema-validator.ts): the committed code
 * is what scripts/build-manifest-validator.ts makes of manifest.schema.json today, and it judges documents as Ajv
 * compiling the schema at run time does, errors included.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { manifestValidatorModule } from "../../scripts/build-manifest-validator.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { validate } from "../../src/manifest/schema-validator.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { MemoryStore } from "../../src/store/memory.js";
import { parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";

const schema = JSON.parse(readFileSync(new URL("../../manifest.schema.json", import.meta.url), "utf8")) as object;

describe("the manifest schema's compiled validator", () => {
  it("is what the build script makes of manifest.schema.json (run npm run build:manifest-validator after a change)", async () => {
    const committed = readFileSync(new URL("../../src/manifest/schema-validator.ts", import.meta.url), "utf8");
    expect(committed).toBe(await manifestValidatorModule());
  });

  it("judges documents as the schema compiled at run time does", async () => {
    const runtime = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    const compiled = validate as unknown as typeof runtime;
    const entry = {
      artifact: "artifacts/parcels/region=weld/date=2026-03-01/0123456789abcdef.parquet",
      sha256: "a".repeat(64),
    };
    const documents: unknown[] = [
      {},
      null,
      "manifest",
      { dataset: "parcels", region: "weld", logical_date: "2026-03-01", current: null, history: [] },
      { dataset: "parcels", region: "weld", logical_date: "2026-03-01", current: entry, history: [], extra: 1 },
      { dataset: "constructor", region: "__proto__", logical_date: "2026-02-30", current: null, history: [{}] },
    ];
    // A real manifest, as a promotion writes it, and the same with one field broken.
    const dir = mkdtempSync(join(tmpdir(), "georefresh-schema-validator-"));
    try {
      const store = new MemoryStore(`schema-validator-${process.pid}`);
      const partition = { dataset: "parcels", region: "weld", date: "2026-03-01" };
      writeFeed(dir, "weld", partition.date, parcels(5));
      await refreshPartition({ store, task: parcelsTask(dir), partition, versions: {} });
      const real = JSON.parse(new TextDecoder().decode((await store.get(manifestKey(partition))).body)) as {
        current: { sha256: string };
      };
      documents.push(real, { ...real, current: { ...real.current, sha256: "not a digest" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    let accepted = 0;
    let rejected = 0;
    for (const doc of documents) {
      const want = runtime(doc);
      expect(compiled(doc), JSON.stringify(doc)).toBe(want);
      expect(compiled.errors ?? null).toEqual(runtime.errors ?? null);
      if (want) accepted++;
      else rejected++;
    }
    expect(accepted).toBe(1);
    expect(rejected).toBe(documents.length - 1);
  });
});
