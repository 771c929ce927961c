import type { Crs } from "../geo/crs/crs.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** GeoParquet 1.1 `geo` file metadata, as georefresh writes it and as it reads other tools' files. */
export interface GeoColumnMetadata {
  encoding: string;
  geometry_types: string[];
  bbox?: number[];
  covering?: { bbox: { xmin: string[]; ymin: string[]; xmax: string[]; ymax: string[] } };
  crs?: Record<string, unknown> | null;
  [other: string]: unknown;
}

export interface GeoMetadata {
  version: string;
  primary_column: string;
  columns: Record<string, GeoColumnMetadata>;
}

export const GEOPARQUET_VERSION = "1.1.0";

/**
 * The file layouts the writer can produce, chosen per dataset. 1.1 is the default; 2.0 adds Parquet's native
 * GEOMETRY type and per-row-group geospatial statistics, which readers prune on (docs/geoparquet.md).
 */
export const FORMATS = ["geoparquet-1.1", "geoparquet-2.0"] as const;
export type GeoParquetFormat = (typeof FORMATS)[number];
export const DEFAULT_FORMAT: GeoParquetFormat = "geoparquet-1.1";

/** The `version` a format writes into `geo` (2.0 as DuckDB's GEOPARQUET_VERSION 'V2' writes it). */
export const FORMAT_VERSION: Record<GeoParquetFormat, string> = {
  "geoparquet-1.1": GEOPARQUET_VERSION,
  "geoparquet-2.0": "2.0.0",
};

/** The order GeoParquet lists geometry types in; geometry_types are written sorted by it, 2D before " Z". */
const TYPE_ORDER = [
  "Point",
  "LineString",
  "Polygon",
  "MultiPoint",
  "MultiLineString",
  "MultiPolygon",
  "GeometryCollection",
];

export function sortGeometryTypes(types: Iterable<string>): string[] {
  const rank = (t: string) => TYPE_ORDER.indexOf(t.replace(/ Z$/, "")) * 2 + (t.endsWith(" Z") ? 1 : 0);
  return [...new Set(types)].sort((a, b) => rank(a) - rank(b));
}

/**
 * Serialises `geo` with a fixed key order (JSON.stringify keeps insertion order, so the object is built in
 * that order here): equal inputs give byte-equal footers.
 */
export function geoMetadataJson(args: {
  column: string;
  types: Iterable<string>;
  bbox: [number, number, number, number] | undefined;
  crs: Crs;
  coveringColumn: string | undefined;
  version?: string;
}): string {
  const column: Record<string, unknown> = { encoding: "WKB", geometry_types: sortGeometryTypes(args.types) };
  if (args.bbox) column.bbox = args.bbox;
  if (args.coveringColumn) {
    const c = args.coveringColumn;
    column.covering = { bbox: { xmin: [c, "xmin"], ymin: [c, "ymin"], xmax: [c, "xmax"], ymax: [c, "ymax"] } };
  }
  if (args.crs.projjson) column.crs = args.crs.projjson;
  return JSON.stringify({
    version: args.version ?? GEOPARQUET_VERSION,
    primary_column: args.column,
    columns: { [args.column]: column },
  });
}

export class GeoMetadataError extends GeorefreshError {
  override readonly code: ErrorCode = "GeoMetadata";
}

export function parseGeoMetadata(text: string | undefined, where: string): GeoMetadata {
  if (text === undefined) throw new GeoMetadataError(`${where} is not GeoParquet: no 'geo' key in the Parquet footer`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new GeoMetadataError(`${where}: the 'geo' footer metadata is not JSON (${(error as Error).message})`);
  }
  const geo = doc as Partial<GeoMetadata>;
  if (
    typeof geo !== "object" ||
    geo === null ||
    typeof geo.primary_column !== "string" ||
    typeof geo.columns !== "object" ||
    geo.columns === null
  ) {
    throw new GeoMetadataError(`${where}: the 'geo' metadata lacks primary_column or columns`);
  }
  if (!(geo.primary_column in geo.columns)) {
    throw new GeoMetadataError(`${where}: primary_column '${geo.primary_column}' is not described in 'columns'`);
  }
  return geo as GeoMetadata;
}
