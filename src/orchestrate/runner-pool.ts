import { WorkerPool } from "../geo/worker-pool.js";
import type { PreparedInput, ResolvedInput } from "../inputs/identity.js";
import { failedBeforeRun, quickCheck } from "../protocol/refresh.js";
import type { RefreshResult } from "../protocol/refresh.js";
import { stageNote } from "../stage-times.js";
import type { StageEvent } from "../stage-times.js";
import type { PartitionWork, WorkerMessage } from "./partition-worker.js";
import type { PartitionRunner, RunnerContext, RunnerFactory } from "./runner.js";

const WORKER_URL = new URL(`./partition-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/**
 * Settled partitions on this thread (a manifest GET and an existence check); real work on a lazily started pool
 * of worker threads or processes, which receive the job as it is, and load its task and open its store for
 * themselves. Processes run with `--single-threaded-gc` (measured faster on CPU-heavy tasks: bench:pipeline), and
 * one that crashes fails only its partition.
 */
export function poolRunner(kind: "thread" | "process"): RunnerFactory {
  return (ctx) => pooled(kind, ctx);
}

function pooled(kind: "thread" | "process", ctx: RunnerContext): PartitionRunner {
  const { job, store, task, artifactIndex, proven, runId, concurrency, total, signal } = ctx;
  const workers = Math.min(job.run.workers, total);
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  let pool: WorkerPool<WorkerMessage, { result: RefreshResult }> | undefined;
  let stopWired = false;
  return {
    async refresh(partition, known) {
      const quick = await quickCheck(
        { store, task, partition, versions: job.versions, params: job.params },
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
      pool ??= new WorkerPool(WORKER_URL, workers, Math.ceil(concurrency / workers), {
        ...(kind === "process" ? { kind: "process", nodeFlags: ["--single-threaded-gc"] } : {}),
        // A worker's stages are said here again, where the backfill's progress hears them.
        onNote: (note) => stageNote(note as StageEvent),
      });
      // A stop request reaches the partitions in flight on the workers too (they end waits, never writes).
      if (signal && !stopWired) {
        stopWired = true;
        const stop = () => pool?.broadcast({ stop: true });
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      }
      const work: PartitionWork = { partition, knownManifests: [...known], start: quick.start, prepared };
      try {
        return (await pool.run({ job, work })).result;
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
