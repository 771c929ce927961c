/**
 * The one interface every backend implements (fs, memory, s3, azure). Modelled on Rust object_store's PutMode:
 * the protocol needs exactly three kinds of write, and each backend proves them in test/store/conformance.test.ts.
 */

/**
 * - "overwrite": last writer wins.
 * - "create": succeeds only if the key is absent, else AlreadyExistsError. Atomic: of N concurrent creates,
 *   exactly one succeeds.
 * - { update: version }: succeeds only if the current version equals `version`, else
 *   PreconditionFailedError (also when the key is absent). Atomic compare-and-swap.
 */
export type PutMode = "overwrite" | "create" | { update: string };

export interface PutOptions {
  mode?: PutMode;
  contentType?: string;
  /**
   * The most bytes of a StreamBody the caller lets the store buffer at once (its memory setting). A store that
   * uploads in parts (S3) sends parts of this size, or its minimum part size if larger; default 64 MiB.
   */
  partBytes?: number;
}

/**
 * A body too large to hold as one buffer (a staged artifact): its size and sha256 known up front, its bytes
 * readable from the start as often as a retry needs. Every store accepts it wherever it accepts bytes.
 */
export interface StreamBody {
  readonly size: number;
  readonly sha256: string;
  chunks(): AsyncIterable<Uint8Array>;
}

export type PutBody = Uint8Array | StreamBody;

export const isStreamBody = (body: PutBody): body is StreamBody => !(body instanceof Uint8Array);

/** The whole of a body as one buffer: for the stores that keep objects in memory. */
export async function bodyBytes(body: PutBody): Promise<Uint8Array> {
  if (!isStreamBody(body)) return body;
  const parts: Uint8Array[] = [];
  for await (const chunk of body.chunks()) parts.push(chunk);
  return Buffer.concat(parts);
}

/** Cuts a body's chunks into parts of exactly `size` bytes (the last one shorter): one part is held at a time. */
export async function* bodyParts(body: StreamBody, size: number): AsyncGenerator<Uint8Array> {
  let part = new Uint8Array(size);
  let fill = 0;
  for await (const chunk of body.chunks()) {
    for (let at = 0; at < chunk.byteLength;) {
      const n = Math.min(size - fill, chunk.byteLength - at);
      part.set(chunk.subarray(at, at + n), fill);
      fill += n;
      at += n;
      if (fill === size) {
        yield part;
        part = new Uint8Array(size);
        fill = 0;
      }
    }
  }
  if (fill > 0) yield part.subarray(0, fill);
}

/**
 * A version is an opaque token that changes whenever the bytes change. On S3 it is the ETag (unquoted); on the
 * filesystem and in memory it is the sha256 of the bytes, so equal bytes give equal versions on those backends.
 */
export interface ObjectMeta {
  key: string;
  size: number;
  version: string;
  lastModified: Date;
}

export interface ListEntry {
  key: string;
  size: number;
  lastModified: Date;
  /** The object's version when the listing gives it for free (S3's ETag, memory); absent on the filesystem. */
  version?: string;
}

export interface ByteRange {
  offset: number;
  length: number;
}

export interface GetOptions {
  /** Read only these bytes; `meta.size` still gives the whole object's size. */
  range?: ByteRange;
}

export interface GetResult {
  meta: ObjectMeta;
  body: Uint8Array;
}

export interface PutResult {
  version: string;
}

export interface ListOptions {
  /** Resume after this key (exclusive), as in S3 ListObjectsV2 StartAfter. */
  startAfter?: string;
}

export interface ObjectStore {
  /** The URL this store was opened from, without credentials: for messages and manifests. */
  readonly url: string;
  /**
   * True where one LIST page (up to 1,000 keys) costs about what one HEAD costs, as on S3, so that checking many
   * keys under one prefix is cheaper by listing it. Absent or false on local stores, where a stat is cheaper.
   */
  readonly prefersListing?: boolean;
  /** Where a reader finds the object outside georefresh: an absolute path, or an s3:// URL. */
  locate(key: string): string;
  /** Throws NotFoundError when absent. */
  head(key: string): Promise<ObjectMeta>;
  /**
   * Whether an object is stored under the key. Same answer as head, often cheaper: the filesystem store answers
   * with one stat instead of hashing the file for its version.
   */
  exists(key: string): Promise<boolean>;
  /** Throws NotFoundError when absent. A reader never sees a partially written object. */
  get(key: string, options?: GetOptions): Promise<GetResult>;
  /** The bytes, or a StreamBody of them; the same contract either way (test/store/conformance.test.ts). */
  put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult>;
  /** Idempotent: deleting an absent key succeeds. */
  delete(key: string): Promise<void>;
  /** Every key that starts with `prefix`, in UTF-8 byte order, fetched page by page. */
  list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry>;
  close(): Promise<void>;
}

/** A store that can find and abort multipart uploads its writers never completed (S3). A capability, not a class. */
export interface MultipartUploads {
  staleUploads(before: Date): AsyncIterable<{ key: string; uploadId: string; initiated: Date }>;
  abortUpload(key: string, uploadId: string): Promise<void>;
}

export function hasMultipartUploads(store: ObjectStore): store is ObjectStore & MultipartUploads {
  const s = store as Partial<MultipartUploads>;
  return typeof s.staleUploads === "function" && typeof s.abortUpload === "function";
}

/**
 * A store that knows, without a request, the version one put of these bytes is given (fs and memory: their
 * sha256; S3: the MD5 ETag of a single-part PUT without SSE-KMS), so a writer of derived files (the STAC catalog)
 * can skip a put that would change nothing. A wrong prediction only costs the put. A capability, not a class.
 */
export interface PredictsVersions {
  versionFor(body: Uint8Array): string;
}

export function predictsVersions(store: ObjectStore): store is ObjectStore & PredictsVersions {
  return typeof (store as Partial<PredictsVersions>).versionFor === "function";
}
