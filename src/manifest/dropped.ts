import { DROPPED_SHOWN } from "./types.js";
import type { DroppedRecord } from "./types.js";

/**
 * The rows a task dropped travel in the artifact's own footer (key-value metadata), so a run that finds the
 * artifact already stored (a crash after publishing) records exactly what the run that computed it would, and a
 * reader of the file alone (DuckDB's parquet_kv_metadata) sees it too.
 */
export const DROPPED_KEY = "georefresh:dropped";

/** What compute's ctx.drop calls add up to, as footer metadata (none when nothing was dropped). */
export function droppedMetadata(why: readonly string[]): Record<string, string> {
  if (why.length === 0) return {};
  const sorted = [...why].sort();
  const record: DroppedRecord = { rows: why.length, why: sorted.slice(0, DROPPED_SHOWN) };
  return { [DROPPED_KEY]: JSON.stringify(record) };
}

/** The footer's drop record; a problem when it is there but not one. */
export function droppedOf(text: string | undefined): { dropped?: DroppedRecord; problem?: string } {
  if (text === undefined) return {};
  try {
    const r = JSON.parse(text) as DroppedRecord;
    if (
      Number.isInteger(r.rows) &&
      r.rows > 0 &&
      Array.isArray(r.why) &&
      r.why.length <= Math.min(r.rows, DROPPED_SHOWN) &&
      r.why.every((w) => typeof w === "string")
    )
      return { dropped: { rows: r.rows, why: r.why } };
  } catch {
    // reported below
  }
  return { problem: `the footer's ${DROPPED_KEY} metadata is not a drop record ({ rows, why })` };
}
