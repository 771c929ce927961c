import { availableParallelism } from "node:os";
import { GeometryValidator } from "../geo/validity.js";
import { WorkerPool } from "../geo/worker-pool.js";
import type { KnownManifest } from "../manifest/checks.js";
import type { ArtifactIndex } from "../protocol/artifact-index.js";
import type { BackfillOptions } from "./backfill.js";
import type { PreparedInput, ResolvedInput } from "../inputs/identity.js";
import type { PartitionJob } from "./partition-worker.js";
import { failedBeforeRun, quickCheck, refreshPartition } from "../protocol/refresh.js";
import type { RefreshResult, RunContext } from "../protocol/refresh.js";
import type { Partition } from "../task/task.js";
import type { TaskRef } from "../task/task-ref.js";

const WORKER_URL = new URL(`./partition-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/**
 * How a backfill refreshes one partition, the one seam between planning (lanes, order, retirement: backfill.ts)
 * and execution: on this thread, or on a pool of worker threads or processes. A queue worker would be a third
 * runner taking lanes from a queue; the protocol under each is the same (docs/scale-out.md).
 */
export interface PartitionRunner {
  /** `known`: the region's manifests this backfill already saw, for the plausibility history. Never throws. */
  refresh(partition: Partition, known: Map<string, KnownManifest>): Promise<RefreshResult>;
  close(): Promise<void>;
}

interface RunnerContext {
  opts: BackfillOptions;
  artifactIndex: ArtifactIndex | undefined;
  proven: RunContext["proven"];
  runId: string;
  /** Partitions in flight at most. */
  concurrency: number;
  /** Partitions in the plan: no more workers than that start. */
  total: number;
}

/** The runner a backfill's options ask for: a worker pool when it has workers and a task and store it can name. */
export function runnerFor(ctx: RunnerContext): PartitionRunner {
  const { opts } = ctx;
  const pooled =
    (opts.workers ?? 0) > 0 &&
    opts.taskRef !== undefined &&
    opts.storeUrl !== undefined &&
    !opts.storeUrl.startsWith("memory://");
  return pooled ? poolRunner(ctx) : inlineRunner(ctx);
}

/**
 * Everything on this thread, with geometry validation on `threads` worker threads and the artifact's row groups
 * encoded on as many (this thread among them). Pooled partition workers encode on their own thread instead.
 */
function inlineRunner({ opts, artifactIndex, proven }: RunnerContext): PartitionRunner {
  const validator = new GeometryValidator({ threads: opts.threads });
  const encodeThreads = Math.max(1, opts.threads ?? availableParallelism());
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  return {
    refresh: (partition, known) =>
      refreshPartition(
        {
          store: opts.store,
          task: opts.task,
          partition,
          versions: opts.versions,
          params: opts.params,
          validator,
          encodeThreads,
          maxMemory: opts.maxMemory,
          overridePlausibility: opts.overridePlausibility,
          signal: opts.signal,
        },
        { inputCache, artifactIndex, proven, knownManifests: known },
      ),
    close: () => validator.close(),
  };
}

/**
 * Settled partitions on this thread (a manifest GET and an existence check); real work on a lazily started pool
 * of workers, which load the task and open the store for themselves.
 */
function poolRunner({ opts, artifactIndex, proven, runId, concurrency, total }: RunnerContext): PartitionRunner {
  const workers = Math.min(opts.workers as number, total);
  const base = {
    taskRef: opts.taskRef as TaskRef,
    storeUrl: opts.storeUrl as string,
    versions: opts.versions,
    params: opts.params ?? {},
    overridePlausibility: Boolean(opts.overridePlausibility),
    ...(opts.maxMemory ? { maxMemory: opts.maxMemory } : {}),
  };
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  let pool: WorkerPool<{ job: PartitionJob }, { result: RefreshResult }> | undefined;
  let stopWired = false;
  return {
    async refresh(partition, known) {
      const quick = await quickCheck(
        { store: opts.store, task: opts.task, partition, versions: opts.versions, params: opts.params },
        { inputCache, artifactIndex, proven },
      );
      if (quick.settled) return quick.settled;
      // Remote inputs are downloaded here, once per run, and the workers read the verified copies.
      const prepared: [string, PreparedInput][] = [];
      try {
        for (const input of Object.values(quick.inputs ?? {}))
          if (input.localCopy)
            prepared.push([
              input.uri,
              { identity: input.identity, location: input.location, copy: await input.localCopy() },
            ]);
      } catch (error) {
        return failedBeforeRun(partition, runId, error);
      }
      pool ??= new WorkerPool(
        WORKER_URL,
        workers,
        Math.ceil(concurrency / workers),
        opts.workerProcesses ? { kind: "process", nodeFlags: ["--single-threaded-gc"] } : {},
      );
      // A stop request reaches the partitions in flight on the workers too (they end waits, never writes).
      if (opts.signal && !stopWired) {
        stopWired = true;
        const stop = () => pool?.broadcast({ stop: true });
        if (opts.signal.aborted) stop();
        else opts.signal.addEventListener("abort", stop, { once: true });
      }
      try {
        return (
          await pool.run({ job: { ...base, partition, knownManifests: [...known], start: quick.start, prepared } })
        ).result;
      } catch (error) {
        // The worker died under this partition (a native crash, an OOM kill). Each step is atomic, so nothing
        // of it became visible; a re-run does it again.
        return {
          partition,
          outcome: "failed",
          runId,
          message: `${partition.region} ${partition.date}: ${(error as Error).message} while refreshing it; nothing of it was promoted, run again`,
        };
      }
    },
    close: async () => pool?.close(),
  };
}
