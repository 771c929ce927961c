import { crsFromCode, CRS84_CRS, reproject } from "../geo/crs/crs.js";
import type { Geometry } from "../geo/geometry.js";
import { decodeWkb } from "../geo/wkb.js";
import { readGeoParquet } from "../geoparquet/read.js";
import { refusalsOf, stillRefused } from "../manifest/refusal.js";
import type { ChangesRecord } from "../manifest/types.js";
import type { ObjectStore } from "../store/types.js";
import type { Bbox } from "../geo/bbox.js";
import { bboxToLonLat } from "../geo/bbox.js";
import { Dataset } from "../views/reader.js";
import { verifiedBytes } from "../views/dataset-view.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class ReportError extends GeorefreshError {
  override readonly code: ErrorCode = "Report";
}

/** refused: the partition's last run was refused (validation or plausibility); its old version, if any, stays. */
export type CellState = "current" | "overridden" | "refused" | "retired" | "never-built";

export interface Cell {
  region: string;
  date: string;
  state: CellState;
  rows?: number;
  areaM2?: number;
  promotedAt?: string;
  /** Row-level change of the promotion (keyed tasks). */
  changes?: ChangesRecord["counts"];
  /** The last run's refusal, while the manifest still holds what it held then. */
  refused?: { at: string; message: string };
  /** Rows the task dropped on purpose from the current version, and why. */
  dropped?: { rows: number; why: string[] };
}

export interface Footprint {
  region: string;
  date: string;
  /** In lon/lat. */
  geometries: Geometry[];
  bbox: Bbox;
}

export interface ReportModel {
  dataset: string;
  regions: string[];
  dates: string[];
  /** By `${region}/${date}`. */
  cells: Map<string, Cell>;
  footprints: Footprint[];
  problems: { key: string; message: string }[];
}

export interface ReportOptions {
  cadence: "daily" | "monthly";
  /** Most rows drawn per region on the map (the latest current partition's first rows in file order). */
  mapRowsPerRegion?: number;
}

/**
 * What the report shows, read through the manifests: every region × logical date between the first and last
 * date any manifest has (gaps are "never built"), and the latest current partition of each region, read and
 * sha256-checked, for the map. Nothing of the wall clock: the same store gives the same report.
 */
export async function reportModel(store: ObjectStore, dataset: string, opts: ReportOptions): Promise<ReportModel> {
  const { partitions, problems } = await new Dataset(store, dataset).scan();
  if (!partitions.length && !problems.length)
    throw new ReportError(`${dataset} has no manifests in ${store.url}: nothing to report (run a backfill first)`);
  const cells = new Map<string, Cell>();
  for (const { region, date, manifest: m } of partitions) {
    const e = m.current;
    const state: CellState = m.retired
      ? "retired"
      : !e
        ? "never-built"
        : e.plausibility.status === "overridden"
          ? "overridden"
          : "current";
    cells.set(`${region}/${date}`, {
      region,
      date,
      state,
      ...(e ? { rows: e.rows, areaM2: e.area_m2, promotedAt: e.promoted_at } : {}),
      ...(e?.changes ? { changes: e.changes.counts } : {}),
      ...(e?.dropped ? { dropped: e.dropped } : {}),
    });
  }
  // Refusals say why a partition still shows its old version (or none): the cell turns "refused".
  const byKey = new Map(partitions.map((p) => [`${p.region}/${p.date}`, p.manifest]));
  for (const [at, r] of await refusalsOf(store, dataset)) {
    const m = byKey.get(at);
    if (!stillRefused(r, m)) continue;
    const cell = cells.get(at) ?? { region: r.region, date: r.logical_date, state: "never-built" as CellState };
    cells.set(at, { ...cell, state: "refused", refused: { at: r.at, message: r.message } });
  }
  const live = [...cells.values()];
  const regions = [...new Set(live.map((c) => c.region))].sort();
  const known = live.map((c) => c.date).sort();
  const dates = calendar(known[0] as string, known[known.length - 1] as string, opts.cadence);
  for (const region of regions)
    for (const date of dates)
      if (!cells.has(`${region}/${date}`)) cells.set(`${region}/${date}`, { region, date, state: "never-built" });
  const footprints: Footprint[] = [];
  for (const region of regions) {
    const latest = partitions
      .filter((p) => p.region === region && p.manifest.current && !p.manifest.retired)
      .sort((a, b) => (a.date < b.date ? 1 : -1))[0];
    const entry = latest?.manifest.current;
    if (!latest || !entry || !entry.bbox) continue;
    const bytes = await verifiedBytes(store, entry);
    const { table } = await readGeoParquet(bytes, store.locate(entry.artifact));
    const column = table.getChild("geometry");
    const crs = crsFromCode(entry.crs);
    const limit = Math.min(table.numRows, opts.mapRowsPerRegion ?? 5000);
    const geometries: Geometry[] = [];
    for (let i = 0; i < limit; i++)
      geometries.push(reproject(decodeWkb(column?.get(i) as Uint8Array, i), crs, CRS84_CRS));
    footprints.push({ region, date: latest.date, geometries, bbox: bboxToLonLat(entry.bbox, entry.crs) });
  }
  return { dataset, regions, dates, cells, footprints, problems };
}

/** Every logical date from `first` to `last` at the cadence (monthly dates are the first of the month). */
function calendar(first: string, last: string, cadence: "daily" | "monthly"): string[] {
  const out: string[] = [];
  const d = new Date(`${first}T00:00:00Z`);
  for (let guard = 0; guard < 20_000; guard++) {
    const iso = d.toISOString().slice(0, 10);
    if (iso > last) break;
    out.push(iso);
    if (cadence === "daily") d.setUTCDate(d.getUTCDate() + 1);
    else d.setUTCMonth(d.getUTCMonth() + 1, 1);
  }
  return out;
}
