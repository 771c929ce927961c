import { bboxToLonLat } from "../geo/bbox.js";
import { readManifest } from "./codec.js";
import { manifestKey, manifestPrefix, partitionOfManifestKey } from "./layout.js";
import type { ManifestEntry } from "./types.js";
import {
  encodePointer,
  encodeSnapshot,
  pointerKey,
  readPointer,
  readSnapshot,
  snapshotKey,
  SnapshotError,
  versionSlot,
} from "./snapshot.js";
import type { Snapshot, SnapshotPartition, SnapshotPointer } from "./snapshot.js";
import { AlreadyExistsError, PreconditionFailedError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { mapBounded } from "../bounded.js";

/** A manifest's current entry and the version it was read at, as a run already holds it. */
export type KnownCurrent = { version: string; current: ManifestEntry | null; retired?: boolean };

export interface CommitResult {
  id: string;
  partitions: number;
  /** False when the pointer already named this very snapshot: nothing was written. */
  moved: boolean;
}

const ATTEMPTS = 8;

/**
 * Commits a snapshot of every current, unretired partition of the dataset and moves the latest pointer to it
 * by conditional write (docs/snapshots.md). The snapshot is written create-if-absent under its content id, so
 * committers never overwrite one another's; the pointer moves If-Match on the version this committer read, so
 * two committers cannot interleave: the one that loses re-reads the manifests and tries again.
 * `known`: manifests the caller holds at a version (a backfill's results), by manifest key; a listing that shows
 * the same version spares their GET, as does the previous snapshot's record of an unchanged manifest.
 */
export async function commitSnapshot(
  store: ObjectStore,
  dataset: string,
  known: ReadonlyMap<string, KnownCurrent> = new Map(),
): Promise<CommitResult> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const at = await pointerForCommit(store, dataset);
    const previous = at?.pointer
      ? await readSnapshot(store, dataset, at.pointer.snapshot).catch(() => undefined)
      : undefined;
    const found = await currentRecords(
      store,
      dataset,
      previous && at?.pointer ? { snapshot: previous, versions: at.pointer.versions } : undefined,
      known,
    );
    const records = found.map((f) => f.record);
    const versions = Object.fromEntries(found.map((f) => [versionSlot(f.record), f.version]));
    const { id, bytes } = encodeSnapshot(dataset, records);
    // The same snapshot, proven by the same versions: nothing to say. (The same snapshot with other versions —
    // a manifest rewritten without a new artifact, as gc's condemnation does — still moves the pointer, so the
    // next run's proof holds again.)
    if (at?.pointer?.snapshot === id && sameVersions(at.pointer.versions, versions))
      return { id, partitions: records.length, moved: false };
    try {
      await store.put(snapshotKey(dataset, id), bytes, { mode: "create", contentType: "application/json" });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error; // the same state committed before: same bytes
    }
    try {
      await store.put(pointerKey(dataset), encodePointer(dataset, id, versions), {
        mode: at ? { update: at.version } : "create",
        contentType: "application/json",
      });
      return { id, partitions: records.length, moved: true };
    } catch (error) {
      if (!(error instanceof PreconditionFailedError || error instanceof AlreadyExistsError)) throw error;
      // Another committer moved the pointer since we read it: our view may be older than theirs. Look again.
    }
  }
  throw new SnapshotError(
    `${store.locate(pointerKey(dataset))} kept moving under ${ATTEMPTS} attempts to commit a snapshot of ${dataset}; another committer is busy, so the latest snapshot is theirs`,
  );
}

/** One record per current, unretired manifest, with the version it was read at; GETs only the manifests no listed version vouches for. */
async function currentRecords(
  store: ObjectStore,
  dataset: string,
  previous: { snapshot: Snapshot; versions: Record<string, string> } | undefined,
  known: ReadonlyMap<string, KnownCurrent>,
): Promise<{ record: SnapshotPartition; version: string }[]> {
  const before = new Map((previous?.snapshot.partitions ?? []).map((p) => [versionSlot(p), p]));
  const listed: { key: string; version?: string }[] = [];
  for await (const e of store.list(manifestPrefix(dataset)))
    if (partitionOfManifestKey(e.key)) listed.push({ key: e.key, version: e.version });
  const records = await mapBounded(listed, 16, async ({ key, version }) => {
    const p = partitionOfManifestKey(key) as { region: string; date: string };
    const old = before.get(versionSlot(p));
    if (old && version !== undefined && previous?.versions[versionSlot(p)] === version) return { record: old, version };
    // Where the listing has no versions (the filesystem), the version this run itself read moments ago stands in.
    const held = known.get(key);
    if (held && (version === undefined || held.version === version))
      return held.current && !held.retired ? { record: recordOf(p, held.current), version: held.version } : undefined;
    const found = await readManifest(store, key);
    const m = found?.manifest;
    if (!found || !m?.current || m.retired) return undefined;
    return { record: recordOf(p, m.current), version: found.version };
  });
  return records.filter((r): r is { record: SnapshotPartition; version: string } => r !== undefined);
}

/**
 * The pointer as a committer needs it: its version for If-Match, and its content unless it is unreadable (edited
 * by hand, torn by an old writer). An unreadable pointer is replaced by the next commit, by CAS on the version it
 * has: it only points, and every snapshot it could name is immutable, so nothing is lost by that.
 */
async function pointerForCommit(
  store: ObjectStore,
  dataset: string,
): Promise<{ pointer?: SnapshotPointer; version: string } | undefined> {
  try {
    return await readPointer(store, dataset);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    return { version: (await store.head(pointerKey(dataset))).version };
  }
}

function sameVersions(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

export function recordOf(p: { region: string; date: string }, e: ManifestEntry): SnapshotPartition {
  return {
    region: p.region,
    date: p.date,
    key: e.key,
    artifact: e.artifact,
    sha256: e.sha256,
    bytes: e.bytes,
    rows: e.rows,
    bbox: e.bbox,
    bbox_lonlat: e.bbox ? bboxToLonLat(e.bbox, e.crs) : null,
    crs: e.crs,
  };
}

/** What a no-op re-run may settle without reading a manifest: its current key, proven by its listed version. */
export interface ProvenCurrent {
  version: string;
  key: string;
  sha256: string;
  rows: number;
}

/**
 * Manifests the latest snapshot proves unchanged: one GET of the pointer, one of the snapshot, and one LIST of
 * the manifests, whose versions (S3 ETags) must equal the snapshot's. Any manifest whose version differs, or that
 * the snapshot lacks, is absent from the answer and read as on any run, so a stale snapshot costs only speed.
 * Undefined when there is no usable snapshot; no proofs where listings carry no versions (the filesystem).
 */
export async function provenCurrents(store: ObjectStore, dataset: string): Promise<Proof | undefined> {
  const at = await readPointer(store, dataset).catch(() => undefined);
  if (!at) return undefined;
  const snapshot = await readSnapshot(store, dataset, at.pointer.snapshot).catch(() => undefined);
  if (!snapshot) return undefined;
  const byKey = new Map(snapshot.partitions.map((p) => [manifestKey({ dataset, region: p.region, date: p.date }), p]));
  const proven = new Map<string, ProvenCurrent>();
  let listed = 0;
  let unversioned = 0;
  let newest = 0;
  for await (const e of store.list(manifestPrefix(dataset))) {
    if (!partitionOfManifestKey(e.key)) continue;
    listed++;
    newest = Math.max(newest, e.lastModified.getTime());
    const p = byKey.get(e.key);
    if (e.version === undefined) unversioned++;
    else if (p && e.version === at.pointer.versions[versionSlot(p)])
      proven.set(e.key, { version: e.version, key: p.key, sha256: p.sha256, rows: p.rows });
  }
  // Versions prove it on S3. Without them (the filesystem) only a hint is left: no manifest modified since the
  // pointer was (one volume, one clock). A wrong hint only leaves the snapshot behind until the next change.
  const exact = unversioned
    ? unversioned === listed && listed === snapshot.partitions.length && newest <= at.lastModified.getTime()
    : listed === proven.size && proven.size === snapshot.partitions.length;
  // Only stores that list cheaply settle partitions from the proof; elsewhere a GET is as cheap as a listing row.
  return {
    id: at.pointer.snapshot,
    partitions: snapshot.partitions.length,
    proven: store.prefersListing ? proven : new Map(),
    exact,
  };
}

export interface Proof {
  /** The snapshot the proof rests on, and how many partitions it lists. */
  id: string;
  partitions: number;
  /** By manifest key. */
  proven: Map<string, ProvenCurrent>;
  /** Every listed manifest is one the snapshot records, unchanged: the snapshot is exactly the dataset now. */
  exact: boolean;
}
