import { resolve } from "node:path";
import { crsFromDefinition, storageCrsOf } from "../geo/crs.js";
import type { ColumnType } from "../geoparquet/features.js";
import { NAME, NAME_RULE, nameShown } from "../manifest/layout.js";
import { formatOfUrl, SOURCE_FORMATS } from "../sources/source-spec.js";
import type { SourceColumn, SourceFormatName, SourceSpec } from "../sources/source-spec.js";

const TYPES: ColumnType[] = ["string", "float64", "int32", "int64", "bool"];
const SOURCE_KEYS = ["url", "format", "layer", "crs", "key", "columns", "complete", "encoding", "geometry", "undated"];
/** Keys a source dataset's entry takes beside "source". */
export const SOURCE_DATASET_KEYS = [
  "source",
  "regions",
  "regionsComplete",
  "cadence",
  "pins",
  "storageCrs",
  "plausibility",
  "catalog",
  "format",
  "sink",
  "events",
  "initialEvents",
];

/**
 * A dataset's `source` entry and the keys beside it → the plain SourceSpec its task is built from. Every mistake is
 * found here, when the config loads, naming the dataset and the key; a relative path resolves against the
 * config's folder, as the store's does. `fail` throws the config's error.
 */
export function sourceSpecOf(
  name: string,
  entry: Record<string, unknown>,
  base: string,
  fail: (message: string) => never,
): SourceSpec {
  const where = `dataset '${name}'`;
  for (const k of Object.keys(entry))
    if (!SOURCE_DATASET_KEYS.includes(k))
      fail(
        `${where} has "source" and an unknown key "${k}" (a source dataset takes ${SOURCE_DATASET_KEYS.join(", ")})`,
      );
  const raw = entry.source;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    fail(`${where}: "source" must be an object, e.g. { "url": "./feeds/{region}/parcels.zip" }`);
  const src = raw as Record<string, unknown>;
  for (const k of Object.keys(src))
    if (!SOURCE_KEYS.includes(k)) fail(`${where}: "source" has an unknown key "${k}" (${SOURCE_KEYS.join(", ")})`);
  if (typeof src.url !== "string" || !src.url.trim())
    fail(
      `${where}: "source.url" is required: a path, file://, s3://, az:// or https:// URL, with {region} and {date} where they vary`,
    );
  const unknownField = /\{(?!region\}|date\})[^}]*\}/.exec(src.url);
  if (unknownField) fail(`${where}: "source.url" has ${unknownField[0]}; only {region} and {date} are filled in`);
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(src.url) ? src.url : resolve(base, src.url);
  // A url without {date} names the feed as it is now, which says nothing of an earlier logical date.
  const dated = src.url.includes("{date}");
  if (src.undated !== undefined && (dated || (src.undated !== "latest" && src.undated !== "every-date")))
    fail(
      dated
        ? `${where}: "source.undated" is for a url without {date}; this one has {date}, so remove "undated"`
        : `${where}: "source.undated" must be "latest" (the default: only a window's last date reads the file) or "every-date" (the same file for every logical date, for a file that never changes)`,
    );
  const format = (src.format ?? formatOfUrl(src.url)) as SourceFormatName | undefined;
  if (format === undefined)
    fail(
      `${where}: cannot tell the format of ${JSON.stringify(src.url)} from its name; add "format": one of ${SOURCE_FORMATS.join(", ")}`,
    );
  if (!SOURCE_FORMATS.includes(format))
    fail(`${where}: "source.format" must be one of ${SOURCE_FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  const text = (k: string): string | undefined => {
    const v = src[k];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !v.trim()) fail(`${where}: "source.${k}" must be a non-empty string`);
    return v;
  };
  const layer = text("layer");
  const crs = text("crs");
  if (crs !== undefined)
    try {
      crsFromDefinition(crs, `${where}: "source.crs"`);
    } catch (error) {
      fail((error as Error).message);
    }
  const encoding = text("encoding");
  if (encoding !== undefined)
    try {
      new TextDecoder(encoding.replace(/^(cp)?(\d{4})$/i, "windows-$2"));
    } catch {
      fail(
        `${where}: "source.encoding" ${JSON.stringify(encoding)} is not an encoding this build can read (e.g. "utf-8", "latin1", "windows-1252")`,
      );
    }
  const columns = columnsOf(src.columns, where, fail);
  const key = src.key === undefined ? undefined : typeof src.key === "string" ? [src.key] : src.key;
  if (key !== undefined && (!Array.isArray(key) || key.length === 0 || key.some((k) => typeof k !== "string" || !k)))
    fail(`${where}: "source.key" must be a column name or a list of them, e.g. ["parcel_id"]`);
  if (key && columns) {
    const kept = Object.values(columns).map((c) => c.name);
    const lost = (key as string[]).filter((k) => !kept.includes(k));
    if (lost.length)
      fail(
        `${where}: "source.key" names ${lost.map((k) => JSON.stringify(k)).join(", ")}, which "columns" does not keep (keys are the dataset's names, after renaming)`,
      );
  }
  if (src.complete !== undefined && typeof src.complete !== "boolean")
    fail(
      `${where}: "source.complete" must be true (each file is the whole partition) or false (a delta feed, merged by key)`,
    );
  const complete = src.complete !== false;
  if (!complete && !key)
    fail(`${where}: "source.complete": false merges each file into the previous version by its key: add "key"`);
  const geometry = geometryOf(src.geometry, where, fail);
  if (geometry !== undefined && format !== "csv")
    fail(`${where}: "source.geometry" names the geometry columns of a CSV; this source is ${format}`);
  const regions = entry.regions;
  if (!Array.isArray(regions) || regions.length === 0 || regions.some((r) => typeof r !== "string"))
    fail(`${where}: a source dataset needs "regions": the list of regions it refreshes, e.g. ["weld", "larimer"]`);
  const bad = (regions as string[]).find((r) => !NAME.test(r));
  if (bad !== undefined) fail(`${where} has a region named ${nameShown(bad)}, which is not allowed: use ${NAME_RULE}`);
  const cadence = entry.cadence ?? "daily";
  if (cadence !== "daily" && cadence !== "monthly") fail(`${where}: "cadence" must be "daily" or "monthly"`);
  const pins = entry.pins ?? [];
  if (!Array.isArray(pins) || pins.some((p) => typeof p !== "string"))
    fail(`${where}: "pins" must be a list of pin names from the versions file`);
  if (entry.regionsComplete !== undefined && typeof entry.regionsComplete !== "boolean")
    fail(`${where}: "regionsComplete" must be true (a region left out of "regions" is retired) or false`);
  const storageCrs = entry.storageCrs;
  if (storageCrs !== undefined) {
    if (typeof storageCrs !== "string")
      fail(`${where}: "storageCrs" must be a CRS code such as "OGC:CRS84" or "EPSG:5070"`);
    try {
      storageCrsOf(crsFromDefinition(storageCrs, `${where}: "storageCrs"`).id);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  const plausibility = entry.plausibility;
  if (
    plausibility !== undefined &&
    (typeof plausibility !== "object" || plausibility === null || Array.isArray(plausibility))
  )
    fail(
      `${where}: "plausibility" must be an object ({ "rowTolerance": 0.5, "areaTolerance": 0.2, "minRows": 1, "window": 7 })`,
    );
  return {
    dataset: name,
    url,
    format,
    ...(layer === undefined ? {} : { layer }),
    ...(crs === undefined ? {} : { crs }),
    ...(key === undefined ? {} : { key: key as string[] }),
    ...(columns === undefined ? {} : { columns }),
    complete,
    ...(encoding === undefined ? {} : { encoding }),
    ...(geometry === undefined ? {} : { geometry }),
    ...(!dated && src.undated !== "every-date" ? { latestOnly: true } : {}),
    regions: regions as string[],
    regionsComplete: entry.regionsComplete === true,
    cadence,
    pins: pins as string[],
    ...(storageCrs === undefined ? {} : { storageCrs: storageCrs as string }),
    ...(plausibility === undefined ? {} : { plausibility: plausibility as SourceSpec["plausibility"] }),
  };
}

function columnsOf(raw: unknown, where: string, fail: (m: string) => never): Record<string, SourceColumn> | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    fail(
      `${where}: "source.columns" must map a file's column to the dataset's, e.g. { "PARCEL_ID": "parcel_id", "ACRES": { "name": "acres", "type": "float64" } }`,
    );
  // No prototype: a column named "constructor" or "__proto__" is a column like any other.
  const out = Object.create(null) as Record<string, SourceColumn>;
  for (const [from, to] of Object.entries(raw as Record<string, unknown>)) {
    const spec = typeof to === "string" ? { name: to } : (to as { name?: unknown; type?: unknown } | null);
    if (!spec || typeof spec !== "object" || typeof spec.name !== "string" || !spec.name)
      fail(`${where}: "source.columns.${from}" must be the dataset's name for it, or { "name": …, "type": … }`);
    if (spec.type !== undefined && !TYPES.includes(spec.type as ColumnType))
      fail(
        `${where}: "source.columns.${from}.type" must be one of ${TYPES.join(", ")} (got ${JSON.stringify(spec.type)})`,
      );
    out[from] = { name: spec.name as string, ...(spec.type === undefined ? {} : { type: spec.type as ColumnType }) };
  }
  return out;
}

function geometryOf(raw: unknown, where: string, fail: (m: string) => never): SourceSpec["geometry"] {
  if (raw === undefined) return undefined;
  if (typeof raw === "string" && raw) return raw;
  const o = raw as { x?: unknown; y?: unknown; z?: unknown } | null;
  if (
    o &&
    typeof o === "object" &&
    typeof o.x === "string" &&
    typeof o.y === "string" &&
    (o.z === undefined || typeof o.z === "string")
  )
    return { x: o.x, y: o.y, ...(o.z === undefined ? {} : { z: o.z as string }) };
  fail(`${where}: "source.geometry" must be a WKT column's name or { "x": "<column>", "y": "<column>" }`);
}
