import type { ColumnType } from "../geoparquet/features.js";
import type { PlausibilityRules } from "../task/task.js";

/** The formats a source reads; each is one reader file and one line in formats.ts. */
export const SOURCE_FORMATS = [
  "geojson",
  "geojsonseq",
  "flatgeobuf",
  "shapefile",
  "gpkg",
  "csv",
  "geoparquet",
] as const;
export type SourceFormatName = (typeof SOURCE_FORMATS)[number];

/** A column kept from the source: its name in the dataset and, when given, its type (else the file's). */
export interface SourceColumn {
  name: string;
  type?: ColumnType;
}

/**
 * A dataset read from a feed by config alone (docs/sources.md). Plain data: it travels in the task's reference to
 * worker threads and processes, which build the same task from it.
 */
export interface SourceSpec {
  /** The dataset's name: the task's name. */
  dataset: string;
  /** A path (absolute once the config is loaded), file://, s3://, az:// or http(s):// URL; {region} and {date}. */
  url: string;
  format: SourceFormatName;
  /** Which layer of a multi-layer file (a GeoPackage's table, a zip's Shapefile). */
  layer?: string;
  /** The CRS when the file does not say; a file's own CRS wins, and one that differs is an error. */
  crs?: string;
  /** The natural key, by the dataset's column names. */
  key?: string[];
  /** Source column → dataset column: only these are kept. Absent: every column, as named in the file. */
  columns?: Record<string, SourceColumn>;
  /** true (default): each file is the whole partition. false: a delta feed merged by key (`_deleted` removes). */
  complete: boolean;
  /**
   * The url has no {date} (the feed as it is now) and the source did not say "undated": "every-date": only the
   * last logical date of a window reads it; earlier dates keep what they have.
   */
  latestOnly?: boolean;
  /** Text encoding of a DBF or CSV when it does not say (e.g. "latin1", "windows-1252"). */
  encoding?: string;
  /** CSV: the column holding WKT, or the x/y (and z) columns of points. Absent: found by the usual names. */
  geometry?: string | { x: string; y: string; z?: string };
  regions: string[];
  regionsComplete: boolean;
  cadence: "daily" | "monthly";
  pins: string[];
  /** The CRS artifacts are stored in (default OGC:CRS84). */
  storageCrs?: string;
  plausibility?: PlausibilityRules;
}

/** The file a partition reads: the url with {region} and {date} filled in. */
export function sourceUrl(spec: Pick<SourceSpec, "url">, partition: { region: string; date: string }): string {
  return spec.url.replaceAll("{region}", partition.region).replaceAll("{date}", partition.date);
}

const EXTENSIONS: [RegExp, SourceFormatName][] = [
  [/\.(geojson|json)$/i, "geojson"],
  [/\.(geojsonl|geojsons|geojsonseq|ndjson|jsonl)$/i, "geojsonseq"],
  [/\.fgb$/i, "flatgeobuf"],
  [/\.(shp|zip|shz)$/i, "shapefile"],
  [/\.gpkg$/i, "gpkg"],
  [/\.(csv|tsv)$/i, "csv"],
  [/\.(parquet|geoparquet)$/i, "geoparquet"],
];

/** The format a url's file name implies, if any (a query string is ignored). */
export function formatOfUrl(url: string): SourceFormatName | undefined {
  const path = url.split(/[?#]/)[0] ?? url;
  return EXTENSIONS.find(([re]) => re.test(path))?.[1];
}
