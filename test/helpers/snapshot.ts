import { createHash } from "node:crypto";
import type { ObjectStore } from "../../src/store/types.js";

/** Every object in the store with the sha256 of its bytes: two equal snapshots mean byte-identical stores. */
export async function snapshot(store: ObjectStore, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of store.list(prefix)) {
    if (e.key.startsWith("_probe/")) continue;
    out[e.key] = createHash("sha256")
      .update((await store.get(e.key)).body)
      .digest("hex");
  }
  return out;
}

/**
 * The store's published state: every object but the refusal records (bookkeeping a refused run writes so that ls
 * says why; src/manifest/refusal.ts). "Nothing published" compares these.
 */
export function published(snap: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith("refusals/")));
}
