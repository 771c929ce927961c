import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { readPointer, readSnapshot } from "../manifest/snapshot.js";
import { readManifest } from "../manifest/codec.js";
import { clearCondemnation, condemn, condemning } from "../manifest/condemn.js";
import { artifactKey, manifestKey, manifestPrefix, partitionOfManifestKey } from "../manifest/layout.js";
import type { Partition } from "../manifest/layout.js";
import { isBound, outboxPrefix, readRecord } from "../manifest/outbox.js";
import type { Manifest } from "../manifest/types.js";
import { isStoreError } from "../store/errors.js";
import { PROBE_PREFIX } from "../store/probe.js";
import { MEMO_PREFIX } from "../protocol/memo.js";
import { hasMultipartUploads } from "../store/types.js";
import type { ObjectStore } from "../store/types.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** Below this, `olderThanMs` needs `overrideFloor` (README "Safety"). */
export const MIN_FLOOR_MS = 3_600_000;
/** Temp and probe keys belong to runs in progress until they are this old, whatever the floor. */
export const TEMP_FLOOR_MS = 3_600_000;
/** How long a condemnation holds off runs; gc stops deleting at half of it (docs/gc.md). */
export const DEFAULT_LEASE_MS = 120_000;

export interface GcOptions {
  /** Nothing younger than this is touched. */
  olderThanMs: number;
  /** Without it, gc only reports. */
  apply: boolean;
  /** Also remove artifacts no manifest entry references (current or history), keeping the newest `keep` per partition. */
  artifacts?: { keep: number };
  /** Also remove memoized responses older than the floor (a later run asks the service again; memo.ts). */
  memo?: boolean;
  /** Accept a floor below MIN_FLOOR_MS (artifacts and events stay safe by the protocol; see docs/gc.md). */
  overrideFloor?: boolean;
  leaseMs?: number;
  /** How far it got: datasets examined (and, with apply, collected), then the deletes of temp and memo objects. */
  onProgress?: (step: "datasets" | "temp objects deleted", done: number, total: number) => void;
  /** The clock gc compares ages with (tests move it forward; never used for keys). */
  now?: Date;
}

export interface GcReport {
  applied: boolean;
  temp: string[];
  outbox: string[];
  artifacts: string[];
  uploads: string[];
  /** Memoized responses (with `memo`). */
  memo: string[];
  /** Datasets gc deleted nothing in, because it could not read all their manifests (or outbox). */
  skipped: { dataset: string; reason: string }[];
  /** Candidates left in place because a run got there first, another gc was at work, or the lease ran out. */
  spared: { key: string; reason: string }[];
}

export class GcFloorError extends GeorefreshError {
  override readonly code: ErrorCode = "GcFloor";
}

type Candidate = { key: string; kind: "artifact" } | { key: string; kind: "event"; sha256: string };

/**
 * Removes what crashes and lost races leave and readers never see: temp and probe keys, outbox events whose
 * change never reached a manifest, unreferenced artifacts (when asked) and stale multipart uploads. An
 * artifact or event is deleted only under a condemnation written into its partition's manifest by CAS, so no
 * interleaving with runs loses a referenced artifact or a pending event (docs/gc.md).
 */
export async function collectGarbage(store: ObjectStore, opts: GcOptions): Promise<GcReport> {
  if (opts.olderThanMs < MIN_FLOOR_MS && !opts.overrideFloor) {
    throw new GcFloorError(
      `--older-than ${opts.olderThanMs / 1000}s is below gc's floor of 1h; runs in progress own younger objects. Add --override-floor to go lower (artifacts and events stay protected; see README "Safety")`,
    );
  }
  const now = opts.now ?? new Date();
  const floor = new Date(now.getTime() - opts.olderThanMs);
  const report: GcReport = {
    applied: opts.apply,
    temp: [],
    outbox: [],
    artifacts: [],
    uploads: [],
    memo: [],
    skipped: [],
    spared: [],
  };

  const tempFloor = new Date(now.getTime() - Math.max(opts.olderThanMs, TEMP_FLOOR_MS));
  for (const prefix of ["_tmp/", `${PROBE_PREFIX}/`])
    for await (const e of store.list(prefix)) if (e.lastModified < tempFloor) report.temp.push(e.key);
  // Memo claims are leases of minutes: one an hour old belongs to a run that died. Responses go only when asked.
  for await (const e of store.list(MEMO_PREFIX)) {
    if (e.key.endsWith(".claim") ? e.lastModified < tempFloor : opts.memo && e.lastModified < floor)
      (e.key.endsWith(".claim") ? report.temp : report.memo).push(e.key);
  }

  const broken = new Map<string, string>();
  const datasets = new Set<string>();
  for (const prefix of ["manifests/", "outbox/", ...(opts.artifacts ? ["artifacts/"] : [])])
    await datasetNames(store, prefix, datasets, broken);
  const gcId = `gc-${randomUUID()}`;
  const names = [...datasets].sort();
  for (const [i, dataset] of names.entries()) {
    opts.onProgress?.("datasets", i, names.length);
    const reason = broken.get(dataset);
    const byPartition = reason
      ? undefined
      : await candidates(store, dataset, floor, opts).catch((error: unknown) =>
          error instanceof Error ? error.message : String(error),
        );
    if (!byPartition || typeof byPartition === "string") {
      report.skipped.push({ dataset, reason: reason ?? (byPartition as string) });
      continue;
    }
    for (const [mKey, { partition, list }] of byPartition) {
      const removed = opts.apply
        ? await collectPartition(store, mKey, partition, list, gcId, opts.leaseMs ?? DEFAULT_LEASE_MS, report)
        : list;
      for (const c of removed) (c.kind === "artifact" ? report.artifacts : report.outbox).push(c.key);
    }
  }

  const uploads: { key: string; uploadId: string }[] = [];
  if (hasMultipartUploads(store)) for await (const u of store.staleUploads(floor)) uploads.push(u);
  report.uploads = uploads.map((u) => `${u.key} (upload ${u.uploadId})`);
  opts.onProgress?.("datasets", names.length, names.length);
  if (opts.apply) {
    const deletes = [...report.temp, ...report.memo];
    for (const [i, key] of deletes.entries()) {
      await store.delete(key);
      opts.onProgress?.("temp objects deleted", i + 1, deletes.length);
    }
    if (hasMultipartUploads(store)) for (const u of uploads) await store.abortUpload(u.key, u.uploadId);
  }
  return report;
}

/**
 * Adds the dataset names found under `prefix` ("manifests/", …) to `names`, one listing call per dataset.
 * A listing that fails inside one dataset (a symlink or special file in the filesystem store) marks only that
 * dataset broken, and the walk carries on after it.
 */
async function datasetNames(
  store: ObjectStore,
  prefix: string,
  names: Set<string>,
  broken: Map<string, string>,
): Promise<void> {
  for (let startAfter: string | undefined; ;) {
    let name: string | undefined;
    try {
      for await (const e of store.list(prefix, startAfter === undefined ? {} : { startAfter })) {
        name = e.key.slice(prefix.length).split("/")[0];
        break;
      }
    } catch (error) {
      const key = isStoreError(error) ? error.key : undefined;
      if (!key?.startsWith(prefix)) throw error;
      name = key.slice(prefix.length).split("/")[0] as string;
      if (!broken.has(name)) broken.set(name, (error as Error).message);
    }
    if (name === undefined) return;
    names.add(name);
    // '0' follows '/' in byte order: resume after everything under "<name>/".
    startAfter = `${prefix}${name}0`;
  }
}

/** Every artifact key and change (sha256) a dataset's manifests reference, by manifest key; throws if any manifest cannot be read. */
async function references(store: ObjectStore, dataset: string): Promise<Map<string, Set<string>>> {
  const refs = new Map<string, Set<string>>();
  for await (const e of store.list(manifestPrefix(dataset))) {
    if (!partitionOfManifestKey(e.key)) continue;
    const found = await readManifest(store, e.key);
    if (found) refs.set(e.key, referenced(found.manifest));
  }
  // The latest snapshot's readers hold its artifacts even after the manifests move on (docs/snapshots.md).
  const at = await readPointer(store, dataset);
  if (at)
    for (const p of (await readSnapshot(store, dataset, at.pointer.snapshot)).partitions) {
      const mKey = manifestKey({ dataset, region: p.region, date: p.date });
      refs.set(mKey, (refs.get(mKey) ?? new Set()).add(p.artifact));
    }
  return refs;
}

function referenced(m: Manifest): Set<string> {
  const out = new Set<string>();
  for (const entry of [m.current, ...m.history]) if (entry) out.add(entry.artifact).add(entry.sha256);
  return out;
}

/** Old enough, unreferenced artifacts and pending events of one dataset, by the manifest of their partition. */
async function candidates(
  store: ObjectStore,
  dataset: string,
  floor: Date,
  opts: GcOptions,
): Promise<Map<string, { partition: Partition; list: Candidate[] }>> {
  const refs = await references(store, dataset);
  const out = new Map<string, { partition: Partition; list: Candidate[] }>();
  const add = (partition: Partition, c: Candidate) => {
    const mKey = manifestKey(partition);
    const slot = out.get(mKey) ?? { partition, list: [] };
    slot.list.push(c);
    out.set(mKey, slot);
  };
  for await (const e of store.list(outboxPrefix(dataset))) {
    if (e.lastModified >= floor || !e.key.endsWith(".json")) continue;
    const record = (await readRecord(store, e.key))?.record;
    if (!record || record.status !== "pending") continue;
    const ev = record.event;
    // Only an event stored under the id of what it says is bound to its partition; anything else is left alone.
    if (ev.dataset !== dataset || !isBound(e.key, ev)) {
      throw new Error(
        `${store.locate(e.key)} is not the event its key names (tampered or corrupt); nothing of ${dataset} was deleted`,
      );
    }
    const partition = { dataset, region: ev.region, date: ev.logical_date };
    if (!refs.get(manifestKey(partition))?.has(ev.sha256))
      add(partition, { key: e.key, kind: "event", sha256: ev.sha256 });
  }
  if (opts.artifacts) {
    const byDir = new Map<string, { partition: Partition; key: string; at: Date }[]>();
    for await (const e of store.list(`artifacts/${dataset}/`)) {
      const m = /^artifacts\/[^/]+\/region=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/([0-9a-f]{16})\.parquet$/.exec(e.key);
      if (!m) continue; // not a key georefresh writes: not gc's to judge
      const partition = { dataset, region: m[1] as string, date: m[2] as string };
      if (
        artifactKey(partition, m[3] as string) !== e.key ||
        refs.get(manifestKey(partition))?.has(e.key) ||
        e.lastModified >= floor
      )
        continue;
      const dir = manifestKey(partition);
      byDir.set(dir, [...(byDir.get(dir) ?? []), { partition, key: e.key, at: e.lastModified }]);
    }
    for (const list of byDir.values()) {
      list.sort((a, b) => b.at.getTime() - a.at.getTime() || (a.key < b.key ? -1 : 1));
      for (const x of list.slice(opts.artifacts.keep)) add(x.partition, { key: x.key, kind: "artifact" });
    }
  }
  return out;
}

/**
 * The protocol for one partition: re-read its manifest, keep the candidates still unreferenced in that very
 * version, condemn them by CAS on it, delete them while the lease is young, clear the condemnation.
 * Returns what was deleted.
 */
async function collectPartition(
  store: ObjectStore,
  mKey: string,
  partition: Partition,
  list: Candidate[],
  gcId: string,
  leaseMs: number,
  report: GcReport,
): Promise<Candidate[]> {
  const spare = (cs: Candidate[], reason: string) => report.spared.push(...cs.map((c) => ({ key: c.key, reason })));
  const found = await readManifest(store, mKey);
  const refs = found ? referenced(found.manifest) : new Set<string>();
  const still = list.filter((c) => !refs.has(c.kind === "artifact" ? c.key : c.sha256));
  spare(
    list.filter((c) => !still.includes(c)),
    "referenced by the manifest now",
  );
  if (still.length === 0) return [];
  if (found?.manifest.gc && condemning(found.manifest, found.manifest.gc.keys)) {
    spare(still, `another gc (${found.manifest.gc.by}) is at work on this partition`);
    return [];
  }
  const started = performance.now();
  const until = new Date(Date.now() + leaseMs).toISOString();
  const version = await condemn(store, mKey, partition, found, { by: gcId, until, keys: still.map((c) => c.key) });
  if (version === undefined) {
    spare(still, "the manifest moved (a run promoted); left for the next gc");
    return [];
  }
  const removed: Candidate[] = [];
  try {
    for (const c of still) {
      // Past half the lease a waiting run may already have given up on us: delete nothing more.
      if (performance.now() - started > leaseMs / 2) {
        spare(
          still.filter((x) => !removed.includes(x)),
          "gc's lease ran short; left for the next gc",
        );
        break;
      }
      await store.delete(c.key);
      removed.push(c);
    }
  } finally {
    await clearCondemnation(store, mKey, gcId);
  }
  return removed;
}

/** "24h", "90m", "7d", "30s" → milliseconds. */
export function parseAge(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new RangeError(`--older-than ${text}: expected a number with s, m, h or d (e.g. 24h)`);
  return Number(m[1]) * { s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 }[m[2] as "s" | "m" | "h" | "d"];
}
