import { setTimeout as sleep } from "node:timers/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { lostWrite } from "./conditional-write.js";
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "./errors.js";
import type { StoreError } from "./errors.js";
import { backoffMs } from "./retry.js";
import { claimCreate } from "./s3-create-claim.js";
import type { ClaimTarget } from "./s3-create-claim.js";
import { classify } from "./s3-errors.js";
import { bodyParts } from "./types.js";
import type { PutMode, PutResult, StreamBody } from "./types.js";

/**
 * A StreamBody larger than one part, as an S3 multipart upload (docs/large-partitions.md). Parts are cut from the
 * body's chunks into buffers of `partBytes`, so one part at a time is held. Every object carries its sha256 as
 * x-amz-meta-sha256, so a read-back is a HEAD, not a download.
 *
 * Write-once: CompleteMultipartUpload carries If-None-Match: * (If-Match for an update). AWS honours it; Ceph RGW
 * ignores it (measured). So a create also asks HEAD before it starts and again after it completes: a key that
 * already exists, or holds another upload's sha256 afterwards, is reported as AlreadyExistsError, and the caller
 * compares the bytes there with its own, as for a single PUT. On a store that ignores the condition, two
 * completes of different bytes could still both succeed inside one HEAD's round trip; so creates also claim the
 * key first (s3-create-claim.ts) and complete one at a time.
 */

export interface MultipartTarget extends ClaimTarget {
  contentType?: string;
}

const unquote = (etag: string | undefined) => (etag ?? "").replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

async function storedSha(t: MultipartTarget): Promise<{ sha256?: string; version: string } | undefined> {
  try {
    const out = await t.client.send(new HeadObjectCommand({ Bucket: t.bucket, Key: t.key }));
    return { sha256: out.Metadata?.sha256, version: unquote(out.ETag) };
  } catch (error) {
    if (classify(error, false) === "not-found") return undefined;
    throw t.fail(error, `HEAD ${t.where}`);
  }
}

async function retried<T>(t: MultipartTarget, what: string, send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const kind = classify(error, false);
      if ((kind !== "transient" && kind !== "ambiguous") || attempt + 1 >= t.retry.attempts) throw t.fail(error, what);
      await sleep(backoffMs(attempt, t.retry));
    }
  }
}

function lost(t: MultipartTarget, mode: PutMode, current: string | undefined): StoreError {
  return lostWrite(t.where, t.storeKey, mode === "overwrite" ? { update: "" } : mode, current);
}

export async function putMultipart(
  t: MultipartTarget,
  body: StreamBody,
  partBytes: number,
  mode: PutMode,
): Promise<PutResult> {
  const before = await storedSha(t);
  if (mode === "create" && before) throw lost(t, mode, before.version);
  if (typeof mode === "object" && before?.version !== mode.update) throw lost(t, mode, before?.version);

  const created = await retried(t, `start multipart upload of ${t.where}`, () =>
    t.client.send(
      new CreateMultipartUploadCommand({
        Bucket: t.bucket,
        Key: t.key,
        ContentType: t.contentType,
        Metadata: { sha256: body.sha256 },
      }),
    ),
  );
  const UploadId = created.UploadId as string;
  try {
    const done: { ETag: string; PartNumber: number }[] = [];
    for await (const part of bodyParts(body, partBytes)) {
      const PartNumber = done.length + 1;
      const out = await retried(t, `upload part ${PartNumber} of ${t.where}`, () =>
        t.client.send(
          new UploadPartCommand({
            Bucket: t.bucket,
            Key: t.key,
            UploadId,
            PartNumber,
            Body: part,
            ContentLength: part.byteLength,
          }),
        ),
      );
      done.push({ ETag: out.ETag as string, PartNumber });
    }
    const condition =
      mode === "create" ? { IfNoneMatch: "*" } : typeof mode === "object" ? { IfMatch: `"${mode.update}"` } : {};
    // RGW ignores the complete's condition: a claim makes creates of one key complete one at a time.
    const release = mode === "create" ? await claimCreate(t, body.sha256) : undefined;
    try {
      if (mode === "create") {
        const taken = await storedSha(t);
        if (taken) throw lost(t, mode, taken.version);
      }
      const out = await t.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: t.bucket,
          Key: t.key,
          UploadId,
          MultipartUpload: { Parts: done },
          ...condition,
        }),
      );
      return await settle(t, body, mode, unquote(out.ETag));
    } catch (error) {
      if (error instanceof AlreadyExistsError || error instanceof PreconditionFailedError) throw error;
      const kind = classify(error, true);
      if (kind === "precondition") throw lost(t, mode, (await storedSha(t))?.version);
      if (kind !== "ambiguous" && kind !== "transient") throw t.fail(error, `complete multipart upload of ${t.where}`);
      // Outcome unknown: our sha256 there means it landed.
      const stored = await storedSha(t);
      if (stored?.sha256 === body.sha256) return { version: stored.version };
      throw t.fail(error, `complete multipart upload of ${t.where}`);
    } finally {
      await release?.();
    }
  } catch (error) {
    await t.client
      .send(new AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId }))
      .catch(() => undefined); // gc aborts what is left (MultipartUploads)
    throw error;
  }
}

/** After a create: another upload's sha256 at the key means its complete landed after ours. */
async function settle(t: MultipartTarget, body: StreamBody, mode: PutMode, version: string): Promise<PutResult> {
  if (mode !== "create") return { version };
  const after = await storedSha(t);
  if (!after) throw new NotFoundError(`${t.where} is missing right after its upload completed`, { key: t.storeKey });
  if (after.sha256 !== body.sha256) throw lost(t, mode, after.version);
  return { version: after.version };
}
