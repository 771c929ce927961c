/** A manifest: the one pointer readers follow for a partition. manifest.schema.json is the contract. */
export interface ManifestEntry {
  key: string;
  artifact: string;
  sha256: string;
  bytes: number;
  rows: number;
  bbox: [number, number, number, number] | null;
  crs: string;
  geometry_types: string[];
  columns: { name: string; type: string }[];
  area_m2: number;
  pins: Record<string, string>;
  inputs: Record<string, { uri: string; identity: string }>;
  code_version: string;
  run_id: string;
  logical_date: string;
  promoted_at: string;
  plausibility: { status: "passed" | "first-version" | "overridden"; notes?: string[] };
  /** Row-level change against the previous version (tasks with a natural key only; docs/changes.md). */
  changes?: ChangesRecord;
  /** Rows compute left out on purpose (ctx.drop), and why; absent when none was. */
  dropped?: DroppedRecord;
}

/** Rows a task dropped (a boundary whose repair leaves no area): a recorded decision, never a silent row. */
export interface DroppedRecord {
  rows: number;
  /** One line per dropped row, sorted (at most DROPPED_SHOWN; `rows` counts them all). */
  why: string[];
}

/** How many of a partition's drop reasons the manifest keeps. */
export const DROPPED_SHOWN = 50;

/** A promotion's change set: its changelog file and counts, and the version it was computed against. */
export interface ChangesRecord {
  /** Store key of the changelog (Parquet, one row per changed key and kind). */
  changelog: string;
  sha256: string;
  bytes: number;
  key: string[];
  /** The version compared with: the one this promotion supersedes, else the region's previous logical date. */
  against: { logical_date: string; sha256: string } | null;
  counts: { added: number; removed: number; geometry_changed: number; attributes_changed: number; unchanged: number };
}

export interface Manifest {
  format: "georefresh.manifest/1";
  dataset: string;
  partition: { region: string; logical_date: string };
  current: ManifestEntry | null;
  history: ManifestEntry[];
  /** `at`: when (wall clock, for --as-of); absent in tombstones written before it was recorded. */
  retired: { run_id: string; reason: string; logical_date: string; at?: string } | null;
  /** gc's announcement that it is deleting these keys of the partition; absent or null otherwise (docs/gc.md). */
  gc?: Condemnation | null;
}

export interface Condemnation {
  /** The gc run that wrote it. */
  by: string;
  /** Wall-clock end of gc's lease (bookkeeping only, never in a key or artifact). */
  until: string;
  keys: string[];
}

/** How many earlier entries a manifest keeps, newest first. */
export const HISTORY_LIMIT = 50;
