import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { isObjectUrl, openObject } from "../store/open.js";
import { isDatasetInput, resolveDatasetInput } from "./dataset-input.js";
import { resolveHttpInput } from "./http-input.js";
import { InputIdentityError } from "./identity-error.js";
import type { ObjectStore } from "../store/types.js";

/** An input as the run sees it: where it is, and what it is (content identity read once at run start). */
export interface ResolvedInput {
  uri: string;
  identity: string;
  read(): Promise<Uint8Array>;
}

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
export async function resolveInput(uri: string, context: { store?: ObjectStore } = {}): Promise<ResolvedInput> {
  if (/^https?:\/\//i.test(uri)) return resolveHttpInput(uri);
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
    return {
      uri,
      identity,
      async read() {
        const got = await store.get(key);
        if (`etag:${got.meta.version}` !== identity)
          throw new InputIdentityError(
            `input ${uri} changed during the run (${identity} → etag:${got.meta.version}); run again`,
          );
        return got.body;
      },
    };
  }
  const path = uri.startsWith("file://") ? new URL(uri).pathname : uri;
  const hash = createHash("sha256");
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (error) {
    throw new InputIdentityError(
      `input ${uri} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const identity = `sha256:${hash.digest("hex")}`;
  return {
    uri,
    identity,
    async read() {
      const bytes = await readFile(path);
      const now = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      if (now !== identity)
        throw new InputIdentityError(`input ${uri} changed during the run (${identity} → ${now}); run again`);
      return bytes;
    },
  };
}
