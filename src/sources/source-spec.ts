import type { PlausibilityRules } from "../task/task.js";
import type { SourceFormatName } from "./formats.js";
import type { ReadingOptions } from "./source-options.js";

export type { SourceFormatName } from "./formats.js";
export type { GeometryColumns, SourceColumn } from "./source-options.js";

/**
 * A dataset read from a feed by config alone (docs/sources.md). Plain data: it travels in the task's reference to
 * worker threads and processes, which build the same task from it.
 */
export interface SourceSpec extends ReadingOptions {
  /** The dataset's name: the task's name. */
  dataset: string;
  /** A path (absolute once the config is loaded), file://, s3://, az:// or http(s):// URL; {region} and {date}. */
  url: string;
  format: SourceFormatName;
  /** The natural key, by the dataset's column names. */
  key?: string[];
  /** true (default): each file is the whole partition. false: a delta feed merged by key (`_deleted` removes). */
  complete: boolean;
  /**
   * The url has no {date} (the feed as it is now) and the source did not say "undated": "every-date": only the
   * last logical date of a window reads it; earlier dates keep what they have.
   */
  latestOnly?: boolean;
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
