import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** Loads a .ts worker through tsx's loader (Node 20 workers do not take --import in execArgv). */
function tsBootstrap(moduleUrl: URL): URL {
  // A data: URL cannot resolve bare specifiers, so tsx's ESM API is located here (its .mjs twin of the .cjs).
  const api = pathToFileURL(createRequire(moduleUrl).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(moduleUrl.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

interface Job<Out> {
  resolve: (o: Out) => void;
  reject: (e: Error) => void;
  worker: Worker;
}

/**
 * A small pool of worker threads for CPU-heavy work (validation, whole partitions), so that every core works.
 * A worker module answers each `{ id, ...input }` message with `{ id, ...output }` or `{ id, error }`; up to
 * `perWorker` jobs may be in flight on one worker (useful when jobs also wait on I/O). Under tsx/vitest the
 * worker is the .ts source and needs tsx's loader; from dist it is plain .js.
 */
export class WorkerPool<In, Out> {
  private readonly workers: Worker[] = [];
  private readonly inflight = new Map<Worker, number>();
  private readonly queue: { input: In; transfer: ArrayBuffer[]; resolve: (o: Out) => void; reject: (e: Error) => void }[] = [];
  private readonly pending = new Map<number, Job<Out>>();
  private nextId = 0;

  constructor(
    moduleUrl: URL,
    size = availableParallelism(),
    private readonly perWorker = 1,
  ) {
    const ts = moduleUrl.pathname.endsWith(".ts");
    for (let i = 0; i < Math.max(1, size); i++) {
      const worker = new Worker(ts ? tsBootstrap(moduleUrl) : moduleUrl);
      worker.on("message", (msg: { id: number; error?: string }) => this.settle(worker, msg));
      worker.on("error", (error) => this.fail(worker, error));
      this.workers.push(worker);
      this.inflight.set(worker, 0);
    }
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

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let best: Worker | undefined;
      for (const w of this.workers) if ((this.inflight.get(w) as number) < this.perWorker && (!best || (this.inflight.get(w) as number) < (this.inflight.get(best) as number))) best = w;
      if (!best) return;
      const job = this.queue.shift() as (typeof this.queue)[number];
      const id = this.nextId++;
      this.pending.set(id, { resolve: job.resolve, reject: job.reject, worker: best });
      this.inflight.set(best, (this.inflight.get(best) as number) + 1);
      best.postMessage({ id, ...(job.input as object) }, job.transfer);
    }
  }

  private settle(worker: Worker, msg: { id: number; error?: string }): void {
    const job = this.pending.get(msg.id);
    this.pending.delete(msg.id);
    this.inflight.set(worker, (this.inflight.get(worker) as number) - 1);
    if (msg.error !== undefined) job?.reject(new Error(msg.error));
    else job?.resolve(msg as Out);
    this.pump();
  }

  private fail(worker: Worker, error: Error): void {
    for (const [id, job] of this.pending) {
      if (job.worker !== worker) continue;
      this.pending.delete(id);
      job.reject(error);
    }
    this.inflight.set(worker, Number.POSITIVE_INFINITY); // never dispatch to a crashed worker again
  }
}
