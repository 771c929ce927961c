/**
 * A worker that refreshes whole partitions (compute, encoding, compression, validation), so a backfill keeps
 * every core busy: a worker thread, or a child process (`--worker-processes`) talking over IPC. It receives the
 * job as the dispatcher built it, and loads the task from its TaskRef and opens the store from its URL, once per
 * worker.
 */
import { parentPort } from "node:worker_threads";
import { GeometryValidator } from "../geo/validity.js";
import type { PreparedInput, ResolvedInput } from "../inputs/identity.js";
import type { KnownManifest } from "../manifest/checks.js";
import { refreshPartition } from "../protocol/refresh.js";
import type { ManifestAtStart } from "../protocol/refresh.js";
import { hearStages } from "../stage-times.js";
import { loadStore } from "../store/backends.js";
import type { ObjectStore } from "../store/types.js";
import type { Partition, TaskDefinition } from "../task/task.js";
import { loadTask } from "../task/task-ref.js";
import type { TaskRef } from "../task/task-ref.js";
import type { RefreshJob } from "./job.js";

/** One partition of the job, with what the dispatcher already knows of it. */
export interface PartitionWork {
  partition: Partition;
  /** Manifests the backfill already knows for this region (see backfill.ts), as [key, known] pairs. */
  knownManifests?: [string, KnownManifest][];
  /** Remote inputs the dispatcher downloaded, by URI: the worker reads their verified copies. */
  prepared?: [string, PreparedInput][];
  /** The manifest as the dispatcher found it (null: none); absent when it could not tell. */
  start?: ManifestAtStart | null;
}

export type WorkerMessage = { job: RefreshJob; work: PartitionWork };

const tasks = new Map<string, Promise<TaskDefinition>>();
const stores = new Map<string, ObjectStore>();
const inputCache = new Map<string, Promise<ResolvedInput>>();
const validator = new GeometryValidator({ threads: 0 });

type Message = ({ id: number } & WorkerMessage) | { stop: true };
/** Set by the backfill's stop request (SIGINT/SIGTERM): partitions in flight end their waits on other runs. */
const stop = new AbortController();
const channel = parentPort
  ? {
      onJob: (f: (m: Message) => void) => parentPort?.on("message", f),
      answer: (m: object) => parentPort?.postMessage(m),
    }
  : { onJob: (f: (m: Message) => void) => process.on("message", f), answer: (m: object) => process.send?.(m) };
// The stages it runs reach the backfill's progress as notes (messages without an id).
hearStages((note) => channel.answer({ note }));
// A worker process whose backfill is gone (killed, crashed) stops too, instead of computing for nobody.
if (!parentPort) process.on("disconnect", () => process.exit(0));

channel.onJob(async (msg) => {
  if ("stop" in msg) return void stop.abort();
  try {
    const { job, work } = msg;
    const refKey = JSON.stringify(job.task);
    if (!tasks.has(refKey)) tasks.set(refKey, loadTask(job.task as TaskRef));
    let store = stores.get(job.store);
    if (!store) stores.set(job.store, (store = await loadStore(job.store)));
    const result = await refreshPartition(
      {
        ...job.each,
        store,
        task: await (tasks.get(refKey) as Promise<TaskDefinition>),
        partition: work.partition,
        versions: job.versions,
        params: job.params,
        validator,
        signal: stop.signal,
      },
      {
        inputCache,
        knownManifests: new Map(work.knownManifests ?? []),
        start: work.start,
        prepared: new Map(work.prepared ?? []),
      },
    );
    channel.answer({ id: msg.id, result });
  } catch (error) {
    channel.answer({ id: msg.id, error: error instanceof Error ? error.message : String(error) });
  }
});
