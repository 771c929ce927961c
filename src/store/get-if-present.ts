import { NotFoundError } from "./errors.js";
import type { GetResult, ObjectStore } from "./types.js";

/** The object, or undefined when the key is absent; every other failure still throws. */
export async function getIfPresent(store: ObjectStore, key: string): Promise<GetResult | undefined> {
  try {
    return await store.get(key);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
