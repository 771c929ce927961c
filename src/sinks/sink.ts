import type { Delta } from "./delta.js";
import type { AppliedPartition } from "./plan.js";
import type { ApplyCounts, PartitionMeta, RowBatches } from "./postgis-apply.js";

export type { ApplyCounts, PartitionMeta, RowBatches } from "./postgis-apply.js";

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
}

/**
 * One open database (a PostgreSQL connection, a GeoPackage file): the sink kinds' one interface. Everything a
 * run changes happens inside transaction(), which holds the table against other sinks until it ends.
 */
export interface SinkSession {
  /** Where it writes, for messages: never a password. */
  readonly where: string;
  /** The partition versions the table holds (one read); empty when the table does not exist yet. */
  applied(table: string): Promise<AppliedPartition[]>;
  /** Runs `work` in one transaction with the table locked against other sinks; commits only if it resolves. */
  transaction<T>(table: string, work: (tx: SinkTransaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** What a sink does inside its transaction. */
export interface SinkTransaction {
  /** The run's name, written into what it changes (provenance): set before the first change. */
  run: string;
  /** Keyed tables: also keep the history table of every state applied (docs/sinks.md); set before the first change. */
  keepHistory: boolean;
  /** The state as it is under the lock (another sink may have committed since applied() was read). */
  applied(): Promise<AppliedPartition[]>;
  /** Makes the table when missing; adds columns the table lacks; refuses a column whose type changed. */
  prepare(shape: SinkTableShape): Promise<void>;
  /**
   * A keyed partition upserted (unchanged rows untouched, absent keys retired), or an unkeyed one replaced. With a
   * delta, `batches` holds only its changed rows and only its removed keys are retired.
   */
  apply(shape: SinkTableShape, p: PartitionMeta, batches: RowBatches, delta?: Delta): Promise<ApplyCounts>;
  /** Keyed: every live row of a region the view no longer has, retired as of `date`. */
  retireRegion(region: string, date: string): Promise<number>;
  /** Without a key: a partition the view no longer has, its rows deleted. */
  removePartition(region: string, date: string): Promise<number>;
  /** The state table: keyed tables keep one row per region (the date applied), others one per partition. */
  record(dataset: string, keyed: boolean, applied: AppliedPartition): Promise<void>;
  /** Drops a region's (keyed) or a partition's state rows. */
  forget(keyed: boolean, gone: AppliedPartition): Promise<void>;
  /** Last, before the commit: what the table needs once its rows are in (indexes built, extents updated). */
  finish(): Promise<void>;
}

/** A kind of sink: which `--to` it takes, and how to open one. */
export interface SinkKind {
  name: string;
  open(to: string): Promise<SinkSession>;
}
