import type { Table } from "apache-arrow";
import { ManifestError, readManifest } from "../manifest/codec.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import { readPointer, readSnapshot, SnapshotError } from "../manifest/snapshot.js";
import { openStore } from "../store/schemes.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey, manifestPrefix, partitionOfManifestKey } from "../manifest/layout.js";
import { mapBounded } from "../bounded.js";
import { DatasetView, entryAsOf, ReadError, verifiedBytes, viewOfManifest, viewOfSnapshot } from "./dataset-view.js";
import type { ViewPartition, Which } from "./dataset-view.js";

import { changesOf } from "./changes-view.js";
import type { ChangeRange, ChangeSet } from "./changes-view.js";

export { DatasetView, HistoryTooShortError, ReadError } from "./dataset-view.js";
export type { ChangeRange, ChangeSet } from "./changes-view.js";
export type { Selection, ViewEntry, ViewPartition, Which } from "./dataset-view.js";

export interface PartitionState {
  region: string;
  date: string;
  manifest: Manifest;
  /** The manifest's version when it was read. */
  version: string;
}

/**
 * Reads a dataset the way analysts should: through its manifests, so a reader only ever sees promoted
 * artifacts, and every artifact's bytes are checked against the sha256 its manifest recorded before use.
 */
export class Dataset {
  constructor(
    readonly store: ObjectStore,
    readonly name: string,
  ) {}

  /**
   * Every partition's manifest, and the manifests that could not be read (not JSON, schema-invalid, tampered),
   * each with its message: one bad manifest does not hide the rest. A listing the store refuses still throws.
   */
  /** Every partition's manifest, and those that could not be read; `onRead(done, total)` after each GET. */
  async scan(
    region?: string,
    onRead?: (done: number, total: number) => void,
  ): Promise<{ partitions: PartitionState[]; problems: { key: string; message: string }[] }> {
    const keys: { key: string; region: string; date: string }[] = [];
    for await (const e of this.store.list(manifestPrefix(this.name, region))) {
      const p = partitionOfManifestKey(e.key);
      if (p) keys.push({ key: e.key, region: p.region, date: p.date });
    }
    const partitions: PartitionState[] = [];
    const problems: { key: string; message: string }[] = [];
    // Sixteen GETs in flight: a dataset of thousands of partitions is read in seconds on S3, not minutes.
    await mapBounded(keys, 16, async (k) => {
      try {
        const found = await readManifest(this.store, k.key);
        if (found)
          partitions.push({ region: k.region, date: k.date, manifest: found.manifest, version: found.version });
      } catch (error) {
        if (!(error instanceof ManifestError)) throw error;
        problems.push({ key: k.key, message: error.message });
      }
      onRead?.(partitions.length + problems.length, keys.length);
    });
    const order = (a: { key?: string; region: string; date: string }, b: typeof a) =>
      a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1;
    partitions.sort(order);
    problems.sort((a, b) => (a.key < b.key ? -1 : 1));
    return { partitions, problems };
  }

  /** Every partition's manifest; throws on the first that cannot be read (use scan() to carry on past it). */
  async partitions(region?: string): Promise<PartitionState[]> {
    const { partitions, problems } = await this.scan(region);
    if (problems[0]) throw new ManifestError(problems[0].message);
    return partitions;
  }

  async manifest(region: string, which: Which): Promise<Manifest> {
    if ("date" in which) {
      const found = await readManifest(this.store, manifestKey({ dataset: this.name, region, date: which.date }));
      if (!found) throw new ReadError(`${this.name}: no manifest for region ${region} on ${which.date}`);
      return found.manifest;
    }
    const live = (await this.partitions(region))
      .filter((p) => p.manifest.current && !p.manifest.retired)
      .sort((a, b) => (a.date < b.date ? 1 : -1));
    if (!live[0]) throw new ReadError(`${this.name}: region ${region} has no promoted, unretired partition`);
    return live[0].manifest;
  }

  /** The current artifact's bytes, verified against the manifest's sha256. */
  async bytes(region: string, which: Which): Promise<{ entry: ManifestEntry; bytes: Uint8Array }> {
    const m = await this.manifest(region, which);
    const entry = m.current;
    if (!entry) throw new ReadError(`${this.name} ${region} ${m.partition.logical_date}: nothing promoted yet`);
    return { entry, bytes: await verifiedBytes(this.store, entry) };
  }

  async read(region: string, which: Which): Promise<{ entry: ManifestEntry; table: Table }> {
    const { entry, bytes } = await this.bytes(region, which);
    return {
      entry,
      table: (await (await import("../geoparquet/read.js")).readGeoParquet(bytes, this.store.locate(entry.artifact)))
        .table,
    };
  }

  /**
   * Row-level change of a region (docs/changes.md): between two logical dates, or a date against the version it
   * was promoted over. `geometry` also reads each changed row's geometry (the after one; the before for removals).
   */
  async changes(region: string, range: ChangeRange, options: { geometry?: boolean } = {}): Promise<ChangeSet> {
    return changesOf(this, region, range, options);
  }

  /** What readers following the manifests see now: every current, unretired partition. */
  async current(): Promise<DatasetView> {
    const scanned = await this.scan();
    const parts = scanned.partitions
      .filter((p) => p.manifest.current && !p.manifest.retired)
      .map((p) => viewOfManifest(p.manifest, p.manifest.current as ManifestEntry));
    return new DatasetView(this.store, this.name, "current", parts, scanned.problems);
  }

  /** A committed snapshot (docs/snapshots.md): one consistent set of artifacts however refreshes go on. */
  async snapshot(id: string | "latest"): Promise<DatasetView> {
    let sid = id;
    if (id === "latest") {
      const at = await readPointer(this.store, this.name);
      if (!at)
        throw new SnapshotError(
          `${this.name} has no snapshot yet: a backfill that finishes every partition, or finalize, commits one`,
        );
      sid = at.pointer.snapshot;
    }
    const snap = await readSnapshot(this.store, this.name, sid);
    return new DatasetView(this.store, this.name, `snapshot ${sid}`, snap.partitions.map(viewOfSnapshot));
  }

  /**
   * What a reader following the manifests saw at `at`, from each manifest's current entry and history. Throws
   * HistoryTooShortError when some manifest's history no longer reaches back that far.
   */
  async asOf(at: Date | string): Promise<DatasetView> {
    const t = typeof at === "string" ? new Date(at) : at;
    if (Number.isNaN(t.getTime())) throw new ReadError(`--as-of ${String(at)}: not an ISO 8601 time`);
    const parts: ViewPartition[] = [];
    const scanned = await this.scan();
    for (const p of scanned.partitions) {
      const where = this.store.locate(manifestKey({ dataset: this.name, region: p.region, date: p.date }));
      const entry = entryAsOf(p.manifest, t, where);
      if (entry) parts.push(viewOfManifest(p.manifest, entry));
    }
    return new DatasetView(this.store, this.name, `as of ${t.toISOString()}`, parts, scanned.problems);
  }
}

/** A store URL's backend must be loaded (the library's index loads them all; the CLI calls loadScheme). */
export function openDataset(storeUrl: string | ObjectStore, name: string): Dataset {
  return new Dataset(typeof storeUrl === "string" ? openStore(storeUrl) : storeUrl, name);
}
