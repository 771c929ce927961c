import { setTimeout as sleep } from "node:timers/promises";
import { AlreadyExistsError, PreconditionFailedError } from "./errors.js";
import type { StoreError } from "./errors.js";
import { backoffMs } from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import type { PutResult } from "./types.js";

/** The conditional put modes: create (If-None-Match: *) and compare-and-swap (If-Match). */
export type Condition = "create" | { update: string };

/** What one failed try means, as the backend's error classifier decides it. */
export type TryFailure = "precondition" | "ambiguous" | "transient" | "fatal";

/** The error a writer that lost gets: AlreadyExists for a create, PreconditionFailed for an update. */
export function lostWrite(where: string, key: string, mode: Condition, current: string | undefined): StoreError {
  if (mode === "create") return new AlreadyExistsError(`${where} already exists`, { key });
  return new PreconditionFailedError(
    current === undefined
      ? `${where} does not exist (expected version ${mode.update})`
      : `${where} changed: expected version ${mode.update}, found ${current}`,
    { key },
  );
}

export interface ConditionalWrite {
  where: string;
  key: string;
  mode: Condition;
  /** sha256 of the bytes being written, as the store records it beside them. */
  sha256: string;
  retry: RetryPolicy;
  /** One try; resolves to the new version. */
  send(): Promise<string>;
  classify(error: unknown): TryFailure;
  /** The stored sha256 and version, or undefined when the key is absent. */
  readBack(): Promise<{ sha256: string; version: string } | undefined>;
  /** After the store refused the condition: the error to throw, or "retry" (S3 learning its If-Match quoting). */
  refused(): Promise<StoreError | "retry">;
  /** The typed error for a failure that is not the condition's (with `what` happened). */
  fail(error: unknown, what: string): StoreError;
}

/**
 * One conditional write, as every backend that talks HTTP does it (docs/protocol.md): send; a refusal means
 * another writer got there first; a failure that never reached the store is sent again; a lost answer (timeout,
 * reset, 5xx) is decided by reading back: our sha256 there → ours; the expected state still there → send again;
 * anything else → lost, with the usual typed error.
 */
export async function writeConditionally(w: ConditionalWrite): Promise<PutResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { version: await w.send() };
    } catch (error) {
      const failure = w.classify(error);
      if (failure === "precondition") {
        const outcome = await w.refused();
        if (outcome === "retry") continue;
        throw outcome;
      }
      const giveUp = attempt + 1 >= w.retry.attempts;
      if (failure === "transient" && !giveUp) {
        await sleep(backoffMs(attempt, w.retry));
        continue;
      }
      if (failure !== "ambiguous") throw w.fail(error, `conditional PUT ${w.where}`);
      const stored = await w.readBack().catch((readError: unknown) => {
        throw w.fail(readError, `conditional PUT ${w.where} had an unknown outcome and reading it back failed`);
      });
      if (stored?.sha256 === w.sha256) return { version: stored.version };
      const stillExpected = w.mode === "create" ? stored === undefined : stored?.version === w.mode.update;
      if (!stillExpected) throw lostWrite(w.where, w.key, w.mode, stored?.version);
      if (giveUp) throw w.fail(error, `conditional PUT ${w.where}`);
      await sleep(backoffMs(attempt, w.retry));
    }
  }
}
