import { AlreadyExistsError, PreconditionFailedError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { encodeManifest, readManifest } from "./codec.js";
import { condemning, sameState } from "./condemn.js";
import { HISTORY_LIMIT } from "./types.js";
import type { Manifest, ManifestEntry } from "./types.js";

export type PromoteOutcome =
  | { outcome: "promoted"; version: string }
  /** The manifest already points at these bytes (`version`: when a twin put them there while this run worked). */
  | { outcome: "unchanged"; current: ManifestEntry; version?: string }
  | { outcome: "superseded"; current: ManifestEntry | null }
  /** Only gc's bookkeeping changed since `start`: the caller re-checks its artifact and event and promotes on `now`. */
  | { outcome: "moved"; now: { manifest: Manifest; version: string } | undefined };

/**
 * Points the partition's manifest at `entry` with one conditional write: If-None-Match when there was no
 * manifest at run start, If-Match on the version read then otherwise. So a stale run can never overwrite a newer
 * promotion, and of two concurrent runs exactly one wins; the loser writes nothing. When the manifest already
 * points at this key with these bytes, nothing is written and provenance keeps naming the run that produced them.
 */
export async function promote(
  store: ObjectStore,
  key: string,
  start: { manifest: Manifest; version: string } | undefined,
  fresh: { dataset: string; region: string; date: string },
  entry: ManifestEntry,
): Promise<PromoteOutcome> {
  const current = start?.manifest.current ?? null;
  // Only the same key with the same bytes is unchanged. The same bytes under a new key (a pin, input or code
  // change that changed no row) are promoted, so the manifest names what derives them now and the next run is a
  // no-op; their outbox event, keyed by sha256, already exists.
  if (current?.key === entry.key && current.sha256 === entry.sha256) return { outcome: "unchanged", current };
  const base: Manifest = start?.manifest ?? {
    format: "georefresh.manifest/1",
    dataset: fresh.dataset,
    partition: { region: fresh.region, logical_date: fresh.date },
    current: null,
    history: [],
    retired: null,
  };
  // A live condemnation (of other keys: the caller waited out any of its own) stays visible to other runs.
  const { gc: _gc, ...rest } = base;
  const live = condemning(base, base.gc?.keys ?? []);
  const next: Manifest = {
    ...rest,
    current: entry,
    history: current ? [current, ...base.history].slice(0, HISTORY_LIMIT) : base.history,
    retired: null,
    ...(live ? { gc: live } : {}),
  };
  try {
    const { version } = await store.put(key, encodeManifest(next, store.locate(key)), {
      mode: start ? { update: start.version } : "create",
      contentType: "application/json",
    });
    return { outcome: "promoted", version };
  } catch (error) {
    if (!(error instanceof AlreadyExistsError || error instanceof PreconditionFailedError)) throw error;
    const now = await readManifest(store, key);
    if (sameState(now?.manifest, start?.manifest)) return { outcome: "moved", now };
    // A twin (an engine starting one task twice) promoted exactly these bytes: nothing is lost or left to do.
    if (now?.manifest.current?.sha256 === entry.sha256)
      return { outcome: "unchanged", current: now.manifest.current, version: now.version };
    return { outcome: "superseded", current: now?.manifest.current ?? null };
  }
}
