import { createHash } from "node:crypto";
import { UnavailableError } from "../store/errors.js";
import type { ResolvedInput } from "./identity.js";
import { InputIdentityError } from "./identity-error.js";

/**
 * HTTP(S) inputs (Census TIGER, Natural Earth…). The identity is what the server vouches for, in this order: a
 * strong ETag; else Last-Modified with Content-Length; else the sha256 of the body. The prefix records which.
 * Reading checks it again, so a file replaced mid-run fails the run instead of mixing two versions; the body is
 * downloaded at most once per run however many partitions read it (the run caches the resolved input).
 */
export interface HttpInputLimits {
  /** Per request, connect to last byte. */
  timeoutMs: number;
  /** Attempts per request on a network error, a timeout, 429 or 5xx. */
  attempts: number;
  maxRedirects: number;
}

const LIMITS: HttpInputLimits = { timeoutMs: 60_000, attempts: 4, maxRedirects: 5 };

function limits(): HttpInputLimits {
  const n = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isSafeInteger(v) && v > 0 ? v : fallback;
  };
  return {
    timeoutMs: n("GEOREFRESH_HTTP_TIMEOUT_MS", LIMITS.timeoutMs),
    attempts: n("GEOREFRESH_HTTP_ATTEMPTS", LIMITS.attempts),
    maxRedirects: LIMITS.maxRedirects,
  };
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** One request, following redirects within limits and retrying transient failures with backoff. */
async function request(
  uri: string,
  method: "HEAD" | "GET",
  lim: HttpInputLimits,
): Promise<{ response: Response; body: Uint8Array }> {
  let last = "";
  for (let attempt = 1; attempt <= lim.attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 2)));
    try {
      let url = uri;
      for (let hop = 0; ; hop++) {
        const response = await fetch(url, { method, redirect: "manual", signal: AbortSignal.timeout(lim.timeoutMs) });
        if (response.status >= 300 && response.status < 400 && response.headers.get("location")) {
          await response.body?.cancel();
          if (hop >= lim.maxRedirects)
            throw new InputIdentityError(`input ${uri}: more than ${lim.maxRedirects} redirects`);
          url = nextHop(uri, url, response.headers.get("location") as string);
          continue;
        }
        if (retryable(response.status)) {
          await response.body?.cancel();
          last = `HTTP ${response.status}`;
          break;
        }
        if (!response.ok) {
          await response.body?.cancel();
          throw new InputIdentityError(
            `input ${uri}: HTTP ${response.status} ${response.statusText}${url === uri ? "" : ` (from ${url})`}`,
          );
        }
        return { response, body: method === "GET" ? new Uint8Array(await response.arrayBuffer()) : new Uint8Array() };
      }
    } catch (error) {
      if (error instanceof InputIdentityError) throw error;
      const e = error as Error & { cause?: { code?: string } };
      last = e.name === "TimeoutError" ? `no answer within ${lim.timeoutMs} ms` : (e.cause?.code ?? e.message);
    }
  }
  throw new UnavailableError(
    `input ${uri} kept failing (${last}, ${lim.attempts} attempts); is the server up? Run again later`,
  );
}

/** A redirect's target: absolute, http(s) only, never from https down to http. */
function nextHop(uri: string, from: string, location: string): string {
  const next = new URL(location, from);
  if (next.protocol !== "http:" && next.protocol !== "https:")
    throw new InputIdentityError(`input ${uri}: redirected to ${next.protocol} URL; only http and https are followed`);
  if (new URL(from).protocol === "https:" && next.protocol === "http:")
    throw new InputIdentityError(`input ${uri}: redirected from https to plain http (${next.origin}); refused`);
  if (next.username || next.password)
    throw new InputIdentityError(`input ${uri}: redirected to a URL with credentials; refused`);
  return next.href;
}

/** What the server vouches for, or undefined when only the bytes can say. */
function vouched(response: Response): string | undefined {
  const etag = response.headers.get("etag");
  if (etag && !etag.startsWith("W/")) return `http-etag:${etag}`;
  const modified = response.headers.get("last-modified");
  const length = response.headers.get("content-length");
  if (modified && length) return `http-modified:${new Date(modified).toISOString()};${length}`;
  return undefined;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

export async function resolveHttpInput(uri: string): Promise<ResolvedInput> {
  const parsed = new URL(uri);
  if (parsed.username || parsed.password)
    throw new InputIdentityError(
      `input ${parsed.protocol}//…@${parsed.host}${parsed.pathname}: credentials do not belong in an input URL`,
    );
  const lim = limits();
  let head = await request(uri, "HEAD", lim).catch((error: unknown) => {
    // Some servers refuse HEAD: identify by a GET instead.
    if (error instanceof InputIdentityError && /HTTP (405|501)/.test(error.message)) return undefined;
    throw error;
  });
  let identity = head && vouched(head.response);
  let body: Promise<Uint8Array> | undefined;
  if (!identity) {
    const got = await request(uri, "GET", lim);
    identity = vouched(got.response) ?? sha256(got.body);
    if (identity.startsWith("sha256:")) body = Promise.resolve(got.body);
    head = got;
  }
  const expected = identity;
  const download = async (): Promise<Uint8Array> => {
    const got = await request(uri, "GET", lim);
    const now = expected.startsWith("sha256:") ? sha256(got.body) : vouched(got.response);
    if (now !== expected)
      throw new InputIdentityError(
        `input ${uri} changed during the run (${expected} → ${now ?? "no validator"}); run again`,
      );
    return got.body;
  };
  return {
    uri,
    identity: expected,
    read() {
      // One download per run: partitions sharing the file share this promise (a failed one is retried by the next).
      body ??= download().catch((error: unknown) => {
        body = undefined;
        throw error;
      });
      return body;
    },
  };
}
