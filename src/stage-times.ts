import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/**
 * Where a partition's time goes, for benchmarks and for anyone asking: with GEOREFRESH_STAGE_TIMES=<file>, each
 * timed stage appends one JSON line ({"stage", "ms", "partition"}) to that file, from whichever thread or process
 * runs it. Off (and free) otherwise; never in an artifact or a key.
 */
/** A partition as the lines name it: "<dataset> <region> <date>". */
interface Named {
  dataset: string;
  region: string;
  date: string;
}

/** A stage that began, or (no stage) the current one's count so far, for progress only: never stored. */
export interface StageEvent {
  stage?: string;
  /** "<dataset> <region> <date>". */
  partition: string;
  detail?: string;
}

let listener: ((event: StageEvent) => void) | undefined;

/**
 * Who hears the stages run in this process (a backfill's progress) until the returned function is called; a
 * partition worker forwards its own to the process that started it, which says them here again.
 */
export function hearStages(fn: (event: StageEvent) => void): () => void {
  const before = listener;
  listener = fn;
  return () => void (listener = before);
}

/** Tells the listener, if any. */
export function stageNote(event: StageEvent): void {
  listener?.(event);
}

/** The current stage's count so far, e.g. "214,000 rows read". */
export function stageDetail(p: Named, detail: string): void {
  if (listener) stageNote({ partition: named(p), detail });
}

const named = (p: Named) => `${p.dataset} ${p.region} ${p.date}`;

/**
 * Runs one stage of a partition: the listener hears it begin (unless `announce` is false, for work that runs
 * beside the stages, such as the previous version digested on a second thread), and its time is appended to
 * GEOREFRESH_STAGE_TIMES' file when that is set.
 */
export async function timed<T>(stage: string, p: Named, work: () => Promise<T>, announce = true): Promise<T> {
  if (announce && listener) stageNote({ stage, partition: named(p) });
  // Read per call: a benchmark in one process may point it at a file per run.
  const target = process.env.GEOREFRESH_STAGE_TIMES;
  if (!target) return work();
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    appendFileSync(target, `${JSON.stringify({ stage, ms: performance.now() - t0, partition: named(p) })}\n`);
  }
}
