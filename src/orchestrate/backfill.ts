import { randomUUID } from "node:crypto";
import { loadScheme } from "../store/backends.js";
import { isUnusableCode } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey } from "../manifest/layout.js";
import type { KnownManifest } from "../manifest/checks.js";
import type { VersionsFile } from "../calendar/pins.js";
import { ArtifactIndex } from "../protocol/artifact-index.js";
import type { TaskRef } from "../task/task-ref.js";
import { plannedPartitions } from "./lanes.js";
import type { Shard } from "./lanes.js";
import { runnerFor } from "./runners.js";
import type { RefreshJob } from "./job.js";
import type { PartitionSettings } from "../protocol/refresh-types.js";
import { retireRegions, retirementBlocked } from "./retire.js";
import type { Outcome, RefreshResult } from "../protocol/refresh.js";
import type { Partition, TaskDefinition } from "../task/task.js";
import { hearStages } from "../stage-times.js";
import type { StageEvent } from "../stage-times.js";
import { commitSnapshot, provenCurrents } from "../manifest/snapshot-commit.js";
import type { CommitResult, KnownCurrent, Proof } from "../manifest/snapshot-commit.js";

/**
 * A backfill as a library caller states it, with the store and task as live objects; `backfill` turns it into a
 * RefreshJob. The CLI builds the job itself (runJob).
 */
export interface BackfillOptions extends PartitionSettings {
  store: ObjectStore;
  dataset: string;
  task: TaskDefinition;
  versions: VersionsFile;
  params?: Record<string, unknown>;
  from: string;
  to: string;
  /** A subset of the task's regions; tombstoning only happens over the full, complete list. */
  regions?: string[];
  concurrency?: number;
  /** Only this shard's region lanes (lanes.ts); a sharded run never retires regions. */
  shard?: Shard;
  /** Worker threads for geometry validation (default: one per core). */
  threads?: number;
  onResult?: (result: RefreshResult, done: number, total: number) => void;
  /**
   * Aborting stops the backfill from starting more partitions; those in flight finish (each is atomic anyway),
   * and nothing is retired. For SIGTERM/SIGINT in the CLI.
   */
  signal?: AbortSignal;
  /**
   * Refresh whole partitions on this many worker threads (compute, encoding, compression and validation all
   * off the main thread). Needs `taskRef` and a store other threads can open; 0 or absent runs partitions on the
   * calling thread (with validation on `threads` workers).
   */
  workers?: number;
  /** Run the workers as child processes (runner-pool.ts). */
  workerProcesses?: boolean;
  taskRef?: TaskRef;
  /** @deprecated the store's own URL is used; kept so existing callers compile. */
  storeUrl?: string;
  /**
   * Dataset snapshots (docs/snapshots.md), on unless false: a run settles partitions the latest snapshot proves
   * unchanged without reading their manifests, and an unsharded run that finishes every partition commits one.
   */
  snapshots?: boolean;
}

/** What runs a job in this process beside the job itself: the opened store and task, progress, a stop request. */
export interface JobHooks {
  store: ObjectStore;
  task: TaskDefinition;
  onResult?: (result: RefreshResult, done: number, total: number) => void;
  /** The partitions planned, before the first is refreshed. */
  onStart?: (total: number) => void;
  /** Each stage a partition begins, on this thread or a worker (a long one's count so far too). */
  onStage?: (event: StageEvent) => void;
  signal?: AbortSignal;
}

/** A library caller's options as a job: every field not named here is a partition setting, carried whole. */
export function jobOf(opts: BackfillOptions): RefreshJob {
  const {
    store,
    dataset,
    task: _task,
    versions,
    params,
    from,
    to,
    regions,
    concurrency,
    shard,
    threads,
    onResult: _onResult,
    signal: _signal,
    workers,
    workerProcesses,
    taskRef,
    storeUrl,
    snapshots,
    ...each
  } = opts;
  return {
    dataset,
    ...(taskRef ? { task: taskRef } : {}),
    store: storeUrl ?? store.url,
    versions,
    params: params ?? {},
    from,
    to,
    ...(regions ? { regions } : {}),
    ...(shard ? { shard } : {}),
    run: {
      runner: workerProcesses ? "processes" : "threads",
      workers: workers ?? 0,
      concurrency: concurrency ?? 4,
      ...(threads === undefined ? {} : { threads }),
      snapshots: snapshots !== false,
    },
    each,
  };
}

export interface BackfillSummary {
  total: number;
  counts: Record<Outcome, number>;
  /** One per partition that ran, in (date, region) order. */
  results: RefreshResult[];
  retired: string[];
  /** Partitions never started (a re-run picks them up), and why: `signal` aborted, or the store proved unusable. */
  notStarted: number;
  stopped?: "signal" | "store";
  /** The snapshot this run committed, or why it committed none. */
  snapshot?: CommitResult | { skipped: string };
}

/** Refreshes every region × logical date with bounded concurrency (a library caller's entry: runJob). */
export function backfill(opts: BackfillOptions): Promise<BackfillSummary> {
  return runJob(jobOf(opts), { store: opts.store, task: opts.task, onResult: opts.onResult, signal: opts.signal });
}

/** Runs a job: every region × logical date of its window, region lanes side by side, on the runner it names. */
export async function runJob(job: RefreshJob, hooks: JobHooks): Promise<BackfillSummary> {
  const { store, task } = hooks;
  const opts = { ...job, task, concurrency: job.run.concurrency };
  const partitions = await plannedPartitions(opts);
  const counts: Record<Outcome, number> = {
    promoted: 0,
    rekeyed: 0,
    reconciled: 0,
    unchanged: 0,
    superseded: 0,
    invalid: 0,
    blocked: 0,
    failed: 0,
  };
  const results: RefreshResult[] = new Array(partitions.length);
  const runId = randomUUID();
  const concurrency = Math.max(1, Math.min(job.run.concurrency, partitions.length));
  const artifactIndex = ArtifactIndex.for(store, partitions);
  // Manifests this backfill promoted or found, by region: the next dates' plausibility history reuses them
  // wherever a listing shows the same version (S3), instead of fetching each again.
  const known = new Map<string, Map<string, KnownManifest>>();
  const window = task.plausibility?.window ?? 7;
  // A region's dates run in order, so only its latest window + 1 manifests can serve a later date: memory stays
  // bounded however long the backfill.
  const remember = (region: string, m: NonNullable<RefreshResult["manifest"]>) => {
    let byKey = known.get(region);
    if (!byKey) known.set(region, (byKey = new Map()));
    byKey.set(m.key, { version: m.version, current: m.current });
    while (byKey.size > window + 1) byKey.delete([...byKey.keys()].sort()[0] as string);
  };
  const knownBefore = (p: Partition): Map<string, KnownManifest> => {
    const region = known.get(p.region);
    if (!region) return new Map();
    const before = manifestKey(p);
    return new Map(
      [...region]
        .filter(([k]) => k < before)
        .sort((a, b) => (a[0] < b[0] ? 1 : -1))
        .slice(0, window + 1),
    );
  };
  const proof = job.run.snapshots ? await provenCurrents(store, job.dataset) : undefined;
  // Whether workers can open the store is asked of its scheme: load it, as a library caller may not have.
  await loadScheme(job.store);
  const runner = runnerFor({
    job,
    store,
    task,
    signal: hooks.signal,
    artifactIndex,
    proven: proof?.proven,
    runId,
    concurrency,
    total: partitions.length,
  });
  // A region's dates run one after another (regions run side by side), so each partition's plausibility check
  // sees the same earlier versions whatever the concurrency or timing: the manifests a backfill writes do not
  // depend on scheduling.
  const queues = new Map<string, number[]>();
  partitions.forEach((p, i) => queues.set(p.region, [...(queues.get(p.region) ?? []), i]));
  const ready = [...queues.values()];
  let done = 0;
  // Once the store itself fails (unreachable, credentials refused, ignores conditional writes), every other
  // partition would fail the same way after its own retries: start no more.
  let storeFailed = false;
  hooks.onStart?.(partitions.length);
  const unhear = hooks.onStage ? hearStages(hooks.onStage) : undefined;
  try {
    const lane = async () => {
      for (let queue = ready.shift(); queue; queue = ready.shift()) {
        for (const i of queue) {
          if (hooks.signal?.aborted || storeFailed) return;
          const r = await runner.refresh(partitions[i] as Partition, knownBefore(partitions[i] as Partition));
          if (r.manifest) remember(r.partition.region, r.manifest);
          if (isUnusableCode(r.code)) storeFailed = true;
          results[i] = r;
          counts[r.outcome]++;
          done++; // not inside the optional call below: its arguments are skipped when there is no callback
          hooks.onResult?.(r, done, partitions.length);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queues.size) }, lane));
  } finally {
    unhear?.();
    await runner.close();
  }
  // Tombstones: only a run over the full, complete region list that finished every partition may retire.
  const notStarted = partitions.length - done;
  const finished = counts.failed + counts.invalid === 0 && notStarted === 0;
  const retired =
    finished && !retirementBlocked(task, { regions: job.regions, sharded: Boolean(job.shard) })
      ? await retireRegions(store, job.dataset, task, new Set(partitions.map((p) => p.date)), runId)
      : [];
  const stopped = notStarted === 0 ? undefined : storeFailed ? "store" : "signal";
  const snapshot = await commitAfter(job, store, finished, results, proof, retired);
  return {
    total: partitions.length,
    counts,
    results: notStarted ? results.filter(Boolean) : results,
    retired,
    notStarted,
    ...(stopped ? { stopped } : {}),
    ...(snapshot ? { snapshot } : {}),
  };
}

/**
 * The snapshot an unsharded run that finished every partition commits (a sharded one leaves it to finalize).
 * A snapshot that cannot be committed fails no partition: the summary says why, and the next run tries again.
 */
async function commitAfter(
  job: RefreshJob,
  store: ObjectStore,
  finished: boolean,
  results: RefreshResult[],
  proof: Proof | undefined,
  retired: string[],
): Promise<BackfillSummary["snapshot"]> {
  if (!job.run.snapshots) return undefined;
  if (job.shard) return { skipped: "a shard of a backfill: finalize commits the snapshot" };
  if (!finished) {
    const bad = (o: string) => results.filter((r) => r?.outcome === o).length;
    const [invalid, failed] = [bad("invalid"), bad("failed")];
    if (!invalid && !failed) return { skipped: "not every partition finished" };
    const what = [invalid && `${invalid} refused (invalid)`, failed && `${failed} failed`].filter(Boolean).join(", ");
    return {
      skipped: `${what}: a snapshot is the whole dataset settled, so the latest one stays as it was; fix what the partitions above say and run again`,
    };
  }
  const blocked = results.filter((r) => r?.outcome === "blocked").length;
  if (blocked) return { skipped: `${blocked} partition(s) blocked on an upstream dataset` };
  // The run found the dataset exactly as the latest snapshot has it and changed nothing: that is the snapshot.
  if (proof?.exact && results.every((r) => r.outcome === "unchanged") && !retired.length)
    return { id: proof.id, partitions: proof.partitions, moved: false };
  const known = new Map<string, KnownCurrent>();
  for (const r of results)
    if (r?.manifest) known.set(r.manifest.key, { version: r.manifest.version, current: r.manifest.current });
  try {
    return await commitSnapshot(store, job.dataset, known);
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}
