import { Table, tableFromIPC, tableToIPC } from "apache-arrow";
import { WorkerPool } from "../geo/worker-pool.js";
import type { EncodeSettings } from "./encode.js";
import { encodeGroup, groupSource } from "./row-group.js";
import { zstdReady } from "./zstd-pages.js";
import type { EncodedGroup, GroupSource } from "./row-group.js";

/**
 * Encodes every row group of a sorted table, on this thread alone or with encode workers beside it. Workers get
 * the source once per write, in shared memory (the columns as Arrow IPC, the order, the bboxes); this thread and
 * each worker then take the next group from a shared counter until none is left, so no one waits on a slow
 * group or a message. Results are put back in group order, identical whichever thread made them.
 */

export interface EncodeJob {
  /** Which write the shared buffers belong to; workers keep a few decoded sources by it. */
  write: number;
  /** Writes in progress: a worker forgets decoded sources of any other. */
  live: number[];
  table: SharedArrayBuffer;
  order: SharedArrayBuffer;
  bboxes: SharedArrayBuffer;
  /** Int32 [next group]: taken with Atomics.add. */
  counter: SharedArrayBuffer;
  starts: number[];
  settings: EncodeSettings;
  native: boolean;
}

export interface EncodeResult {
  groups: { k: number; group: EncodedGroup }[];
}

const WORKER = new URL(`./encode-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

let pool: WorkerPool<EncodeJob, EncodeResult> | undefined;
/** One pool of encode threads per process, grown to the largest count asked for; idle ones do not hold the process. */
function encodePool(threads: number): WorkerPool<EncodeJob, EncodeResult> {
  if (!pool || pool.size < threads) {
    void pool?.close();
    pool = new WorkerPool(WORKER, threads, 1, { idleUnref: true });
  }
  return pool;
}

function shared(bytes: ArrayBufferView): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(sab).set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return sab;
}

let writes = 0;
const live = new Set<number>();

export async function encodeGroups(
  src: GroupSource,
  order: Uint32Array,
  settings: EncodeSettings,
  native: boolean,
  threads: number,
): Promise<EncodedGroup[]> {
  const size = settings.rowGroupRows;
  const rows = order.length;
  // An empty table still writes one (empty) group so its schema is recorded.
  const starts = rows === 0 ? [0] : Array.from({ length: Math.ceil(rows / size) }, (_, k) => k * size);
  if (threads <= 1 || starts.length === 1) {
    await zstdReady();
    return starts.map((s) => encodeGroup(src, order.subarray(s, Math.min(rows, s + size)), settings, native));
  }

  const write = ++writes;
  live.add(write);
  try {
    const counter = new SharedArrayBuffer(4);
    const job: EncodeJob = {
      write,
      live: [...live],
      table: shared(tableToIPC(new Table(Object.fromEntries(src.columns)), "stream")),
      order: shared(order),
      bboxes: shared(src.bboxes),
      counter,
      starts,
      settings,
      native,
    };
    const workers = encodePool(threads - 1);
    const theirs = Array.from({ length: threads - 1 }, () => workers.run(job));
    await zstdReady();
    const mine = drain(job, src, order);
    const out = new Array<EncodedGroup>(starts.length);
    for (const r of [mine, ...(await Promise.all(theirs))]) for (const { k, group } of r.groups) out[k] = group;
    return out;
  } finally {
    live.delete(write);
  }
}

/** Takes groups from the shared counter until none is left. */
function drain(job: EncodeJob, src: GroupSource, order: Uint32Array): EncodeResult {
  const next = new Int32Array(job.counter);
  const rows = order.length;
  const size = job.settings.rowGroupRows;
  const groups: EncodeResult["groups"] = [];
  for (let k = Atomics.add(next, 0, 1); k < job.starts.length; k = Atomics.add(next, 0, 1)) {
    const start = job.starts[k] as number;
    groups.push({
      k,
      group: encodeGroup(src, order.subarray(start, Math.min(rows, start + size)), job.settings, job.native),
    });
  }
  return { groups };
}

const decoded = new Map<number, GroupSource>();

/** The worker's side of a job: the write's source, decoded once (zero-copy views of the shared buffers). */
export function runEncodeJob(job: EncodeJob): EncodeResult {
  for (const k of decoded.keys()) if (!job.live.includes(k)) decoded.delete(k);
  let src = decoded.get(job.write);
  if (!src) {
    const table = tableFromIPC(new Uint8Array(job.table));
    src = groupSource(table, job.settings.geometryColumn, new Float64Array(job.bboxes));
    decoded.set(job.write, src);
  }
  return drain(job, src, new Uint32Array(job.order));
}
