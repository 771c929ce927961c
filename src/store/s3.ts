import { createHash } from "node:crypto";
import { Agent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  AbortMultipartUploadCommand,
  ListMultipartUploadsCommand,
} from "@aws-sdk/client-s3";
import type { S3ClientConfig } from "@aws-sdk/client-s3";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { sha256Hex } from "./digest.js";
import { lostWrite, writeConditionally } from "./conditional-write.js";
import type { Condition } from "./conditional-write.js";
import { MisconfiguredError, NotFoundError } from "./errors.js";
import { validateKey, validatePrefix } from "./keys.js";
import { hasUserinfo, redact } from "./secrets.js";
import { presentBy } from "./get-if-present.js";
import { validateRange } from "./range.js";
import { DEFAULT_RETRY, withRetry } from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import { classify, toStoreError } from "./s3-errors.js";
import type {
  GetOptions,
  GetResult,
  ListEntry,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  PutBody,
  PutOptions,
  PutResult,
} from "./types.js";
import { bodyBytes, isStreamBody } from "./types.js";
import { putMultipart } from "./s3-multipart.js";

/** Parts of a multipart upload when the caller gives no memory setting (PutOptions.partBytes). */
const DEFAULT_PART_BYTES = 64 * 2 ** 20;
/** S3's smallest part but the last. GEOREFRESH_S3_MIN_PART_BYTES lowers it for a server configured so (the tests' RGW). */
const S3_MIN_PART_BYTES = 5 * 2 ** 20;

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket, without leading or trailing '/'. */
  prefix?: string;
  /** Defaults to AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL; unset means AWS itself. */
  endpoint?: string;
  region?: string;
  /** Defaults to true when a custom endpoint is set (Ceph, MinIO), false for AWS. */
  forcePathStyle?: boolean;
  /** Defaults to the SDK's provider chain (env, shared profile, SSO, instance role). */
  credentials?: S3ClientConfig["credentials"];
  retry?: RetryPolicy;
  /** Per-request limit; a conditional PUT that times out is resolved by re-reading. */
  requestTimeoutMs?: number;
  /** The smallest part the server accepts but the last (S3: 5 MiB, the default). */
  minPartBytes?: number;
}

/** ETags arrive quoted; versions are kept unquoted (RGW 16 matches If-Match only against the bare value). */
export function unquoteEtag(etag: string | undefined): string {
  return (etag ?? "").replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
}

/**
 * S3 backend on @aws-sdk/client-s3. The SDK's own retries are off (maxAttempts 1): a blind retry of a
 * conditional PUT can turn our own success into a 412. Idempotent calls are retried here with jittered backoff;
 * a conditional PUT whose outcome is unknown (5xx, 409 ConditionalRequestConflict, timeout, reset) is resolved
 * by reading the key back: our bytes there → success; the expected state still there → try again; anything
 * else → the caller lost, with the usual typed error.
 */
export class S3Store implements ObjectStore {
  readonly url: string;
  readonly prefersListing = true;
  readonly bucket: string;
  readonly prefix: string;
  readonly endpoint: string;
  private readonly client: S3Client;
  private readonly retry: RetryPolicy;
  /** How this store wants the ETag in If-Match; learnt from behaviour (see ifMatchRejectedOwnEtag). */
  private quoteIfMatch = false;
  private readonly minPartBytes: number;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ? validateKey(options.prefix) : "";
    const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    if (endpoint && hasUserinfo(endpoint)) {
      throw new MisconfiguredError(
        `the S3 endpoint ${redact(endpoint)} carries credentials in its URL; give the bare endpoint and set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or a profile) instead`,
      );
    }
    this.endpoint = endpoint ? redact(endpoint) : "AWS S3";
    this.url = `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ""}`;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.minPartBytes = options.minPartBytes ?? (Number(process.env.GEOREFRESH_S3_MIN_PART_BYTES) || S3_MIN_PART_BYTES);
    const region =
      options.region ??
      process.env.AWS_REGION ??
      process.env.AWS_DEFAULT_REGION ??
      (endpoint ? "us-east-1" : undefined);
    const timeout = options.requestTimeoutMs ?? 30_000;
    // Node 20 is this project's runtime; the SDK's "Node 22 from 2027" notice would only clutter every CLI run.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    this.client = new S3Client({
      ...(endpoint ? { endpoint } : {}),
      ...(region ? { region } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      forcePathStyle: options.forcePathStyle ?? endpoint !== undefined,
      maxAttempts: 1,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      requestHandler: new NodeHttpHandler({
        connectionTimeout: 5_000,
        requestTimeout: timeout,
        throwOnRequestTimeout: true,
        httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
      }),
    });
  }

  /** The ETag of a single-part PUT (every put of a Uint8Array is one): the bytes' MD5, unless the bucket encrypts with KMS. */
  versionFor(body: Uint8Array): string {
    return createHash("md5").update(body).digest("hex");
  }

  locate(key: string): string {
    return `s3://${this.bucket}/${this.fullKey(key)}`;
  }

  async head(key: string): Promise<ObjectMeta> {
    const Key = this.fullKey(key);
    const out = await this.call(`HEAD ${this.locate(key)}`, key, () =>
      this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key })),
    );
    return {
      key,
      size: out.ContentLength ?? 0,
      version: unquoteEtag(out.ETag),
      lastModified: out.LastModified ?? new Date(0),
    };
  }

  async exists(key: string): Promise<boolean> {
    return presentBy(this.head(key));
  }

  async get(key: string, options?: GetOptions): Promise<GetResult> {
    const Key = this.fullKey(key);
    const range = options?.range && validateRange(options.range, key);
    if (range?.length === 0) {
      return { meta: await this.head(key), body: new Uint8Array(0) };
    }
    const Range = range ? `bytes=${range.offset}-${range.offset + range.length - 1}` : undefined;
    return this.call(`GET ${this.locate(key)}`, key, async () => {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range }));
      const body = (await out.Body?.transformToByteArray()) ?? new Uint8Array(0);
      const total = out.ContentRange ? Number(out.ContentRange.split("/")[1]) : (out.ContentLength ?? body.byteLength);
      return {
        meta: { key, size: total, version: unquoteEtag(out.ETag), lastModified: out.LastModified ?? new Date(0) },
        body,
      };
    });
  }

  /**
   * Every object carries its sha256 as x-amz-meta-sha256, so reading back an unknown outcome is one HEAD. A
   * StreamBody up to one part is read into one buffer (a part's worth, which the caller allowed) and sent in one
   * PUT; a larger one goes up in parts (s3-multipart.ts).
   */
  async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    const Key = this.fullKey(key);
    const mode = options?.mode ?? "overwrite";
    const partBytes = Math.max(this.minPartBytes, options?.partBytes ?? DEFAULT_PART_BYTES);
    if (isStreamBody(body) && body.size > partBytes)
      return putMultipart(
        {
          client: this.client,
          bucket: this.bucket,
          key: Key,
          storeKey: key,
          where: this.locate(key),
          retry: this.retry,
          contentType: options?.contentType,
          fail: (error, what) => toStoreError(error, what, this.ctx(key)),
        },
        body,
        partBytes,
        mode,
      );
    // Up to one part, a stream is read into one buffer (bounded by the part size): a plain PUT is cheaper.
    const bytes = isStreamBody(body) ? await bodyBytes(body) : body;
    const sha256 = sha256Hex(bytes);
    const base = () => ({
      Bucket: this.bucket,
      Key,
      Body: bytes,
      ContentLength: bytes.byteLength,
      ContentType: options?.contentType,
      Metadata: { sha256 },
    });
    if (mode === "overwrite") {
      const out = await this.call(`PUT ${this.locate(key)}`, key, () => this.client.send(new PutObjectCommand(base())));
      return { version: unquoteEtag(out.ETag) };
    }
    return this.conditionalPut(key, sha256, mode === "create" ? undefined : mode.update, base);
  }

  async delete(key: string): Promise<void> {
    const Key = this.fullKey(key);
    await this.call(`DELETE ${this.locate(key)}`, key, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })),
    );
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    validatePrefix(prefix);
    const base = this.prefix ? `${this.prefix}/` : "";
    let token: string | undefined;
    let startAfter = options?.startAfter === undefined ? undefined : base + options.startAfter;
    do {
      const page = await this.call(`LIST ${this.url}/${prefix}`, undefined, () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: base + prefix,
            ContinuationToken: token,
            StartAfter: token ? undefined : startAfter,
          }),
        ),
      );
      for (const item of page.Contents ?? []) {
        // Console "folder" objects (zero bytes, key ending in '/') are no key of ours, and no valid key at all.
        if (item.Key === undefined || item.Key.endsWith("/")) continue;
        yield {
          key: item.Key.slice(base.length),
          size: item.Size ?? 0,
          lastModified: item.LastModified ?? new Date(0),
          ...(item.ETag ? { version: unquoteEtag(item.ETag) } : {}),
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      startAfter = undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** Multipart uploads under this store's prefix started before `before` (left by killed writers). */
  async *staleUploads(before: Date): AsyncIterable<{ key: string; uploadId: string; initiated: Date }> {
    const base = this.prefix ? `${this.prefix}/` : "";
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.call(`LIST uploads ${this.url}`, undefined, () =>
        this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: base,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        ),
      );
      for (const u of page.Uploads ?? []) {
        if (u.Key && u.UploadId && u.Initiated && u.Initiated < before)
          yield { key: u.Key.slice(base.length), uploadId: u.UploadId, initiated: u.Initiated };
      }
      if (!page.IsTruncated) return;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    const Key = this.fullKey(key);
    await this.call(`ABORT upload ${this.locate(key)}`, key, () =>
      this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: uploadId })),
    );
  }

  private fullKey(key: string): string {
    validateKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  private ctx(key?: string) {
    return { key, endpoint: this.endpoint, bucket: this.bucket };
  }

  /** An idempotent call, retried on transient failures, with errors mapped to typed store errors. */
  private async call<T>(what: string, key: string | undefined, send: () => Promise<T>): Promise<T> {
    try {
      return await withRetry(send, (e) => classify(e, false) === "transient", this.retry);
    } catch (error) {
      throw toStoreError(error, what, this.ctx(key));
    }
  }

  private async conditionalPut(
    key: string,
    sha256: string,
    expected: string | undefined,
    base: () => ConstructorParameters<typeof PutObjectCommand>[0],
  ): Promise<PutResult> {
    const where = this.locate(key);
    const mode: Condition = expected === undefined ? "create" : { update: expected };
    let formFlipped = false;
    return writeConditionally({
      where,
      key,
      mode,
      sha256,
      retry: this.retry,
      send: async () => {
        const condition =
          expected === undefined ? { IfNoneMatch: "*" } : { IfMatch: this.quoteIfMatch ? `"${expected}"` : expected };
        return unquoteEtag((await this.client.send(new PutObjectCommand({ ...base(), ...condition }))).ETag);
      },
      classify: (error) => {
        const failure = classify(error, true);
        return failure === "precondition" || failure === "ambiguous" || failure === "transient" ? failure : "fatal";
      },
      readBack: () => this.readBack(key),
      refused: async () => {
        if (expected === undefined) return lostWrite(where, key, mode, undefined);
        const current = await this.currentVersion(key);
        if (current === expected && !formFlipped) {
          // The store refused its own current ETag: it wants the other quoting. Learn it and retry once.
          this.quoteIfMatch = !this.quoteIfMatch;
          formFlipped = true;
          return "retry";
        }
        if (current === expected) {
          return new MisconfiguredError(
            `${where}: the store rejects If-Match with its own current ETag in either form; it cannot be used for promotion`,
            { key },
          );
        }
        return lostWrite(where, key, mode, current);
      },
      fail: (error, what) => toStoreError(error, what, this.ctx(key)),
    });
  }

  private async currentVersion(key: string): Promise<string | undefined> {
    try {
      return (await this.head(key)).version;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  private async readBack(key: string): Promise<{ sha256: string; version: string } | undefined> {
    try {
      const head = await this.client
        .send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }))
        .catch((error: unknown) => (classify(error, false) === "not-found" ? undefined : Promise.reject(error)));
      if (!head) return undefined;
      if (head.Metadata?.sha256) return { sha256: head.Metadata.sha256, version: unquoteEtag(head.ETag) };
      const { body, meta } = await this.get(key); // written by another tool: hash the bytes
      return { sha256: sha256Hex(body), version: meta.version };
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }
}
