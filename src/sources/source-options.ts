import { crsFromDefinition } from "../geo/crs/crs.js";
import type { ColumnType } from "../geoparquet/features.js";

/** A column kept from the source: its name in the dataset and, when given, its type (else the file's). */
export interface SourceColumn {
  name: string;
  type?: ColumnType;
}

/** A CSV's geometry: the column holding WKT, or the x/y (and z) columns of points. */
export type GeometryColumns = string | { x: string; y: string; z?: string };

/** What decides a file's rows besides its bytes: the options a format declares, parsed. */
export interface ReadingOptions {
  /** Which layer of a multi-layer file (a GeoPackage's table, a zip's Shapefile). */
  layer?: string;
  /** The CRS when the file does not say; a file's own CRS wins, and one that differs is an error. */
  crs?: string;
  /** Source column → dataset column: only these are kept. Absent: every column, as named in the file. */
  columns?: Record<string, SourceColumn>;
  /** Text encoding of a DBF or CSV when it does not say (e.g. "latin1", "windows-1252"). */
  encoding?: string;
  /** CSV: the column holding WKT, or the x/y (and z) columns of points. Absent: found by the usual names. */
  geometry?: GeometryColumns;
  /** "ballpark": accept PROJ's ballpark shift where it has no transformation without a grid file (else refused). */
  datumShift?: "ballpark";
}

/**
 * One option of the `source` object, declared once: the config check parses it, the reader is handed it, and, when
 * it changes the rows read, it is part of the dataset's keys. A format lists the ones it takes (formats.ts).
 */
export interface SourceOption<K extends keyof ReadingOptions = keyof ReadingOptions> {
  key: K;
  /** What it is, for the message that names a misplaced or unknown key. */
  means: string;
  /** Checks a config value; throws an Error whose message starts with `label` (`dataset 'x': "source.layer"`). */
  parse(value: unknown, label: string): NonNullable<ReadingOptions[K]>;
  /** Two values can give two different readings of the same bytes: the value is part of every key. */
  changesReading: boolean;
}

const TYPES: ColumnType[] = ["string", "float64", "int32", "int64", "bool"];

function text(value: unknown, label: string): string {
  if (typeof value !== "string" || !value.trim()) throw new Error(`${label} must be a non-empty string`);
  return value;
}

export const LAYER: SourceOption<"layer"> = {
  key: "layer",
  means: "which layer of a file of several",
  parse: text,
  changesReading: true,
};

export const CRS: SourceOption<"crs"> = {
  key: "crs",
  means: "the CRS of a file that does not say",
  parse(value, label) {
    const crs = text(value, label);
    crsFromDefinition(crs, label);
    return crs;
  },
  changesReading: true,
};

export const COLUMNS: SourceOption<"columns"> = {
  key: "columns",
  means: "the columns kept, renamed and typed",
  parse(value, label) {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new Error(
        `${label} must map a file's column to the dataset's, e.g. { "PARCEL_ID": "parcel_id", "ACRES": { "name": "acres", "type": "float64" } }`,
      );
    // No prototype: a column named "constructor" or "__proto__" is a column like any other.
    const out = Object.create(null) as Record<string, SourceColumn>;
    for (const [from, to] of Object.entries(value as Record<string, unknown>)) {
      const spec = typeof to === "string" ? { name: to } : (to as { name?: unknown; type?: unknown } | null);
      if (!spec || typeof spec !== "object" || typeof spec.name !== "string" || !spec.name)
        throw new Error(
          `${label.replace(/"$/, `.${from}"`)} must be the dataset's name for it, or { "name": …, "type": … }`,
        );
      if (spec.type !== undefined && !TYPES.includes(spec.type as ColumnType))
        throw new Error(
          `${label.replace(/"$/, `.${from}.type"`)} must be one of ${TYPES.join(", ")} (got ${JSON.stringify(spec.type)})`,
        );
      out[from] = { name: spec.name, ...(spec.type === undefined ? {} : { type: spec.type as ColumnType }) };
    }
    return out;
  },
  changesReading: true,
};

export const ENCODING: SourceOption<"encoding"> = {
  key: "encoding",
  means: "the text encoding of a file that does not say",
  parse(value, label) {
    const encoding = text(value, label);
    try {
      new TextDecoder(encoding.replace(/^(cp)?(\d{4})$/i, "windows-$2"));
    } catch {
      throw new Error(
        `${label} ${JSON.stringify(encoding)} is not an encoding this build can read (e.g. "utf-8", "latin1", "windows-1252")`,
      );
    }
    return encoding;
  },
  changesReading: true,
};

export const GEOMETRY: SourceOption<"geometry"> = {
  key: "geometry",
  means: "the geometry columns of a table of text",
  parse(value, label) {
    if (typeof value === "string" && value) return value;
    const o = value as { x?: unknown; y?: unknown; z?: unknown } | null;
    if (
      o &&
      typeof o === "object" &&
      typeof o.x === "string" &&
      typeof o.y === "string" &&
      (o.z === undefined || typeof o.z === "string")
    )
      return { x: o.x, y: o.y, ...(o.z === undefined ? {} : { z: o.z }) };
    throw new Error(`${label} must be a WKT column's name or { "x": "<column>", "y": "<column>" }`);
  },
  changesReading: true,
};

export const DATUM_SHIFT: SourceOption<"datumShift"> = {
  key: "datumShift",
  means: "whether a datum PROJ shifts only by its ballpark is accepted",
  parse(value, label) {
    if (value !== "ballpark")
      throw new Error(
        `${label} must be "ballpark" (accept PROJ's ballpark shift, tens to hundreds of metres off, where it has no transformation without a grid file); leave it out to have such rows refused (got ${JSON.stringify(value)})`,
      );
    return value;
  },
  changesReading: true,
};

/** Every format takes these. */
export const COMMON_OPTIONS: readonly SourceOption[] = [CRS, COLUMNS, DATUM_SHIFT];

/**
 * Every option, in the order the fingerprint lists them. An option that is absent, or that the format does not take,
 * counts as null: a new option appended here re-keys every source dataset once, as a READERS_VERSION bump does.
 */
export const SOURCE_OPTIONS: readonly SourceOption[] = [LAYER, CRS, COLUMNS, ENCODING, GEOMETRY, DATUM_SHIFT];
