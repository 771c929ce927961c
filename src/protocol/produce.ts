import { createHash } from "node:crypto";
import type { Table } from "apache-arrow";
import { mergePartial, PartialPayloadError } from "../changes/merge.js";
import { readGeoParquet } from "../geoparquet/read.js";
import { writeGeoParquetTo } from "../geoparquet/write.js";
import { crsFromCode } from "../geo/crs/crs.js";
import { tempKey } from "../manifest/layout.js";
import { NotFoundError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { storeSource } from "../geoparquet/store-source.js";
import type { RangeSource } from "./artifact.js";
import { ComputeOutputError, tableFromCompute } from "../task/compute-output.js";
import { memoized } from "./memo.js";
import { RefreshError } from "./refresh-types.js";
import type { RunPlan } from "./run-plan.js";
import { memoryBudget } from "./memory-budget.js";
import type { MemoryBudget } from "./memory-budget.js";
import { StagedArtifact } from "./staging.js";
import { droppedMetadata } from "../manifest/dropped.js";
import { linearizedMetadata } from "../manifest/linearized.js";
import { snappedMetadata } from "../manifest/snapped.js";
import { ballparkMetadata } from "../manifest/ballpark.js";
import type { Ballpark } from "../manifest/ballpark.js";
import { timed } from "../stage-times.js";

/**
 * The artifact on its way to publication (docs/large-partitions.md). It owns what it holds: the staged bytes (a
 * temp file beyond the memory setting) and the temp key it wrote aside; `dispose` removes both (gc removes any a
 * crash left behind).
 */
export interface Produced {
  plan: RunPlan;
  /** The bytes publish puts: written by the writer, or copied from the existing artifact. */
  staged: StagedArtifact;
  /** Where verify reads the bytes back from: the temp key this run wrote, or the copy of the existing artifact. */
  source: RangeSource;
  /** The key's artifact was already stored (a run crashed after publishing): compute was skipped. */
  reused: boolean;
  /** Coordinates compute's rows had a float's rounding past the world's edge, put on it (geo/wkb-rewrite.ts). */
  snapped?: number;
  /** Positions read through PROJ's ballpark shift (the source's "datumShift": "ballpark"). */
  ballpark?: Ballpark;
  /** Features that were curves, read as straight segments as OGR makes them (geo/curves.ts). */
  linearized?: number;
  /** An artifact row as the file it was read from names it (its feature number there), when that is known. */
  rowName?: (row: number) => string;
  /** Where the bytes are read back from, as the store names it. */
  where: string;
  budget: MemoryBudget;
  dispose(): Promise<void>;
}

/**
 * The stored artifact of this key, copied into a staged artifact by ranges (what verify then checks, and what
 * publish puts back should gc delete it meanwhile); undefined when there is none, or when gc deleted it before
 * the copy was done (the run then computes it, as if it had never been there).
 */
async function stageExisting(
  store: ObjectStore,
  key: string,
  budget: MemoryBudget,
  stage: () => StagedArtifact,
): Promise<StagedArtifact | undefined> {
  const notFound = (e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e));
  const source = await storeSource(store, key, budget.partBytes).catch(notFound);
  if (!source) return undefined;
  const staged = stage();
  try {
    for (let at = 0; at < source.size; at += budget.partBytes)
      await staged.write(await source.read(at, Math.min(budget.partBytes, source.size - at)));
    return staged.end();
  } catch (error) {
    await staged.dispose();
    return notFound(error);
  }
}

/**
 * Step 4 of docs/protocol.md: reuse the stored artifact of this key, or compute, encode (streamed into a staged
 * artifact: memory up to half the memory setting, a temp file beyond) and write it aside under `_tmp/`, where
 * verify reads it back by ranges (validation judges what the store holds). What it created is released when it
 * fails, and by the Produced's `dispose` after it.
 */
export async function produce(plan: RunPlan): Promise<Produced> {
  const { store } = plan.options;
  const budget = memoryBudget(plan.options.maxMemory);
  const held: { staged: StagedArtifact[]; temp?: string } = { staged: [] };
  const dispose = async () => {
    if (held.temp) await store.delete(held.temp).catch(() => undefined);
    for (const s of held.staged) await s.dispose();
  };
  const stage = () => {
    const staged = new StagedArtifact(budget.stageInMemory, budget.partBytes);
    held.staged.push(staged);
    return staged;
  };
  try {
    const reused = await stageExisting(store, plan.aKey, budget, stage);
    if (reused)
      return { plan, staged: reused, source: reused, reused: true, where: store.locate(plan.aKey), budget, dispose };
    const { staged, snapped, ballpark, linearized, rowName } = await compute(plan, stage);
    const temp = tempKey(plan.options.partition, plan.runId, plan.key);
    held.temp = temp;
    await timed("write aside", plan.options.partition, () =>
      store.put(temp, staged, { mode: "create", partBytes: budget.partBytes }),
    );
    const source = await storeSource(store, temp, budget.partBytes, staged.size);
    return {
      plan,
      staged,
      source,
      reused: false,
      where: store.locate(temp),
      budget,
      dispose,
      ...(snapped ? { snapped } : {}),
      ...(ballpark ? { ballpark } : {}),
      ...(linearized ? { linearized } : {}),
      ...(rowName ? { rowName } : {}),
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** A partial payload merged by key into the region's previous version, read whole and checked by its sha256. */
async function mergedWithBase(plan: RunPlan, delta: Table): Promise<Table> {
  const { store, task, partition } = plan.options;
  const where = `${task.name} for ${partition.region} ${partition.date}`;
  let base: Table | undefined;
  if (plan.base) {
    const bytes = (await store.get(plan.base.artifact)).body;
    if (createHash("sha256").update(bytes).digest("hex") !== plan.base.sha256)
      throw new RefreshError(
        `${where}: the previous version ${store.locate(plan.base.artifact)} is not the bytes its manifest names; nothing was published`,
        "failed",
      );
    base = (await readGeoParquet(bytes, store.locate(plan.base.artifact))).table;
  }
  try {
    return mergePartial(delta, base, task.key ?? [], where);
  } catch (error) {
    if (error instanceof PartialPayloadError)
      throw new RefreshError(`${error.message}; nothing was published`, "invalid");
    throw error;
  }
}

/** The task's compute, its rows checked and reprojected, encoded into a staged artifact. */
async function compute(
  plan: RunPlan,
  stage: () => StagedArtifact,
): Promise<{
  staged: StagedArtifact;
  snapped?: number;
  ballpark?: Ballpark;
  linearized?: number;
  rowName?: (row: number) => string;
}> {
  const { store, task, partition, signal, encodeThreads } = plan.options;
  const declared = (name: string) => {
    const input = Object.hasOwn(plan.inputs, name) ? plan.inputs[name] : undefined;
    if (!input)
      throw new RefreshError(`task ${task.name} asked for input '${name}', which inputs() did not declare`, "failed");
    return input;
  };
  const dropped: string[] = [];
  const ctx = {
    partition,
    pins: plan.pins,
    params: plan.params,
    memo: <T>(name: string, request: unknown, call: () => Promise<T>) =>
      memoized(store, task.name, name, request, call, { signal }),
    input: async (name: string) => declared(name).read(),
    inputPath: async (name: string) => declared(name).path(),
    drop: (why: string) => {
      if (typeof why !== "string" || !why.trim())
        throw new RefreshError(`task ${task.name}: ctx.drop needs a reason (which row, and why)`, "failed");
      dropped.push(why.trim());
    },
  };
  const output = timed("compute (read, reproject)", partition, () =>
    tableFromCompute(task.compute(ctx), {
      columns: task.columns,
      from: crsFromCode(task.crs),
      to: plan.storage,
      ballpark: task.datumShift === "ballpark",
    }),
  );
  const { table, stats, origins } = await output.catch((error: unknown) => {
    if (error instanceof ComputeOutputError)
      throw new RefreshError(
        `${task.name} for ${partition.region} ${partition.date}: ${error.message}; nothing was published`,
        "invalid",
      );
    throw error;
  });
  const merged = task.payload === "partial" ? await mergedWithBase(plan, table) : undefined;
  const staged = stage();
  const written = await timed("sort, encode", partition, () =>
    writeGeoParquetTo(merged ?? table, staged, {
      crs: plan.storage,
      idColumn: task.key ?? task.idColumn,
      stats: merged ? undefined : stats,
      format: task.format,
      threads: encodeThreads,
      keyValue: {
        ...droppedMetadata(dropped),
        ...snappedMetadata(stats.snapped),
        ...ballparkMetadata(stats.ballpark),
        ...linearizedMetadata(stats.linearized),
      },
    }),
  );
  // The writer's spatial order maps an artifact row back to compute's row, and so to the file's feature.
  const { order } = written;
  const rowName =
    origins && !merged ? (row: number) => `feature ${origins[order[row] as number]} (artifact row ${row})` : undefined;
  return {
    staged: await staged.end(),
    ...(stats.snapped ? { snapped: stats.snapped } : {}),
    ...(stats.ballpark ? { ballpark: stats.ballpark } : {}),
    ...(stats.linearized ? { linearized: stats.linearized } : {}),
    ...(rowName ? { rowName } : {}),
  };
}
