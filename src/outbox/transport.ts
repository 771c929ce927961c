import type { OutboxMessage } from "./change-batches.js";

/** What one attempt to send an event came to: delivered, or why not and whether another attempt may succeed. */
export interface SendResult {
  ok: boolean;
  retry: boolean;
  detail: string;
}

/**
 * Where outbox events go (a webhook, a queue, a topic, a table). deliver.ts owns the protocol around it: which
 * events are due, the claim and lease that keep two deliverers from sending one event together, retries, and the
 * record of a success. A transport only sends, and must let the receiver apply an event once by its `id` (an
 * idempotency key, a deduplication id, a primary key). A new transport is one file exporting a factory.
 */
export interface OutboxTransport {
  name: string;
  /** The longest one send may take; sizes the claim's lease. */
  timeoutMs: number;
  /** One message: an event, or one batch of an event's change items (its `id` is the idempotency key). */
  send(message: OutboxMessage): Promise<SendResult>;
}
