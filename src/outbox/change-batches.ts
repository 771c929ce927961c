import { createHash } from "node:crypto";
import { changeItems, readChangelog } from "../changes/change-items.js";
import type { ChangeItem } from "../changes/change-items.js";
import type { OutboxEvent } from "../manifest/outbox.js";
import type { ObjectStore } from "../store/types.js";

/**
 * What a transport sends: an event as recorded, or (events "changes") one batch of its change items. A batch's
 * `id` is `<event id>:<batch index>`, its idempotency key; each item carries its own (docs/changes.md).
 */
export type OutboxMessage = OutboxEvent & { batch?: { index: number; of: number }; items?: ChangeItem[] };

/** Items per POST: a body of about 300 KB. */
export const BATCH_ITEMS = 1000;

/** The messages one event is delivered as: itself, or its change set in batches (none when no key changed). */
export async function messagesOf(
  store: ObjectStore,
  event: OutboxEvent,
  batchItems = BATCH_ITEMS,
): Promise<OutboxMessage[]> {
  if (!event.changes) return [event];
  const bytes = (await store.get(event.changes.changelog)).body;
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== event.changes.sha256)
    throw new Error(
      `${store.locate(event.changes.changelog)} is not the changelog the event names (sha256 ${sha256.slice(0, 12)}…, expected ${event.changes.sha256.slice(0, 12)}…); left undelivered`,
    );
  const { key, rows } = readChangelog(bytes);
  const items = changeItems(event.dataset, event.region, key, rows);
  const of = Math.ceil(items.length / batchItems);
  return Array.from({ length: of }, (_, index) => ({
    ...event,
    id: `${event.id}:${index}`,
    batch: { index, of },
    items: items.slice(index * batchItems, (index + 1) * batchItems),
  }));
}
