import type { ColumnSpec } from "../geoparquet/features.js";
import type { GeoParquetFormat } from "../geoparquet/metadata.js";
import type { Partition } from "../manifest/layout.js";
import type { ComputeOutput } from "./compute-output.js";
import { NAME, NAME_RULE, nameShown } from "../manifest/layout.js";
import { plausibilityProblems } from "./plausibility-rules.js";
import type { PlausibilityRules } from "./plausibility-rules.js";
export type { PlausibilityRules } from "./plausibility-rules.js";

// The partition is named by the key layout (manifest layer); tasks see it from here as before.
export type { Partition };

export interface TaskContext {
  partition: Partition;
  /** Pin values in force on the partition's logical date. */
  pins: Record<string, string>;
  params: Record<string, unknown>;
  /** The bytes of a declared input, as identified at run start. */
  input(name: string): Promise<Uint8Array>;
  /**
   * A local file holding a declared input's verified bytes, for inputs too large to hold in memory (open it with
   * a streaming reader). Remote inputs are downloaded once per run; the file is the run's and is removed after.
   */
  inputPath(name: string): Promise<string>;
  /**
   * An external call (a routing engine, a geocoder) made once per distinct JSON `request`, across retries, twins
   * and later runs: the stored answer otherwise (memo.ts). The answer must be JSON.
   */
  memo<T>(name: string, request: unknown, call: () => Promise<T>): Promise<T>;
  /**
   * Records that compute left one row out on purpose, and why (say which row): a boundary whose repair leaves no
   * area, say. The manifest entry, `show`, the run's outcome and the report carry it; a drop is never silent.
   */
  drop(why: string): void;
}

export interface TaskDefinition {
  name: string;
  /** Code version: bump it whenever compute's output could change; it is part of every key. */
  version: string;
  cadence: "daily" | "monthly";
  /** Every region this task produces. With regionsComplete, a region missing here is retired. */
  regions: string[] | (() => Promise<string[]> | string[]);
  regionsComplete?: boolean;
  /** Store URLs (s3://…, file://…) or local paths, by name; identified by ETag or sha256 at run start. */
  inputs(partition: Partition): Record<string, string>;
  /**
   * Names of inputs that may be absent (a Shapefile's .prj or .cpg): one that does not exist is keyed as absent,
   * and ctx.input / ctx.inputPath of it reject with InputMissingError (code "InputMissing"). Any other missing
   * input fails the partition with exit 2.
   */
  optionalInputs?: string[];
  /**
   * The inputs name what is current, not what was true on a logical date (a feed url without {date}): a
   * backfill computes only its window's last date and leaves earlier dates as they are, so today's file is never
   * copied into the past. `run --date D` computes D: the user named it.
   */
  latestOnly?: boolean;
  /**
   * "ballpark": where PROJ has no transformation of the input's datum to WGS 84 that runs without a grid file, take
   * its ballpark (lon/lat kept across datums, errors of tens to hundreds of metres) instead of refusing the rows.
   */
  datumShift?: "ballpark";
  params?: Record<string, unknown>;
  /**
   * Hosts or ranges (a name, *.suffix, an address or CIDR) this task's HTTP inputs may reach although they are
   * link-local, a metadata service, or a private address reached by a redirect (docs/inputs.md).
   */
  allowHosts?: string[];
  /** Names of the pins (from the versions file) this task depends on. */
  pins?: string[];
  /** CRS the features come out of compute in, e.g. "OGC:CRS84" or "EPSG:5070". */
  crs: string;
  /** CRS the artifacts are stored in; default OGC:CRS84. */
  storageCrs?: string;
  /** Property columns with their types; inferred from the data when absent. */
  columns?: ColumnSpec[];
  /** Column that breaks ties in the spatial order (makes output independent of compute's row order). */
  idColumn?: string;
  /**
   * The natural key: the column(s) that name a row across versions, e.g. ["parcel_id"]. Unique and never null
   * within a partition (read-back validation refuses a partition that breaks it); with a key every promotion
   * records a changelog against the region's previous version (docs/changes.md), and the key breaks ties in the
   * spatial order. Part of every artifact key.
   */
  key?: string[];
  /**
   * What the outbox announces of a promotion: "partition" (the default: one event per promoted artifact) or
   * "changes" (with a key: one item per changed key, each with its own idempotency key; docs/changes.md).
   */
  events?: "partition" | "changes";
  /**
   * With events "changes": whether a partition's first version (no previous state, every row added) announces
   * every row. Default false: an initial load of millions of parcels sends one partition event, not millions.
   */
  initialEvents?: boolean;
  /**
   * "complete" (the default): compute returns the whole partition, and a key it lacks is removed. "partial" (a
   * delta feed; needs a key): compute returns only the rows that changed, merged by key into the region's previous
   * version; a row with `_deleted: true` removes its key, and nothing is removed by absence (docs/changes.md).
   */
  payload?: "complete" | "partial";
  plausibility?: PlausibilityRules;
  /**
   * File layout: "geoparquet-1.1" (default) or "geoparquet-2.0" (native GEOMETRY type and geospatial statistics,
   * which DuckDB and GDAL ≥ 3.12 prune row groups on). Part of every key: changing it makes new artifacts.
   */
  format?: GeoParquetFormat;
  /**
   * The partition's rows in `crs`: an array of GeoJSON-like features, or an Arrow table / record batch whose
   * `geometry` column holds WKB (either byte order, ISO or EWKB) — returned at once or yielded in batches.
   */
  compute(ctx: TaskContext): ComputeOutput;
}

/** Declares a task; checks the parts that would otherwise fail late, in the middle of a backfill. */
export function defineTask(task: TaskDefinition): TaskDefinition {
  const problems: string[] = [];
  if (!NAME.test(task.name)) problems.push(`name ${nameShown(task.name)} must be ${NAME_RULE}`);
  if (!task.version) problems.push("version is required (it is part of every artifact key)");
  if (task.cadence !== "daily" && task.cadence !== "monthly") problems.push(`cadence must be "daily" or "monthly"`);
  if (typeof task.compute !== "function") problems.push("compute must be a function");
  if (typeof task.inputs !== "function") problems.push("inputs must be a function of the partition");
  if (task.key !== undefined) problems.push(...keyProblems(task.key));
  problems.push(...eventsProblems(task));
  problems.push(...plausibilityProblems(task.plausibility));
  if (task.payload !== undefined && task.payload !== "complete" && task.payload !== "partial")
    problems.push(`payload must be "complete" or "partial" (got ${JSON.stringify(task.payload)})`);
  if (task.payload === "partial" && !task.key?.length)
    problems.push(`payload "partial" merges rows into the previous version by their natural key: give the task a key`);
  if (problems.length) throw new Error(`task ${task.name}: ${problems.join("; ")}`);
  if (task.columns)
    warnHivePartitionColumns(
      task.name,
      task.columns.map((c) => c.name),
    );
  return task;
}

/** Columns of a changelog beside the key's (changes/changelog.ts): a key column may not take their names. */
export const CHANGELOG_COLUMNS = ["change", "before_digest", "after_digest", "columns"] as const;

/** events "changes" announces changed keys: it needs a key to name them. */
export function eventsProblems(task: Pick<TaskDefinition, "events" | "key">): string[] {
  if (task.events !== undefined && task.events !== "partition" && task.events !== "changes")
    return [`events must be "partition" or "changes" (got ${JSON.stringify(task.events)})`];
  if (task.events === "changes" && !task.key?.length)
    return [
      `events "changes" announces changed rows by their natural key: give the task a key, e.g. key: ["parcel_id"]`,
    ];
  return [];
}

function keyProblems(key: unknown): string[] {
  if (!Array.isArray(key) || key.length === 0 || key.some((k) => typeof k !== "string" || k === ""))
    return [`key must be a non-empty list of column names, e.g. ["parcel_id"] (got ${JSON.stringify(key)})`];
  const problems: string[] = [];
  const repeated = key.filter((k, i) => key.indexOf(k) !== i);
  if (repeated.length) problems.push(`key names ${JSON.stringify(repeated[0])} twice`);
  const reserved = key.filter((k) => (CHANGELOG_COLUMNS as readonly string[]).includes(k));
  if (reserved.length)
    problems.push(
      `key column ${JSON.stringify(reserved[0])} would clash with a changelog column (${CHANGELOG_COLUMNS.join(", ")}): rename it`,
    );
  return problems;
}

/** The Hive partition keys of our artifact paths (manifest/layout.ts: region=…/date=…). */
export const HIVE_PARTITION_KEYS = ["region", "date"] as const;
const warned = new Set<string>();

/**
 * A column named like a path's Hive partition key is silently replaced by the path's value in DuckDB (and other
 * Hive-aware readers) whenever they read the artifacts with hive partitioning on: the file's own values are lost
 * (docs/snapshots.md). Warns once per task and column, at definition when columns are declared, else at the
 * first artifact that has them.
 */
export function warnHivePartitionColumns(task: string, columns: readonly string[]): void {
  for (const name of columns) {
    const key = HIVE_PARTITION_KEYS.find((k) => k === name.toLowerCase());
    if (!key || warned.has(`${task}/${key}`)) continue;
    warned.add(`${task}/${key}`);
    process.emitWarning(
      `task ${task} emits a column named "${name}", which is also a Hive partition key in its artifact paths (${key}=…): DuckDB's read_parquet with hive_partitioning replaces the column's values with the path's. Rename the column (e.g. "${name}_value")`,
      { code: "GEOREFRESH_HIVE_COLUMN" },
    );
  }
}
