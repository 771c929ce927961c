import type { Table } from "apache-arrow";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { bboxesIntersect, bboxToLonLat } from "../geo/bbox.js";
import type { Bbox } from "../geo/bbox.js";
import type { SnapshotPartition } from "../manifest/snapshot.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import { HISTORY_LIMIT } from "../manifest/types.js";
import { sha256Hex } from "../store/digest.js";
import { NotFoundError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";

export class ReadError extends GeorefreshError {
  override readonly code: ErrorCode = "Read";
}

/** What a reader needs of a partition's artifact: a manifest entry, or a snapshot's record of one. */
export type ViewEntry = Pick<ManifestEntry, "key" | "artifact" | "sha256" | "bytes" | "rows" | "bbox" | "crs">;

export interface ViewPartition {
  region: string;
  date: string;
  entry: ViewEntry | ManifestEntry;
  /** Lon/lat box of the artifact's rows (null when it has none). */
  bboxLonLat: Bbox | null;
}

/** Which partitions to read: any of a lon/lat box they must touch, a logical date range, a region, the latest. */
export interface Selection {
  bbox?: Bbox;
  from?: string;
  to?: string;
  region?: string;
  /** Only the latest selected date of each region. */
  latest?: boolean;
}

/** Which partition of a region: a logical date, or the latest in the view. */
export type Which = { date: string } | { latest: true };

/**
 * One consistent set of partitions to read from: the current manifests, a committed snapshot, or what the
 * manifests pointed at at a moment in the past (docs/snapshots.md). Every artifact is checked against the sha256
 * its entry records before it is returned.
 */
export class DatasetView {
  constructor(
    readonly store: ObjectStore,
    readonly dataset: string,
    /** "current", "snapshot <id>" or "as of <time>": for messages. */
    readonly source: string,
    readonly partitions: readonly ViewPartition[],
    /** Manifests that could not be read (not JSON, schema-invalid, tampered), each with its message. */
    readonly problems: readonly { key: string; message: string }[] = [],
  ) {}

  /** The selected partitions in (region, date) order. */
  select(sel: Selection = {}): ViewPartition[] {
    let parts = this.partitions.filter(
      (p) =>
        (sel.region === undefined || p.region === sel.region) &&
        (sel.from === undefined || p.date >= sel.from) &&
        (sel.to === undefined || p.date <= sel.to) &&
        (sel.bbox === undefined || (p.bboxLonLat !== null && bboxesIntersect(p.bboxLonLat, sel.bbox))),
    );
    if (sel.latest) {
      const newest = new Map<string, ViewPartition>();
      for (const p of parts) if ((newest.get(p.region)?.date ?? "") < p.date) newest.set(p.region, p);
      parts = [...newest.values()];
    }
    return parts.sort((a, b) => (a.region === b.region ? cmp(a.date, b.date) : cmp(a.region, b.region)));
  }

  /** Artifact locations of the selected partitions, ready for DuckDB's read_parquet([...]). */
  urls(sel: Selection = {}): string[] {
    return this.select(sel).map((p) => this.store.locate(p.entry.artifact));
  }

  find(region: string, which: Which): ViewPartition {
    const found =
      "date" in which
        ? this.partitions.find((p) => p.region === region && p.date === which.date)
        : this.select({ region, latest: true })[0];
    if (!found)
      throw new ReadError(
        `${this.dataset} (${this.source}): no promoted, unretired partition for region ${region}${"date" in which ? ` on ${which.date}` : ""}`,
      );
    return found;
  }

  async bytes(p: ViewPartition): Promise<Uint8Array> {
    return verifiedBytes(this.store, p.entry, this.source);
  }

  async read(p: ViewPartition): Promise<Table> {
    return (
      await (
        await import("../geoparquet/read.js")
      ).readGeoParquet(await this.bytes(p), this.store.locate(p.entry.artifact))
    ).table;
  }
}

/** The artifact's bytes, refused unless they hash to what the entry promised. */
export async function verifiedBytes(store: ObjectStore, entry: ViewEntry, source = "current"): Promise<Uint8Array> {
  let body: Uint8Array;
  try {
    body = (await store.get(entry.artifact)).body;
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new ReadError(
        `${store.locate(entry.artifact)} is no longer stored, though the ${source} view names it: gc keeps the artifacts of manifest history and of the latest snapshot only`,
      );
    throw error;
  }
  const sha = sha256Hex(body);
  if (sha !== entry.sha256)
    throw new ReadError(
      `${store.locate(entry.artifact)} has sha256 ${sha}, but its entry promised ${entry.sha256}: refusing to return it`,
    );
  return body;
}

export function viewOfManifest(m: Manifest, entry: ManifestEntry): ViewPartition {
  return {
    region: m.partition.region,
    date: m.partition.logical_date,
    entry,
    bboxLonLat: entry.bbox ? bboxToLonLat(entry.bbox, entry.crs) : null,
  };
}

export function viewOfSnapshot(p: SnapshotPartition): ViewPartition {
  return { region: p.region, date: p.date, entry: p, bboxLonLat: p.bbox_lonlat };
}

/** History does not reach back to the moment asked about. */
export class HistoryTooShortError extends ReadError {
  override readonly code: ErrorCode = "HistoryTooShort";
}

/**
 * The entry a reader following this manifest saw at `at`: the newest promoted at or before it, unless the
 * partition was retired by then. Undefined when the partition had nothing promoted then. Throws when the
 * manifest's history has been cut (it keeps HISTORY_LIMIT versions) before `at`, since then nobody can say.
 */
export function entryAsOf(m: Manifest, at: Date, where: string): ManifestEntry | undefined {
  const t = at.getTime();
  if (m.retired && (m.retired.at === undefined || Date.parse(m.retired.at) <= t)) return undefined;
  const entries = [m.current, ...m.history].filter((e): e is ManifestEntry => e !== null);
  const seen = entries.find((e) => Date.parse(e.promoted_at) <= t);
  if (seen) return seen;
  const oldest = entries[entries.length - 1];
  if (oldest && m.history.length >= HISTORY_LIMIT)
    throw new HistoryTooShortError(
      `${where}: its history reaches back only to ${oldest.promoted_at} (manifests keep ${HISTORY_LIMIT} versions), so what readers saw at ${at.toISOString()} is no longer known; use a snapshot from then, or a later --as-of`,
    );
  return undefined;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
