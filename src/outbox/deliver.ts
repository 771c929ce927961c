import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { readManifest } from "../manifest/codec.js";
import { encodeRecord, isBound, outboxPrefix, readRecord } from "../manifest/outbox.js";
import type { OutboxRecord } from "../manifest/outbox.js";
import type { Manifest } from "../manifest/types.js";
import { isStoreError, PreconditionFailedError } from "../store/errors.js";
import { redact } from "../store/secrets.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey } from "../manifest/layout.js";

export interface DeliverOptions {
  webhook: string;
  /** HMAC-SHA256 key for the X-Georefresh-Signature header. */
  secret?: string;
  dataset?: string;
  /** POST attempts per event in this run (with backoff between them). */
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
}

export type DeliveryStatus = "sent" | "already-sent" | "waiting" | "failed" | "claimed-elsewhere";

export interface DeliveryReport {
  counts: Record<DeliveryStatus, number>;
  events: { id: string; status: DeliveryStatus; detail?: string }[];
}

export function signature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The webhook's URL without userinfo, and that userinfo as a Basic Authorization header (never printed or stored). */
export function webhookTarget(webhook: string): { url: string; authorization?: string } {
  const u = new URL(webhook);
  if (!u.username && !u.password) return { url: u.href };
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
  u.username = "";
  u.password = "";
  return { url: u.href, authorization };
}

/**
 * One POST. Redirects are never followed: a 301/302 would turn the POST into a body-less GET that still
 * answers 200, and a 307/308 would hand the signed body and Idempotency-Key to whatever host it names. Only a
 * 2xx from the configured URL counts as delivered.
 */
async function post(
  target: { url: string; authorization?: string },
  body: string,
  id: string,
  secret: string | undefined,
  timeoutMs: number,
): Promise<{ ok: boolean; retry: boolean; detail: string }> {
  try {
    const res = await fetch(target.url, {
      method: "POST",
      body,
      redirect: "manual",
      headers: {
        "content-type": "application/json",
        "idempotency-key": id,
        ...(secret ? { "x-georefresh-signature": signature(secret, body) } : {}),
        ...(target.authorization ? { authorization: target.authorization } : {}),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { ok: true, retry: false, detail: `HTTP ${res.status}` };
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get("location");
      return {
        ok: false,
        retry: false,
        detail: redact(
          `HTTP ${res.status} redirect to ${location ?? "(no Location)"} — not followed; point --webhook at the final URL`,
        ),
      };
    }
    return {
      ok: false,
      retry: res.status >= 500 || res.status === 429 || res.status === 408,
      detail: `HTTP ${res.status}`,
    };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    return {
      ok: false,
      retry: true,
      detail: redact(
        e.name === "TimeoutError"
          ? `no answer within ${timeoutMs} ms`
          : `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ""}`,
      ),
    };
  }
}

/**
 * Sends every pending outbox event to a webhook, at least once, with its id as the Idempotency-Key so the
 * receiver applies it once. An event is sent only once its change is in the partition's manifest (current or
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
  const target = webhookTarget(opts.webhook);
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
    const timeoutMs = opts.timeoutMs ?? 10_000;
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
    const body = JSON.stringify(event);
    let outcome = { ok: false, retry: true, detail: "" };
    for (let attempt = 0; attempt < attempts && !outcome.ok && outcome.retry; attempt++) {
      if (attempt > 0) await sleep((opts.backoffMs ?? 200) * 2 ** (attempt - 1) * (0.5 + Math.random()));
      outcome = await post(target, body, event.id, opts.secret, timeoutMs);
    }
    const next: OutboxRecord = outcome.ok
      ? { ...claimed, status: "sent", last_error: null, claimed_until: null }
      : { ...claimed, last_error: outcome.detail, claimed_until: null };
    try {
      await store.put(key, encodeRecord(next), { mode: { update: version } });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error; // another deliverer recorded it meanwhile
    }
    note(event.id, outcome.ok ? "sent" : "failed", outcome.detail);
  }
  return { counts, events };
}
