import type { SourceFormat } from "./source-format.js";
import { COMMON_OPTIONS, ENCODING, GEOMETRY, LAYER } from "./source-options.js";
import type { SourceOption } from "./source-options.js";

/** A file read beside the url's own, named by swapping its extension (a bare Shapefile's .dbf). */
export interface Companion {
  extension: string;
  /** The reading goes on without it (a Shapefile's .prj says nothing more than the config's crs can). */
  optional: boolean;
}

/** One format, as the config, the task and the fingerprint know it; its reader loads on first use. */
export interface FormatDeclaration {
  /** The file names that imply it (a query string is ignored). */
  extensions: RegExp;
  /** The options it takes beside the common ones (crs, columns). */
  options: readonly SourceOption[];
  /** The files a url's path names beside its own, each an input identified with it. */
  companions?: (path: string) => readonly Companion[];
  load(): Promise<SourceFormat>;
}

const GPKG_SIDECARS: readonly Companion[] = [{ extension: ".gpkg-wal", optional: true }];
const SHAPEFILE_SIDECARS: readonly Companion[] = [
  { extension: ".dbf", optional: false },
  { extension: ".prj", optional: true },
  { extension: ".cpg", optional: true },
];

/** The formats a source reads. A new one is a reader file (a SourceFormat) and one entry here. */
const FORMATS = {
  geojson: {
    extensions: /\.(geojson|json)$/i,
    options: [ENCODING],
    load: async () => (await import("./geojson/geojson.js")).geojsonFormat,
  },
  geojsonseq: {
    extensions: /\.(geojsonl|geojsons|geojsonseq|ndjson|jsonl)$/i,
    options: [ENCODING],
    load: async () => (await import("./geojson/geojsonseq.js")).geojsonSeqFormat,
  },
  flatgeobuf: {
    extensions: /\.fgb$/i,
    options: [],
    load: async () => (await import("./flatgeobuf/flatgeobuf.js")).flatgeobufFormat,
  },
  shapefile: {
    extensions: /\.(shp|zip|shz)$/i,
    options: [LAYER, ENCODING],
    // A zip holds its own sidecars; a bare .shp has them beside it.
    companions: (path: string) => (/\.shp$/i.test(path) ? SHAPEFILE_SIDECARS : []),
    load: async () => (await import("./shapefile/shapefile.js")).shapefileFormat,
  },
  gpkg: {
    extensions: /\.gpkg$/i,
    options: [LAYER],
    // A WAL-mode GeoPackage's edits not yet checkpointed into it.
    companions: () => GPKG_SIDECARS,
    load: async () => (await import("./gpkg/gpkg.js")).gpkgFormat,
  },
  csv: {
    extensions: /\.(csv|tsv)$/i,
    options: [ENCODING, GEOMETRY],
    load: async () => (await import("./csv/csv.js")).csvFormat,
  },
  geoparquet: {
    extensions: /\.(parquet|geoparquet)$/i,
    options: [],
    load: async () => (await import("./geoparquet/geoparquet.js")).geoparquetFormat,
  },
} satisfies Record<string, FormatDeclaration>;

export type SourceFormatName = keyof typeof FORMATS;
export const SOURCE_FORMATS = Object.keys(FORMATS) as SourceFormatName[];

export function formatDeclaration(name: SourceFormatName): FormatDeclaration {
  return FORMATS[name];
}

/** Every option a format takes: the common ones, then its own. */
export function optionsOf(name: SourceFormatName): readonly SourceOption[] {
  return [...COMMON_OPTIONS, ...FORMATS[name].options];
}

/** The format a url's file name implies, if any (a query string is ignored). */
export function formatOfUrl(url: string): SourceFormatName | undefined {
  const path = url.split(/[?#]/)[0] ?? url;
  return SOURCE_FORMATS.find((name) => FORMATS[name].extensions.test(path));
}

/** Is this a format's name? (A config says it as text.) */
export function isSourceFormat(name: unknown): name is SourceFormatName {
  return typeof name === "string" && Object.hasOwn(FORMATS, name);
}

export function loadFormat(name: SourceFormatName): Promise<SourceFormat> {
  return FORMATS[name].load();
}
