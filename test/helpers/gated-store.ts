import type { GetOptions, ListOptions, ObjectStore, PutBody, PutOptions } from "../../src/store/types.js";
import { CrashError } from "./faulty-store.js";

export type Op = "head" | "exists" | "get" | "put" | "delete" | "list";
type Match = (op: Op, key: string, options?: PutOptions) => boolean;

/**
 * Wraps a store so a test can stop one caller at a chosen store call and let others run meanwhile: `hold`
 * parks the first matching call until released (a deterministic interleaving), `kill` makes the matching call
 * and every later one fail as a crashed process would, and `jitter` delays every call by a random few ms.
 */
export class GatedStore implements ObjectStore {
  private gates: { match: Match; arrived: () => void; released: Promise<void> }[] = [];
  private killer: Match | undefined;
  private dead = false;
  constructor(
    private readonly inner: ObjectStore,
    private readonly jitterMs = 0,
  ) {}

  get url() {
    return this.inner.url;
  }
  locate(key: string) {
    return this.inner.locate(key);
  }

  /**
   * Parks the first call that matches; `arrived` resolves when it is parked, `release` lets it go on.
   * `reachedBy(work)` is `arrived` for a caller that may end without getting there: it rejects with what the
   * work ended with instead of waiting forever (a hang would only say "timed out").
   */
  hold(match: Match): {
    arrived: Promise<void>;
    release: () => void;
    reachedBy: (work: Promise<unknown>) => Promise<void>;
  } {
    let release!: () => void;
    let arrived!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const arrival = new Promise<void>((r) => (arrived = r));
    this.gates.push({ match, arrived, released });
    const reachedBy = (work: Promise<unknown>) =>
      Promise.race([
        arrival,
        work.then(
          (v) => Promise.reject(new Error(`ended before reaching the gate, with ${JSON.stringify(v)?.slice(0, 600)}`)),
          (e) => Promise.reject(new Error(`failed before reaching the gate: ${e instanceof Error ? e.stack : e}`)),
        ),
      ]);
    return { arrived: arrival, release, reachedBy };
  }

  kill(match: Match): void {
    this.killer = match;
  }

  private async step<T>(op: Op, key: string, run: () => Promise<T>, options?: PutOptions): Promise<T> {
    if (this.dead) throw new CrashError(0);
    if (this.killer?.(op, key, options)) {
      this.dead = true;
      throw new CrashError(0);
    }
    if (this.jitterMs) await new Promise((r) => setTimeout(r, Math.random() * this.jitterMs));
    const gate = this.gates.find((g) => g.match(op, key, options));
    if (gate) {
      this.gates = this.gates.filter((g) => g !== gate);
      gate.arrived();
      await gate.released;
    }
    return run();
  }

  head(key: string) {
    return this.step("head", key, () => this.inner.head(key));
  }
  exists(key: string) {
    return this.step("exists", key, () => this.inner.exists(key));
  }
  get(key: string, o?: GetOptions) {
    return this.step("get", key, () => this.inner.get(key, o));
  }
  put(key: string, body: PutBody, o?: PutOptions) {
    return this.step("put", key, () => this.inner.put(key, body, o), o);
  }
  delete(key: string) {
    return this.step("delete", key, () => this.inner.delete(key));
  }
  async *list(prefix: string, o?: ListOptions) {
    const entries = await this.step("list", prefix, async () => {
      const out = [];
      for await (const e of this.inner.list(prefix, o)) out.push(e);
      return out;
    });
    yield* entries;
  }
  close() {
    return this.inner.close();
  }
}
