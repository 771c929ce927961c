import type { VersionsFile } from "../calendar/pins.js";
import type { PartitionSettings } from "../protocol/refresh-types.js";
import type { TaskRef } from "../task/task-ref.js";
import type { Shard } from "./lanes.js";

/** The runners of runners.ts, by name. */
export type RunnerName = "inline" | "threads" | "processes";

/**
 * One refresh, as plain data: built once by `run`/`backfill` (or from a library caller's options), handed whole to
 * a runner, and received as it is by a worker thread or process (it survives structured clone and JSON). What to
 * refresh is the task, the store, the window and the versions; how is `run` (the backfill's own settings) and
 * `each` (what every partition's stages read).
 */
export interface RefreshJob {
  dataset: string;
  /** Where the task's code lives, so any thread or process loads it; absent for a task that exists only here. */
  task?: TaskRef;
  /** The store's URL. */
  store: string;
  versions: VersionsFile;
  params: Record<string, unknown>;
  from: string;
  to: string;
  /** A subset of the task's regions; tombstoning only happens over the full, complete list. */
  regions?: string[];
  /** Only this shard's region lanes (lanes.ts); a sharded run never retires regions. */
  shard?: Shard;
  run: RunSettings;
  each: PartitionSettings;
}

/** How a backfill runs its partitions. */
export interface RunSettings {
  /** Which runner (runners.ts); one that cannot serve this job (a task without a TaskRef, a process-local store) falls back to inline. */
  runner: RunnerName;
  /** Worker threads or processes for the pooled runners. */
  workers: number;
  /** Partitions in flight. */
  concurrency: number;
  /** Inline: threads for geometry validation and row-group encoding (default: one per core). */
  threads?: number;
  /** Use the latest dataset snapshot to settle unchanged partitions, and commit one at the end (docs/snapshots.md). */
  snapshots: boolean;
}
