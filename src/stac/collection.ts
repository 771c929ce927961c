import { unionBbox } from "../geo/bbox.js";
import type { Bbox } from "../geo/bbox.js";
import { EXTENSIONS, itemsParquetKey, relativeHref } from "./layout.js";
import type { CatalogOptions } from "./layout.js";
import type { StacItem } from "./item.js";

/** The dataset's Collection: extent, summaries and item_assets from its current Items, which it links. */
export function collectionOf(dataset: string, items: StacItem[], itemKeys: string[], opts: CatalogOptions) {
  const here = opts.collectionKey;
  const boxes = items.flatMap((i) => (i.bbox ? [i.bbox] : []));
  const times = items.flatMap((i) => {
    const p = i.properties as Record<string, string | null>;
    return [p.datetime ?? p.start_datetime, p.datetime ?? p.end_datetime].filter((t): t is string => Boolean(t));
  });
  times.sort();
  const rows = items.map((i) => i.properties["table:row_count"] as number);
  const distinct = (key: string) =>
    [...new Set(items.map((i) => i.properties[key] as string))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    type: "Collection",
    stac_version: "1.1.0",
    stac_extensions: [EXTENSIONS[2], EXTENSIONS[1]],
    id: dataset,
    title: opts.title ?? dataset,
    description:
      opts.description ??
      `${dataset}: partitioned GeoParquet kept by georefresh, one Item per current partition (region × logical date)`,
    license: opts.license,
    extent: {
      spatial: { bbox: [unionBbox(boxes) ?? ([-180, -90, 180, 90] as Bbox)] },
      temporal: { interval: [[times[0] ?? null, times[times.length - 1] ?? null]] },
    },
    summaries: {
      "georefresh:region": distinct("georefresh:region"),
      "proj:code": distinct("proj:code"),
      "table:row_count": { minimum: rows.length ? Math.min(...rows) : 0, maximum: rows.length ? Math.max(...rows) : 0 },
    },
    item_assets: {
      data: { type: "application/vnd.apache.parquet", roles: ["data"], title: "GeoParquet artifact of the partition" },
    },
    assets: {
      items: {
        href: relativeHref(here, itemsParquetKey(dataset)),
        type: "application/vnd.apache.parquet",
        title: "Every current Item as stac-geoparquet: choose partitions by bbox and date in one query",
        roles: ["metadata"],
      },
    },
    links: [
      { rel: "self", href: opts.locate(here), type: "application/json" },
      { rel: "root", href: "./collection.json", type: "application/json" },
      ...itemKeys.map((k) => ({ rel: "item", href: relativeHref(here, k), type: "application/geo+json" })),
    ],
  };
}
