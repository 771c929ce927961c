import { compareStored } from "../changes/compare.js";
import type { Changelog, ChangeRow } from "../changes/changelog.js";
import type { ChangeCounts } from "../changes/diff.js";
import { plain } from "../changes/canonical.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import type { ObjectStore } from "../store/types.js";
import { ReadError } from "./dataset-view.js";

/** Which two versions of a region to compare: two logical dates, or one date against what it was promoted over. */
export type ChangeRange = { from: string; to: string } | { date: string };

export interface ChangeSet {
  dataset: string;
  region: string;
  key: string[];
  /** The key columns' Arrow types (for writing the change set as Parquet). */
  keyTypes: Changelog["keyTypes"];
  /** The versions compared (null: none before, every row is added), each with the CRS its geometries are in. */
  from: { logical_date: string; sha256: string; crs: string } | null;
  to: { logical_date: string; sha256: string; crs: string };
  counts: ChangeCounts;
  changes: ChangeRow[];
}

/** The part of Dataset a change set needs. */
export interface ManifestSource {
  readonly store: ObjectStore;
  readonly name: string;
  manifest(region: string, which: { date: string }): Promise<Manifest>;
}

/** The 8 MiB ranges large partitions are read in (docs/large-partitions.md). */
const CHUNK = 8 * 2 ** 20;

/**
 * The change set between two versions of a region, by comparing their artifacts directly (the stored changelogs
 * in between compose to the same answer: test/changes). `{date}` compares a date's current version with the one
 * its changelog was computed against (the region's previous date, or the version a correction superseded).
 */
export async function changesOf(
  ds: ManifestSource,
  region: string,
  range: ChangeRange,
  options: { geometry?: boolean } = {},
): Promise<ChangeSet> {
  const toDate = "date" in range ? range.date : range.to;
  const after = await currentOf(ds, region, toDate);
  const key = after.changes?.key;
  if (!key)
    throw new ReadError(
      `${ds.name} ${region} ${toDate} has no natural key: its task names none (key: ["…"]), so no row-level change is recorded`,
    );
  let before: ManifestEntry | undefined;
  if ("date" in range) {
    const against = after.changes?.against;
    before = against ? await versionOf(ds, region, against) : undefined;
  } else {
    if (range.from >= range.to)
      throw new ReadError(`--from ${range.from} must be before --to ${range.to} (the change set goes forward in time)`);
    before = await currentOf(ds, region, range.from);
  }
  const log: Changelog = await compareStored(ds.store, before, after, key, CHUNK, options);
  return {
    dataset: ds.name,
    region,
    key,
    keyTypes: log.keyTypes,
    from: before ? { logical_date: before.logical_date, sha256: before.sha256, crs: before.crs } : null,
    to: { logical_date: after.logical_date, sha256: after.sha256, crs: after.crs },
    counts: log.counts,
    changes: log.rows,
  };
}

async function currentOf(ds: ManifestSource, region: string, date: string): Promise<ManifestEntry> {
  const m = await ds.manifest(region, { date });
  if (!m.current) throw new ReadError(`${ds.name} ${region} ${date}: nothing promoted yet`);
  return m.current;
}

/** The entry of a version named by its date and sha256: the current one, or one in that manifest's history. */
async function versionOf(
  ds: ManifestSource,
  region: string,
  v: { logical_date: string; sha256: string },
): Promise<ManifestEntry> {
  const m = await ds.manifest(region, { date: v.logical_date });
  const found = [m.current, ...m.history].find((e) => e?.sha256 === v.sha256);
  if (!found)
    throw new ReadError(
      `${ds.name} ${region} ${v.logical_date}: version ${v.sha256.slice(0, 12)}… is no longer in its manifest's history; compare two dates with --from and --to instead`,
    );
  return found;
}

/** A change row as JSON: the key (its value, or an object of its columns), the change, the columns, the digests. */
export function changeJson(
  key: readonly string[],
  r: ChangeRow,
): { id: unknown; change: string; columns: string[]; before_digest: string | null; after_digest: string | null } {
  const values = r.key.map(plain);
  return {
    id: key.length === 1 ? values[0] : Object.fromEntries(key.map((k, i) => [k, values[i]])),
    change: r.change,
    columns: r.columns,
    before_digest: r.before_digest,
    after_digest: r.after_digest,
  };
}
