import type { KnownManifest } from "../manifest/checks.js";
import type { ArtifactIndex } from "../protocol/artifact-index.js";
import type { RefreshResult, RunContext } from "../protocol/refresh.js";
import type { ObjectStore } from "../store/types.js";
import type { Partition, TaskDefinition } from "../task/task.js";
import type { RefreshJob } from "./job.js";

/**
 * How a backfill refreshes one partition, the one seam between planning (lanes, order, retirement: backfill.ts)
 * and execution: on this thread, or on a pool of worker threads or processes. A queue worker would be another
 * runner taking lanes from a queue; the protocol under each is the same (docs/scale-out.md).
 */
export interface PartitionRunner {
  /** `known`: the region's manifests this backfill already saw, for the plausibility history. Never throws. */
  refresh(partition: Partition, known: Map<string, KnownManifest>): Promise<RefreshResult>;
  close(): Promise<void>;
}

/** What a runner is given: the job whole, the store and task as opened in this process, and the run's shared facts. */
export interface RunnerContext {
  job: RefreshJob;
  store: ObjectStore;
  task: TaskDefinition;
  artifactIndex: ArtifactIndex | undefined;
  proven: RunContext["proven"];
  runId: string;
  /** Partitions in flight at most. */
  concurrency: number;
  /** Partitions in the plan: no more workers than that start. */
  total: number;
  /** A stop request: partitions in flight end their waits on other runs. */
  signal?: AbortSignal;
}

export type RunnerFactory = (ctx: RunnerContext) => PartitionRunner;
