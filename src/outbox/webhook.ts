import { createHmac } from "node:crypto";
import { redact } from "../store/secrets.js";
import type { OutboxTransport, SendResult } from "./transport.js";

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
): Promise<SendResult> {
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
 * The webhook transport: one signed POST per event (X-Georefresh-Signature: HMAC-SHA256 of the body), its id as the
 * Idempotency-Key, user:pass@ in the URL sent as Basic auth and never printed.
 */
export function webhookTransport(opts: { webhook: string; secret?: string; timeoutMs?: number }): OutboxTransport {
  const target = webhookTarget(opts.webhook);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    name: "webhook",
    timeoutMs,
    send: (event) => post(target, JSON.stringify(event), event.id, opts.secret, timeoutMs),
  };
}
