import { writeGeoParquet } from "../geoparquet/write.js";
import { crsFromCode } from "../geo/crs.js";
import { tempKey } from "../manifest/layout.js";
import { NotFoundError } from "../store/errors.js";
import { ComputeOutputError, tableFromCompute } from "./compute-output.js";
import { memoized } from "./memo.js";
import { RefreshError } from "./refresh-types.js";
import type { RefreshOptions } from "./refresh-types.js";
import type { RunPlan } from "./run-plan.js";

/** The artifact's bytes and where they were read from (for messages). */
export interface Produced {
  bytes: Uint8Array;
  /** The key's artifact was already stored (a run crashed after publishing): compute was skipped. */
  reused: boolean;
  /** Where the bytes were read back from, as the store names it. */
  where: string;
}

/**
 * Step 4 of docs/protocol.md: reuse the stored artifact of this key, or compute, encode, write aside under
 * `_tmp/` and read the bytes back from the store (validation judges what the store holds). `onTemp` learns the
 * temp key before anything can fail, so the caller's cleanup always removes it.
 */
export async function produce(
  opts: RefreshOptions,
  plan: RunPlan,
  runId: string,
  onTemp: (key: string) => void,
): Promise<Produced> {
  const { store, task, partition } = opts;
  const existing = await store
    .get(plan.aKey)
    .catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
  if (existing) return { bytes: existing.body, reused: true, where: store.locate(plan.aKey) };
  const ctx = {
    partition,
    pins: plan.pins,
    params: plan.params,
    memo: <T>(name: string, request: unknown, call: () => Promise<T>) =>
      memoized(store, task.name, name, request, call),
    input: async (name: string) => {
      const input = plan.inputs[name];
      if (!input)
        throw new RefreshError(`task ${task.name} asked for input '${name}', which inputs() did not declare`, "failed");
      return input.read();
    },
  };
  const { table, stats } = await tableFromCompute(task.compute(ctx), {
    columns: task.columns,
    from: crsFromCode(task.crs),
    to: plan.storage,
  }).catch((error: unknown) => {
    if (error instanceof ComputeOutputError)
      throw new RefreshError(
        `${task.name} for ${partition.region} ${partition.date}: ${error.message}; nothing was published`,
        "invalid",
      );
    throw error;
  });
  const written = await writeGeoParquet(table, {
    crs: plan.storage,
    idColumn: task.idColumn,
    stats,
    format: task.format,
    threads: opts.encodeThreads,
  });
  const temp = tempKey(partition, runId, plan.key);
  onTemp(temp);
  await store.put(temp, written.bytes, { mode: "create" });
  return { bytes: (await store.get(temp)).body, reused: false, where: store.locate(temp) };
}
