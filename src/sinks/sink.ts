import type { PartitionBatch } from "./partition-rows.js";
import type { AppliedPartition } from "./plan.js";

/** The table a dataset is applied to, as its artifacts describe it. */
export interface SinkTableShape {
  dataset: string;
  /** The natural key's columns (empty: the table holds every partition, each replaced as a whole). */
  key: string[];
  /** The data columns (key included; not the geometry) with their Arrow types. */
  columns: { name: string; type: string }[];
  /** The storage CRS, e.g. "OGC:CRS84" or "EPSG:26913". */
  crs: string;
  hasZ: boolean;
  /** The partition's geometry types, as its GeoParquet footer declares them (empty or absent: any). */
  geometryTypes?: string[];
}

/** Where a partition's rows came from: provenance for every row it writes, and the count its manifest records. */
export interface PartitionMeta {
  region: string;
  /** The logical date: valid_from of what it carries, and retired_at of what it retires. */
  date: string;
  artifactKey: string;
  sha256: string;
  /** Rows the view records for the artifact: the loaded count must equal it. */
  rows: number;
}

/** The partition's row groups, their data columns in SinkTableShape order. */
export type RowBatches = AsyncIterable<PartitionBatch>;

export interface ApplyCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  retired: number;
  /** Rows of the partition's previous version removed (datasets without a key, replaced per partition). */
  deleted: number;
}

/** What a kind of database can do, declared (the loader asks these, never a throw). */
export interface SinkCapabilities {
  /** Keeps `<table>_history` for keyed tables (docs/sinks.md). */
  history: boolean;
  /** Applies a changelog's rows alone when it is against the version the table holds (else compares every row). */
  deltas: boolean;
  /** Several sinks of one table at once: each waits for the other's transaction (a lock), then re-plans. */
  concurrentWriters: boolean;
}

/** A constant a bulk load writes into every row, with the type the column holds. */
export interface LoadConstant {
  value: unknown;
  type: "text" | "date";
}

/**
 * A bulk load's rows: `before`, the data columns (shape order), the geometry, the content digest, then `after`,
 * into the quoted `columns` of `table`.
 */
export interface BulkLoad {
  table: string;
  columns: string[];
  before: LoadConstant[];
  after: LoadConstant[];
}

/**
 * One database's few primitives inside the loader's transaction (loader.ts owns what they are used for). SQL the
 * loader writes uses `param(n)` for its n-th parameter (1-based), `date(x)` where a parameter is a date, and
 * `distinct(a, b)` for a null-safe inequality.
 */
export interface SinkDialect {
  /** The target table, quoted (and schema-qualified where the database has schemas). */
  readonly table: string;
  /** The state table, quoted. */
  readonly state: string;
  /** The target's own name, as the state table records it. */
  readonly name: string;
  /** Whether this transaction made the table (it holds nothing yet, and gets its indexes after its rows). */
  readonly created: boolean;
  quote(name: string, what: string): string;
  param(n: number): string;
  date(expr: string): string;
  distinct(a: string, b: string): string;
  /** Runs a statement; the rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** Runs a query; its rows as arrays of values, in select order. */
  rows(sql: string, params: readonly unknown[]): Promise<unknown[][]>;
  /** The state as it is under the lock. */
  applied(): Promise<AppliedPartition[]>;
  /** Makes the table when missing; adds columns it lacks; refuses a column whose type changed. */
  prepare(shape: SinkTableShape, keepHistory: boolean): Promise<void>;
  /** Streams every row of the batches into a table in bulk (binary COPY, or prepared inserts). */
  load(shape: SinkTableShape, into: BulkLoad, batches: RowBatches): Promise<void>;
  /** A staging table (dropped by the transaction) with the data's columns, geometry and digest: its quoted name. */
  createStage(shape: SinkTableShape): Promise<string>;
  /** Indexes the stage by the key (and gathers statistics) once it is loaded. */
  indexStage(stage: string, keys: string[]): Promise<void>;
  /** The detail of a unique-key violation, or undefined when the error is something else. */
  uniqueViolation(error: unknown): string | undefined;
  /** Last, before the commit: what the table needs once its rows are in (indexes, extents). */
  finish(): Promise<void>;
  /** Present where `capabilities.history`: the history table written from the rows a run just changed. */
  readonly history?: SinkHistory;
}

export interface SinkHistory {
  /** What the run did to a region on a date: rows inserted or updated, keys retired. */
  record(shape: SinkTableShape, region: string, date: string, run: string): Promise<void>;
  /** A retired region's keys, the key and columns read from the history table itself. */
  retired(region: string, date: string, run: string): Promise<void>;
}

/**
 * One open database (a PostgreSQL connection, a GeoPackage file). Everything a run changes happens inside
 * transaction(), which holds the table against other sinks until it ends and commits only if `work` resolves.
 */
export interface SinkDatabase {
  /** Where it writes, for messages: never a password. */
  readonly where: string;
  /** The partition versions the table holds (one read); empty when the table does not exist yet. */
  applied(table: string): Promise<AppliedPartition[]>;
  transaction<T>(table: string, work: (db: SinkDialect) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A kind of sink: which `--to` it takes, what it can do, and how to open one. */
export interface SinkHooks {
  onWait?: (why: string) => void;
}

export interface SinkKind {
  name: string;
  capabilities: SinkCapabilities;
  /** `onWait`: said once when the database is held by another sink or program and this one waits for it. */
  open(to: string, hooks?: SinkHooks): Promise<SinkDatabase>;
}
