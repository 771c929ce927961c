import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";

const schema = JSON.parse(readFileSync(new URL("../manifest.schema.json", import.meta.url), "utf8")) as object;

describe("manifest.schema.json", () => {
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
  const manifest = {
    format: "georefresh.manifest/1",
    dataset: "us-counties",
    partition: { region: "06", logical_date: "2026-03-14" },
    current: { key: "0123456789abcdef", sha256: "a".repeat(64), bytes: 10, rows: 2, run_id: "r1" },
    history: [],
    retired: null,
  };

  it("is valid JSON Schema 2020-12 and accepts a well-formed manifest", () => {
    expect(validate(manifest)).toBe(true);
  });

  it("rejects a manifest with a dataset name that could escape its prefix, or a bad key", () => {
    expect(validate({ ...manifest, dataset: "../etc" })).toBe(false);
    expect(validate({ ...manifest, current: { ...manifest.current, key: "not-hex" } })).toBe(false);
    expect(validate({ ...manifest, unexpected: 1 })).toBe(false);
  });
});
