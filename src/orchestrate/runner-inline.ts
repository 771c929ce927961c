import { availableParallelism } from "node:os";
import { GeometryValidator } from "../geo/validity.js";
import type { ResolvedInput } from "../inputs/identity.js";
import { refreshPartition } from "../protocol/refresh.js";
import type { PartitionRunner, RunnerContext } from "./runner.js";

/**
 * Everything on this thread, with geometry validation on `threads` worker threads and the artifact's row groups
 * encoded on as many (this thread among them). Pooled partition workers encode on their own thread instead.
 */
export function inlineRunner({ job, store, task, artifactIndex, proven, signal }: RunnerContext): PartitionRunner {
  const validator = new GeometryValidator({ threads: job.run.threads });
  const encodeThreads = Math.max(1, job.run.threads ?? availableParallelism());
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
