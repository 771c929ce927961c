import { availableParallelism } from "node:os";
import { validateChunk } from "./validity-core.js";
import type { GeometryIssue, ValidationChunk } from "./validity-core.js";
import type { Crs } from "./crs.js";
import { WorkerPool } from "./worker-pool.js";

export type { GeometryIssue } from "./validity-core.js";

export interface ValidateOptions {
  /** Worker threads; 0 checks on the calling thread. Default: one per core. */
  threads?: number;
  /** Rows per unit of work handed to a worker. */
  chunkRows?: number;
}

const WORKER_URL = new URL(`./validity-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/**
 * Checks every geometry of a WKB column (Arrow Binary layout): decodes, finite coordinates, inside the CRS
 * domain, OGC validity with GEOS's own reason. Reports every problem by row; never repairs anything.
 */
export async function validateWkb(
  data: Uint8Array,
  offsets: Int32Array | BigInt64Array | ArrayLike<number>,
  crs: Crs,
  options: ValidateOptions = {},
): Promise<GeometryIssue[]> {
  const rows = offsets.length - 1;
  const chunkRows = options.chunkRows ?? 2048;
  const crsFacts = { id: crs.id, geographic: crs.geographic, proj4: crs.proj4, areaOfUse: crs.areaOfUse };
  const chunk = (start: number): ValidationChunk => {
    const end = Math.min(rows, start + chunkRows);
    const base = Number(offsets[start]);
    const local = new Int32Array(end - start + 1);
    for (let i = start; i <= end; i++) local[i - start] = Number(offsets[i]) - base;
    return { firstRow: start, data: data.slice(base, Number(offsets[end])), offsets: local, crs: crsFacts };
  };
  const starts = Array.from({ length: Math.ceil(rows / chunkRows) }, (_, i) => i * chunkRows);
  const threads = options.threads ?? availableParallelism();
  if (threads === 0 || rows <= chunkRows) {
    const out: GeometryIssue[] = [];
    for (const s of starts) out.push(...(await validateChunk(chunk(s))));
    return out;
  }
  const pool = new WorkerPool<{ chunk: ValidationChunk }, { issues: GeometryIssue[] }>(WORKER_URL, Math.min(threads, starts.length, 64));
  try {
    const results = await Promise.all(
      starts.map((s) => {
        const c = chunk(s);
        return pool.run({ chunk: c }, [c.data.buffer as ArrayBuffer, c.offsets.buffer as ArrayBuffer]);
      }),
    );
    return results.flatMap((r) => r.issues);
  } finally {
    await pool.close();
  }
}
