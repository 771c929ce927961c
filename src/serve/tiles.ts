import GeoJSONVT from "geojson-vt";
import type { GeoJSON } from "geojson";
import { fromGeojsonVt } from "vt-pbf";
import { crsFromCode } from "../geo/crs/crs.js";
import type { Bbox } from "../geo/bbox.js";
import { featuresOf } from "../views/features.js";
import type { DatasetView, ViewPartition } from "../views/reader.js";
import type { ArtifactCache } from "./artifact-cache.js";
import { checkCap, sizeText } from "./items.js";
import { HttpError, unknownColumn } from "./request.js";
import type { ItemsQuery } from "./request.js";

/** A tile's address in the WebMercatorQuad tile matrix set (OGC API – Tiles; the XYZ scheme web maps use). */
export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/**
 * The deepest zoom served (a parcel's detail; 2.4 m per pixel at the equator). A map overzooms past it, as
 * MapLibre does a source's maxzoom.
 */
export const MAX_ZOOM = 16;

/** z/x/y from a path's parts, each checked: a 400 naming the tile where one is out of the matrix. */
export function tileAddress(z: string, x: string, y: string): TileAddress {
  const [zn, xn, yn] = [z, x, y].map((v) => (/^\d{1,9}$/.test(v) ? Number(v) : Number.NaN)) as [number, number, number];
  if (!(zn <= MAX_ZOOM) || !(xn < 2 ** zn) || !(yn < 2 ** zn))
    throw new HttpError(
      404,
      `no tile ${z}/${x}/${y} in WebMercatorQuad: zoom is 0 to ${MAX_ZOOM}, and x and y are 0 to 2^zoom - 1`,
    );
  return { z: zn, x: xn, y: yn };
}

/** The tile's lon/lat box (Web Mercator's rows are equal in y, not in latitude). */
export function tileBbox({ z, x, y }: TileAddress): Bbox {
  const n = 2 ** z;
  const lat = (row: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / n))) * 180) / Math.PI;
  return [(x / n) * 360 - 180, lat(y + 1), ((x + 1) / n) * 360 - 180, lat(y)];
}

/**
 * One Mapbox Vector Tile of the partitions that meet it, as one layer named after the dataset: each partition's
 * rows are cut into tiles once (geojson-vt, simplified per zoom, in the cache by the artifact's sha256), so a
 * tile of a warm partition reads nothing.
 */
export async function tileOf(
  view: DatasetView,
  parts: readonly ViewPartition[],
  at: TileAddress,
  query: ItemsQuery,
  cache: ArtifactCache,
  cap: number,
): Promise<Uint8Array> {
  const box = tileBbox(at);
  const meeting = parts.filter((p) => {
    const b = p.bboxLonLat;
    return b !== null && b[0] <= box[2] && b[2] >= box[0] && b[1] <= box[3] && b[3] >= box[1];
  });
  const bytes = meeting.reduce((n, p) => n + checkCap(p, cap), 0);
  if (bytes > cap)
    throw new HttpError(
      400,
      `tile ${at.z}/${at.x}/${at.y} meets ${meeting.length} partitions (${sizeText(bytes)}), more than this server reads for one request (${sizeText(cap)}, serve --max-read): zoom in, or narrow it with ?region= or ?datetime=`,
    );
  // Equality on columns, as items take it (region and date chose the partitions already).
  const wanted = Object.entries(query.properties).filter(([k]) => k !== "region" && k !== "date");
  const features: object[] = [];
  for (const p of meeting) {
    // By partition too: the features carry its region and date, and two partitions may hold the same bytes.
    const { index, columns } = await cache.get(`tiles ${p.region} ${p.date}`, p.entry, () => tileIndex(view, p));
    for (const [name] of wanted) if (!columns.includes(name)) throw unknownColumn(name, ["region", "date", ...columns]);
    const tile = index.getTile(at.z, at.x, at.y);
    if (!tile) continue;
    for (const f of tile.features)
      if (wanted.every(([k, v]) => f.tags?.[k] !== undefined && String(f.tags[k]) === v)) features.push(f);
  }
  return fromGeojsonVt({ [view.dataset]: { features } }, { version: 2, extent: 4096 });
}

async function tileIndex(view: DatasetView, p: ViewPartition): Promise<{ index: GeoJSONVT; columns: string[] }> {
  const table = await view.read(p);
  const columns = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry" && n !== "bbox");
  const features = featuresOf(table, { region: p.region, date: p.date }, crsFromCode(p.entry.crs)).map((f) => ({
    ...f,
    properties: tileProperties(f.properties),
  }));
  const index = new GeoJSONVT({ type: "FeatureCollection", features } as GeoJSON, {
    maxZoom: MAX_ZOOM,
    indexMaxZoom: 5,
    tolerance: 3,
    extent: 4096,
    buffer: 64,
  });
  return { index, columns };
}

/** Values a vector tile holds (string, number, boolean): a large integer or a date as text, nulls left out. */
function tileProperties(props: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined) continue;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (typeof v === "bigint") out[k] = v.toString();
    else if (v instanceof Date) out[k] = v.toISOString();
    else out[k] = JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
  }
  return out;
}
