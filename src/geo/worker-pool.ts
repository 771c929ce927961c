import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * A small pool of worker threads for CPU-heavy work (validation, encoding), so that every core works. Under
 * tsx/vitest the worker is the .ts source and needs tsx's loader; from dist it is plain .js.
 */
/** Loads a .ts worker through tsx's loader (Node 20 workers do not take --import in execArgv). */
function tsBootstrap(moduleUrl: URL): URL {
  // A data: URL cannot resolve bare specifiers, so tsx's ESM API is located here (its .mjs twin of the .cjs).
  const api = pathToFileURL(createRequire(moduleUrl).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(moduleUrl.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

export class WorkerPool<In, Out> {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: { input: In; transfer: ArrayBuffer[]; resolve: (o: Out) => void; reject: (e: Error) => void }[] = [];
  private readonly pending = new Map<Worker, { resolve: (o: Out) => void; reject: (e: Error) => void }>();
  private nextId = 0;

  constructor(moduleUrl: URL, size = availableParallelism()) {
    const ts = moduleUrl.pathname.endsWith(".ts");
    for (let i = 0; i < Math.max(1, size); i++) {
      const worker = new Worker(ts ? tsBootstrap(moduleUrl) : moduleUrl);
      worker.on("message", (msg: { error?: string } & Record<string, unknown>) => this.settle(worker, msg));
      worker.on("error", (error) => this.fail(worker, error));
      this.workers.push(worker);
      this.idle.push(worker);
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
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop() as Worker;
      const job = this.queue.shift() as (typeof this.queue)[number];
      this.pending.set(worker, job);
      worker.postMessage({ id: this.nextId++, ...(job.input as object) }, job.transfer);
    }
  }

  private settle(worker: Worker, msg: { error?: string } & Record<string, unknown>): void {
    const job = this.pending.get(worker);
    this.pending.delete(worker);
    this.idle.push(worker);
    if (msg.error !== undefined) job?.reject(new Error(msg.error));
    else job?.resolve(msg as Out);
    this.pump();
  }

  private fail(worker: Worker, error: Error): void {
    const job = this.pending.get(worker);
    this.pending.delete(worker);
    job?.reject(error);
  }
}
