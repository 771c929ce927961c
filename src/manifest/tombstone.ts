import type { ObjectStore } from "../store/types.js";
import { encodeManifest, readManifest } from "./codec.js";
import { AlreadyExistsError, PreconditionFailedError } from "../store/errors.js";

/**
 * Marks the manifests of regions that left a complete region list as retired, by conditional write; never
 * deletes anything. Returns the manifest keys it retired. A concurrent writer wins: its partition is skipped.
 */
export async function retireMissing(
  store: ObjectStore,
  manifests: { key: string; region: string; date: string }[],
  keep: ReadonlySet<string>,
  runId: string,
): Promise<string[]> {
  const retired: string[] = [];
  for (const m of manifests) {
    if (keep.has(m.region)) continue;
    const found = await readManifest(store, m.key);
    if (!found || found.manifest.retired) continue;
    const next = {
      ...found.manifest,
      retired: {
        run_id: runId,
        reason: `region '${m.region}' is no longer in the task's complete region list`,
        logical_date: m.date,
        at: new Date().toISOString(), // bookkeeping for --as-of, like promoted_at: never in a key or artifact
      },
    };
    try {
      await store.put(m.key, encodeManifest(next, store.locate(m.key)), { mode: { update: found.version } });
      retired.push(m.key);
    } catch (error) {
      if (!(error instanceof PreconditionFailedError || error instanceof AlreadyExistsError)) throw error;
    }
  }
  return retired;
}
