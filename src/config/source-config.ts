import { resolve } from "node:path";
import { crsFromDefinition, storageCrsOf } from "../geo/crs/crs.js";
import { NAME, NAME_RULE, nameShown } from "../manifest/layout.js";
import { formatOfUrl, isSourceFormat, optionsOf, SOURCE_FORMATS } from "../sources/formats.js";
import type { SourceFormatName } from "../sources/formats.js";
import type { ReadingOptions } from "../sources/source-options.js";
import type { SourceSpec } from "../sources/source-spec.js";
import { plausibilityProblems } from "../task/plausibility-rules.js";

/** The keys of "source" every format takes; the rest are the options its format declares (sources/formats.ts). */
const SOURCE_KEYS = ["url", "format", "key", "complete", "undated"];
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
  const format = src.format ?? formatOfUrl(src.url);
  if (format === undefined)
    fail(
      `${where}: cannot tell the format of ${JSON.stringify(src.url)} from its name; add "format": one of ${SOURCE_FORMATS.join(", ")}`,
    );
  if (!isSourceFormat(format))
    fail(`${where}: "source.format" must be one of ${SOURCE_FORMATS.join(", ")} (got ${JSON.stringify(format)})`);
  const reading = readingOf(src, format, where, fail);
  const { columns } = reading;
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
  const implausible = plausibilityProblems(plausibility);
  if (implausible.length) fail(`${where}: ${implausible.join("; ")}`);
  return {
    dataset: name,
    url,
    format,
    ...reading,
    ...(key === undefined ? {} : { key: key as string[] }),
    complete,
    ...(!dated && src.undated !== "every-date" ? { latestOnly: true } : {}),
    regions: regions as string[],
    regionsComplete: entry.regionsComplete === true,
    cadence,
    pins: pins as string[],
    ...(storageCrs === undefined ? {} : { storageCrs: storageCrs as string }),
    ...(plausibility === undefined ? {} : { plausibility: plausibility as SourceSpec["plausibility"] }),
  };
}

/**
 * The keys of "source" beyond the common ones: each an option the format declares, parsed by its declaration; one
 * another format takes is named as such, anything else is an unknown key.
 */
function readingOf(
  src: Record<string, unknown>,
  format: SourceFormatName,
  where: string,
  fail: (message: string) => never,
): ReadingOptions {
  const taken = optionsOf(format);
  const reading: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(src)) {
    if (SOURCE_KEYS.includes(k)) continue;
    const option = taken.find((o) => o.key === k);
    if (option === undefined) {
      const others = SOURCE_FORMATS.filter((f) => optionsOf(f).some((o) => o.key === k));
      const meaning = others.length ? optionsOf(others[0] as SourceFormatName).find((o) => o.key === k)?.means : "";
      const keys = [...SOURCE_KEYS, ...taken.map((o) => o.key)].join(", ");
      fail(
        others.length
          ? `${where}: "source.${k}" (${meaning}) is an option of ${others.length > 1 ? `${others.slice(0, -1).join(", ")} and ${others.at(-1)}` : others[0]} files; this source is ${format}, which takes ${keys}`
          : `${where}: "source" has an unknown key "${k}" (a ${format} source takes ${keys})`,
      );
    }
    if (value === undefined) continue;
    try {
      reading[k] = option.parse(value, `${where}: "source.${k}"`);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  return reading as ReadingOptions;
}
