import type { GetOptions, ListOptions, ObjectStore, PutBody, PutOptions } from "../../src/store/types.js";

/** What a process death looks like to the code that was running. */
export class CrashError extends Error {
  constructor(call: number) {
    super(`simulated crash at store call ${call}`);
    this.name = "CrashError";
  }
}

/**
 * Wraps a store and "kills the run" at its k-th call: either before the call reaches the store, or after a
 * write has landed but before its answer arrives (the ambiguous outcome). From then on every call fails, as
 * nothing runs after a crash (not even cleanup).
 */
export class FaultyStore implements ObjectStore {
  calls = 0;
  private dead = false;

  constructor(
    private readonly inner: ObjectStore,
    private readonly crashAt = Number.POSITIVE_INFINITY,
    private readonly mode: "before" | "after-landed" = "before",
  ) {}

  get url() {
    return this.inner.url;
  }
  locate(key: string) {
    return this.inner.locate(key);
  }

  private async step<T>(run: () => Promise<T>, write: boolean): Promise<T> {
    if (this.dead) throw new CrashError(this.calls);
    this.calls++;
    if (this.calls !== this.crashAt) return run();
    this.dead = true;
    if (this.mode === "after-landed" && write) await run().catch(() => undefined);
    throw new CrashError(this.calls);
  }

  head(key: string) {
    return this.step(() => this.inner.head(key), false);
  }
  exists(key: string) {
    return this.step(() => this.inner.exists(key), false);
  }
  get(key: string, o?: GetOptions) {
    return this.step(() => this.inner.get(key, o), false);
  }
  put(key: string, body: PutBody, o?: PutOptions) {
    return this.step(() => this.inner.put(key, body, o), true);
  }
  delete(key: string) {
    return this.step(() => this.inner.delete(key), true);
  }
  async *list(prefix: string, o?: ListOptions) {
    const entries = await this.step(async () => {
      const out = [];
      for await (const e of this.inner.list(prefix, o)) out.push(e);
      return out;
    }, false);
    yield* entries;
  }
  close() {
    return this.inner.close();
  }
}
