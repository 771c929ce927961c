import { setTimeout as sleep } from "node:timers/promises";
import { readManifest } from "../manifest/codec.js";
import { encodeRecord, isBound, outboxPrefix, readRecord } from "../manifest/outbox.js";
import type { OutboxRecord } from "../manifest/outbox.js";
import type { Manifest } from "../manifest/types.js";
import { isStoreError, PreconditionFailedError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey } from "../manifest/layout.js";
import { messagesOf } from "./change-batches.js";
import type { OutboxMessage } from "./change-batches.js";
import type { OutboxTransport, SendResult } from "./transport.js";
import { webhookTransport } from "./webhook.js";

export { signature, webhookTarget } from "./webhook.js";

export interface DeliverOptions {
  /** Where events go; default: the webhook below. */
  transport?: OutboxTransport;
  /** The webhook URL, when no transport is given. */
  webhook?: string;
  /** HMAC-SHA256 key for the webhook's X-Georefresh-Signature header. */
  secret?: string;
  dataset?: string;
  /** POST attempts per event in this run (with backoff between them). */
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** Change items per message for events "changes" (default 1000). */
  batchItems?: number;
}

export type DeliveryStatus = "sent" | "already-sent" | "waiting" | "failed" | "claimed-elsewhere";

export interface DeliveryReport {
  counts: Record<DeliveryStatus, number>;
  events: { id: string; status: DeliveryStatus; detail?: string }[];
}

/**
 * Sends every pending outbox event through a transport (a webhook by default), at least once, with its id as the
 * idempotency key so the receiver applies it once. An event is sent only once its change is in the partition's manifest (current or
 * history); a claim by conditional write keeps concurrent deliverers from posting the same event together; a
 * success is recorded by conditional write too.
 */
export async function deliverOutbox(store: ObjectStore, opts: DeliverOptions): Promise<DeliveryReport> {
  const counts: Record<DeliveryStatus, number> = {
    sent: 0,
    "already-sent": 0,
    waiting: 0,
    failed: 0,
    "claimed-elsewhere": 0,
  };
  const events: DeliveryReport["events"] = [];
  const note = (id: string, status: DeliveryStatus, detail?: string) => {
    counts[status]++;
    events.push({ id, status, ...(detail ? { detail } : {}) });
  };
  const transport = opts.transport ?? webhookTransport({ webhook: opts.webhook ?? "", ...opts });
  const keys: string[] = [];
  for await (const e of store.list(outboxPrefix(opts.dataset))) if (e.key.endsWith(".json")) keys.push(e.key);
  for (const key of keys) {
    // One unreadable record or manifest is reported and the rest are still delivered.
    let found: Awaited<ReturnType<typeof readRecord>>;
    let manifest: Manifest | undefined;
    try {
      found = await readRecord(store, key);
      if (!found || found.record.status === "void") continue;
      const { event } = found.record;
      if (!isBound(key, event)) {
        throw new Error(
          `${store.locate(key)} is not the event its key names (tampered or corrupt); it was left untouched`,
        );
      }
      if (found.record.status === "sent") {
        note(event.id, "already-sent");
        continue;
      }
      manifest = (
        await readManifest(
          store,
          manifestKey({ dataset: event.dataset, region: event.region, date: event.logical_date }),
        )
      )?.manifest;
    } catch (error) {
      if (isStoreError(error) && !isStoreError(error, "SpecialFile")) throw error;
      note(key, "failed", error instanceof Error ? error.message : String(error));
      continue;
    }
    const { event } = found.record;
    const happened = manifest && [manifest.current, ...manifest.history].some((e) => e?.sha256 === event.sha256);
    if (!happened) {
      note(
        event.id,
        "waiting",
        "its change is not in the manifest (not promoted yet, or lost its race; gc removes stale ones)",
      );
      continue;
    }
    // Claim by a conditional write with a lease: of two deliverers racing for this event only one posts it, and
    // a deliverer that died mid-claim holds it only until the lease runs out.
    const now = Date.now();
    if (found.record.claimed_until && Date.parse(found.record.claimed_until) > now) {
      note(event.id, "claimed-elsewhere", `claimed until ${found.record.claimed_until}`);
      continue;
    }
    const attempts = opts.attempts ?? 5;
    const { timeoutMs } = transport;
    const lease = attempts * timeoutMs + (opts.backoffMs ?? 200) * 2 ** attempts * 1.5 + 30_000;
    let version: string;
    const claimed: OutboxRecord = {
      ...found.record,
      attempts: found.record.attempts + 1,
      claimed_until: new Date(now + lease).toISOString(),
    };
    try {
      version = (await store.put(key, encodeRecord(claimed), { mode: { update: found.version } })).version;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      note(event.id, "claimed-elsewhere");
      continue;
    }
    let messages: OutboxMessage[];
    let problem: string | undefined;
    try {
      messages = await messagesOf(store, event, opts.batchItems);
    } catch (error) {
      if (isStoreError(error) && !isStoreError(error, "SpecialFile") && !isStoreError(error, "NotFound")) throw error;
      messages = [];
      problem = error instanceof Error ? error.message : String(error);
    }
    // A change set goes batch by batch; each delivered batch is recorded, so a later deliver resumes after it.
    let outcome: SendResult = messages.length
      ? { ok: false, retry: true, detail: "" }
      : problem
        ? { ok: false, retry: false, detail: problem }
        : { ok: true, retry: false, detail: "no key changed: nothing to announce" };
    let current = claimed;
    for (const message of messages.slice(claimed.batches_sent ?? 0)) {
      outcome = { ok: false, retry: true, detail: "" };
      for (let attempt = 0; attempt < attempts && !outcome.ok && outcome.retry; attempt++) {
        if (attempt > 0) await sleep((opts.backoffMs ?? 200) * 2 ** (attempt - 1) * (0.5 + Math.random()));
        outcome = await transport.send(message);
      }
      if (!outcome.ok || !message.batch || message.batch.index + 1 === message.batch.of) break;
      current = { ...current, batches_sent: message.batch.index + 1 };
      try {
        version = (await store.put(key, encodeRecord(current), { mode: { update: version } })).version;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
        outcome = { ok: false, retry: true, detail: "another deliverer took the event over; it resumes from there" };
        break;
      }
    }
    if (outcome.ok && messages.length > 1)
      outcome = { ...outcome, detail: `${outcome.detail}, ${messages.length} batches` };
    const next: OutboxRecord = outcome.ok
      ? {
          ...current,
          status: "sent",
          last_error: null,
          claimed_until: null,
          ...(event.changes ? { batches_sent: messages.length } : {}),
        }
      : { ...current, last_error: outcome.detail, claimed_until: null };
    try {
      await store.put(key, encodeRecord(next), { mode: { update: version } });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error; // another deliverer recorded it meanwhile
    }
    note(event.id, outcome.ok ? "sent" : "failed", outcome.detail);
  }
  return { counts, events };
}
