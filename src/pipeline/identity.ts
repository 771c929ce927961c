import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { isObjectUrl, openObject } from "../store/open.js";
import { isDatasetInput, resolveDatasetInput } from "./dataset-input.js";
import { resolveHttpInput } from "./http-input.js";
import { InputIdentityError } from "./identity-error.js";
import { allowListOf } from "./address-policy.js";
import { copyToFile, inputCap, readCopy, tooLarge } from "./input-copy.js";
import type { LocalCopy } from "./input-copy.js";
import type { ObjectStore } from "../store/types.js";

/** An input as the run sees it: where it is, and what it is (content identity read once at run start). */
export interface ResolvedInput {
  uri: string;
  identity: string;
  /**
   * Where the identity holds, when it is a validator that means something only there (an HTTP ETag, an object's
   * version): the canonical URL, part of the key beside the identity. Absent for a sha256 of the bytes, which
   * needs no location (the same bytes at another path are the same input).
   */
  location?: string;
  /** The bytes, as identified (read on demand from the run's verified copy for remote inputs). */
  read(): Promise<Uint8Array>;
  /** A local file with the verified bytes, for inputs too large to hold in memory. */
  path(): Promise<string>;
  /** Remote inputs: the run's verified local copy (downloaded once), to hand to a partition worker. */
  localCopy?(): Promise<LocalCopy>;
}

/** A remote input a dispatcher already identified and downloaded: what a worker receives instead of the URL. */
export interface PreparedInput {
  identity: string;
  location?: string;
  copy: LocalCopy;
}

/** What the key takes of an input: its identity, and where that identity holds when it is located. */
export const keyedIdentity = (i: Pick<ResolvedInput, "identity" | "location">) =>
  i.location === undefined ? i.identity : `${i.identity} at ${i.location}`;

export { InputIdentityError };

/** One store per store URL for the whole process: N partitions reading objects of one bucket share a client. */
const stores = new Map<string, ObjectStore>();

function objectOf(uri: string): { store: ObjectStore; key: string } {
  const { store, key, storeUrl } = openObject(uri);
  const shared = stores.get(storeUrl);
  if (shared) {
    void store.close();
    return { store: shared, key };
  }
  stores.set(storeUrl, store);
  return { store, key };
}

/**
 * Identifies an input: an upstream dataset by its artifact's sha256 (dataset-input.ts), http(s) by what the server
 * vouches for (http-input.ts), an object URL of any registered store (s3://bucket/key, …) by its version token (the ETag
 * on S3; a HEAD), a local path or file:// by the sha256 of its bytes. Reading it later
 * checks the identity again, so a file that changed mid-run fails the run instead of mixing two versions.
 */
export async function resolveInput(
  uri: string,
  context: { store?: ObjectStore; allowHosts?: readonly string[]; prepared?: PreparedInput } = {},
): Promise<ResolvedInput> {
  if (context.prepared) return preparedInput(uri, context.prepared);
  if (/^https?:\/\//i.test(uri)) return resolveHttpInput(uri, allowListOf(context.allowHosts));
  if (isDatasetInput(uri)) {
    if (!context.store)
      throw new InputIdentityError(
        `input ${uri}: an upstream dataset is read from the run's store, and there is none here`,
      );
    return resolveDatasetInput(uri, context.store);
  }
  if (isObjectUrl(uri)) {
    let object: { store: ObjectStore; key: string };
    try {
      object = objectOf(uri);
    } catch (error) {
      throw new InputIdentityError(`input ${uri}: ${(error as Error).message}`);
    }
    const { store, key } = object;
    const head = await store.head(key);
    const identity = `etag:${head.version}`;
    const cap = inputCap();
    if (head.size > cap) throw tooLarge(uri, cap, `the object is ${head.size} bytes`);
    let copy: Promise<LocalCopy> | undefined;
    const localCopy = () => {
      copy ??= copyToFile(objectChunks(store, key, uri, head.version, head.size), uri, cap).catch((error: unknown) => {
        copy = undefined;
        throw error;
      });
      return copy;
    };
    return {
      uri,
      identity,
      location: store.locate(key),
      localCopy,
      read: async () => readCopy(await localCopy(), uri),
      path: async () => (await localCopy()).path,
    };
  }
  const path = uri.startsWith("file://") ? new URL(uri).pathname : uri;
  const identity = await sha256OfFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new InputIdentityError(`input ${uri} cannot be read: ${error.code ?? error.message}`);
  });
  const changed = (now: string) =>
    new InputIdentityError(`input ${uri} changed during the run (${identity} → ${now}); run again`);
  return {
    uri,
    identity,
    async read() {
      const bytes = await readFile(path);
      const now = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      if (now !== identity) throw changed(now);
      return bytes;
    },
    async path() {
      const now = await sha256OfFile(path);
      if (now !== identity) throw changed(now);
      return path;
    },
  };
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest("hex")}`;
}

/** An object's bytes by ranges of 8 MiB, each checked to come from the version identified at run start. */
async function* objectChunks(
  store: ObjectStore,
  key: string,
  uri: string,
  version: string,
  size: number,
): AsyncIterable<Uint8Array> {
  const step = 8 * 2 ** 20;
  // An empty object has no range to ask for: one plain GET.
  const ranges = size === 0 ? [undefined] : Array.from({ length: Math.ceil(size / step) }, (_, i) => i * step);
  for (const offset of ranges) {
    const got =
      offset === undefined
        ? await store.get(key)
        : await store.get(key, { range: { offset, length: Math.min(step, size - offset) } });
    if (got.meta.version !== version)
      throw new InputIdentityError(
        `input ${uri} changed during the run (etag:${version} → etag:${got.meta.version}); run again`,
      );
    yield got.body;
  }
}

/** A remote input a dispatcher downloaded: read from its verified copy, never fetched again. */
function preparedInput(uri: string, p: PreparedInput): ResolvedInput {
  return {
    uri,
    identity: p.identity,
    ...(p.location === undefined ? {} : { location: p.location }),
    localCopy: async () => p.copy,
    read: () => readCopy(p.copy, uri),
    path: async () => p.copy.path,
  };
}
