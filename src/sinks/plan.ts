import { createHash } from "node:crypto";
import type { ViewPartition } from "../views/reader.js";

/** A partition version a sink table holds: a row of the state table. */
export interface AppliedPartition {
  region: string;
  date: string;
  sha256: string;
}

/** What a sink does to bring a table to a view: docs/sinks.md. */
export interface SinkPlan {
  /** Partitions to read and apply, in (region, date) order. */
  apply: ViewPartition[];
  /** Partitions the table already holds at the view's version: never read. */
  unchanged: ViewPartition[];
  /**
   * What the table holds that the view no longer has. Keyed: regions gone from the view (their rows are retired).
   * Without a key: partitions gone from the view (their rows are deleted).
   */
  gone: AppliedPartition[];
  /** The run's name: a digest of the table and what it applies, so a re-run after a crash writes the same rows. */
  run: string;
}

/**
 * The plan, from the view and the state table alone. A keyed table holds one row per (region, key) at the
 * region's latest logical date: only each region's latest partition is applied, when its version differs from
 * the one applied. A table without a key holds every partition: each whose version differs is replaced.
 */
export function planSink(
  table: string,
  partitions: readonly ViewPartition[],
  applied: readonly AppliedPartition[],
  keyed: boolean,
): SinkPlan {
  const byCell = new Map(applied.map((a) => [`${a.region}\0${a.date}`, a.sha256]));
  const cells = keyed ? latestPerRegion(partitions) : [...partitions];
  cells.sort((a, b) => (a.region === b.region ? cmp(a.date, b.date) : cmp(a.region, b.region)));
  const apply: ViewPartition[] = [];
  const unchanged: ViewPartition[] = [];
  for (const p of cells) {
    const same = byCell.get(`${p.region}\0${p.date}`) === p.entry.sha256;
    // Keyed: the region's one applied row must be this very date (a later one applied means the view went back).
    const only = !keyed || applied.filter((a) => a.region === p.region).length === 1;
    (same && only ? unchanged : apply).push(p);
  }
  const inView = new Set(keyed ? cells.map((p) => p.region) : cells.map((p) => `${p.region}\0${p.date}`));
  const gone = applied.filter((a) => !inView.has(keyed ? a.region : `${a.region}\0${a.date}`));
  const hash = createHash("sha256").update(`${table}\n`);
  for (const p of apply) hash.update(`${p.region}\0${p.date}\0${p.entry.sha256}\n`);
  for (const g of gone) hash.update(`gone\0${g.region}\0${g.date}\n`);
  return { apply, unchanged, gone, run: `sink-${hash.digest("hex").slice(0, 16)}` };
}

function latestPerRegion(partitions: readonly ViewPartition[]): ViewPartition[] {
  const newest = new Map<string, ViewPartition>();
  for (const p of partitions) if ((newest.get(p.region)?.date ?? "") < p.date) newest.set(p.region, p);
  return [...newest.values()];
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
