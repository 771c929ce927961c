import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { ArtifactIndex } from "../protocol/artifact-index.js";
import type { BackfillOptions } from "./backfill.js";
import { plannedPartitions } from "./lanes.js";
import type { ResolvedInput } from "../inputs/identity.js";
import { redact } from "../store/secrets.js";
import { artifactExists, planRun } from "../protocol/refresh.js";
import type { RefreshOptions, RunContext } from "../protocol/refresh.js";
import type { Partition } from "../task/task.js";

/**
 * - unchanged: the manifest already names this run's key and the artifact is there
 * - new: no current version yet
 * - changed: the key differs from the current version's (reasons say which pin, input or code)
 * - reconcile: the artifact for this key exists; a run would only point the manifest at it
 * - missing-artifact: the manifest names this key but its artifact is gone (a run fails, as it should)
 * - error: the partition cannot be planned (an unreadable input, a bad pin, the store)
 */
export type PlanStatus = "unchanged" | "new" | "changed" | "reconcile" | "missing-artifact" | "error";

export interface PartitionPlan {
  partition: Partition;
  status: PlanStatus;
  key?: string;
  currentKey?: string;
  /** Why the key differs from the current version's, one line per difference. */
  reasons: string[];
  /** Why it could not be planned, when the error had a code (the store's own when the store could not be used). */
  code?: ErrorCode;
}

export interface BackfillPlan {
  total: number;
  counts: Record<PlanStatus, number>;
  plans: PartitionPlan[];
}

const short = (identity: string) => identity.replace(/^(sha256:|etag:)?(.{12}).*$/, "$1$2…");

/** What a run of one partition would do and why, from reads alone (the manifest, the input identities, a stat). */
export async function planPartition(opts: RefreshOptions, run: RunContext = {}): Promise<PartitionPlan> {
  const { partition, task } = opts;
  try {
    const p = await planRun(opts, run);
    const current = p.start?.manifest.current ?? undefined;
    const exists = await artifactExists(opts, run, p.aKey);
    const base = { partition, key: p.key, ...(current ? { currentKey: current.key } : {}) };
    if (current?.key === p.key)
      return {
        ...base,
        status: exists ? "unchanged" : "missing-artifact",
        reasons: exists ? [] : [`${p.aKey} is missing`],
      };
    const reasons: string[] = [];
    if (current) {
      const code = `${task.name}@${task.version}`;
      if (current.code_version !== code) reasons.push(`code ${current.code_version} → ${code}`);
      for (const name of new Set([...Object.keys(current.pins), ...Object.keys(p.pins)])) {
        if (current.pins[name] !== p.pins[name])
          reasons.push(`pin ${name} ${current.pins[name] ?? "(none)"} → ${p.pins[name] ?? "(none)"}`);
      }
      for (const name of new Set([...Object.keys(current.inputs), ...Object.keys(p.inputs)])) {
        const was = current.inputs[name]?.identity;
        const input = p.inputs[name] as ResolvedInput | undefined;
        const now = input?.identity;
        if (was !== now) reasons.push(`input ${name} ${was ? short(was) : "(none)"} → ${now ? short(now) : "(none)"}`);
        else if (input?.location !== undefined && current.inputs[name]?.uri !== redact(input.uri))
          reasons.push(`input ${name} moved: ${current.inputs[name]?.uri} → ${redact(input.uri)}`);
      }
      if (reasons.length === 0) reasons.push("parameters or the writer changed");
    }
    return { ...base, status: exists ? "reconcile" : current ? "changed" : "new", reasons };
  } catch (error) {
    return {
      partition,
      status: "error",
      reasons: [error instanceof Error ? error.message : String(error)],
      ...(error instanceof GeorefreshError ? { code: error.code } : {}),
    };
  }
}

/** `backfill --dry-run`: the plan of every partition the backfill would visit. Reads only; writes nothing. */
export async function planBackfill(
  opts: BackfillOptions & { onPlan?: (plan: PartitionPlan, done: number, total: number) => void },
): Promise<BackfillPlan> {
  const partitions = await plannedPartitions(opts);
  const counts: Record<PlanStatus, number> = {
    unchanged: 0,
    new: 0,
    changed: 0,
    reconcile: 0,
    "missing-artifact": 0,
    error: 0,
  };
  const plans: PartitionPlan[] = new Array(partitions.length);
  const artifactIndex = ArtifactIndex.for(opts.store, partitions);
  const inputCache = new Map<string, Promise<ResolvedInput>>();
  let next = 0;
  let done = 0;
  const lane = async () => {
    for (let i = next++; i < partitions.length; i = next++) {
      const planned = await planPartition(
        {
          store: opts.store,
          task: opts.task,
          partition: partitions[i] as Partition,
          versions: opts.versions,
          params: opts.params,
        },
        { inputCache, artifactIndex },
      );
      plans[i] = planned;
      counts[planned.status]++;
      done++;
      opts.onPlan?.(planned, done, partitions.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 8, partitions.length)) }, lane));
  return { total: partitions.length, counts, plans };
}
