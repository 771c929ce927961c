import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { TokenCredential } from "@azure/identity";
import type * as AzureBlob from "@azure/storage-blob";
import type { BlobServiceClient, BlockBlobClient, ContainerClient, StoragePipelineOptions } from "@azure/storage-blob";
import { sha256Hex } from "./digest.js";
import { lostWrite, writeConditionally } from "./conditional-write.js";
import {
  AccessDeniedError,
  InvalidRangeError,
  MisconfiguredError,
  NotFoundError,
  StoreError,
  UnavailableError,
} from "./errors.js";
import { compareKeys, inByteOrder, validateKey, validatePrefix } from "./keys.js";
import { presentBy } from "./get-if-present.js";
import { validateRange } from "./range.js";
import { DEFAULT_RETRY, withRetry } from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import { registerStoreScheme, splitAfterRoot } from "./schemes.js";
import type { StoreScheme } from "./schemes.js";
import { hasUserinfo, redact } from "./secrets.js";
import { bodyBytes, bodyParts, isStreamBody } from "./types.js";
import type {
  GetOptions,
  GetResult,
  ListEntry,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
  PutResult,
} from "./types.js";

/**
 * Azure Blob Storage (docs/azure.md): `az://<container>/<prefix>` or `azure://…`, on @azure/storage-blob.
 *
 * Promotion needs what Azure gives: Put Blob and Put Block List with `If-None-Match: *` (409 BlobAlreadyExists)
 * and `If-Match: <etag>` (412 ConditionNotMet). As on S3, the SDK's own retries are off: a blind retry of a
 * conditional write can turn our own success into a refusal. Idempotent calls are retried here; a conditional
 * write whose answer is lost is decided by reading the blob's `sha256` metadata back.
 */

/** Blocks of a large upload when the caller gives no memory setting (PutOptions.partBytes). */
const DEFAULT_BLOCK_BYTES = 64 * 2 ** 20;
/** Below this a block is too small to be worth a request. */
const MIN_BLOCK_BYTES = 64 * 1024;
/** Azure's limit of blocks in one blob: a huge body gets larger blocks than the memory setting asks for. */
const MAX_BLOCKS = 50_000;

export interface AzureStoreOptions {
  container: string;
  /** Key prefix inside the container, without leading or trailing '/'. */
  prefix?: string;
  /** The blob service URL, e.g. http://127.0.0.1:10000/devstoreaccount1 (Azurite) or a sovereign cloud's. */
  endpoint?: string;
  /** The storage account; needed with an account key or DefaultAzureCredential when no endpoint names it. */
  account?: string;
  retry?: RetryPolicy;
  /** Per-request limit; a conditional write that times out is decided by reading back. */
  requestTimeoutMs?: number;
  /** Environment to take credentials from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Blobs per List Blobs page (Azure's maximum, 5000, unless a test wants many pages). */
  listPageSize?: number;
}

type Failure = "not-found" | "precondition" | "ambiguous" | "transient" | "access" | "no-container" | "range" | "fatal";

interface AzureErrorLike {
  name?: string;
  code?: string;
  statusCode?: number;
  details?: { errorCode?: string };
}

const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const ACCESS = new Set([
  "AuthenticationFailed",
  "AuthorizationFailure",
  "AuthorizationPermissionMismatch",
  "AuthorizationSourceIPMismatch",
  "AuthorizationProtocolMismatch",
  "InvalidAuthenticationInfo",
  "InsufficientAccountPermissions",
  "AccountIsDisabled",
  "AuthenticationRequiredError",
]);
/** @azure/identity found no identity to sign in with: a setup problem, said as one. */
const NO_IDENTITY = new Set(["CredentialUnavailableError", "AggregateAuthenticationError"]);

const errorCode = (e: AzureErrorLike) => e.details?.errorCode ?? e.code ?? "";

/** What an Azure failure means for the caller; `conditional` for writes whose outcome a lost answer hides. */
function classify(error: unknown, conditional: boolean): Failure {
  const e = (error ?? {}) as AzureErrorLike;
  const code = errorCode(e);
  const status = e.statusCode;
  if (ACCESS.has(code) || ACCESS.has(e.name ?? "") || status === 401 || status === 403) return "access";
  if (code === "ContainerNotFound") return "no-container";
  if (code === "InvalidRange" || status === 416) return "range";
  if (status === 412 || code === "ConditionNotMet" || code === "BlobAlreadyExists") return "precondition";
  if (status === 404) return conditional ? "precondition" : "not-found";
  if (NOT_SENT.has(code)) return "transient";
  const lost = e.name === "AbortError" || code === "REQUEST_SEND_ERROR" || /^E[A-Z]+$/.test(code);
  if (lost || status === 429 || status === 408 || (status !== undefined && status >= 500))
    return conditional ? "ambiguous" : "transient";
  return "fatal";
}

function toStoreError(error: unknown, what: string, ctx: { key?: string; endpoint: string; container: string }) {
  const e = (error ?? {}) as AzureErrorLike;
  const code = errorCode(e) || e.name || "Error";
  const detail = `${code}${e.statusCode ? ` (HTTP ${e.statusCode})` : ""}`;
  const opts = { key: ctx.key, cause: error };
  const message = (error as Error | undefined)?.message ?? "";
  if (NO_IDENTITY.has(e.name ?? "")) {
    return new AccessDeniedError(
      `${what}: no Azure credentials: DefaultAzureCredential found no identity (AZURE_CLIENT_ID and a secret or certificate, workload identity, managed identity, az login). Set AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN, or sign in`,
      opts,
    );
  }
  if (/non-TLS|non-https/i.test(message)) {
    return new MisconfiguredError(
      `${what}: a signed-in identity needs an https endpoint, and ${ctx.endpoint} is not one; for a local server (Azurite) set AZURE_STORAGE_KEY or AZURE_STORAGE_CONNECTION_STRING`,
      opts,
    );
  }
  switch (classify(error, false)) {
    case "access":
      return new AccessDeniedError(
        `${what}: Azure refused the credentials: ${detail}. Check AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN, or the signed-in identity's role on the container (Storage Blob Data Contributor)`,
        opts,
      );
    case "no-container":
      return new MisconfiguredError(
        `${what}: container '${ctx.container}' does not exist at ${ctx.endpoint}; create it (az storage container create --name ${ctx.container}) or fix the store URL`,
        opts,
      );
    case "not-found":
      return new NotFoundError(`${what}: not found`, opts);
    case "range":
      return new InvalidRangeError(`${what}: byte range not satisfiable: ${detail}`, opts);
    case "transient":
      return new UnavailableError(
        `${what}: Azure endpoint ${ctx.endpoint} kept failing: ${detail}; is it reachable? Run again later`,
        opts,
      );
    default:
      // Not an answer from Azure: its own words say more than a name (redacted, as they may quote a URL).
      return new StoreError(
        `${what}: unexpected Azure error ${detail}${e.statusCode ? "" : `: ${redact(message).slice(0, 300)}`}`,
        opts,
      );
  }
}

/** Azure's container names: 3–63 of a-z, 0-9 and '-', starting and ending with a letter or digit, no "--". */
const CONTAINER = /^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** The service client, with credentials the Azure way (docs/azure.md): never from the URL, never printed. */
/** The SDK, loaded when the first Azure store opens: it takes ~0.4 s, which no other command should pay. */
let loaded: typeof AzureBlob | undefined;
const sdk = (): typeof AzureBlob =>
  (loaded ??= createRequire(import.meta.url)("@azure/storage-blob") as typeof AzureBlob);

function serviceClient(o: AzureStoreOptions): { client: BlobServiceClient; endpoint: string } {
  const { AnonymousCredential, BlobServiceClient, StorageSharedKeyCredential } = sdk();
  const env = o.env ?? process.env;
  const pipeline: StoragePipelineOptions = {
    retryOptions: { maxTries: 1 },
    userAgentOptions: { userAgentPrefix: "georefresh" },
  };
  const endpoint = o.endpoint ?? env.AZURE_STORAGE_BLOB_ENDPOINT;
  if (endpoint && (hasUserinfo(endpoint) || endpoint.includes("?"))) {
    throw new MisconfiguredError(
      `the Azure endpoint ${redact(endpoint)} carries credentials or a query; give the bare endpoint and set AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN instead`,
    );
  }
  const connection = env.AZURE_STORAGE_CONNECTION_STRING;
  if (connection && !endpoint) {
    let client: BlobServiceClient;
    try {
      client = BlobServiceClient.fromConnectionString(connection, pipeline);
    } catch {
      throw new MisconfiguredError(
        "AZURE_STORAGE_CONNECTION_STRING is not a valid connection string (its value is not shown); copy it again from the portal, or use AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY",
      );
    }
    return { client, endpoint: redact(client.url) };
  }
  const account = o.account ?? env.AZURE_STORAGE_ACCOUNT;
  const url = endpoint ?? (account ? `https://${account}.blob.core.windows.net` : undefined);
  if (!url) {
    throw new MisconfiguredError(
      "no Azure storage account: set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT (with AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or a signed-in identity), or add ?account=… to the store URL",
    );
  }
  const shown = redact(url.replace(/\/+$/, ""));
  if (env.AZURE_STORAGE_KEY) {
    if (!account)
      throw new MisconfiguredError("AZURE_STORAGE_KEY is set but AZURE_STORAGE_ACCOUNT is not: name the account");
    return {
      client: new BlobServiceClient(url, new StorageSharedKeyCredential(account, env.AZURE_STORAGE_KEY), pipeline),
      endpoint: shown,
    };
  }
  if (env.AZURE_STORAGE_SAS_TOKEN) {
    const sas = env.AZURE_STORAGE_SAS_TOKEN.replace(/^\?/, "");
    return { client: new BlobServiceClient(`${url}?${sas}`, new AnonymousCredential(), pipeline), endpoint: shown };
  }
  return { client: new BlobServiceClient(url, lazyIdentity(), pipeline), endpoint: shown };
}

/** DefaultAzureCredential (environment, workload or managed identity, az login), loaded on first use: it is large. */
function lazyIdentity(): TokenCredential {
  let credential: Promise<TokenCredential> | undefined;
  return {
    getToken: async (scopes, options) => {
      credential ??= import("@azure/identity").then((m) => new m.DefaultAzureCredential());
      return (await credential).getToken(scopes, options);
    },
  };
}

const unquote = (etag: string | undefined) => (etag ?? "").replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

/** Block ids: equal length within a blob, and unique per upload, since concurrent uploads share a blob's blocks. */
const blockId = (upload: string, n: number) =>
  Buffer.from(`${upload}-${String(n).padStart(6, "0")}`).toString("base64");

export class AzureStore implements ObjectStore {
  readonly url: string;
  readonly prefersListing = true;
  readonly container: string;
  readonly prefix: string;
  readonly endpoint: string;
  private readonly blobs: ContainerClient;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly pageSize: number;

  constructor(options: AzureStoreOptions) {
    if (!CONTAINER.test(options.container)) {
      throw new MisconfiguredError(
        `'${options.container}' is not an Azure container name: 3 to 63 lower-case letters, digits and single '-', starting and ending with a letter or digit`,
      );
    }
    this.container = options.container;
    this.prefix = options.prefix ? validateKey(options.prefix) : "";
    this.url = `az://${this.container}${this.prefix ? `/${this.prefix}` : ""}`;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.pageSize = options.listPageSize ?? 5000;
    const { client, endpoint } = serviceClient(options);
    this.endpoint = endpoint;
    this.blobs = client.getContainerClient(this.container);
  }

  locate(key: string): string {
    return `az://${this.container}/${this.fullKey(key)}`;
  }

  async head(key: string): Promise<ObjectMeta> {
    const p = await this.call(`HEAD ${this.locate(key)}`, key, (signal) =>
      this.blob(key).getProperties({ abortSignal: signal }),
    );
    return { key, size: p.contentLength ?? 0, version: unquote(p.etag), lastModified: p.lastModified ?? new Date(0) };
  }

  async exists(key: string): Promise<boolean> {
    return presentBy(this.head(key));
  }

  async get(key: string, options?: GetOptions): Promise<GetResult> {
    const blob = this.blob(key);
    const range = options?.range && validateRange(options.range, key);
    if (range?.length === 0) return { meta: await this.head(key), body: new Uint8Array(0) };
    try {
      return await this.call(`GET ${this.locate(key)}`, key, async (signal) => {
        const out = await blob.download(range?.offset ?? 0, range?.length, { abortSignal: signal });
        const parts: Buffer[] = [];
        for await (const chunk of out.readableStreamBody ?? []) parts.push(chunk as Buffer);
        const body = new Uint8Array(Buffer.concat(parts));
        const total = out.contentRange
          ? Number(out.contentRange.split("/")[1])
          : (out.contentLength ?? body.byteLength);
        const meta = { key, size: total, version: unquote(out.etag), lastModified: out.lastModified ?? new Date(0) };
        return { meta, body };
      });
    } catch (error) {
      // Azure refuses any range of an empty blob; HTTP (and every other store) answers bytes 0.. with nothing.
      if (error instanceof InvalidRangeError && range?.offset === 0) {
        const meta = await this.head(key);
        if (meta.size === 0) return { meta, body: new Uint8Array(0) };
      }
      throw error;
    }
  }

  /**
   * Every blob carries its sha256 as metadata, so reading back an unknown outcome is one HEAD. Up to one block,
   * the bytes go in one Put Blob; a larger StreamBody is staged in blocks and committed by one Put Block List,
   * which carries the same conditions (Azure and Azurite honour them there: docs/azure.md).
   */
  async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    const blob = this.blob(key);
    const mode = options?.mode ?? "overwrite";
    const size = isStreamBody(body) ? body.size : body.byteLength;
    const blockBytes = Math.max(
      MIN_BLOCK_BYTES,
      options?.partBytes ?? DEFAULT_BLOCK_BYTES,
      Math.ceil(size / MAX_BLOCKS),
    );
    const headers = options?.contentType ? { blobContentType: options.contentType } : undefined;
    if (isStreamBody(body) && body.size > blockBytes) {
      // Refused before the bytes travel; the commit's condition still decides a race.
      if (mode !== "overwrite") {
        const current = await this.currentVersion(key);
        if (mode === "create" ? current !== undefined : current !== mode.update)
          throw lostWrite(this.locate(key), key, mode, current);
      }
      const upload = randomUUID().slice(0, 8);
      const ids: string[] = [];
      for await (const part of bodyParts(body, blockBytes)) {
        const id = blockId(upload, ids.length);
        await this.call(`stage block ${ids.length} of ${this.locate(key)}`, key, (signal) =>
          blob.stageBlock(id, part, part.byteLength, { abortSignal: signal }),
        );
        ids.push(id);
      }
      return this.write(key, body.sha256, mode, (conditions, signal) =>
        blob.commitBlockList(ids, {
          conditions,
          metadata: { sha256: body.sha256 },
          blobHTTPHeaders: headers,
          abortSignal: signal,
        }),
      );
    }
    // Up to one block, a stream is read into one buffer (bounded by the block size the caller allowed).
    const bytes = isStreamBody(body) ? await bodyBytes(body) : body;
    const sha256 = sha256Hex(bytes);
    return this.write(key, sha256, mode, (conditions, signal) =>
      blob.upload(bytes, bytes.byteLength, {
        conditions,
        metadata: { sha256 },
        blobHTTPHeaders: headers,
        abortSignal: signal,
      }),
    );
  }

  async delete(key: string): Promise<void> {
    const blob = this.blob(key);
    await this.call(`DELETE ${this.locate(key)}`, key, (signal) =>
      blob.deleteIfExists({ deleteSnapshots: "include", abortSignal: signal }),
    );
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    validatePrefix(prefix);
    const after = options?.startAfter;
    for await (const entry of inByteOrder(this.pages(prefix, false))) {
      // List Blobs has no StartAfter (its marker is opaque): skipped here, after the byte order is restored.
      if (after === undefined || compareKeys(entry.key, after) > 0) yield entry;
    }
  }

  async close(): Promise<void> {
    // The SDK's HTTP client holds no resources a process must release.
  }

  /**
   * Blobs of writers that staged blocks and never committed (MultipartUploads): listed with uncommitted blobs,
   * empty, older than `before`, and absent on HEAD. The upload id is the listing's timestamp, which abortUpload
   * makes a condition, so a blob committed since is never deleted.
   */
  async *staleUploads(before: Date): AsyncIterable<{ key: string; uploadId: string; initiated: Date }> {
    for await (const entry of this.pages("", true)) {
      if (entry.size !== 0 || entry.lastModified >= before || (await this.exists(entry.key))) continue;
      yield { key: entry.key, uploadId: entry.lastModified.toISOString(), initiated: entry.lastModified };
    }
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    const since = new Date(uploadId);
    if (Number.isNaN(since.getTime())) throw new MisconfiguredError(`${uploadId} is not an upload of this Azure store`);
    if (await this.exists(key)) return; // committed meanwhile: not an upload any more
    await this.call(`remove uncommitted blocks of ${this.locate(key)}`, key, (signal) =>
      this.blob(key)
        .delete({ conditions: { ifUnmodifiedSince: since }, abortSignal: signal })
        .catch((error: unknown) => (classify(error, false) === "precondition" ? undefined : Promise.reject(error))),
    );
  }

  /** Each page from a fresh iterator, so a retried page resumes at its token instead of ending the listing. */
  private async *pages(prefix: string, uncommitted: boolean): AsyncGenerator<ListEntry> {
    const base = this.prefix ? `${this.prefix}/` : "";
    let token: string | undefined;
    do {
      const page = await this.call(`LIST ${this.url}/${prefix}`, undefined, async (signal) => {
        const next = await this.blobs
          .listBlobsFlat({ prefix: base + prefix, includeUncommitedBlobs: uncommitted, abortSignal: signal })
          .byPage({ maxPageSize: this.pageSize, ...(token ? { continuationToken: token } : {}) })
          .next();
        return next.done ? undefined : next.value;
      });
      for (const item of page?.segment.blobItems ?? []) {
        // Directory markers of accounts with a hierarchical namespace are no key of ours.
        if (item.name.endsWith("/")) continue;
        yield {
          key: item.name.slice(base.length),
          size: item.properties.contentLength ?? 0,
          lastModified: item.properties.lastModified,
          ...(item.properties.etag ? { version: unquote(item.properties.etag) } : {}),
        };
      }
      token = page?.continuationToken || undefined;
    } while (token);
  }

  private fullKey(key: string): string {
    validateKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  private blob(key: string): BlockBlobClient {
    return this.blobs.getBlockBlobClient(this.fullKey(key));
  }

  private ctx(key?: string) {
    return { key, endpoint: this.endpoint, container: this.container };
  }

  /** An idempotent call, retried on transient failures, each try under the request time limit. */
  private async call<T>(what: string, key: string | undefined, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await withRetry(
        () => send(AbortSignal.timeout(this.timeoutMs)),
        (e) => classify(e, false) === "transient",
        this.retry,
      );
    } catch (error) {
      throw error instanceof StoreError ? error : toStoreError(error, what, this.ctx(key));
    }
  }

  /**
   * One write (Put Blob or Put Block List) under the mode's condition: an overwrite is idempotent and retried as
   * such; a create or update goes through the shared protocol for lost answers (conditional-write.ts).
   */
  private async write(
    key: string,
    sha256: string,
    mode: PutMode,
    send: (conditions: { ifNoneMatch?: string; ifMatch?: string }, signal: AbortSignal) => Promise<{ etag?: string }>,
  ): Promise<PutResult> {
    const where = this.locate(key);
    if (mode === "overwrite")
      return { version: unquote((await this.call(`PUT ${where}`, key, (signal) => send({}, signal))).etag) };
    const conditions = mode === "create" ? { ifNoneMatch: "*" } : { ifMatch: `"${mode.update}"` };
    return writeConditionally({
      where,
      key,
      mode,
      sha256,
      retry: this.retry,
      send: async () => unquote((await send(conditions, AbortSignal.timeout(this.timeoutMs))).etag),
      classify: (error) => {
        const failure = classify(error, true);
        return failure === "precondition" || failure === "ambiguous" || failure === "transient" ? failure : "fatal";
      },
      readBack: () => this.readBack(key),
      refused: async () => lostWrite(where, key, mode, mode === "create" ? undefined : await this.currentVersion(key)),
      fail: (error, what) => toStoreError(error, what, this.ctx(key)),
    });
  }

  private async currentVersion(key: string): Promise<string | undefined> {
    return this.head(key).then(
      (m) => m.version,
      (error: unknown) => (error instanceof NotFoundError ? undefined : Promise.reject(error)),
    );
  }

  /** The stored blob's sha256 (its metadata, or its bytes hashed when another tool wrote it) and version. */
  private async readBack(key: string): Promise<{ sha256: string; version: string } | undefined> {
    try {
      const p = await this.call(`HEAD ${this.locate(key)}`, key, (signal) =>
        this.blob(key).getProperties({ abortSignal: signal }),
      );
      if (p.metadata?.sha256) return { sha256: p.metadata.sha256, version: unquote(p.etag) };
      const { body, meta } = await this.get(key);
      return { sha256: sha256Hex(body), version: meta.version };
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }
}

/** `az://container[/prefix][?account=…&endpoint=…]` (or `azure://`) as store options; no secrets in the URL. */
export function azureOptions(url: string): AzureStoreOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MisconfiguredError(`cannot parse store URL ${redact(url)}: expected az://container/prefix`);
  }
  if (parsed.username || parsed.password) {
    throw new MisconfiguredError(
      "credentials do not belong in a store URL; use AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN",
    );
  }
  const q = parsed.searchParams;
  const unknown = [...q.keys()].filter((k) => k !== "account" && k !== "endpoint");
  if (unknown.length > 0) {
    throw new MisconfiguredError(
      `store URL ${redact(url)}: unknown parameter ${unknown.map((k) => `'${k}'`).join(", ")} (only account and endpoint); a SAS token goes in AZURE_STORAGE_SAS_TOKEN, never in the URL`,
    );
  }
  const container = parsed.hostname;
  if (!container) throw new MisconfiguredError(`store URL ${url} names no container: expected az://container/prefix`);
  // Taken from the raw text: URL parsing would quietly resolve "a/../b" to "b".
  const rawPath = url.slice(url.indexOf("://") + 3).split(/[?#]/)[0] ?? "";
  const slash = rawPath.indexOf("/");
  const prefix = slash < 0 ? "" : decodeURIComponent(rawPath.slice(slash + 1)).replace(/\/+$/, "");
  return {
    container,
    ...(prefix ? { prefix } : {}),
    ...(q.get("account") ? { account: q.get("account") as string } : {}),
    ...(q.get("endpoint") ? { endpoint: q.get("endpoint") as string } : {}),
  };
}

/** The az:// and azure:// schemes, registered when this module loads. */
export const azureScheme: StoreScheme = {
  schemes: ["az", "azure"],
  example: "az://container/prefix",
  open: (url) => new AzureStore(azureOptions(url)),
  split: splitAfterRoot("container"),
};

registerStoreScheme(azureScheme);
