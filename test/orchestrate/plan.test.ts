/**
 * The shard contract: a shard is a set of whole region lanes, dealt by the plan alone. Property tests over many
 * plans and shard counts, the environment rules of `--shard auto`, a sharded backfill that ends equal to a
 * one-machine run, and the CLI.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import {
  dealLanes,
  partitionsOf,
  plannedPartitions,
  planLanes,
  shardFromEnvironment,
} from "../../src/orchestrate/lanes.js";
import type { Lane } from "../../src/orchestrate/lanes.js";
import { defineTask } from "../../src/task/task.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const regionSet = fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,6}$/), {
  minLength: 1,
  maxLength: 40,
});
const day = fc.integer({ min: 0, max: 400 }).map((n) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10));

function taskOf(regions: string[], cadence: "daily" | "monthly" = "daily") {
  return defineTask({
    name: "t",
    version: "1",
    cadence,
    regions,
    inputs: () => ({}),
    crs: "OGC:CRS84",
    compute: () => {
      throw new Error("never run");
    },
  });
}

const key = (p: { region: string; date: string }) => `${p.region}|${p.date}`;

describe("shards are whole region lanes", () => {
  it("for any plan and shard count: the shards together are exactly the plan, disjoint, no region split, balanced", async () => {
    await fc.assert(
      fc.asyncProperty(
        regionSet,
        day,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom("daily" as const, "monthly" as const),
        async (regions, from, span, count, cadence) => {
          const to = new Date(Date.parse(`${from}T00:00:00Z`) + span * 86_400_000).toISOString().slice(0, 10);
          const task = taskOf(regions, cadence);
          const whole = await plannedPartitions({ dataset: "d", task, from, to }).catch(() => undefined);
          if (!whole) return; // a monthly range with no 1st of a month in it: a usage error, not a plan
          const shards = await Promise.all(
            Array.from({ length: count }, (_, index) =>
              plannedPartitions({ dataset: "d", task, from, to, shard: { index, count } }),
            ),
          );
          const seen = shards.flat().map(key);
          expect(new Set(seen).size).toBe(seen.length); // disjoint
          expect(seen.sort()).toEqual(whole.map(key).sort()); // together, the plan
          const owner = new Map<string, number>();
          for (const [i, s] of shards.entries()) {
            for (const p of s) {
              expect(owner.get(p.region) ?? i).toBe(i); // no region in two shards
              owner.set(p.region, i);
            }
          }
          const dates = whole.length / regions.length;
          const loads = shards.map((s) => s.length);
          expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(dates); // within one lane of each other
          for (const s of shards)
            expect(s).toEqual(
              [...s].sort((a, b) => (a.date === b.date ? (a.region < b.region ? -1 : 1) : a.date < b.date ? -1 : 1)),
            );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("depends on the plan alone: the same shards however the lanes arrive", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Z]{1,3}$/), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 30, maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        (regions, lengths, count) => {
          const lanes: Lane[] = regions.map((region, i) => ({
            region,
            dates: Array.from({ length: lengths[i] as number }, (_, d) => `2026-01-${String(d + 1).padStart(2, "0")}`),
          }));
          const a = dealLanes(lanes, count);
          const b = dealLanes([...lanes].reverse(), count);
          expect(b).toEqual(a);
          // Weighed by dates: no shard exceeds the lightest by more than the longest lane.
          const loads = a.map((s) => s.reduce((n, l) => n + l.dates.length, 0));
          expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(
            Math.max(...lengths.slice(0, regions.length)),
          );
          expect(partitionsOf("d", a.flat()).length).toBe(loads.reduce((x, y) => x + y, 0));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("--shard auto reads Kubernetes, Slurm and AWS Batch array indexes, and refuses to guess", () => {
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: "2" }, 4)).toEqual({ index: 2, count: 4 });
    expect(
      shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "7", SLURM_ARRAY_TASK_MIN: "5", SLURM_ARRAY_TASK_COUNT: "3" }),
    ).toEqual({ index: 2, count: 3 });
    expect(shardFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "0", GEOREFRESH_SHARDS: "10" })).toEqual({
      index: 0,
      count: 10,
    });
    expect(() => shardFromEnvironment({}, 4)).toThrow(/found no array index: set JOB_COMPLETION_INDEX/);
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "1" })).toThrow(/found no shard count: pass --shards N/);
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "4" }, 4)).toThrow(
      /index 4 is not below the shard count 4/,
    );
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "x" }, 4)).toThrow(
      /JOB_COMPLETION_INDEX="x" is not a whole number/,
    );
  });

  it("three shards run at once end with the manifests and artifacts of one machine's run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-shards-"));
    try {
      const input = join(dir, "points.json");
      writePoints(input, 24);
      const regions = ["north", "south", "east", "west"];
      const task = pointsTask(input, { regions });
      const opts = {
        dataset: "s",
        versions: VERSIONS,
        from: "2026-01-01",
        to: "2026-01-06",
        task,
        threads: 0,
        concurrency: 4,
      };
      const one = new FsStore(join(dir, "one"));
      expect((await backfill({ ...opts, store: one })).counts.promoted).toBe(24);
      const sharded = new FsStore(join(dir, "sharded"));
      const runs = await Promise.all(
        [0, 1, 2].map((index) => backfill({ ...opts, store: sharded, shard: { index, count: 3 } })),
      );
      expect(runs.map((r) => r.total).reduce((a, b) => a + b, 0)).toBe(24);
      expect((await snapshot(sharded, "artifacts/")) as object).toEqual(await snapshot(one, "artifacts/"));
      // Each manifest holds the same current version, judged against the same history (run ids and times aside).
      const judged = async (store: FsStore) => {
        const out: Record<string, unknown> = {};
        for await (const e of store.list("manifests/")) {
          const c = (await readManifest(store, e.key))?.manifest.current;
          out[e.key] = c && { key: c.key, sha256: c.sha256, plausibility: c.plausibility };
        }
        return out;
      };
      expect(await judged(sharded)).toEqual(await judged(one));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("the CLI: --list-shards for map-over-a-list engines, and clear usage errors", async () => {
    const list = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-03-31",
      "--list-shards",
      "4",
      "--json",
      "--store",
      join(tmpdir(), "never-opened"),
    ]);
    expect(list.code).toBe(0);
    const shards = JSON.parse(list.stdout) as { shard: string; regions: string[]; partitions: number }[];
    expect(shards.map((s) => s.shard)).toEqual(["0/4", "1/4", "2/4", "3/4"]);
    const all = (
      await planLanes({
        dataset: "us-counties",
        task: (await import("../../src/builtins/index.js")).BUILTINS.tasks["us-counties"] as never,
        from: "2026-01-01",
        to: "2026-03-31",
      })
    ).map((l) => l.region);
    expect(shards.flatMap((s) => s.regions).sort()).toEqual([...all].sort());
    expect(shards.reduce((n, s) => n + s.partitions, 0)).toBe(all.length * 3);
    const auto = await runCli(
      [
        "backfill",
        "--dataset",
        "us-counties",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
        "--shard",
        "auto",
        "--shards",
        "4",
        "--dry-run",
      ],
      { JOB_COMPLETION_INDEX: "", SLURM_ARRAY_TASK_ID: "", AWS_BATCH_JOB_ARRAY_INDEX: "" },
    );
    expect(auto.stderr).toMatch(/--shard auto found no array index/);
    expect(auto.code).toBe(2);
    const both = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-01",
      "--shard",
      "0/4",
      "--shards",
      "4",
    ]);
    expect(both.stderr).toMatch(/--shards goes with --shard auto/);
    expect(both.code).toBe(2);
  }, 60_000);
});
