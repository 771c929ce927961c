import { manifestPrefix, partitionOfManifestKey } from "../manifest/layout.js";
import { retireMissing } from "../manifest/tombstone.js";
import type { ObjectStore } from "../store/types.js";
import type { TaskDefinition } from "../task/task.js";

/** Why a run may not retire regions, or undefined when it may. */
export function retirementBlocked(
  task: TaskDefinition,
  scope: { regions?: string[]; sharded?: boolean },
): string | undefined {
  if (!task.regionsComplete) return "the task's region list is not declared complete";
  if (scope.regions) return "--regions names a subset";
  if (scope.sharded) return "one shard sees only its lanes (run finalize after all shards)";
  return undefined;
}

/**
 * Tombstones: marks retired every manifest, on the plan's logical dates, of a region that left the task's complete
 * region list. Only a caller that knows the whole plan finished may call it (an unsharded backfill with no failure,
 * or finalize after its completeness check): a region missing from an unfinished run proves nothing.
 */
export async function retireRegions(
  store: ObjectStore,
  dataset: string,
  task: TaskDefinition,
  dates: ReadonlySet<string>,
  runId: string,
): Promise<string[]> {
  const all = typeof task.regions === "function" ? await task.regions() : task.regions;
  const manifests: { key: string; region: string; date: string }[] = [];
  for await (const e of store.list(manifestPrefix(dataset))) {
    const p = partitionOfManifestKey(e.key);
    if (p && dates.has(p.date)) manifests.push({ key: e.key, region: p.region, date: p.date });
  }
  return retireMissing(store, manifests, new Set(all), runId);
}
