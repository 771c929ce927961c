import { randomUUID } from "node:crypto";
import type { BackfillOptions } from "./backfill.js";
import { planBackfill } from "./dry-run.js";
import type { PartitionPlan, PlanStatus } from "./dry-run.js";
import { retireRegions, retirementBlocked } from "./retire.js";
import { commitSnapshot } from "../manifest/snapshot-commit.js";
import type { CommitResult } from "../manifest/snapshot-commit.js";

/**
 * The fan-in step after the shards of a backfill (docs/scale-out.md). It checks that the plan is complete, every
 * planned partition current at the key a run would derive now with its artifact present, and only then applies
 * region retirement, which no shard may do alone. It reads as a dry run does and writes only tombstones, each by
 * conditional write: running it twice, or twice at once, ends in the same store.
 */
export type FinalizeOptions = Pick<
  BackfillOptions,
  "store" | "dataset" | "task" | "versions" | "params" | "from" | "to" | "regions" | "concurrency"
> & {
  onPlan?: (plan: PartitionPlan, done: number, total: number) => void;
};

export interface FinalizeSummary {
  dataset: string;
  total: number;
  /** Partitions current at their planned key. */
  complete: number;
  counts: Record<PlanStatus, number>;
  /** Every planned partition that is not complete, and why (the dry run's status and reasons). */
  incomplete: PartitionPlan[];
  retired: string[];
  /** Why no region was retired, when none could be. */
  retirement: "applied" | { skipped: string };
  /** The snapshot committed once the plan is complete (docs/snapshots.md), or why none was. */
  snapshot: CommitResult | { skipped: string };
}

export async function finalize(opts: FinalizeOptions): Promise<FinalizeSummary> {
  const planned = await planBackfill({ ...opts, concurrency: opts.concurrency ?? 16 });
  const incomplete = planned.plans.filter((p) => p.status !== "unchanged");
  const blocked = incomplete.length
    ? `${incomplete.length} planned partition(s) are not complete`
    : retirementBlocked(opts.task, { regions: opts.regions });
  const dates = new Set(planned.plans.map((p) => p.partition.date));
  const retired = blocked ? [] : await retireRegions(opts.store, opts.dataset, opts.task, dates, randomUUID());
  const snapshot = incomplete.length
    ? { skipped: `${incomplete.length} planned partition(s) are not complete` }
    : await commitSnapshot(opts.store, opts.dataset).catch((e: unknown) => ({ skipped: (e as Error).message }));
  return {
    dataset: opts.dataset,
    total: planned.total,
    complete: planned.counts.unchanged,
    counts: planned.counts,
    incomplete,
    retired,
    retirement: blocked ? { skipped: blocked } : "applied",
    snapshot,
  };
}
