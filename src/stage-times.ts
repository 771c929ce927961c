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

export async function timed<T>(stage: string, p: Named, work: () => Promise<T>): Promise<T> {
  // Read per call: a benchmark in one process may point it at a file per run.
  const target = process.env.GEOREFRESH_STAGE_TIMES;
  if (!target) return work();
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    appendFileSync(
      target,
      `${JSON.stringify({ stage, ms: performance.now() - t0, partition: `${p.dataset} ${p.region} ${p.date}` })}\n`,
    );
  }
}
