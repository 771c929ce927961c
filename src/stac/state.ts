import { NotFoundError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { manifestPrefix, partitionOfManifestKey } from "../manifest/layout.js";
import { stacPrefix } from "./layout.js";

/**
 * What the catalog was last built from: every manifest's version, the options, and the version (and sha256) every
 * object was stored at. Bookkeeping beside the catalog (no STAC tool links it), so that a re-run on a store that
 * lists versions (S3, Azure) can prove with two listings that nothing changed, instead of reading every manifest,
 * and where versions are opaque (Azure) tell an unchanged object from its listed version (docs/stac.md).
 */
export interface CatalogState {
  format: "georefresh.stac-state/1";
  options: string;
  manifests: Record<string, string>;
  objects: Record<string, string>;
  /** sha256 of each object's bytes; absent in records written before it was kept. */
  hashes?: Record<string, string>;
}

export const stateKey = (dataset: string) => `stac/${dataset}/_georefresh.json`;

/** The last run's record, where the store keeps one (it lists versions) and it can be read; else undefined. */
export async function readState(store: ObjectStore, dataset: string): Promise<CatalogState | undefined> {
  if (!store.prefersListing) return undefined;
  try {
    const state = JSON.parse(new TextDecoder().decode((await store.get(stateKey(dataset))).body)) as CatalogState;
    return state.format === "georefresh.stac-state/1" ? state : undefined;
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * True when the catalog is provably as a full run would write it: every manifest is at the version the catalog
 * was built from, the options are the same, and every catalog object is there at the version recorded. Anything
 * else, or any doubt, is false: the full run decides.
 */
export async function provenUnchanged(
  store: ObjectStore,
  dataset: string,
  state: CatalogState | undefined,
  options: string,
): Promise<boolean> {
  if (!state || state.options !== options) return false;
  const same = async (prefix: string, expected: Record<string, string>, include: (key: string) => boolean) => {
    let n = 0;
    for await (const e of store.list(prefix)) {
      if (!include(e.key)) continue;
      if (e.version === undefined || expected[e.key] !== e.version) return false;
      n++;
    }
    return n === Object.keys(expected).length;
  };
  return (
    (await same(manifestPrefix(dataset), state.manifests, (k) => partitionOfManifestKey(k) !== undefined)) &&
    (await same(stacPrefix(dataset), state.objects, (k) => k !== stateKey(dataset)))
  );
}

export function encodeState(state: Omit<CatalogState, "format">): Uint8Array {
  const sorted = (r: Record<string, string>) =>
    Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
  const doc: CatalogState = {
    format: "georefresh.stac-state/1",
    options: state.options,
    manifests: sorted(state.manifests),
    objects: sorted(state.objects),
    ...(state.hashes ? { hashes: sorted(state.hashes) } : {}),
  };
  return new TextEncoder().encode(`${JSON.stringify(doc)}\n`);
}
