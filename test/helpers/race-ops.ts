import { isStoreError } from "../../src/store/errors.js";
import type { ObjectStore } from "../../src/store/types.js";

export interface CreateAttempt {
  body: string;
  won: boolean;
  error?: string;
}

/** `count` concurrent creates of one key, each with its own body. */
export async function raceCreates(
  store: ObjectStore,
  key: string,
  writer: string,
  count: number,
): Promise<CreateAttempt[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const body = `created by ${writer}.${i}`;
      try {
        await store.put(key, new TextEncoder().encode(body), { mode: "create" });
        return { body, won: true };
      } catch (error) {
        return { body, won: false, error: isStoreError(error) ? error.code : String(error) };
      }
    }),
  );
}

/**
 * One increment through a get → update loop; returns how many conflicts it retried. The body names its writer:
 * an update whose outcome was ambiguous is judged by its bytes, so equal bytes from two writers would be
 * indistinguishable (a real manifest carries its run id for the same reason).
 */
export async function incrementCounter(store: ObjectStore, key: string, writer: string): Promise<number> {
  for (let conflicts = 0; ; conflicts++) {
    const { body, meta } = await store.get(key);
    const { n } = JSON.parse(new TextDecoder().decode(body)) as { n: number };
    const next = new TextEncoder().encode(JSON.stringify({ n: n + 1, by: writer }));
    try {
      await store.put(key, next, { mode: { update: meta.version } });
      return conflicts;
    } catch (error) {
      if (!isStoreError(error, "PreconditionFailed")) throw error;
      if (conflicts > 1000) throw new Error(`increment by ${writer} starved after 1000 conflicts`);
    }
  }
}
