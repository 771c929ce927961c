import { isCalendarDate } from "./calendar.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * Pinned versions (graph_version, vintage, …) by logical date. The versions file maps each pin to a list of
 * { from: date, value }: a date resolves to the entry with the latest `from` on or before it, so a backfill of
 * an old date uses the versions that were current then, never today's.
 */
export type VersionsFile = Record<string, { from: string; value: string }[]>;

export class PinError extends GeorefreshError {
  override readonly code: ErrorCode = "Pin";
}

export function checkVersionsFile(doc: unknown, where: string): VersionsFile {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new PinError(`${where}: expected an object of pin name → [{ from, value }]`);
  for (const [pin, entries] of Object.entries(doc)) {
    if (!Array.isArray(entries) || entries.length === 0)
      throw new PinError(`${where}: pin '${pin}' needs a non-empty list of { from, value }`);
    const seen = new Set<string>();
    for (const e of entries as unknown[]) {
      const entry = e as { from?: unknown; value?: unknown };
      if (
        typeof entry.from !== "string" ||
        !isCalendarDate(entry.from) ||
        typeof entry.value !== "string" ||
        entry.value === ""
      ) {
        throw new PinError(
          `${where}: pin '${pin}' has an entry ${JSON.stringify(e)}; each needs from: a calendar date "YYYY-MM-DD" and a non-empty string value`,
        );
      }
      // Two values from one date would leave the pin in force that day up to list order.
      if (seen.has(entry.from))
        throw new PinError(`${where}: pin '${pin}' has two entries from ${entry.from}; keep one value per date`);
      seen.add(entry.from);
    }
  }
  return doc as VersionsFile;
}

export function resolvePins(versions: VersionsFile, names: readonly string[], date: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...names].sort()) {
    const entries = Object.hasOwn(versions, name) ? versions[name] : undefined;
    if (!entries)
      throw new PinError(`pin '${name}' is not in the versions file; add it with its { from, value } history`);
    const current = entries.filter((e) => e.from <= date).sort((a, b) => (a.from < b.from ? 1 : -1))[0];
    if (!current)
      throw new PinError(
        `pin '${name}' has no value on ${date} (its first entry is from ${[...entries].sort((a, b) => (a.from < b.from ? -1 : 1))[0]?.from})`,
      );
    out[name] = current.value;
  }
  return out;
}
