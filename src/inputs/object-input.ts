import { isObjectUrl, openObject } from "../store/schemes.js";
import type { ObjectStore } from "../store/types.js";
import type { InputKind, ResolvedInput } from "./identity.js";
import { NotFoundError } from "../store/errors.js";
import { InputIdentityError, InputMissingError } from "./identity-error.js";
import { copyToFile, inputCap, readCopy, tooLarge } from "./input-copy.js";
import type { LocalCopy } from "./input-copy.js";

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
 * An object URL of any registered store (s3://bucket/key, …), identified by its version token (the ETag on S3; a
 * HEAD) and read by ranges into one verified local copy per run.
 */
export const objectInput: InputKind = {
  name: "object",
  matches: isObjectUrl,
  async resolve(uri: string): Promise<ResolvedInput> {
    let object: { store: ObjectStore; key: string };
    try {
      object = objectOf(uri);
    } catch (error) {
      throw new InputIdentityError(`input ${uri}: ${(error as Error).message}`);
    }
    const { store, key } = object;
    const head = await store.head(key).catch((error: unknown) => {
      if (error instanceof NotFoundError)
        throw new InputMissingError(`input ${uri} does not exist in its store; check the URL`);
      throw error;
    });
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
  },
};

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
