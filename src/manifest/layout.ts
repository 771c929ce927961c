import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
/**
 * Where everything lives in the store. Partitions are Hive-style (region=…/date=…) so DuckDB and friends can
 * read a dataset's artifacts with partition columns; one manifest per partition keeps a 1,000-partition
 * backfill free of cross-partition contention.
 */
/** One unit of work: a region of a dataset on a logical date. */
export interface Partition {
  dataset: string;
  region: string;
  /** The logical date, YYYY-MM-DD (for monthly cadence, the first of the month). Never the wall clock. */
  date: string;
}

/**
 * The one limit on every name that becomes a key segment (datasets, regions, tasks, memo calls): 1–100 of
 * letters, digits, '_', '.', '-', starting with a letter or digit. 100 keeps the longest derived segment (a STAC
 * Item file, `<dataset>-<region>-<date>.json`) inside the 255 bytes a filesystem allows.
 */
export const NAME_MAX = 100;
export const NAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,${NAME_MAX - 1}}$`);
export const NAME_RULE = `1–${NAME_MAX} letters, digits, '_', '.', '-' (starting with a letter or digit); no '/', '..' or control characters`;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A name for a message: quoted, and cut when it is long (a 10,000-character name need not be printed whole). */
export const nameShown = (name: unknown) => {
  const text = JSON.stringify(name) ?? String(name);
  return text.length > NAME_MAX + 20 ? `${text.slice(0, NAME_MAX)}…" (${String(name).length} characters)` : text;
};

export class PartitionNameError extends GeorefreshError {
  override readonly code: ErrorCode = "PartitionName";
}

/** Dataset and region names become key segments: checked here, before any key is built from them. */
export function checkPartition(p: Partition): Partition {
  for (const [what, value] of [
    ["dataset", p.dataset],
    ["region", p.region],
  ] as const) {
    if (!NAME.test(value)) {
      throw new PartitionNameError(`${what} name ${nameShown(value)} is not allowed: use ${NAME_RULE}`);
    }
  }
  if (
    !DATE.test(p.date) ||
    Number.isNaN(Date.parse(`${p.date}T00:00:00Z`)) ||
    new Date(`${p.date}T00:00:00Z`).toISOString().slice(0, 10) !== p.date
  ) {
    throw new PartitionNameError(`logical date ${JSON.stringify(p.date)} is not a calendar date YYYY-MM-DD`);
  }
  return p;
}

export const partitionPath = (p: Partition) => `region=${p.region}/date=${p.date}`;
export const artifactKey = (p: Partition, key: string) => `artifacts/${p.dataset}/${partitionPath(p)}/${key}.parquet`;
/** Every artifact of a region in the month of `p.date`: the unit an ArtifactIndex lists. */
export const artifactMonthPrefix = (p: Partition) =>
  `artifacts/${p.dataset}/region=${p.region}/date=${p.date.slice(0, 7)}-`;
export const tempKey = (p: Partition, runId: string, key: string) => `_tmp/${p.dataset}/${runId}/${key}.parquet`;
export const manifestKey = (p: Partition) => `manifests/${p.dataset}/${partitionPath(p)}.json`;
export const manifestPrefix = (dataset: string, region?: string) =>
  `manifests/${dataset}/${region ? `region=${region}/` : ""}`;

/** Parses a manifest key back into its partition. */
export function partitionOfManifestKey(key: string): Partition | undefined {
  const m = /^manifests\/([^/]+)\/region=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\.json$/.exec(key);
  return m ? { dataset: m[1] as string, region: m[2] as string, date: m[3] as string } : undefined;
}

/** A partition's changelog against one previous version: `id` hashes both versions' sha256 (docs/changes.md). */
export const changelogKey = (p: Partition, id: string) => `changes/${p.dataset}/${partitionPath(p)}/${id}.parquet`;
