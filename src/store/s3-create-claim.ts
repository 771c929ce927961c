import { setTimeout as sleep } from "node:timers/promises";
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import type { S3Client } from "@aws-sdk/client-s3";
import type { StoreError } from "./errors.js";
import { backoffMs } from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import { classify } from "./s3-errors.js";

/**
 * Write-once for a multipart create on a store that ignores the conditions of CompleteMultipartUpload (Ceph RGW,
 * measured): before completing, a writer claims the key by a single conditional PUT (which RGW does honour) of
 * `_tmp/_claims/<key>` naming its sha256, checks the key is still free, completes, checks, and releases. So two
 * completes of different bytes never run at once: the second writer either waits out the first's claim and then
 * finds the key taken, or (the same sha256: a twin) completes the same bytes. A claim is a lease: one whose
 * holder died (its `until` passed) is taken over by a conditional PUT on its version; gc removes leftovers with
 * the other `_tmp/` keys.
 */
const LEASE_MS = 5 * 60_000;

/** The object being created. */
export interface ClaimTarget {
  client: S3Client;
  bucket: string;
  /** The full object key. */
  key: string;
  /** The store's own key, for errors. */
  storeKey: string;
  where: string;
  retry: RetryPolicy;
  /** Maps an SDK failure to the store's typed error. */
  fail: (error: unknown, what: string) => StoreError;
}
const POLL_MS = 200;

const claimKey = (t: ClaimTarget) => `${t.key.slice(0, t.key.length - t.storeKey.length)}_tmp/_claims/${t.storeKey}`;
const unquote = (etag: string | undefined) => (etag ?? "").replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

interface Claim {
  sha256: string;
  until: number;
  version: string;
}

async function readClaim(t: ClaimTarget, key: string): Promise<Claim | undefined> {
  try {
    const out = await t.client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key }));
    const doc = JSON.parse(await (out.Body as { transformToString(): Promise<string> }).transformToString()) as {
      sha256?: unknown;
      until?: unknown;
    };
    return {
      sha256: String(doc.sha256),
      until: typeof doc.until === "number" ? doc.until : 0,
      version: unquote(out.ETag),
    };
  } catch (error) {
    if (classify(error, false) === "not-found") return undefined;
    if (error instanceof SyntaxError) return { sha256: "", until: 0, version: "" }; // garbage: treat as lapsed
    throw t.fail(error, `read the create claim of ${t.where}`);
  }
}

/**
 * Holds the claim on `t`'s key for bytes `sha256` and returns its release; undefined when a twin (same sha256)
 * holds it, so this writer may complete the same bytes without one.
 */
export async function claimCreate(t: ClaimTarget, sha256: string): Promise<(() => Promise<void>) | undefined> {
  const key = claimKey(t);
  const body = () => JSON.stringify({ sha256, until: Date.now() + LEASE_MS });
  const put = (condition: { IfNoneMatch: string } | { IfMatch: string }) =>
    t.client.send(
      new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: body(), ContentType: "application/json", ...condition }),
    );
  const release = async () => {
    await t.client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key })).catch(() => undefined);
  };
  const deadline = Date.now() + 2 * LEASE_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await put({ IfNoneMatch: "*" });
      return release;
    } catch (error) {
      const kind = classify(error, true);
      if (kind === "transient" && attempt + 1 < t.retry.attempts) {
        await sleep(backoffMs(attempt, t.retry));
        continue;
      }
      if (kind !== "precondition" && kind !== "ambiguous") throw t.fail(error, `claim ${t.where} for its upload`);
    }
    // Taken (or our own answer was lost): whose, and for which bytes?
    const held = await readClaim(t, key);
    if (!held) continue; // released meanwhile: try again
    if (held.sha256 === sha256) return undefined; // a twin, or our own claim whose answer was lost: same bytes
    if (held.until > Date.now() && Date.now() < deadline) {
      await sleep(POLL_MS);
      continue;
    }
    try {
      await put({ IfMatch: `"${held.version}"` });
      return release;
    } catch (error) {
      const kind = classify(error, true);
      if (kind !== "precondition" && kind !== "ambiguous" && kind !== "transient")
        throw t.fail(error, `take over the lapsed create claim of ${t.where}`);
    }
  }
}
