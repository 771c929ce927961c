import { lookup as dnsLookup } from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { GeorefreshError } from "../errors.js";
import { UnavailableError } from "../store/errors.js";
import { redact } from "../store/secrets.js";
import { checkAddress, checkHost, InputRefusedError } from "./address-policy.js";
import type { AllowList, Hop } from "./address-policy.js";
import { InputIdentityError, InputMissingError } from "./identity-error.js";

/**
 * One HTTP request of an input, on node:http so that every connection goes through our address check (DNS can
 * point a public name anywhere): redirects followed by hand within limits, transient failures retried with
 * backoff, refusals (an address, a status that is not the whole file) said at once and never retried.
 */
export interface HttpLimits {
  /** Per request, connect to last byte. */
  timeoutMs: number;
  /** Attempts per request on a network error, a timeout, 408, 429 or 5xx. */
  attempts: number;
  maxRedirects: number;
}

export function httpLimits(): HttpLimits {
  const n = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isSafeInteger(v) && v > 0 ? v : fallback;
  };
  return {
    timeoutMs: n("GEOREFRESH_HTTP_TIMEOUT_MS", 60_000),
    attempts: n("GEOREFRESH_HTTP_ATTEMPTS", 4),
    maxRedirects: 5,
  };
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** An open response: a 200 (or a HEAD's), with the URL it came from; `consume` reads or discards its body. */
export interface OpenResponse {
  status: number;
  headers: IncomingMessage["headers"];
  url: string;
  body: IncomingMessage;
  signal: AbortSignal;
}

/** A failure worth another attempt (network, timeout, 5xx): carries what to say when attempts run out. */
class Transient extends Error {}

/**
 * Sends `method` to `uri`, following redirects, retrying transient failures; hands the 200's response to
 * `consume` (which may fail with a Transient-worthy network error: the whole request is then retried).
 */
export async function requestInput<T>(
  uri: string,
  method: "HEAD" | "GET",
  allow: AllowList,
  consume: (response: OpenResponse) => Promise<T>,
  lim: HttpLimits = httpLimits(),
): Promise<T> {
  const shown = redact(uri);
  let last = "";
  for (let attempt = 1; attempt <= lim.attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 2)));
    const signal = AbortSignal.timeout(lim.timeoutMs);
    try {
      let url = new URL(uri);
      let from: string | undefined;
      for (let hop = 0; ; hop++) {
        const response = await send(
          url,
          method,
          { input: shown, host: url.hostname, redirectedFrom: from, allow },
          signal,
        );
        const location = response.headers.location;
        if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location) {
          response.resume();
          if (hop >= lim.maxRedirects)
            throw new InputIdentityError(`input ${shown}: more than ${lim.maxRedirects} redirects`);
          from = url.hostname;
          url = nextHop(shown, url, location);
          continue;
        }
        const status = response.statusCode ?? 0;
        if (retryable(status)) {
          response.resume();
          throw new Transient(`HTTP ${status}`);
        }
        if (status !== 200) {
          response.resume();
          throw notWhole(shown, url.href, uri, status, response);
        }
        try {
          return await consume({ status, headers: response.headers, url: url.href, body: response, signal });
        } catch (error) {
          response.destroy();
          throw error;
        }
      }
    } catch (error) {
      // Refusals (an address, a status, the size cap) are final: only the network and the server's 5xx retry.
      if (error instanceof GeorefreshError) throw error;
      last = signal.aborted
        ? `no answer within ${lim.timeoutMs} ms`
        : error instanceof Transient
          ? error.message
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }
  throw new UnavailableError(
    `input ${shown} kept failing (${last}, ${lim.attempts} attempts); is the server up? Run again later`,
  );
}

/** Only a 200 is the whole file: anything else says what came back (georefresh sends no Range or conditions). */
function notWhole(shown: string, at: string, uri: string, status: number, response: IncomingMessage): Error {
  const from = at === new URL(uri).href ? "" : ` (from ${redact(at)})`;
  if (status >= 200 && status < 300) {
    const range = response.headers["content-range"];
    return new InputIdentityError(
      `input ${shown}: HTTP ${status} ${response.statusMessage ?? ""}${range ? ` (Content-Range: ${range})` : ""}${from} is not the whole file; georefresh asked for all of it, so the server or a proxy between answered wrongly. Nothing was published`,
    );
  }
  if (status === 404 || status === 410)
    return new InputMissingError(
      `input ${shown}: HTTP ${status} ${response.statusMessage ?? ""}${from}: the server has no such file; check the URL`,
    );
  return new InputIdentityError(`input ${shown}: HTTP ${status} ${response.statusMessage ?? ""}${from}`.trimEnd());
}

/** A redirect's target: absolute, http(s) only, never from https down to http, never with credentials. */
function nextHop(shown: string, from: URL, location: string): URL {
  const next = new URL(location, from);
  if (next.protocol !== "http:" && next.protocol !== "https:")
    throw new InputIdentityError(
      `input ${shown}: redirected to ${next.protocol} URL; only http and https are followed`,
    );
  if (from.protocol === "https:" && next.protocol === "http:")
    throw new InputIdentityError(`input ${shown}: redirected from https to plain http (${next.origin}); refused`);
  if (next.username || next.password)
    throw new InputIdentityError(`input ${shown}: redirected to a URL with credentials; refused`);
  return next;
}

/** One request on one connection whose every address was checked first. */
function send(url: URL, method: "HEAD" | "GET", hop: Hop, signal: AbortSignal): Promise<IncomingMessage> {
  checkHost(hop);
  return new Promise((resolve, reject) => {
    let refused: Error | undefined;
    const lookup = (
      hostname: string,
      options: LookupOptions,
      callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, []);
        try {
          for (const a of addresses) checkAddress(hop, a.address);
        } catch (error) {
          refused = error as Error;
          return callback(refused, []);
        }
        if (options.all) callback(null, addresses);
        else callback(null, (addresses[0] as LookupAddress).address, (addresses[0] as LookupAddress).family);
      });
    };
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
      method,
      lookup: lookup as never,
      signal,
      headers: { "accept-encoding": "identity", "user-agent": "georefresh" },
    });
    req.on("socket", (socket) => {
      // The address really connected to, whatever resolved it. A kept-alive socket (Node's global agent keeps
      // them) is judged again as it is reused: it was opened under another request's policy, perhaps a wider one.
      const judge = () => {
        try {
          if (socket.remoteAddress) checkAddress(hop, socket.remoteAddress);
        } catch (error) {
          refused = error as Error;
          req.destroy(refused);
        }
      };
      if (socket.connecting) socket.once("connect", judge);
      else judge();
    });
    req.on("response", resolve);
    req.on("error", (error) => {
      if (refused) return reject(refused);
      reject(error);
    });
    req.end();
  });
}

export { InputRefusedError };
