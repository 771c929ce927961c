import { join } from "node:path";
import { expect } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import type { ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "./points-task.js";

/**
 * Dataset "s" (2 regions, daily from 2026-01-01 to `to`) promoted from `n` points, plausibility overridden since
 * each new n moves every square; returns how many partitions were promoted, after checking none failed.
 */
export async function promoteSquares(store: ObjectStore, dir: string, n: number, to: string): Promise<number> {
  const input = join(dir, `points-${n}.json`);
  writePoints(input, n, n);
  const r = await backfill({
    store,
    dataset: "s",
    task: pointsTask(input),
    versions: VERSIONS,
    from: "2026-01-01",
    to,
    threads: 0,
    overridePlausibility: true,
  });
  expect(r.counts.failed + r.counts.invalid, r.results.find((x) => x.outcome !== "promoted")?.message).toBe(0);
  return r.counts.promoted;
}
