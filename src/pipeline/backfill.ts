import { randomUUID } from "node:crypto";
import { GeometryValidator } from "../geo/validity.js";
import { retireMissing } from "../manifest/tombstone.js";
import type { ObjectStore } from "../store/types.js";
import { logicalDates } from "./calendar.js";
import { manifestPrefix, partitionOfManifestKey } from "./layout.js";
import type { VersionsFile } from "./pins.js";
import type { ResolvedInput } from "./identity.js";
import { refreshPartition } from "./refresh.js";
import type { Outcome, RefreshResult } from "./refresh.js";
import type { Partition, TaskDefinition } from "./task.js";

export interface Shard {
  index: number;
  count: number;
}

export interface BackfillOptions {
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
  shard?: Shard;
  /** Worker threads for geometry validation (default: one per core). */
  threads?: number;
  overridePlausibility?: boolean;
  onResult?: (result: RefreshResult, done: number, total: number) => void;
}

export interface BackfillSummary {
  total: number;
  counts: Record<Outcome, number>;
  results: RefreshResult[];
  retired: string[];
}

export class BackfillError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackfillError";
  }
}

/** "i/n" → shard; partitions are split by position in (date, region) order, so every worker agrees. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) throw new BackfillError(`--shard ${text}: expected i/n with 0 ≤ i < n (e.g. 0/4); for array jobs pass the job's index`);
  return { index, count };
}

export async function plannedPartitions(opts: Pick<BackfillOptions, "dataset" | "task" | "from" | "to" | "regions" | "shard">): Promise<Partition[]> {
  const all = typeof opts.task.regions === "function" ? await opts.task.regions() : opts.task.regions;
  const regions = opts.regions ?? all;
  const unknown = regions.filter((r) => !all.includes(r));
  if (unknown.length) throw new BackfillError(`unknown region(s) ${unknown.join(", ")} for ${opts.dataset}; known: ${all.join(", ")}`);
  let dates: string[];
  try {
    dates = logicalDates(opts.from, opts.to, opts.task.cadence);
  } catch (error) {
    throw new BackfillError((error as Error).message);
  }
  if (dates.length === 0) throw new BackfillError(`no logical date of a ${opts.task.cadence} dataset lies in ${opts.from} … ${opts.to}${opts.task.cadence === "monthly" ? " (monthly dates are the 1st of a month)" : ""}`);
  const partitions = dates.flatMap((date) => [...regions].sort().map((region) => ({ dataset: opts.dataset, region, date })));
  return opts.shard ? partitions.filter((_, i) => i % (opts.shard as Shard).count === (opts.shard as Shard).index) : partitions;
}

/** Refreshes every region × logical date with bounded concurrency; validation runs on worker threads. */
export async function backfill(opts: BackfillOptions): Promise<BackfillSummary> {
  const partitions = await plannedPartitions(opts);
  const counts: Record<Outcome, number> = { promoted: 0, reconciled: 0, unchanged: 0, superseded: 0, invalid: 0, failed: 0 };
  const results: RefreshResult[] = new Array(partitions.length);
  const validator = new GeometryValidator({ threads: opts.threads });
  const runId = randomUUID();
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  let next = 0;
  let done = 0;
  try {
    const lane = async () => {
      while (next < partitions.length) {
        const i = next++;
        const r = await refreshPartition({ store: opts.store, task: opts.task, partition: partitions[i] as Partition, versions: opts.versions, params: opts.params, validator, overridePlausibility: opts.overridePlausibility, inputCache });
        results[i] = r;
        counts[r.outcome]++;
        opts.onResult?.(r, ++done, partitions.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, partitions.length)) }, lane));
  } finally {
    await validator.close();
  }
  // Tombstones: only a run over the full, complete region list may say a region disappeared.
  let retired: string[] = [];
  if (opts.task.regionsComplete && !opts.regions && !opts.shard && counts.failed + counts.invalid === 0) {
    const all = typeof opts.task.regions === "function" ? await opts.task.regions() : opts.task.regions;
    const dates = new Set(partitions.map((p) => p.date));
    const manifests: { key: string; region: string; date: string }[] = [];
    for await (const e of opts.store.list(manifestPrefix(opts.dataset))) {
      const p = partitionOfManifestKey(e.key);
      if (p && dates.has(p.date)) manifests.push({ key: e.key, region: p.region, date: p.date });
    }
    retired = await retireMissing(opts.store, manifests, new Set(all), runId);
  }
  return { total: partitions.length, counts, results, retired };
}
