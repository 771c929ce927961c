import type { Partition } from "../manifest/layout.js";
import { logicalDates } from "../calendar/calendar.js";
import type { TaskDefinition } from "../task/task.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * The plan of a backfill, and how it is split. The unit of splitting is a *lane*: one region's logical dates, in
 * date order. A region's dates must run in order in one place, because each date's plausibility check reads the
 * region's earlier dates: split a lane across processes and the manifests depend on timing. So a shard is a set
 * of whole lanes, dealt by a rule that depends only on the plan (never on the store, the clock or the host): the
 * local thread pool, an array job's shards and a later queue worker all run the same lanes.
 */
export interface Shard {
  index: number;
  count: number;
}

export interface Lane {
  region: string;
  /** Logical dates, ascending. */
  dates: string[];
}

export interface PlanOptions {
  dataset: string;
  task: TaskDefinition;
  from: string;
  to: string;
  /** A subset of the task's regions. */
  regions?: string[];
  shard?: Shard;
}

export class BackfillError extends GeorefreshError {
  override readonly code: ErrorCode = "Backfill";
}

/** "i/n" (0-based) → shard. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count)
    throw new BackfillError(
      `--shard ${text}: expected i/n with 0 ≤ i < n (e.g. 0/4), or auto to take it from the array job`,
    );
  return { index, count };
}

/**
 * `--shard auto`: the index from the engine running this process as one task of an array (a Kubernetes Indexed
 * Job, a Slurm job array, an AWS Batch array job), the count from `--shards`, Slurm, or GEOREFRESH_SHARDS.
 */
export function shardFromEnvironment(env: Record<string, string | undefined>, shards?: number): Shard {
  const whole = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined || value === "") return undefined;
    if (!/^\d+$/.test(value))
      throw new BackfillError(`--shard auto: ${name}=${JSON.stringify(value)} is not a whole number`);
    return Number(value);
  };
  const slurm = whole("SLURM_ARRAY_TASK_ID", env.SLURM_ARRAY_TASK_ID);
  const index =
    whole("JOB_COMPLETION_INDEX", env.JOB_COMPLETION_INDEX) ??
    (slurm === undefined ? undefined : slurm - (whole("SLURM_ARRAY_TASK_MIN", env.SLURM_ARRAY_TASK_MIN) ?? 0)) ??
    whole("AWS_BATCH_JOB_ARRAY_INDEX", env.AWS_BATCH_JOB_ARRAY_INDEX);
  const count =
    shards ??
    whole("SLURM_ARRAY_TASK_COUNT", env.SLURM_ARRAY_TASK_COUNT) ??
    whole("GEOREFRESH_SHARDS", env.GEOREFRESH_SHARDS);
  if (index === undefined) {
    throw new BackfillError(
      "--shard auto found no array index: set JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID (Slurm array) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch), or pass --shard i/n",
    );
  }
  if (count === undefined)
    throw new BackfillError(
      "--shard auto found no shard count: pass --shards N, or set SLURM_ARRAY_TASK_COUNT or GEOREFRESH_SHARDS",
    );
  if (count < 1 || index < 0 || index >= count)
    throw new BackfillError(`--shard auto: index ${index} is not below the shard count ${count}`);
  return { index, count };
}

/** Every lane of the plan, regions in byte order. */
export async function planLanes(opts: Omit<PlanOptions, "shard">): Promise<Lane[]> {
  const all = typeof opts.task.regions === "function" ? await opts.task.regions() : opts.task.regions;
  const regions = opts.regions ?? all;
  const unknown = regions.filter((r) => !all.includes(r));
  if (unknown.length)
    throw new BackfillError(`unknown region(s) ${unknown.join(", ")} for ${opts.dataset}; known: ${all.join(", ")}`);
  let dates: string[];
  try {
    dates = logicalDates(opts.from, opts.to, opts.task.cadence);
  } catch (error) {
    throw new BackfillError((error as Error).message);
  }
  if (dates.length === 0)
    throw new BackfillError(
      `no logical date of a ${opts.task.cadence} dataset lies in ${opts.from} … ${opts.to}${opts.task.cadence === "monthly" ? " (monthly dates are the 1st of a month)" : ""}`,
    );
  // Inputs that are only ever "now" make only the window's last date (task.ts: latestOnly).
  if (opts.task.latestOnly) dates = dates.slice(-1);
  return [...new Set(regions)].sort(byteOrder).map((region) => ({ region, dates }));
}

/**
 * Deals whole lanes to `count` shards, balanced by their number of dates: longest lanes first (ties by region),
 * each to the shard with the fewest dates so far (ties to the lowest index). Depends only on the lanes.
 */
export function dealLanes(lanes: readonly Lane[], count: number): Lane[][] {
  const shards: Lane[][] = Array.from({ length: count }, () => []);
  const load = new Array<number>(count).fill(0);
  const order = [...lanes].sort((a, b) => b.dates.length - a.dates.length || byteOrder(a.region, b.region));
  for (const lane of order) {
    let best = 0;
    for (let i = 1; i < count; i++) if ((load[i] as number) < (load[best] as number)) best = i;
    (shards[best] as Lane[]).push(lane);
    load[best] = (load[best] as number) + lane.dates.length;
  }
  for (const shard of shards) shard.sort((a, b) => byteOrder(a.region, b.region));
  return shards;
}

/** The partitions a run (or one shard of it) visits, in (date, region) order. */
export async function plannedPartitions(opts: PlanOptions): Promise<Partition[]> {
  const lanes = await planLanes(opts);
  const mine = opts.shard ? (dealLanes(lanes, opts.shard.count)[opts.shard.index] ?? []) : lanes;
  return partitionsOf(opts.dataset, mine);
}

export function partitionsOf(dataset: string, lanes: readonly Lane[]): Partition[] {
  const out = lanes.flatMap((lane) => lane.dates.map((date) => ({ dataset, region: lane.region, date })));
  return out.sort((a, b) => (a.date === b.date ? byteOrder(a.region, b.region) : a.date < b.date ? -1 : 1));
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
