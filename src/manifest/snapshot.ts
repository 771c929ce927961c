import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import type { Bbox } from "../geo/bbox.js";
import { sha256Hex } from "../store/digest.js";
import { NotFoundError } from "../store/errors.js";
import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";
import { artifactKey, checkPartition } from "./layout.js";

/**
 * A dataset snapshot: an immutable list of every current partition at one moment, so a reader sees one
 * consistent set of artifacts while refreshes go on (docs/snapshots.md). Content-addressed: its id is the
 * sha256 of its bytes, which hold only what derives from the artifacts (no wall clock, run id or store version),
 * so the same dataset state gives the same snapshot on any run and any store.
 */
export interface SnapshotPartition {
  region: string;
  date: string;
  key: string;
  artifact: string;
  sha256: string;
  bytes: number;
  rows: number;
  /** In the storage CRS, as the manifest has it. */
  bbox: Bbox | null;
  /** Lon/lat (OGC:CRS84) box containing `bbox`: what `--bbox` and STAC compare in. */
  bbox_lonlat: Bbox | null;
  crs: string;
}

export interface Snapshot {
  format: "georefresh.snapshot/1";
  dataset: string;
  partitions: SnapshotPartition[];
}

/**
 * The pointer to the latest snapshot, moved only by conditional write. It also records each manifest's version
 * (by "region/date") when the snapshot was built from it: a listing showing the same version proves the manifest
 * unchanged since. Store bookkeeping, like a manifest's version; never part of the snapshot's content.
 */
export interface SnapshotPointer {
  format: "georefresh.snapshot-pointer/1";
  dataset: string;
  snapshot: string;
  partitions: number;
  versions: Record<string, string>;
}

/** The key of a partition in a pointer's `versions`. */
export const versionSlot = (p: { region: string; date: string }) => `${p.region}/${p.date}`;

export class SnapshotError extends GeorefreshError {
  override readonly code: ErrorCode = "Snapshot";
}

export const snapshotPrefix = (dataset: string) => `snapshots/${dataset}/`;
export const snapshotKey = (dataset: string, id: string) => `snapshots/${dataset}/${id}.json`;
export const pointerKey = (dataset: string) => `snapshots/${dataset}/latest.json`;
const ID = /^[0-9a-f]{16}$/;

/** The snapshot's canonical bytes and id: partitions in (region, date) order, fields in a fixed order. */
export function encodeSnapshot(dataset: string, partitions: SnapshotPartition[]): { id: string; bytes: Uint8Array } {
  const sorted = [...partitions]
    .sort((a, b) => (a.region === b.region ? cmp(a.date, b.date) : cmp(a.region, b.region)))
    .map((p) => ({
      region: p.region,
      date: p.date,
      key: p.key,
      artifact: p.artifact,
      sha256: p.sha256,
      bytes: p.bytes,
      rows: p.rows,
      bbox: p.bbox,
      bbox_lonlat: p.bbox_lonlat,
      crs: p.crs,
    }));
  const doc: Snapshot = { format: "georefresh.snapshot/1", dataset, partitions: sorted };
  const bytes = new TextEncoder().encode(`${JSON.stringify(doc)}\n`);
  return { id: sha256Hex(bytes).slice(0, 16), bytes };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Reads a snapshot and proves it is the one its id names, bound to its dataset's partitions. */
export async function readSnapshot(store: ObjectStore, dataset: string, id: string): Promise<Snapshot> {
  if (!ID.test(id))
    throw new SnapshotError(
      `snapshot id ${JSON.stringify(id)} is not 16 hex digits (use an id from a backfill, or "latest")`,
    );
  const key = snapshotKey(dataset, id);
  const where = store.locate(key);
  let body: Uint8Array;
  try {
    body = (await store.get(key)).body;
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new SnapshotError(`${dataset} has no snapshot ${id} (${where} is absent); "latest" names the newest`);
    throw error;
  }
  if (sha256Hex(body).slice(0, 16) !== id)
    throw new SnapshotError(`${where} does not hash to its id ${id}: tampered or corrupt; nothing was read through it`);
  const doc = parse(body, where) as Partial<Snapshot>;
  if (doc.format !== "georefresh.snapshot/1" || doc.dataset !== dataset || !Array.isArray(doc.partitions))
    throw new SnapshotError(`${where} is not a georefresh.snapshot/1 of dataset ${dataset}`);
  for (const p of doc.partitions) {
    checkPartition({ dataset, region: p.region, date: p.date });
    if (p.artifact !== artifactKey({ dataset, region: p.region, date: p.date }, p.key))
      throw new SnapshotError(`${where}: ${p.region} ${p.date} points outside its partition (${p.artifact})`);
  }
  return doc as Snapshot;
}

/** The pointer and the version it was read at, or undefined when the dataset has no snapshot yet. */
export async function readPointer(
  store: ObjectStore,
  dataset: string,
): Promise<{ pointer: SnapshotPointer; version: string; lastModified: Date } | undefined> {
  const key = pointerKey(dataset);
  const got = await getIfPresent(store, key);
  if (!got) return undefined;
  const doc = parse(got.body, store.locate(key)) as Partial<SnapshotPointer>;
  if (
    doc.format !== "georefresh.snapshot-pointer/1" ||
    doc.dataset !== dataset ||
    !ID.test(String(doc.snapshot)) ||
    typeof doc.versions !== "object" ||
    doc.versions === null
  )
    throw new SnapshotError(
      `${store.locate(key)} is not a snapshot pointer of ${dataset}; delete it and the next backfill or finalize commits a new one`,
    );
  return { pointer: doc as SnapshotPointer, version: got.meta.version, lastModified: got.meta.lastModified };
}

export function encodePointer(dataset: string, id: string, versions: Record<string, string>): Uint8Array {
  const sorted = Object.fromEntries(Object.entries(versions).sort(([a], [b]) => cmp(a, b)));
  const doc: SnapshotPointer = {
    format: "georefresh.snapshot-pointer/1",
    dataset,
    snapshot: id,
    partitions: Object.keys(sorted).length,
    versions: sorted,
  };
  return new TextEncoder().encode(`${JSON.stringify(doc)}\n`);
}

function parse(body: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch (error) {
    throw new SnapshotError(`${where} is not JSON (${(error as Error).message})`);
  }
}
