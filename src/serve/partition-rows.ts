import type { Table } from "apache-arrow";
import { openRanged } from "../geoparquet/ranged-read.js";
import { storeSource } from "../geoparquet/store-source.js";
import { ReadError } from "../views/reader.js";
import type { DatasetView, ViewPartition } from "../views/reader.js";
import type { ArtifactCache } from "./artifact-cache.js";

/** Rows of a partition from `firstRow` on: the whole table, or one row group. */
export interface RowChunk {
  firstRow: number;
  table: Table;
}

/**
 * A partition's rows for a page, from row `from` on, in chunks; `enough()` says the page is full, so the rest is
 * not decoded. Every chunk of a partition must be taken (no early break): the sha256 is checked at the end.
 */
export type RowsOf = (p: ViewPartition, from: number, enough: () => boolean) => AsyncIterable<RowChunk>;

/** The byte ranges a large artifact is read in. */
const CHUNK = 8 * 2 ** 20;

/**
 * Rows as a page reads them. A partition of at most `wholeBytes` is decoded whole once and kept in the cache by
 * its sha256, so later pages read nothing. A larger one is read by row group (src/geoparquet/ranged-read.ts):
 * only the groups the page draws from are decoded, one at a time, so a request holds one row group however large
 * the partition; every byte still passes through the sha256 check before the page is answered.
 */
export function rowsOf(view: DatasetView, cache: ArtifactCache, wholeBytes: number): RowsOf {
  return (p, from, enough) => (p.entry.bytes <= wholeBytes ? whole(view, cache, p) : byRowGroup(view, p, from, enough));
}

async function* whole(view: DatasetView, cache: ArtifactCache, p: ViewPartition): AsyncIterable<RowChunk> {
  yield { firstRow: 0, table: await cache.get("table", p.entry, () => view.read(p)) };
}

async function* byRowGroup(
  view: DatasetView,
  p: ViewPartition,
  from: number,
  enough: () => boolean,
): AsyncIterable<RowChunk> {
  const where = view.store.locate(p.entry.artifact);
  const source = await storeSource(view.store, p.entry.artifact, CHUNK, p.entry.bytes);
  const file = await openRanged(source, where, { chunkBytes: CHUNK });
  for await (const g of file.rowGroups(undefined, (first, rows) => first + rows > from && !enough()))
    if (g.table.numRows > 0) yield { firstRow: g.firstRow, table: g.table };
  const sha = await file.sha256();
  if (sha !== p.entry.sha256)
    throw new ReadError(
      `${where} has sha256 ${sha}, but its entry promised ${p.entry.sha256}: refusing to answer from it`,
    );
}
