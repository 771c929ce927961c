import { availableParallelism } from "node:os";
import { GeometryValidator } from "../geo/validity.js";
import type { ResolvedInput } from "../inputs/identity.js";
import { refreshPartition } from "../protocol/refresh.js";
import type { PartitionRunner, RunnerContext } from "./runner.js";

/**
 * Everything on this thread, with geometry validation on `threads` worker threads and the artifact's row groups
 * encoded on as many (this thread among them). Pooled partition workers encode on their own thread instead. A
 * plan of one partition gets no helper threads unless `threads` asks: each would start by loading its modules and
 * WebAssembly, and measured on 200k–1M points and 50k polygons that costs more than it saves (bench:sources).
 */
export function inlineRunner(ctx: RunnerContext): PartitionRunner {
  const { job, store, task, artifactIndex, proven, signal } = ctx;
  const threads = job.run.threads ?? (ctx.total > 1 ? availableParallelism() : 0);
  const validator = new GeometryValidator({ threads });
  const encodeThreads = Math.max(1, threads);
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  return {
    refresh: (partition, known) =>
      refreshPartition(
        {
          ...job.each,
          store,
          task,
          partition,
          versions: job.versions,
          params: job.params,
          validator,
          encodeThreads,
          signal,
        },
        { inputCache, artifactIndex, proven, knownManifests: known },
      ),
    close: () => validator.close(),
  };
}
