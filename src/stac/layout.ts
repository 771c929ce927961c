import { posix } from "node:path";
import type { Partition } from "../manifest/layout.js";

/** Where the catalog of a dataset lives in the store (docs/stac.md). */
export const stacPrefix = (dataset: string) => `stac/${dataset}/`;
export const collectionKey = (dataset: string) => `stac/${dataset}/collection.json`;
export const itemsParquetKey = (dataset: string) => `stac/${dataset}/items.parquet`;
/** Stable per partition: the same id whatever artifact is current. */
export const itemId = (p: Partition) => `${p.dataset}-${p.region}-${p.date}`;
export const itemKey = (p: Partition) => `stac/${p.dataset}/items/${itemId(p)}.json`;
/** An earlier version's Item, kept while manifest history keeps the entry. */
export const versionItemKey = (p: Partition, key: string) => `stac/${p.dataset}/versions/${itemId(p)}/${key}.json`;

/** The extensions every Item declares (the versions our test schemas are written from). */
export const EXTENSIONS = [
  "https://stac-extensions.github.io/file/v2.1.0/schema.json",
  "https://stac-extensions.github.io/projection/v2.0.0/schema.json",
  "https://stac-extensions.github.io/table/v1.2.0/schema.json",
  "https://stac-extensions.github.io/version/v1.2.0/schema.json",
] as const;

export interface CatalogOptions {
  cadence: "daily" | "monthly";
  /** SPDX id or "other" (the default). */
  license: string;
  title?: string;
  description?: string;
  collectionKey: string;
  /** The absolute location of a key, for `self` links. */
  locate(key: string): string;
}

/** A relative href from one key to another, resolved as a URL against the first key's location. */
export function relativeHref(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to);
  return rel.startsWith(".") ? rel : `./${rel}`;
}
