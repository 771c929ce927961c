import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** One EPSG CRS as the epsg-index package ships it (derived from the EPSG dataset, one file per code). */
export interface EpsgEntry {
  code: string;
  kind: string;
  name: string;
  proj4: string;
  /** epsg.io's order: [north, west, south, east], in degrees. */
  bbox: [number, number, number, number] | null;
}

const cache = new Map<number, EpsgEntry | null>();

/**
 * The EPSG definition of `code`, or undefined when the index has none. Each code is its own small file, read
 * when first asked for, so startup never parses the whole index.
 */
export function epsgEntry(code: number): EpsgEntry | undefined {
  if (!Number.isInteger(code) || code <= 0 || code > 99_999_999) return undefined;
  if (!cache.has(code)) {
    let entry: EpsgEntry | null = null;
    try {
      const path = require.resolve(`epsg-index/s/${code}.json`);
      const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<EpsgEntry>;
      if (typeof raw.proj4 === "string" && typeof raw.name === "string" && typeof raw.kind === "string")
        entry = {
          code: String(code),
          kind: raw.kind,
          name: raw.name,
          proj4: raw.proj4,
          bbox: Array.isArray(raw.bbox) && raw.bbox.length === 4 ? (raw.bbox as EpsgEntry["bbox"]) : null,
        };
    } catch {
      entry = null;
    }
    cache.set(code, entry);
  }
  return cache.get(code) ?? undefined;
}

/** An entry's area of use as [west, south, east, north] (west > east when it crosses the antimeridian). */
export function areaOfUseOf(entry: EpsgEntry): [number, number, number, number] | undefined {
  if (!entry.bbox) return undefined;
  const [n, w, s, e] = entry.bbox;
  return [w, s, e, n];
}
