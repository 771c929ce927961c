/** 8 OS processes refresh one partition at once, 10 rounds each with the same and with different inputs. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { ProcessPool } from "../helpers/race.js";
import { writePoints } from "../helpers/points-task.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const WORKER = fileURLToPath(new URL("../helpers/refresh-worker.ts", import.meta.url));
type Answer = { outcome: string; sha256: string | null; message: string };

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let pool: ProcessPool;
  let dir: string;
  beforeAll(async () => {
    fx = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-prace-"));
    for (let i = 0; i < 8; i++) writePoints(join(dir, `in-${i}.json`), 20, i + 1);
    pool = await ProcessPool.start(fx.url as string, 8, fx.env, WORKER);
  }, 120_000);
  afterAll(async () => {
    await pool?.stop();
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("same inputs: one promote, one artifact, one version per round (10 rounds)", async () => {
    for (let round = 1; round <= 10; round++) {
      const partition = { dataset: "same", region: "north", date: `2026-05-${String(round).padStart(2, "0")}` };
      const answers = await pool.round<Answer>({ tag: `s${round}`, input: join(dir, "in-0.json"), partition });
      const outcomes = answers.map((a) => a.outcome);
      expect(
        outcomes.filter((o) => o === "promoted"),
        JSON.stringify(answers),
      ).toHaveLength(1);
      // The others find their twin's promotion of the same bytes: unchanged (exit 0), never superseded (exit 4).
      expect(
        outcomes.every((o) => ["promoted", "unchanged"].includes(o)),
        JSON.stringify(answers),
      ).toBe(true);
      expect(new Set(answers.map((a) => a.sha256)).size).toBe(1);
      const m = (await readManifest(fx.store, manifestKey(partition)))?.manifest;
      expect(m?.history).toEqual([]);
      const artifacts: string[] = [];
      for await (const e of fx.store.list(`artifacts/same/region=north/date=${partition.date}/`)) artifacts.push(e.key);
      expect(artifacts).toHaveLength(1);
    }
  }, 300_000);

  it("different inputs: exactly one winner, seven superseded that changed nothing (10 rounds)", async () => {
    for (let round = 1; round <= 10; round++) {
      const partition = { dataset: "diff", region: "north", date: `2026-06-${String(round).padStart(2, "0")}` };
      const answers = await pool.roundEach<Answer>((i) => ({
        tag: `d${round}`,
        input: join(dir, `in-${i}.json`),
        partition,
      }));
      const winners = answers.filter((a) => a.outcome === "promoted");
      expect(winners, JSON.stringify(answers)).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === "superseded")).toHaveLength(7);
      const m = (await readManifest(fx.store, manifestKey(partition)))?.manifest;
      expect(m?.current?.sha256).toBe(winners[0]?.sha256);
      expect(m?.history).toEqual([]);
    }
  }, 300_000);
}

describeEachStore("8 processes refreshing one partition", suite, (h) => h.capabilities.crossProcess);
