import { Binary, makeData, makeVector, Table, tableFromIPC, tableToIPC } from "apache-arrow";
import type { Vector } from "apache-arrow";
import { WorkerPool } from "../geo/worker-pool.js";
import type { EncodeSettings } from "./encode.js";
import { encodeGroup } from "./row-group.js";
import { zstdReady } from "./zstd-pages.js";
import type { EncodedGroup, GroupSource } from "./row-group.js";

/**
 * Encodes every row group of a sorted table, in order, handing each to `emit` as soon as it and all before it
 * are done: on this thread alone, or with encode workers beside it. Workers get the source once per write, in
 * shared memory (the WKB and the bboxes as they are, when compute's output put them there already; the other
 * columns as Arrow IPC; the order), then one group per job; this thread encodes a
 * group itself whenever every worker is busy. Each worker holds two jobs, so it starts its next group while this
 * thread is still inside one of its own and cannot hand it one (with one job each, a worker waited ~90 ms per
 * group: it did 8 of 2M points' 31 groups). At most 2 × threads groups are encoded ahead of the one `emit` waits
 * for, so memory holds a few groups, never the file. The bytes are the same whichever thread made them.
 */

export interface EncodeJob {
  /** Which write the shared buffers belong to; workers keep a few decoded sources by it. */
  write: number;
  /** Writes in progress: a worker forgets decoded sources of any other. */
  live: number[];
  /** Every column but the geometry, as an Arrow IPC stream. */
  table: SharedArrayBuffer;
  /** The geometry column's WKB bytes and offsets, and its place among the columns. */
  wkb: SharedArrayBuffer;
  wkbOffsets: SharedArrayBuffer;
  geometryAt: number;
  order: SharedArrayBuffer;
  bboxes: SharedArrayBuffer;
  /** The group to encode. */
  k: number;
  settings: EncodeSettings;
  native: boolean;
}

export interface EncodeResult {
  group: EncodedGroup;
}

const WORKER = new URL(`./encode-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

const JOBS_PER_WORKER = 2;
let pool: WorkerPool<EncodeJob, EncodeResult> | undefined;
/** One pool of encode threads per process, grown to the largest count asked for; idle ones do not hold the process. */
function encodePool(threads: number): WorkerPool<EncodeJob, EncodeResult> {
  if (!pool || pool.size < threads) {
    void pool?.close();
    pool = new WorkerPool(WORKER, threads, JOBS_PER_WORKER, { idleUnref: true });
  }
  return pool;
}

/** The bytes in shared memory: their own buffer when it already is shared and they are all of it, else a copy. */
function shared(bytes: ArrayBufferView): SharedArrayBuffer {
  const own = bytes.buffer;
  if (own instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === own.byteLength) return own;
  const sab = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(sab).set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return sab;
}

let writes = 0;
const live = new Set<number>();

const rowsOf = (order: Uint32Array, k: number, size: number) =>
  order.subarray(k * size, Math.min(order.length, (k + 1) * size));

export async function encodeGroups(
  src: GroupSource,
  order: Uint32Array,
  settings: EncodeSettings,
  native: boolean,
  threads: number,
  emit: (group: EncodedGroup) => Promise<void> | void,
): Promise<void> {
  const size = settings.rowGroupRows;
  // An empty table still writes one (empty) group so its schema is recorded.
  const total = order.length === 0 ? 1 : Math.ceil(order.length / size);
  await zstdReady();
  if (threads <= 1 || total === 1) {
    for (let k = 0; k < total; k++) await emit(encodeGroup(src, rowsOf(order, k, size), settings, native));
    return;
  }

  const write = ++writes;
  live.add(write);
  try {
    const geometryAt = src.columns.findIndex(([name]) => name === settings.geometryColumn);
    const others = src.columns.filter((_, i) => i !== geometryAt);
    const base = {
      write,
      live: [...live],
      table: shared(tableToIPC(new Table(Object.fromEntries(others)), "stream")),
      wkb: shared(src.wkb.data),
      wkbOffsets: shared(src.wkb.offsets),
      geometryAt,
      order: shared(order),
      bboxes: shared(src.bboxes),
      settings,
      native,
    };
    const workers = encodePool(threads - 1);
    const ahead = 2 * threads;
    const ready = new Map<number, EncodedGroup>();
    const running = new Map<number, Promise<void>>();
    let failure: unknown;
    let next = 0;
    for (let done = 0; done < total;) {
      while (running.size < JOBS_PER_WORKER * (threads - 1) && next < total && next - done < ahead) {
        const k = next++;
        const job = workers.run({ ...base, k }).then(
          (r) => void ready.set(k, r.group),
          (error: unknown) => void (failure ??= error),
        );
        running.set(
          k,
          job.finally(() => running.delete(k)),
        );
      }
      if (failure) throw failure;
      const group = ready.get(done);
      if (group) {
        ready.delete(done++);
        await emit(group);
      } else if (next < total && next - done < ahead) {
        const k = next++; // every worker is busy: this thread takes a group itself
        ready.set(k, encodeGroup(src, rowsOf(order, k, size), settings, native));
      } else await (running.get(done) ?? Promise.race(running.values()));
    }
    await Promise.all(running.values());
  } finally {
    live.delete(write);
  }
}

const decoded = new Map<number, GroupSource>();

/** The worker's side of a job: the write's source, decoded once (zero-copy views of the shared buffers). */
export function runEncodeJob(job: EncodeJob): EncodeResult {
  for (const k of decoded.keys()) if (!job.live.includes(k)) decoded.delete(k);
  let src = decoded.get(job.write);
  if (!src) {
    const table = tableFromIPC(new Uint8Array(job.table));
    const wkb = { data: new Uint8Array(job.wkb), offsets: new Int32Array(job.wkbOffsets) };
    const geometry = makeVector(
      makeData({ type: new Binary(), length: wkb.offsets.length - 1, valueOffsets: wkb.offsets, data: wkb.data }),
    );
    const columns = table.schema.fields.map((f) => [f.name, table.getChild(f.name) as Vector] as const);
    columns.splice(job.geometryAt, 0, [job.settings.geometryColumn, geometry]);
    src = { columns, wkb, bboxes: new Float64Array(job.bboxes) };
    decoded.set(job.write, src);
  }
  const group = encodeGroup(
    src,
    rowsOf(new Uint32Array(job.order), job.k, job.settings.rowGroupRows),
    job.settings,
    job.native,
  );
  return { group };
}
