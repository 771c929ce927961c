import { rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { redact } from "../store/secrets.js";
import { allowListOf } from "./address-policy.js";
import type { AllowList } from "./address-policy.js";
import { requestInput } from "./http-fetch.js";
import type { OpenResponse } from "./http-fetch.js";
import type { InputKind, ResolvedInput } from "./identity.js";
import { InputIdentityError } from "./identity-error.js";
import { copyToFile, inputCap, readCopy, tooLarge } from "./input-copy.js";
import type { LocalCopy } from "./input-copy.js";

/**
 * HTTP(S) inputs (Census TIGER, Natural Earth…). The identity is what the server vouches for, in this order: a
 * strong ETag; else Last-Modified with Content-Length; else the sha256 of the body. The prefix records which.
 * A validator means something only at its URL, so such an identity is located: the key also takes the canonical
 * URL (location), and two files with equal validators at two URLs are two inputs. The body is streamed to the
 * run's local copy, at most once per run however many partitions and workers read it, and checked again, so a
 * file replaced mid-run fails the run instead of mixing two versions.
 */

/** What the server vouches for, or undefined when only the bytes can say. */
function vouched(headers: IncomingMessage["headers"]): string | undefined {
  const etag = headers.etag;
  if (etag && !etag.startsWith("W/")) return `http-etag:${etag}`;
  const modified = headers["last-modified"];
  const length = headers["content-length"];
  const at = modified ? new Date(modified) : undefined;
  if (at && !Number.isNaN(at.getTime()) && length) return `http-modified:${at.toISOString()};${length}`;
  return undefined;
}

/** Query parameters that sign or authorise a request: they change per request and say nothing of the file. */
const SIGNING =
  /^(x-amz-[a-z-]+|x-goog-[a-z-]+|signature|expires|awsaccesskeyid|googleaccessid|key-pair-id|policy|sig|se|st|sp|sv|sr|spr|ss|srt|skoid|sktid|skt|ske|sks|skv|ses|token|access_token|api_key|apikey)$/i;

/** The URL a validator belongs to: normalised by WHATWG URL rules, without fragment, userinfo or signatures. */
export function canonicalLocation(uri: string): string {
  const url = new URL(uri);
  url.hash = "";
  url.username = "";
  url.password = "";
  for (const name of [...url.searchParams.keys()]) if (SIGNING.test(name)) url.searchParams.delete(name);
  return url.href;
}

/** A GET's body into the run's local copy, refused early when its declared length is over the cap. */
async function download(
  r: OpenResponse,
  shown: string,
): Promise<{ headers: IncomingMessage["headers"]; copy: LocalCopy }> {
  const cap = inputCap();
  const declared = Number(r.headers["content-length"]);
  if (Number.isFinite(declared) && declared > cap) throw tooLarge(shown, cap, `the server declares ${declared} bytes`);
  const copy = await copyToFile(r.body, shown, cap);
  if (Number.isFinite(declared) && r.headers["content-length"] !== undefined && copy.bytes !== declared) {
    await rm(copy.path, { force: true });
    throw new Error(`short body: ${copy.bytes} of ${declared} bytes`); // a network failure: retried
  }
  return { headers: r.headers, copy };
}

export async function resolveHttpInput(uri: string, allow: AllowList): Promise<ResolvedInput> {
  const parsed = new URL(uri);
  if (parsed.username || parsed.password)
    throw new InputIdentityError(
      `input ${parsed.protocol}//…@${parsed.host}${parsed.pathname}: credentials do not belong in an input URL`,
    );
  const shown = redact(uri);
  const cap = inputCap();
  const head = await requestInput(uri, "HEAD", allow, async (r) => {
    r.body.resume();
    return r.headers;
  }).catch((error: unknown) => {
    // Some servers refuse HEAD: identify by a GET instead.
    if (error instanceof InputIdentityError && /HTTP (405|501)\b/.test(error.message)) return undefined;
    throw error;
  });
  const declared = Number(head?.["content-length"]);
  if (Number.isFinite(declared) && declared > cap) throw tooLarge(shown, cap, `the server declares ${declared} bytes`);
  let identity = head && vouched(head);
  let copy: Promise<LocalCopy> | undefined;
  if (!identity) {
    const got = await requestInput(uri, "GET", allow, (r) => download(r, shown));
    identity = vouched(got.headers) ?? `sha256:${got.copy.sha256}`;
    copy = Promise.resolve(got.copy);
  }
  const expected = identity;
  const fetchCopy = async (): Promise<LocalCopy> => {
    const got = await requestInput(uri, "GET", allow, (r) => download(r, shown));
    const now = expected.startsWith("sha256:") ? `sha256:${got.copy.sha256}` : vouched(got.headers);
    if (now !== expected)
      throw new InputIdentityError(
        `input ${shown} changed during the run (${expected} → ${now ?? "no validator"}); run again`,
      );
    return got.copy;
  };
  const localCopy = () => {
    // One download per run: partitions sharing the file share this promise (a failed one is retried by the next).
    copy ??= fetchCopy().catch((error: unknown) => {
      copy = undefined;
      throw error;
    });
    return copy;
  };
  return {
    uri,
    identity: expected,
    ...(expected.startsWith("sha256:") ? {} : { location: canonicalLocation(uri) }),
    localCopy,
    read: async () => readCopy(await localCopy(), shown),
    path: async () => (await localCopy()).path,
  };
}

/** http(s) URLs, through the address policy (the task's allowed hosts added to the process's). */
export const httpInput: InputKind = {
  name: "http",
  matches: (uri) => /^https?:\/\//i.test(uri),
  resolve: (uri, context) => resolveHttpInput(uri, allowListOf(context.allowHosts)),
};
