import { createHash } from "node:crypto";
import { AlreadyExistsError } from "../store/errors.js";
import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";

/**
 * Side effects of a promotion, as objects in the store. An event is keyed by the change it announces
 * (dataset, partition, sha256), created with If-None-Match before the manifest is promoted, so a crash between
 * the two can never lose it and a re-run of the same change never makes a second one. `deliver` sends it with its
 * id as the idempotency key and checks first that the change really happened (a run that lost the race leaves
 * an event that is voided, not sent).
 */
export interface OutboxEvent {
  id: string;
  dataset: string;
  region: string;
  logical_date: string;
  artifact: string;
  sha256: string;
  rows: number;
  previous_sha256: string | null;
  /**
   * With events "changes": the promotion's change set, announced one item per changed key (docs/changes.md).
   * `changelog` is its store key, `keys` how many keys changed.
   */
  changes?: {
    changelog: string;
    sha256: string;
    keys: number;
    against: { logical_date: string; sha256: string } | null;
  };
}

export interface OutboxRecord {
  event: OutboxEvent;
  status: "pending" | "sent" | "void";
  attempts: number;
  last_error: string | null;
  /** A deliverer working on it until then (wall clock; delivery bookkeeping only, never in a key). */
  claimed_until: string | null;
  /** Events "changes": how many batches of the change set were delivered (a later deliver resumes after them). */
  batches_sent?: number;
}

export const outboxPrefix = (dataset?: string) => `outbox/${dataset ? `${dataset}/` : ""}`;

export function outboxId(dataset: string, region: string, date: string, sha256: string): string {
  return createHash("sha256")
    .update(JSON.stringify([dataset, region, date, sha256]))
    .digest("hex")
    .slice(0, 32);
}

export const outboxKey = (dataset: string, id: string) => `${outboxPrefix(dataset)}${id}.json`;

/** An event is bound to its partition only when it is stored under the id its own content hashes to. */
export function isBound(key: string, e: Pick<OutboxEvent, "dataset" | "region" | "logical_date" | "sha256">): boolean {
  return outboxKey(e.dataset, outboxId(e.dataset, e.region, e.logical_date, e.sha256)) === key;
}

export function encodeRecord(r: OutboxRecord): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(r, null, 2)}\n`);
}

export function decodeRecord(bytes: Uint8Array, where: string): OutboxRecord {
  try {
    const r = JSON.parse(new TextDecoder().decode(bytes)) as OutboxRecord;
    if (typeof r.event?.id !== "string" || !["pending", "sent", "void"].includes(r.status))
      throw new Error("missing event.id or status");
    return r;
  } catch (error) {
    throw new Error(`${where} is not an outbox record (${(error as Error).message}); left untouched`);
  }
}

/** Records the event for a change; a second call for the same change finds it there and succeeds. */
export async function recordEvent(store: ObjectStore, event: OutboxEvent): Promise<void> {
  try {
    await store.put(
      outboxKey(event.dataset, event.id),
      encodeRecord({ event, status: "pending", attempts: 0, last_error: null, claimed_until: null }),
      { mode: "create", contentType: "application/json" },
    );
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
  }
}

export async function readRecord(
  store: ObjectStore,
  key: string,
): Promise<{ record: OutboxRecord; version: string } | undefined> {
  const got = await getIfPresent(store, key);
  return got && { record: decodeRecord(got.body, store.locate(key)), version: got.meta.version };
}
