import type { ObjectStore } from "../store/types.js";
import { readManifest } from "./codec.js";
import type { ManifestEntry } from "./types.js";

export interface PlausibilityInput {
  rows: number;
  areaM2: number;
  /** Current entries of earlier versions of the same region, newest first. */
  history: ManifestEntry[];
  rules: { window: number; rowTolerance: number; areaTolerance: number; minRows: number };
  override: boolean;
  /** Pins and code version of the new result: area is only compared with a version made the same way. */
  pins: Record<string, string>;
  codeVersion: string;
  /** The box the region's data must lie in (plausibility.extent), and the data's own box, both lon/lat. */
  extent?: { region: string; box: [number, number, number, number] };
  lonLatBbox?: [number, number, number, number] | null;
}

export interface PlausibilityVerdict {
  ok: boolean;
  status: "passed" | "first-version" | "overridden";
  notes: string[];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Plausibility before promote: a truncated input or a broken join yields a valid file with the wrong number of
 * rows or the wrong total area. Rows are compared with the median of the last N versions of the region, area
 * with the previous version; the first version passes with a note; an override is recorded, never silent.
 */
export function checkPlausibility(input: PlausibilityInput): PlausibilityVerdict {
  const { rows, areaM2, history, rules } = input;
  const problems: string[] = [];
  const notes: string[] = [];
  if (rows < rules.minRows) problems.push(`${rows} rows, fewer than the minimum ${rules.minRows}`);
  const outside = outsideExtent(input);
  if (outside) problems.push(outside);
  const window = history.slice(0, rules.window);
  if (window.length > 0) {
    const m = median(window.map((e) => e.rows));
    if (m > 0 && Math.abs(rows - m) / m > rules.rowTolerance) {
      problems.push(
        `${rows} rows vs a median of ${m} over the last ${window.length} versions (more than ±${rules.rowTolerance * 100}%)`,
      );
    }
    // A new model or vintage is meant to change the geometry: compare area only with a like-for-like version.
    const same = (e: ManifestEntry) =>
      e.code_version === input.codeVersion && JSON.stringify(e.pins) === JSON.stringify(input.pins);
    const prev = window.find(same);
    if (!prev)
      notes.push(
        `pins or code changed since the previous version (${JSON.stringify(window[0]?.pins)} → ${JSON.stringify(input.pins)}): area not compared`,
      );
    else if (prev.area_m2 > 0 && Math.abs(areaM2 - prev.area_m2) / prev.area_m2 > rules.areaTolerance) {
      problems.push(
        `total area ${(areaM2 / 1e6).toFixed(1)} km² vs ${(prev.area_m2 / 1e6).toFixed(1)} km² in the previous like-for-like version (more than ±${rules.areaTolerance * 100}%)`,
      );
    }
  }
  if (problems.length === 0) {
    return window.length === 0
      ? { ok: true, status: "first-version", notes: ["first version of this region: nothing to compare with"] }
      : { ok: true, status: "passed", notes };
  }
  if (input.override) return { ok: true, status: "overridden", notes: [...problems, ...notes] };
  return { ok: false, status: "passed", notes: problems };
}

/**
 * The data's box outside the extent pinned for its region: the declared CRS is of the right kind but not the data's
 * (a neighbouring State Plane or UTM zone reads as plausible coordinates, kilometres off), or the feed is another
 * region's. The comparison is the boxes', so a wrong CRS that lands inside the extent passes (docs/plausibility.md).
 */
function outsideExtent(input: PlausibilityInput): string | undefined {
  const { extent, lonLatBbox: b } = input;
  if (!extent || !b) return undefined;
  const [w, s, e, n] = extent.box;
  if (b[0] >= w && b[1] >= s && b[2] <= e && b[3] <= n) return undefined;
  const deg = (v: number) => Number(v.toFixed(6));
  return `the data lies at lon ${deg(b[0])}…${deg(b[2])}, lat ${deg(b[1])}…${deg(b[3])}, not inside the extent pinned for region ${extent.region} (lon ${w}…${e}, lat ${s}…${n}): check that the source's CRS is the one its coordinates are in (a neighbouring zone of the same kind lands kilometres off), or widen plausibility.extent if the region really grew`;
}

/** A manifest this run has already seen or written, with the version it had then. */
export interface KnownManifest {
  version: string;
  current: ManifestEntry | null;
}

/**
 * Current entries of the region's manifests for dates before `date`, newest first, at most `limit`. Lists the
 * narrowest key range that holds enough of them — the date's month, then its year, then all — so a backfill
 * over years of daily history lists a few dozen keys per partition, not the whole region every time. A manifest
 * in `known` whose listed version (S3's ETag) is still the one known is not fetched again.
 */
export async function regionHistory(
  store: ObjectStore,
  prefix: string,
  date: string,
  limit: number,
  known?: ReadonlyMap<string, KnownManifest>,
): Promise<ManifestEntry[]> {
  let keys: { key: string; version?: string }[] = [];
  const scopes = [date.slice(0, 7), ...(date.slice(5, 7) === "01" ? [] : [date.slice(0, 5)]), ""];
  for (const scope of scopes) {
    keys = [];
    for await (const e of store.list(`${prefix}date=${scope}`)) {
      const m = /date=(\d{4}-\d{2}-\d{2})\.json$/.exec(e.key);
      if (m && (m[1] as string) < date) keys.push({ key: e.key, version: e.version });
    }
    if (keys.length >= limit) break;
  }
  const recent = keys.sort((a, b) => (a.key < b.key ? 1 : -1)).slice(0, limit);
  const entries = await Promise.all(
    recent.map(async ({ key, version }) => {
      const seen = version === undefined ? undefined : known?.get(key);
      if (seen && seen.version === version) return seen.current;
      return (await readManifest(store, key))?.manifest.current ?? null;
    }),
  );
  return entries.filter((e): e is ManifestEntry => e !== null);
}
