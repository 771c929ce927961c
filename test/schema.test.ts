import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { encodeManifest, readManifest } from "../src/manifest/codec.js";
import type { Manifest } from "../src/manifest/types.js";
import { refreshPartition } from "../src/protocol/refresh.js";
import { FsStore } from "../src/store/fs.js";
import { pointsTask, VERSIONS, writePoints } from "./helpers/points-task.js";

const schema = JSON.parse(readFileSync(new URL("../manifest.schema.json", import.meta.url), "utf8")) as object;

const entry = {
  key: "0123456789abcdef",
  artifact: "artifacts/us-counties/region=CA/date=2026-03-01/0123456789abcdef.parquet",
  sha256: "a".repeat(64),
  bytes: 10,
  rows: 2,
  bbox: [-124, 32, -114, 42],
  crs: "OGC:CRS84",
  geometry_types: ["Polygon"],
  columns: [{ name: "geoid", type: "Utf8" }],
  area_m2: 1.5e11,
  pins: { boundary_vintage: "x" },
  inputs: { counties: { uri: "/x.json", identity: "sha256:00" } },
  code_version: "us-counties@1",
  run_id: "r1",
  logical_date: "2026-03-01",
  promoted_at: "2026-03-02T01:00:00.000Z",
  plausibility: { status: "passed" },
};
const manifest: Manifest = {
  format: "georefresh.manifest/1",
  dataset: "us-counties",
  partition: { region: "CA", logical_date: "2026-03-01" },
  current: entry as unknown as Manifest["current"],
  history: [],
  retired: null,
};

describe("manifest.schema.json", () => {
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

  it("is valid JSON Schema 2020-12 and accepts a well-formed manifest", () => {
    expect(validate(manifest)).toBe(true);
  });

  it("rejects names that could escape their prefix, bad keys and unknown members", () => {
    expect(validate({ ...manifest, dataset: "../etc" })).toBe(false);
    expect(validate({ ...manifest, current: { ...entry, key: "not-hex" } })).toBe(false);
    expect(validate({ ...manifest, unexpected: 1 })).toBe(false);
    expect(() => encodeManifest({ ...manifest, dataset: "a/b" }, "m.json")).toThrow(/m.json is not a valid manifest/);
  });

  it("a schema-invalid manifest is an error naming the object, and a refresh never overwrites it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-schema-"));
    try {
      const store = new FsStore(join(dir, "store"));
      const key = "manifests/bad/region=north/date=2026-01-01.json";
      const broken = new TextEncoder().encode(JSON.stringify({ ...manifest, current: { ...entry, rows: -1 } }));
      await store.put(key, broken);
      await expect(readManifest(store, key)).rejects.toThrow(
        /region=north\/date=2026-01-01.json is not a valid manifest .*\/current\/rows/,
      );
      writePoints(join(dir, "p.json"), 10);
      const r = await refreshPartition({
        store,
        task: pointsTask(join(dir, "p.json")),
        partition: { dataset: "bad", region: "north", date: "2026-01-01" },
        versions: VERSIONS,
      });
      expect(r.outcome).toBe("failed");
      expect(r.message).toMatch(/not a valid manifest.*left untouched/);
      expect(Buffer.from((await store.get(key)).body).equals(Buffer.from(broken))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
