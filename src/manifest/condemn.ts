import { setTimeout as sleep } from "node:timers/promises";
import { AlreadyExistsError, PreconditionFailedError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { encodeManifest, readManifest } from "./codec.js";
import type { Partition } from "./layout.js";
import type { Condemnation, Manifest } from "./types.js";

/**
 * gc and runs meet on the partition's manifest, the one object both already write by compare-and-swap
 * (docs/gc.md has the argument):
 * - gc announces what it will delete of a partition (a *condemnation*: keys + lease) by a CAS of the manifest on
 *   the very version in which it found those keys unreferenced, deletes them, then clears the announcement;
 * - a run never promotes on top of a version whose live condemnation names its artifact or event, and re-checks
 *   (restoring from the bytes it holds) its artifact and event *after* reading the version it promotes on.
 * Both are CAS writes on one key, so they are ordered, and either ordering keeps every referenced key.
 */

export type Found = { manifest: Manifest; version: string };

/** The live condemnation in `manifest` that names any of `keys`, if there is one. */
export function condemning(
  manifest: Manifest | undefined,
  keys: readonly string[],
  now = Date.now(),
): Condemnation | undefined {
  const gc = manifest?.gc;
  if (!gc || Date.parse(gc.until) <= now) return undefined;
  return gc.keys.some((k) => keys.includes(k)) ? gc : undefined;
}

/** The manifest a run promotes on must carry no live condemnation of its keys: wait (re-reading) until gc is done. */
export async function awaitClearance(
  store: ObjectStore,
  key: string,
  start: Found | undefined,
  keys: readonly string[],
  pollMs = 100,
): Promise<Found | undefined> {
  let base = start;
  while (condemning(base?.manifest, keys)) {
    await sleep(pollMs);
    base = await readManifest(store, key);
  }
  return base;
}

/** Same partition state apart from gc's bookkeeping: what a run may promote on again instead of calling itself superseded. */
export function sameState(a: Manifest | undefined, b: Manifest | undefined): boolean {
  const state = (m: Manifest | undefined) => JSON.stringify([m?.current ?? null, m?.history ?? [], m?.retired ?? null]);
  return state(a) === state(b);
}

function emptyManifest(p: Partition): Manifest {
  return {
    format: "georefresh.manifest/1",
    dataset: p.dataset,
    partition: { region: p.region, logical_date: p.date },
    current: null,
    history: [],
    retired: null,
  };
}

/**
 * Writes a condemnation of `keys` on exactly the version `found` (created, when the partition has no manifest).
 * Returns the new version, or undefined when the manifest moved meanwhile: then nothing may be deleted.
 */
export async function condemn(
  store: ObjectStore,
  key: string,
  partition: Partition,
  found: Found | undefined,
  gc: Condemnation,
): Promise<string | undefined> {
  const next: Manifest = { ...(found?.manifest ?? emptyManifest(partition)), gc };
  try {
    return (
      await store.put(key, encodeManifest(next, store.locate(key)), {
        mode: found ? { update: found.version } : "create",
        contentType: "application/json",
      })
    ).version;
  } catch (error) {
    if (error instanceof AlreadyExistsError || error instanceof PreconditionFailedError) return undefined;
    throw error;
  }
}

/** Removes gc's own condemnation, wherever the manifest has moved to; leaves anyone else's alone. */
export async function clearCondemnation(store: ObjectStore, key: string, by: string): Promise<void> {
  for (;;) {
    const found = await readManifest(store, key);
    if (!found || found.manifest.gc?.by !== by) return;
    const { gc: _ours, ...rest } = found.manifest;
    try {
      await store.put(key, encodeManifest(rest, store.locate(key)), {
        mode: { update: found.version },
        contentType: "application/json",
      });
      return;
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
    }
  }
}
