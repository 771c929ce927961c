/**
 * GEOREFRESH_STAGE_TIMES: a backfill appends one line per stage of each partition it computes, from the worker
 * that ran it, and nothing when the variable is unset (the artifact is the same either way).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { writeFeedProject } from "../helpers/source-corpus.js";

let dir: string;
let config: string;

describe("stage times", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-stage-times-"));
    config = writeFeedProject(dir, ["weld", "larimer"]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are one line per stage per partition computed, and change no artifact", async () => {
    const file = join(dir, "stages.jsonl");
    const args = ["backfill", "--config", config, "--dataset", "parcels", "--from", "2026-01-01", "--to", "2026-01-31"];
    const timed = await runCli([...args, "--store", join(dir, "timed")], { GEOREFRESH_STAGE_TIMES: file });
    expect(timed.code, timed.stderr).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { stage: string; ms: number; partition: string });
    const stages = [
      "compute (read, reproject)",
      "sort, encode",
      "write aside",
      "read back, validate, digest",
      "change set",
      "publish",
    ];
    for (const region of ["weld", "larimer"])
      expect(
        lines.filter((l) => l.partition === `parcels ${region} 2026-01-01`).map((l) => l.stage),
        region,
      ).toEqual(stages);
    expect(lines.every((l) => Number.isFinite(l.ms) && l.ms >= 0)).toBe(true);

    const plain = await runCli([...args, "--store", join(dir, "plain")]);
    expect(plain.code, plain.stderr).toBe(0);
    const artifacts = (store: string) =>
      readdirSync(join(store, "artifacts"), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".parquet"))
        .sort()
        .map((f) => [f, readFileSync(join(store, "artifacts", f)).toString("base64")]);
    expect(artifacts(join(dir, "timed"))).toEqual(artifacts(join(dir, "plain")));
    expect(existsSync(join(dir, "plain", "stages.jsonl"))).toBe(false);
  }, 60_000);
});
