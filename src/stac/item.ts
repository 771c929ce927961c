import type { Bbox } from "../geo/bbox.js";
import { bboxPolygon, bboxToLonLat } from "../geo/bbox.js";
import { crsFromCode } from "../geo/crs/crs.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import { EXTENSIONS, itemId, itemKey, relativeHref, versionItemKey } from "./layout.js";
import type { CatalogOptions } from "./layout.js";

/** A STAC 1.1 Item as georefresh writes it (docs/stac.md). */
export interface StacItem {
  type: "Feature";
  stac_version: "1.1.0";
  stac_extensions: string[];
  id: string;
  geometry: { type: "Polygon"; coordinates: number[][][] } | null;
  bbox?: Bbox;
  properties: Record<string, unknown>;
  links: { rel: string; href: string; type?: string }[];
  assets: Record<string, Record<string, unknown>>;
  collection: string;
}

/** sha256 as a multihash, as the file extension's `file:checksum` wants it: 0x12 (sha2-256), 0x20 (32 bytes), digest. */
export const multihash = (sha256: string) => `1220${sha256}`;

/** The logical date as STAC time: a daily partition is its day's instant; a monthly one spans its month. */
export function stacTime(date: string, cadence: "daily" | "monthly"): Record<string, string | null> {
  if (cadence === "daily") return { datetime: `${date}T00:00:00Z` };
  const [y, m] = date.split("-").map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return { datetime: null, start_datetime: `${date.slice(0, 7)}-01T00:00:00Z`, end_datetime: `${last}T23:59:59Z` };
}

function footprint(b: Bbox): StacItem["geometry"] {
  return bboxPolygon(b);
}

/**
 * The Item of one manifest entry: the current one (at items/<id>.json), or an earlier one from history (at
 * versions/<id>/<key>.json, deprecated). `older`: the entry before it, for `predecessor-version`.
 */
export function itemOf(
  m: Manifest,
  entry: ManifestEntry,
  older: ManifestEntry | undefined,
  opts: CatalogOptions,
): StacItem {
  const p = { dataset: m.dataset, region: m.partition.region, date: m.partition.logical_date };
  const id = itemId(p);
  const here = entry === m.current ? itemKey(p) : versionItemKey(p, entry.key);
  const href = (to: string) => relativeHref(here, to);
  const lonlat = entry.bbox ? bboxToLonLat(entry.bbox, entry.crs) : null;
  const crs = crsFromCode(entry.crs);
  const properties: Record<string, unknown> = {
    ...stacTime(p.date, opts.cadence),
    "proj:code": crs.id,
    ...(entry.bbox && !crs.geographic ? { "proj:bbox": entry.bbox } : {}),
    "table:row_count": entry.rows,
    "table:primary_geometry": "geometry",
    "table:columns": entry.columns.map((c) => ({ name: c.name, type: c.type })),
    version: entry.key,
    ...(entry === m.current ? {} : { deprecated: true }),
    "georefresh:region": p.region,
    "georefresh:logical_date": p.date,
    "georefresh:key": entry.key,
    "georefresh:artifact": entry.artifact,
    "georefresh:pins": entry.pins,
    "georefresh:inputs": entry.inputs,
    "georefresh:code_version": entry.code_version,
    "georefresh:plausibility": entry.plausibility.status,
  };
  const links: StacItem["links"] = [
    { rel: "self", href: opts.locate(here), type: "application/geo+json" },
    { rel: "parent", href: href(opts.collectionKey), type: "application/json" },
    { rel: "collection", href: href(opts.collectionKey), type: "application/json" },
    { rel: "root", href: href(opts.collectionKey), type: "application/json" },
  ];
  if (entry !== m.current) links.push({ rel: "latest-version", href: href(itemKey(p)), type: "application/geo+json" });
  if (older)
    links.push({ rel: "predecessor-version", href: href(versionItemKey(p, older.key)), type: "application/geo+json" });
  return {
    type: "Feature",
    stac_version: "1.1.0",
    stac_extensions: [...EXTENSIONS],
    id: entry === m.current ? id : `${id}-${entry.key}`,
    geometry: lonlat ? footprint(lonlat) : null,
    ...(lonlat ? { bbox: lonlat } : {}),
    properties,
    links,
    assets: {
      data: {
        href: href(entry.artifact),
        type: "application/vnd.apache.parquet",
        title: `${p.dataset} ${p.region} ${p.date} (GeoParquet)`,
        roles: ["data"],
        "file:checksum": multihash(entry.sha256),
        "file:size": entry.bytes,
      },
      ...(entry.changes
        ? {
            changes: {
              href: href(entry.changes.changelog),
              type: "application/vnd.apache.parquet",
              title: `${p.dataset} ${p.region} ${p.date}: changes since ${entry.changes.against?.logical_date ?? "nothing (first version)"}`,
              description: `One row per changed key (${entry.changes.key.join(", ")}) and kind: ${Object.entries(
                entry.changes.counts,
              )
                .map(([k, n]) => `${n} ${k}`)
                .join(", ")}`,
              roles: ["metadata", "changelog"],
              "file:checksum": multihash(entry.changes.sha256),
              "file:size": entry.changes.bytes,
            },
          }
        : {}),
    },
    collection: m.dataset,
  };
}
