import { createHash } from "node:crypto";
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "../store/errors.js";
import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";
import { canonicalJson } from "./fingerprint.js";
import { GeorefreshError } from "../errors.js";

/**
 * Memoized external calls (`ctx.memo`): a response is stored under a key derived from the task, the call's name
 * and the canonical request, and never asked for again. Before calling, a run claims the key (create-if-absent,
 * with a lease it renews while the call runs), so a concurrent twin waits for the response instead of calling
 * too, and a retry finds it stored. Only a run that dies between the service's answer and storing it makes the
 * service answer twice. Responses live under memo/ (gc: `--memo` removes old ones, which only costs a call).
 */
export const MEMO_PREFIX = "memo/";
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** A claim lapses this long after its holder stopped renewing it (a crashed run): its re-run waits that long. */
const leaseMs = () => Number(process.env.GEOREFRESH_MEMO_LEASE_MS) || 30_000;

export class MemoError extends GeorefreshError {}

export interface MemoOptions {
  leaseMs?: number;
  pollMs?: number;
}

export function memoKey(task: string, name: string, request: unknown): string {
  if (!NAME.test(name))
    throw new MemoError(`memo name ${JSON.stringify(name)} is not allowed: use letters, digits, '_', '.', '-'`);
  const digest = createHash("sha256").update(canonicalJson(request)).digest("hex").slice(0, 32);
  return `${MEMO_PREFIX}${task}/${name}/${digest}.json`;
}

const decode = (bytes: Uint8Array) =>
  JSON.parse(new TextDecoder().decode(bytes)) as { response: unknown; request: unknown };

async function stored(store: ObjectStore, key: string, request: unknown): Promise<{ response: unknown } | undefined> {
  const got = await getIfPresent(store, key);
  if (!got) return undefined;
  const record = decode(got.body);
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
      if ((JSON.parse(new TextDecoder().decode(claim.body)) as { until: number }).until > Date.now()) {
        await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
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
    return await callHolding(store, key, claimKey, version, request, call, lease, claimBody);
  }
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
