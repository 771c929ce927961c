import { isMainThread } from "node:worker_threads";
import { tableFromIPC } from "apache-arrow";
import { WorkerPool } from "../geo/worker-pool.js";
import type { ManifestEntry } from "../manifest/types.js";
import { sharedAcrossProcesses } from "../store/schemes.js";
import type { ObjectStore } from "../store/types.js";
import type { Side } from "./changelog.js";
import { storedFile } from "./compare.js";
import { recentDigests } from "./digest-cache.js";
import type { RowDigests } from "./row-digest.js";

type Entry = Pick<ManifestEntry, "artifact" | "bytes" | "sha256" | "columns" | "rows">;

export interface SideJob {
  store: string;
  entry: Entry;
  key: string[];
  chunkBytes: number;
}

export type SideResult =
  { none: true } | { digests: Omit<RowDigests, "keyTypes">; keySchema: Uint8Array; geometry: string; none?: undefined };

/**
 * Below this many rows the previous version is digested when the change set needs it. Measured (bench:sources
 * --next, 2 cores): at 1M points the second thread saves 0.8 s of 6.9; at 200k points it costs 0.07 s and 100 MiB
 * (its start and the contention slow compute more than it saves).
 */
export const AHEAD_ROWS = 400_000;

const WORKER = new URL(`./side-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);
let pool: WorkerPool<SideJob, SideResult> | undefined;

/** A stored version digested ahead, for the entry it was started for. */
export interface SideAhead {
  entry: Entry;
  side: Promise<Side | undefined>;
}

/**
 * Starts digesting the version a change set will compare with (the partition's current version, else the
 * region's previous date) on a worker thread, so it runs on the second core while this thread computes and
 * encodes the new one. Undefined where that does not pay or cannot be done: a small version, one whose digests
 * this process holds already, a store only this thread can open, or a partition worker (a thread, or a process
 * talking to its backfill over IPC: there every core has a partition already). The digests are the same as storedSide's (the
 * worker runs it, the sha256 check included); any failure there resolves undefined and the change set digests
 * it itself, and so reports the error as it always has.
 */
export function digestAhead(
  store: ObjectStore,
  entry: Entry,
  key: readonly string[],
  chunkBytes: number,
): SideAhead | undefined {
  if (!isMainThread || process.send !== undefined) return undefined;
  if (entry.rows < AHEAD_ROWS || !sharedAcrossProcesses(store.url) || recentDigests.get(entry.sha256, key))
    return undefined;
  if (!key.every((k) => entry.columns.some((c) => c.name === k))) return undefined;
  pool ??= new WorkerPool<SideJob, SideResult>(WORKER, 1, 1, { idleUnref: true });
  const job: SideJob = {
    store: store.url,
    entry: {
      artifact: entry.artifact,
      bytes: entry.bytes,
      sha256: entry.sha256,
      columns: entry.columns,
      rows: entry.rows,
    },
    key: [...key],
    chunkBytes,
  };
  const side = pool.run(job).then(
    async (r): Promise<Side | undefined> => {
      if (r.none) return undefined;
      const keyTypes = tableFromIPC(r.keySchema).schema.fields.map((f) => f.type);
      const digests: RowDigests = { ...r.digests, keyTypes };
      recentDigests.put(entry.sha256, key, digests, r.geometry);
      const { open } = await storedFile(store, entry, chunkBytes);
      return { digests, geometry: r.geometry, open };
    },
    () => undefined,
  );
  return { entry, side };
}
