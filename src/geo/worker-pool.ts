import { fork } from "node:child_process";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** Loads a .ts worker through tsx's loader (Node 20 workers do not take --import in execArgv). */
function tsBootstrap(moduleUrl: URL): URL {
  // A data: URL cannot resolve bare specifiers, so tsx's ESM API is located here (its .mjs twin of the .cjs).
  const api = pathToFileURL(
    createRequire(moduleUrl)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(moduleUrl.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/** One worker, a thread or a child process: both answer `{ id, ...input }` with `{ id, ...output }`. */
interface Channel {
  post(msg: object, transfer: ArrayBuffer[]): void;
  terminate(): Promise<void>;
  /** Whether the worker keeps the process alive (threads only). */
  hold?(busy: boolean): void;
}

export interface PoolOptions {
  /**
   * "process": each worker is a child process (IPC with structured clone), started with `nodeFlags`: a crash
   * (a native abort, an OOM kill) takes down that worker alone, and a fresh one replaces it.
   */
  kind?: "thread" | "process";
  nodeFlags?: string[];
  /**
   * Idle threads do not keep the process alive, so a long-lived shared pool (the writer's) needs no close();
   * a thread with work in flight does.
   */
  idleUnref?: boolean;
  /** A message without an id: a note from a worker about its work (a stage begun), not an answer. */
  onNote?: (note: unknown) => void;
}

interface Job<Out> {
  resolve: (o: Out) => void;
  reject: (e: Error) => void;
  worker: Channel;
}

/** How many crashed workers a pool replaces before it gives up on the queue. */
const RESPAWNS_PER_WORKER = 4;

/**
 * A small pool of workers, threads or child processes, for CPU-heavy work (validation, whole partitions), so that
 * every core works.
 * A worker module answers each `{ id, ...input }` message with `{ id, ...output }` or `{ id, error }`, and may
 * send `{ note }` at any time (`onNote`); up to
 * `perWorker` jobs may be in flight on one worker (useful when jobs also wait on I/O). Under tsx/vitest the
 * worker is the .ts source and needs tsx's loader; from dist it is plain .js.
 */
export class WorkerPool<In, Out> {
  private readonly workers: Channel[] = [];
  private readonly inflight = new Map<Channel, number>();
  private readonly queue: {
    input: In;
    transfer: ArrayBuffer[];
    resolve: (o: Out) => void;
    reject: (e: Error) => void;
  }[] = [];
  private readonly pending = new Map<number, Job<Out>>();
  private nextId = 0;
  private respawns: number;
  private closing = false;

  constructor(
    private readonly moduleUrl: URL,
    size = availableParallelism(),
    private readonly perWorker = 1,
    private readonly options: PoolOptions = {},
  ) {
    this.respawns = Math.max(1, size) * RESPAWNS_PER_WORKER;
    for (let i = 0; i < Math.max(1, size); i++) this.add();
  }

  private add(): void {
    const worker = this.options.kind === "process" ? this.spawnProcess() : this.spawnThread();
    this.workers.push(worker);
    this.inflight.set(worker, 0);
  }

  private spawnThread(): Channel {
    const ts = this.moduleUrl.pathname.endsWith(".ts");
    const thread = new Worker(ts ? tsBootstrap(this.moduleUrl) : this.moduleUrl);
    const channel: Channel = {
      post: (msg, transfer) => thread.postMessage(msg, transfer),
      terminate: async () => void (await thread.terminate()),
      hold: (busy) => (busy ? thread.ref() : thread.unref()),
    };
    thread.on("message", (msg: { id: number; error?: string }) => this.settle(channel, msg));
    thread.on("error", (error) => this.fail(channel, error));
    // After the listeners: adding a 'message' listener refs the worker's port again.
    if (this.options.idleUnref) thread.unref();
    return channel;
  }

  private spawnProcess(): Channel {
    const ts = this.moduleUrl.pathname.endsWith(".ts");
    const loader = ts ? ["--import", pathToFileURL(createRequire(this.moduleUrl).resolve("tsx/esm")).href] : [];
    const child = fork(fileURLToPath(this.moduleUrl), [], {
      execArgv: [...loader, ...(this.options.nodeFlags ?? [])],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const channel: Channel = {
      post: (msg) => child.send(msg),
      terminate: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill();
        await exited;
      },
    };
    child.on("message", (msg: { id: number; error?: string }) => this.settle(channel, msg));
    child.on("error", (error) => this.fail(channel, error));
    child.once("exit", (code, signal) => {
      if (!this.closing) this.fail(channel, new Error(`the worker process exited (${signal ?? `code ${code}`})`));
    });
    return channel;
  }

  get size(): number {
    return this.workers.length;
  }

  run(input: In, transfer: ArrayBuffer[] = []): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, transfer, resolve, reject });
      this.pump();
    });
  }

  /** A message to every worker, outside the job protocol (no answer expected), e.g. a stop request. */
  broadcast(msg: object): void {
    for (const w of this.workers) w.post(msg, []);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let best: Channel | undefined;
      for (const w of this.workers)
        if (
          (this.inflight.get(w) as number) < this.perWorker &&
          (!best || (this.inflight.get(w) as number) < (this.inflight.get(best) as number))
        )
          best = w;
      if (!best) return;
      const job = this.queue.shift() as (typeof this.queue)[number];
      const id = this.nextId++;
      this.pending.set(id, { resolve: job.resolve, reject: job.reject, worker: best });
      this.inflight.set(best, (this.inflight.get(best) as number) + 1);
      if (this.options.idleUnref) best.hold?.(true);
      best.post({ id, ...(job.input as object) }, job.transfer);
    }
  }

  private settle(worker: Channel, msg: { id: number; error?: string; note?: unknown }): void {
    if (msg.id === undefined) return void this.options.onNote?.(msg.note);
    const job = this.pending.get(msg.id);
    this.pending.delete(msg.id);
    this.inflight.set(worker, (this.inflight.get(worker) as number) - 1);
    if (this.options.idleUnref && this.inflight.get(worker) === 0) worker.hold?.(false);
    if (msg.error !== undefined) job?.reject(new Error(msg.error));
    else job?.resolve(msg as Out);
    this.pump();
  }

  private fail(worker: Channel, error: Error): void {
    if (!this.inflight.has(worker)) return; // already failed (an error and then its exit)
    for (const [id, job] of this.pending) {
      if (job.worker !== worker) continue;
      this.pending.delete(id);
      job.reject(error);
    }
    // Never dispatch to a crashed worker again; replace it, within limits, so the queue cannot stall.
    this.inflight.delete(worker);
    this.workers.splice(this.workers.indexOf(worker), 1);
    void worker.terminate().catch(() => undefined);
    if (this.closing) return;
    if (this.respawns-- > 0) this.add();
    if (this.workers.length === 0)
      for (const job of this.queue.splice(0)) job.reject(new Error(`every worker crashed; the last: ${error.message}`));
    this.pump();
  }
}
