import type { Bbox } from "../geo/bbox.js";

/** A request the server refuses: its status and a JSON body naming what was wrong and, where one, the parameter. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
  }
}

/** The largest page a client may ask for (OGC API – Features: a server sets its own limit). */
export const MAX_LIMIT = 10_000;
export const DEFAULT_LIMIT = 100;

/** What an items request asks for, every parameter checked (unknown ones refused, as the issue asks). */
export interface ItemsQuery {
  bbox?: Bbox;
  limit: number;
  /** Where the page starts: the partition's index in the selection, and the row within it. */
  cursor: { partition: number; row: number };
  /** An instant: the dataset as of then. An interval of logical dates: the partitions between. */
  datetime?: { at: Date } | { from?: string; to?: string };
  /** A committed snapshot (its id, or "latest"): the dataset as that snapshot holds it. */
  snapshot?: string;
  /** Equality on plain columns (`?zoning=R1`). */
  properties: Record<string, string>;
}

const ITEMS_PARAMETERS = ["bbox", "limit", "next", "datetime", "snapshot", "f"];
/** What tiles and single features refuse: a page's box and size (they take the view and filters as items do). */
const PAGE_ONLY = ["bbox", "limit", "next"];

/**
 * The items query from a URL's search parameters. A parameter not in ITEMS_PARAMETERS names a column to match
 * (checked against the rows' columns once they are read: unknownColumn); anything malformed is a 400 naming it.
 */
export function itemsQuery(search: URLSearchParams): ItemsQuery {
  const one = (name: string): string | undefined => {
    const all = search.getAll(name);
    if (all.length > 1) throw new HttpError(400, `"${name}" is given ${all.length} times; give it once`, name);
    return all[0];
  };
  const properties: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of new Set(search.keys())) {
    if (!ITEMS_PARAMETERS.includes(name)) properties[name] = one(name) as string;
  }
  const f = one("f");
  if (f !== undefined && f !== "json" && f !== "geojson" && f !== "html")
    throw new HttpError(400, `f=${f}: this server answers items as GeoJSON (f=json) or a page (f=html)`, "f");
  const query = {
    ...bboxOf(one("bbox")),
    limit: limitOf(one("limit")),
    cursor: cursorOf(one("next")),
    ...datetimeOf(one("datetime")),
    ...snapshotOf(one("snapshot")),
    properties,
  };
  if (query.snapshot && query.datetime && "at" in query.datetime)
    throw new HttpError(
      400,
      "snapshot and an instant (datetime) each name a whole view of the dataset: give one (dates may narrow a snapshot)",
      "datetime",
    );
  return query;
}

/** A tile's query: the view (datetime, snapshot) and column equality, as items take them; no bbox or paging. */
export function tileQuery(search: URLSearchParams): ItemsQuery {
  for (const name of PAGE_ONLY)
    if (search.has(name))
      throw new HttpError(400, `"${name}" is an items parameter: a tile's box and size are its z/x/y`, name);
  return itemsQuery(search);
}

/** One feature's query: the view it is looked up in (datetime, snapshot, ?region=), no box or paging. */
export function viewQuery(search: URLSearchParams): ItemsQuery {
  for (const name of PAGE_ONLY)
    if (search.has(name)) throw new HttpError(400, `"${name}" is an items parameter: one feature has no page`, name);
  return itemsQuery(search);
}

function snapshotOf(text: string | undefined): { snapshot?: string } {
  if (text === undefined) return {};
  if (text !== "latest" && !/^[0-9a-f]{16}$/.test(text))
    throw new HttpError(
      400,
      `snapshot=${text}: a snapshot's id (16 hex digits: snapshots/<dataset>/<id>.json in the store) or "latest"`,
      "snapshot",
    );
  return { snapshot: text };
}

function bboxOf(text: string | undefined): { bbox?: Bbox } {
  if (text === undefined) return {};
  const n = text.split(",").map((v) => (v.trim() === "" ? Number.NaN : Number(v)));
  if (n.length !== 4 || n.some((v) => !Number.isFinite(v)))
    throw new HttpError(400, `bbox=${text}: give four numbers, minLon,minLat,maxLon,maxLat (CRS84)`, "bbox");
  const [x0, y0, x1, y1] = n as [number, number, number, number];
  if (x0 < -180 || x1 > 180 || x0 > 180 || x1 < -180 || y0 < -90 || y1 > 90)
    throw new HttpError(400, `bbox=${text}: longitudes lie in [-180, 180] and latitudes in [-90, 90]`, "bbox");
  // minLon > maxLon is a box across the antimeridian (OGC API – Features allows it): two bands of longitude.
  if (y0 > y1) throw new HttpError(400, `bbox=${text}: the lower latitude comes first (minLat ≤ maxLat)`, "bbox");
  return { bbox: [x0, y0, x1, y1] };
}

/** A lon/lat box as bands that do not cross the antimeridian: itself, or its two halves either side of ±180. */
export function bboxBands(b: Bbox): Bbox[] {
  const [x0, y0, x1, y1] = b;
  return x0 <= x1
    ? [b]
    : [
        [x0, y0, 180, y1],
        [-180, y0, x1, y1],
      ];
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_LIMIT)
    throw new HttpError(400, `limit=${text}: a whole number from 1 to ${MAX_LIMIT}`, "limit");
  return n;
}

function cursorOf(text: string | undefined): ItemsQuery["cursor"] {
  if (text === undefined) return { partition: 0, row: 0 };
  const m = /^(\d{1,9})\.(\d{1,12})$/.exec(text);
  if (!m) throw new HttpError(400, `next=${text}: not a page this server handed out; follow the "next" link`, "next");
  return { partition: Number(m[1]), row: Number(m[2]) };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar date that exists (V8's Date.parse takes 2026-02-30 as 2 March). */
function realDate(d: string): boolean {
  const t = Date.parse(`${d}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d;
}

function datetimeOf(text: string | undefined): { datetime?: ItemsQuery["datetime"] } {
  if (text === undefined) return {};
  const impossible = text.split("/").find((e) => /^\d{4}-\d{2}-\d{2}/.test(e) && !realDate(e.slice(0, 10)));
  if (impossible)
    throw new HttpError(400, `datetime=${text}: ${impossible.slice(0, 10)} is not a date of the calendar`, "datetime");
  if (INSTANT.test(text)) {
    const at = new Date(text);
    if (!Number.isNaN(at.getTime())) return { datetime: { at } };
  }
  const ends = text.split("/");
  const ok = (e: string) => e === ".." || e === "" || (DATE.test(e) && realDate(e));
  if (ends.length === 2 && ends.every(ok) && !ends.every((e) => e === ".." || e === "")) {
    const [from, to] = ends.map((e) => (DATE.test(e) ? e : undefined));
    if (from && to && from > to)
      throw new HttpError(400, `datetime=${text}: the interval ends before it starts`, "datetime");
    return { datetime: { ...(from ? { from } : {}), ...(to ? { to } : {}) } };
  }
  if (DATE.test(text)) return { datetime: { from: text, to: text } };
  throw new HttpError(
    400,
    `datetime=${text}: an instant (2026-03-01T12:00:00Z: the dataset as it was then) or logical dates (2026-01-01, 2026-01-01/2026-03-31, ../2026-03-31)`,
    "datetime",
  );
}

/** A property filter that names no column of the rows: a 400 naming the parameter and the columns there are. */
export function unknownColumn(name: string, columns: readonly string[]): HttpError {
  return new HttpError(
    400,
    `unknown parameter "${name}": items take ${ITEMS_PARAMETERS.join(", ")}, and a column's name for equality (${columns.join(", ") || "none"})`,
    name,
  );
}
