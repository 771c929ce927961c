import { NotFoundError } from "./errors.js";
import type { GetResult, ObjectMeta, ObjectStore } from "./types.js";

/** The object, or undefined when the key is absent; every other failure still throws. */
export async function getIfPresent(store: ObjectStore, key: string): Promise<GetResult | undefined> {
  try {
    return await store.get(key);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** exists() from head(): true when it answers, false on NotFound, every other failure still thrown. */
export function presentBy(head: Promise<ObjectMeta>): Promise<boolean> {
  return head.then(
    () => true,
    (error: unknown) => (error instanceof NotFoundError ? false : Promise.reject(error)),
  );
}
