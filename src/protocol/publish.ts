import { createHash } from "node:crypto";
import { awaitClearance } from "../manifest/condemn.js";
import type { Found } from "../manifest/condemn.js";
import { outboxKey, recordEvent } from "../manifest/outbox.js";
import type { OutboxEvent } from "../manifest/outbox.js";
import { promote } from "../manifest/promote.js";
import type { PromoteOutcome } from "../manifest/promote.js";
import type { Partition } from "../manifest/layout.js";
import type { ManifestEntry } from "../manifest/types.js";
import { AlreadyExistsError } from "../store/errors.js";
import type { ObjectStore, StreamBody } from "../store/types.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import type { Recorded } from "./record.js";

export class NonDeterministicError extends GeorefreshError {
  override readonly code: ErrorCode = "NonDeterministic";
}

export interface Publication {
  partition: Partition;
  mKey: string;
  aKey: string;
  /** The manifest as found at run start: the version the promotion may replace. */
  start: Found | undefined;
  entry: ManifestEntry;
  event: OutboxEvent;
  /** The validated artifact bytes this run holds (computed, or read from the existing artifact). */
  body: StreamBody;
  /** The memory setting's upload part size. */
  partBytes: number;
  /** The artifact was already stored when the run looked (a reconcile). */
  published: boolean;
  /** The changelog's bytes, stored write-once under entry.changes.changelog before the promotion. */
  changelog?: Uint8Array;
}

/** What publishing a recorded artifact came to, with the record it published. */
export interface Published {
  recorded: Recorded;
  promoted: Exclude<PromoteOutcome, { outcome: "moved" }>;
  /** The manifest version the promotion built on. */
  base: Found | undefined;
}

/** Steps 6–7 for a recorded artifact: the stage after record. */
export async function publish(recorded: Recorded): Promise<Published> {
  const { produced } = recorded.verified;
  const { plan } = produced;
  const { outcome: promoted, base } = await publishAndPromote(plan.options.store, {
    partition: plan.options.partition,
    mKey: plan.mKey,
    aKey: plan.aKey,
    start: plan.start,
    entry: recorded.entry,
    event: recorded.event,
    body: produced.staged,
    partBytes: produced.budget.partBytes,
    published: produced.reused,
    ...(recorded.changelog ? { changelog: recorded.changelog } : {}),
  });
  return { recorded, promoted, base };
}

/** How many times gc's bookkeeping may move the manifest under one run before it gives up as superseded. */
const MOVES = 8;

/**
 * Steps 6–7 of the protocol: publish the artifact write-once, record the outbox event, promote the manifest by
 * CAS. The artifact and event are (re-)ensured after reading the version the promotion builds on and never on
 * a version whose live gc condemnation names them, so gc cannot delete either under a promotion (docs/gc.md).
 */
export async function publishAndPromote(
  store: ObjectStore,
  pub: Publication,
): Promise<{ outcome: Exclude<PromoteOutcome, { outcome: "moved" }>; base: Found | undefined }> {
  const mine = [pub.aKey, outboxKey(pub.event.dataset, pub.event.id)];
  let base = pub.start;
  let checkFirst = pub.published;
  for (let move = 0; ; move++) {
    base = await awaitClearance(store, pub.mKey, base, mine);
    // Nothing to publish when the manifest already points at this key and these bytes: promote() writes nothing.
    const current = base?.manifest.current;
    if (current?.key !== pub.entry.key || current.sha256 !== pub.entry.sha256) {
      await ensureArtifact(store, pub.aKey, pub.body, pub.partBytes, checkFirst);
      if (pub.changelog && pub.entry.changes) await ensureChangelog(store, pub.entry.changes.changelog, pub.changelog);
      await recordEvent(store, pub.event);
    }
    const outcome = await promote(store, pub.mKey, base, pub.partition, pub.entry);
    if (outcome.outcome !== "moved") return { outcome, base };
    if (move >= MOVES)
      return { outcome: { outcome: "superseded", current: outcome.now?.manifest.current ?? null }, base };
    base = outcome.now;
    checkFirst = true; // gc may have deleted what this run published or found
  }
}

/**
 * The artifact is stored under its key with exactly these bytes: created write-once when absent (also when gc
 * removed it as an orphan: this run holds the validated bytes), compared when another writer got there first.
 */
async function ensureArtifact(
  store: ObjectStore,
  key: string,
  body: StreamBody,
  partBytes: number,
  checkFirst: boolean,
): Promise<void> {
  if (checkFirst && (await store.exists(key))) return;
  try {
    await store.put(key, body, { mode: "create", partBytes });
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
    if ((await storedSha256(store, key, partBytes)) !== body.sha256) {
      throw new NonDeterministicError(
        `${store.locate(key)} already holds different bytes for the same key: the task's output is not deterministic`,
      );
    }
  }
}

/** The changelog under its key, write-once: its key hashes both versions, so a second writer holds the same bytes. */
async function ensureChangelog(store: ObjectStore, key: string, bytes: Uint8Array): Promise<void> {
  try {
    await store.put(key, bytes, { mode: "create", contentType: "application/vnd.apache.parquet" });
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
    const stored = (await store.get(key)).body;
    if (createHash("sha256").update(stored).digest("hex") !== createHash("sha256").update(bytes).digest("hex"))
      throw new NonDeterministicError(
        `${store.locate(key)} already holds a different changelog for the same two versions: the change set is not deterministic`,
      );
  }
}

/** The sha256 of what the store holds under `key`, read in ranges of `chunk` bytes. */
async function storedSha256(store: ObjectStore, key: string, chunk: number): Promise<string> {
  const hash = createHash("sha256");
  const { size } = (await store.get(key, { range: { offset: 0, length: 0 } })).meta;
  for (let at = 0; at < size; at += chunk)
    hash.update((await store.get(key, { range: { offset: at, length: Math.min(chunk, size - at) } })).body);
  return hash.digest("hex");
}
