import { expect } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { sha256Hex } from "../../src/store/digest.js";
import type { ObjectStore } from "../../src/store/types.js";

/** Every object readers or deliverers may see, with run-specific manifest fields (run id, wall clock) removed. */
export async function visible(store: ObjectStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of store.list("")) {
    if (e.key.startsWith("_tmp/") || e.key.startsWith("_probe/")) continue; // only gc and nobody else sees these
    const body = (await store.get(e.key)).body;
    if (e.key.startsWith("manifests/")) {
      const m = JSON.parse(new TextDecoder().decode(body));
      for (const entry of [m.current, ...m.history])
        if (entry) for (const f of ["run_id", "promoted_at"]) delete entry[f];
      out[e.key] = JSON.stringify(m);
    } else if (/^snapshots\/[^/]+\/latest\.json$/.test(e.key)) {
      // The pointer records each manifest's version, which (like the manifests) depends on run id and clock.
      const { versions: _, ...pointer } = JSON.parse(new TextDecoder().decode(body));
      out[e.key] = JSON.stringify(pointer);
    } else if (e.key.startsWith("outbox/")) {
      // The event names its artifact by this store's URL; stores in this test live at different places.
      const root = store.locate("x").slice(0, -1);
      out[e.key] = new TextDecoder().decode(body).replace(root, "<store>/");
    } else out[e.key] = sha256Hex(body);
  }
  return out;
}

/** No manifest points at a missing object or at bytes other than the ones it recorded. */
export async function manifestsConsistent(store: ObjectStore): Promise<void> {
  for await (const e of store.list("manifests/")) {
    const m = (await readManifest(store, e.key))?.manifest;
    for (const entry of [m?.current, ...(m?.history ?? [])]) {
      if (!entry) continue;
      expect(sha256Hex((await store.get(entry.artifact)).body), `${e.key} → ${entry.artifact}`).toBe(entry.sha256);
      if (entry.changes)
        expect(
          sha256Hex((await store.get(entry.changes.changelog)).body),
          `${e.key} → ${entry.changes.changelog}`,
        ).toBe(entry.changes.sha256);
    }
  }
}
