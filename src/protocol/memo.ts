import { createHash } from "node:crypto";
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "../store/errors.js";
import { getIfPresent } from "../store/get-if-present.js";
import { NAME, NAME_RULE } from "../manifest/layout.js";
import type { ObjectStore } from "../store/types.js";
import { canonicalJson } from "./fingerprint.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * Memoized external calls (`ctx.memo`): a response is stored under a key derived from the task, the call's name
 * and the canonical request, and never asked for again. Before calling, a run claims the key (create-if-absent,
 * with a lease it renews while the call runs), so a concurrent twin waits for the response instead of calling
 * too, and a retry finds it stored. Only a run that dies between the service's answer and storing it makes the
 * service answer twice. Responses live under memo/ (gc: `--memo` removes old ones, which only costs a call).
 */
export const MEMO_PREFIX = "memo/";
/** A claim lapses this long after its holder stopped renewing it (a crashed run): its re-run waits that long. */
const leaseMs = () => Number(process.env.GEOREFRESH_MEMO_LEASE_MS) || 30_000;

export class MemoError extends GeorefreshError {
  override readonly code: ErrorCode = "Memo";
}

export interface MemoOptions {
  leaseMs?: number;
  pollMs?: number;
  /** Stops a wait on another run's claim (SIGTERM): the partition fails at once, having written nothing. */
  signal?: AbortSignal;
}

export function memoKey(task: string, name: string, request: unknown): string {
  if (!NAME.test(name)) throw new MemoError(`memo name ${JSON.stringify(name)} is not allowed: use ${NAME_RULE}`);
  let canonical: string;
  try {
    canonical = canonicalJson(request);
  } catch (error) {
    throw new MemoError(
      `ctx.memo(${JSON.stringify(name)}) in task ${task}: the request cannot be keyed: ${(error as Error).message} (the request is the memo's key; two different requests must never share one answer)`,
    );
  }
  const digest = createHash("sha256").update(canonical).digest("hex").slice(0, 32);
  return `${MEMO_PREFIX}${task}/${name}/${digest}.json`;
}

/** A stored memo object, or a MemoError that names it and says what to do: never a bare JSON.parse failure. */
function decode<T extends object>(
  store: ObjectStore,
  key: string,
  bytes: Uint8Array,
  what: string,
  fields: string[],
): T {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || fields.some((f) => !Object.hasOwn(value as object, f)))
    throw new MemoError(
      `${store.locate(key)} is not a memo ${what} (${fields.join(", ")} expected); something else wrote it. Delete it and run again (the call is made again)`,
    );
  return value as T;
}

async function stored(store: ObjectStore, key: string, request: unknown): Promise<{ response: unknown } | undefined> {
  const got = await getIfPresent(store, key);
  if (!got) return undefined;
  const record = decode<{ request: unknown; response: unknown }>(store, key, got.body, "record", [
    "request",
    "response",
  ]);
  // A digest collision or a tampered record must not hand one request another's answer.
  if (canonicalJson(record.request) !== canonicalJson(request))
    throw new MemoError(`${store.locate(key)} holds the answer to another request; delete it`);
  return { response: record.response };
}

export async function memoized<T>(
  store: ObjectStore,
  task: string,
  name: string,
  request: unknown,
  call: () => Promise<T>,
  options: MemoOptions = {},
): Promise<T> {
  const key = memoKey(task, name, request);
  const claimKey = key.replace(/\.json$/, ".claim");
  const lease = options.leaseMs ?? leaseMs();
  const claimBody = () => new TextEncoder().encode(JSON.stringify({ until: Date.now() + lease }));
  // A claim's holder renews it (a new version) every lease/3. One seen unchanged for longer than our own lease is
  // dead, whatever its `until` says: a clock far ahead or a hand-written claim cannot make us wait forever.
  let watched: { version: string; deadline: number } | undefined;
  for (;;) {
    const found = await stored(store, key, request);
    if (found) return found.response as T;
    let version: string | undefined;
    try {
      version = (await store.put(claimKey, claimBody(), { mode: "create" })).version;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      const claim = await store
        .get(claimKey)
        .catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
      if (!claim) continue; // released between our create and read: look again
      const { until } = decode<{ until: unknown }>(store, claimKey, claim.body, "claim", ["until"]);
      if (typeof until !== "number" || !Number.isFinite(until))
        throw new MemoError(
          `${store.locate(claimKey)} is not a memo claim ("until" must be a time in ms, got ${JSON.stringify(until)}). Delete it and run again`,
        );
      if (watched?.version !== claim.meta.version)
        watched = { version: claim.meta.version, deadline: Math.min(until, Date.now() + lease) };
      if (watched.deadline > Date.now()) {
        await pause(options.pollMs ?? 100, options.signal, store.locate(claimKey));
        continue; // a live claim: its holder is calling; wait for the answer
      }
      try {
        version = (await store.put(claimKey, claimBody(), { mode: { update: claim.meta.version } })).version; // its holder died: take over
      } catch (e) {
        if (e instanceof PreconditionFailedError || e instanceof NotFoundError || e instanceof AlreadyExistsError)
          continue;
        throw e;
      }
    }
    // The answer may have landed between our look and our claim (its caller stored it, then released the claim
    // we just took): look again before calling, or the service is asked twice.
    const landed = await stored(store, key, request).catch(async (error: unknown) => {
      await store.delete(claimKey).catch(() => undefined);
      throw error;
    });
    if (landed) {
      await store.delete(claimKey).catch(() => undefined);
      return landed.response as T;
    }
    return await callHolding(store, key, claimKey, version, request, call, lease, claimBody);
  }
}

/** Waits between looks at another run's claim; a stop request (SIGTERM) ends the wait with nothing written. */
async function pause(ms: number, signal: AbortSignal | undefined, claim: string): Promise<void> {
  const stopped = () =>
    new MemoError(`stopped while waiting for another run's call (${claim}); nothing was written, a re-run continues`);
  if (signal?.aborted) throw stopped();
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => (done(), reject(stopped()));
    const timer = setTimeout(() => (done(), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** With the claim held (and renewed): call once, store the answer write-once, release the claim. */
async function callHolding<T>(
  store: ObjectStore,
  key: string,
  claimKey: string,
  version: string,
  request: unknown,
  call: () => Promise<T>,
  lease: number,
  claimBody: () => Uint8Array,
): Promise<T> {
  let held = version;
  const renew = setInterval(
    () => {
      store.put(claimKey, claimBody(), { mode: { update: held } }).then(
        (r) => (held = r.version),
        () => undefined,
      );
    },
    Math.max(10, lease / 3),
  );
  try {
    const response = await call();
    const record = canonicalJson({ format: "georefresh.memo/1", request, response });
    try {
      await store.put(key, new TextEncoder().encode(record), { mode: "create", contentType: "application/json" });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      return (await stored(store, key, request))?.response as T; // stored by a run that took over: use its answer
    }
    // The caller sees exactly what a later run will read back.
    return JSON.parse(canonicalJson(response)) as T;
  } finally {
    clearInterval(renew);
    await store.delete(claimKey).catch(() => undefined);
  }
}
